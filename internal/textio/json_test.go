package textio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadJSON: a file decodes; a malformed one is an error naming the
// file; a missing one is fs.ErrNotExist.
func TestReadJSON(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	os.WriteFile(good, []byte(`{"a": 3}`), 0o644)
	os.WriteFile(bad, []byte(`{"a": `), 0o644)
	var v struct{ A int }
	if err := ReadJSON(good, &v); err != nil || v.A != 3 {
		t.Errorf("good: %v, a = %d", err, v.A)
	}
	if err := ReadJSON(bad, &v); err == nil || !strings.HasPrefix(err.Error(), bad+": ") {
		t.Errorf("bad: %v, want an error naming %s", err, bad)
	}
	if err := ReadJSON(filepath.Join(dir, "none.json"), &v); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}
