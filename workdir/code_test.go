package workdir

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/internal/filehash"
)

// TestCodeIdentityIsGoContentID: the program's identity is the content ID
// that `go tool buildid` reads from the executable (the go command's hash
// of the file), and a file without a Go build ID has none, so it is
// hashed instead.
func TestCodeIdentityIsGoContentID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Skipf("go tool buildid: %v", err)
	}
	parts := strings.Split(strings.TrimSpace(string(out)), "/")
	if len(parts) != 4 {
		t.Fatalf("go tool buildid %s = %q, want four parts", exe, out)
	}
	if got := goContentID(exe); got != parts[3] {
		t.Errorf("goContentID = %q, want %q (go tool buildid)", got, parts[3])
	}
	id, err := codeIdentity()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(id, " content="+parts[3]) {
		t.Errorf("codeIdentity = %q, want it to end with content=%s", id, parts[3])
	}
	// Not an executable: no content ID.
	p := filepath.Join(t.TempDir(), "x")
	if err := os.WriteFile(p, []byte("\x7fELF not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := goContentID(p); got != "" {
		t.Errorf("goContentID(not ELF) = %q, want empty", got)
	}
}

// BenchmarkCodeIdentity: the program's identity as Open computes it (the
// content ID read from the build ID note) against hashing the executable
// with SHA-256, as Open did before.
func BenchmarkCodeIdentity(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("content-id", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := codeIdentity(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sha256", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := filehash.SHA256(exe); err != nil {
				b.Fatal(err)
			}
		}
	})
}
