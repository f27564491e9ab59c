package filehash

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSHA256: the digest of "abc" is the FIPS 180-2 example
// ba7816bf...f20015ad; a missing file is an error.
func TestSHA256(t *testing.T) {
	p := filepath.Join(t.TempDir(), "abc")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := SHA256(p)
	if want := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; err != nil || got != want {
		t.Errorf("SHA256 = %q, %v; want %s", got, err, want)
	}
	if _, err := SHA256(p + ".missing"); err == nil {
		t.Error("missing file: no error")
	}
}
