// Tests of the repository's README: its shell blocks run as typed.
package lovbench_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// readmeSkipped are the README's commands this test does not run, each
// with its reason; every one must still be in the README.
var readmeSkipped = map[string]string{
	"go test ./...":              "the test suite, which runs this test",
	"bash .ci/run":               "CI itself, which runs the test suite",
	"(cd beam && go test ./...)": "the beam/ module's tests, which .ci/run runs",
}

// readmeBlocks returns the README's ```sh blocks, in order.
func readmeBlocks(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// TestREADMEShellBlocksRun runs every ```sh block of README.md as a user
// would, in order, in one bash per block, on a scratch copy of the
// repository (a directory of links to its top-level entries, so that
// nothing is written into the repository): Quick start's `go install`
// builds lovbench once, into a temporary GOBIN that is on the PATH; its
// demo's outputs then feed "Building a benchmark by hand" line by line.
// Two things differ from a user's shell, both stated here: the paths under
// /tmp/ are moved under the test's temporary directory, and the commands
// of readmeSkipped are left out. A command that fails fails the test.
func TestREADMEShellBlocksRun(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	work := filepath.Join(scratch, "clone")
	for _, d := range []string{work, filepath.Join(scratch, "bin"), filepath.Join(scratch, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(work, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GOBIN="+filepath.Join(scratch, "bin"), "PATH="+filepath.Join(scratch, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	skipped := map[string]bool{}
	ran := 0
	for i, block := range readmeBlocks(t) {
		// Lines joined at a trailing backslash, as bash reads them.
		var script []string
		for _, line := range strings.Split(strings.ReplaceAll(block, "\\\n", " "), "\n") {
			cmd := strings.TrimSpace(line)
			if j := strings.Index(cmd, "  #"); j >= 0 {
				cmd = strings.TrimSpace(cmd[:j])
			}
			if cmd == "" {
				continue
			}
			if _, ok := readmeSkipped[cmd]; ok {
				skipped[cmd] = true
				continue
			}
			script = append(script, strings.ReplaceAll(line, "/tmp/", filepath.Join(scratch, "tmp")+"/"))
			ran++
		}
		if len(script) == 0 {
			continue
		}
		cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-x", "-c", strings.Join(script, "\n"))
		cmd.Dir, cmd.Env = work, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("README shell block %d: %v\n%s\n--- output ---\n%s", i+1, err, strings.Join(script, "\n"), tail(out.String(), 4000))
		}
		t.Logf("README shell block %d: %d lines ran", i+1, len(script))
	}
	for c, why := range readmeSkipped {
		if !skipped[c] {
			t.Errorf("README no longer has %q (left out: %s); update readmeSkipped", c, why)
		}
	}
	if ran < 20 {
		t.Errorf("only %d README commands ran", ran)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// The README promises byte-identical reruns where it states the
// conventions; ingest without --pii-salt draws a new salt every run, and
// the promise says so in the same place.
func TestREADMEByteIdenticalPromiseNamesPIISalt(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, para := range strings.Split(string(b), "\n- ") {
		if strings.Contains(para, "byte-identical") && strings.Contains(para, "rerun") {
			found = true
			if !strings.Contains(para, "--pii-salt") || !strings.Contains(para, "lovbench ingest") {
				t.Errorf("the README's promise of byte-identical reruns does not name ingest without --pii-salt:\n%s", para)
			}
		}
	}
	if !found {
		t.Error("README: no promise of byte-identical reruns found")
	}
}
