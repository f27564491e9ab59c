package atomicfile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCheckReplaceable checks the directory check against an oracle
// written here, for directories laid out from fuzzed text ("path=content"
// lines) with a fuzzed index or the one Commit writes:
//
//   - whatever the index holds, a directory is accepted only if every file
//     in it (the index aside) is listed with the SHA-256 of its content,
//     every listed file is there, and the marker is the command's;
//   - with the index Commit writes, the directory is accepted, and after
//     any one change (a byte appended to a file, a file added or removed)
//     it is refused.
func FuzzCheckReplaceable(f *testing.F) {
	f.Add("marker=m\na=1\nsub/b=2", []byte(nil), uint8(0))
	f.Add("marker=m\na=1", []byte(`{"marker":"marker","files":[{"path":"a","bytes":1,"sha256":"6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b"}]}`), uint8(1))
	f.Add("marker=\nx/y/z=", []byte(`{"marker":"marker","dirs":["x","x/y"],"files":[]}`), uint8(7))
	f.Fuzz(func(t *testing.T, layout string, index []byte, change uint8) {
		dir := t.TempDir()
		var paths []string
		for _, line := range strings.Split(layout, "\n") {
			p, content, _ := strings.Cut(line, "=")
			if p == "" || !filepath.IsLocal(p) || p == IndexFile || strings.ContainsAny(p, "\\\x00:") || len(paths) > 8 {
				continue
			}
			full := filepath.Join(dir, p)
			if os.MkdirAll(filepath.Dir(full), 0o755) != nil || os.WriteFile(full, []byte(content), 0o644) != nil {
				continue // a path under a file of an earlier line
			}
			paths = append(paths, filepath.ToSlash(filepath.Clean(p)))
		}
		if index == nil {
			if err := writeIndex(dir, "marker"); err != nil {
				t.Fatal(err)
			}
			if err := checkReplaceable(dir, "marker"); err != nil {
				t.Fatalf("directory as Commit left it refused: %v", err)
			}
			if len(paths) == 0 {
				return
			}
			p := filepath.Join(dir, filepath.FromSlash(paths[int(change)%len(paths)]))
			switch st, err := os.Stat(p); {
			case err != nil || st.IsDir():
				return // a later line replaced it, or it is a directory now
			case change%3 == 0:
				fh, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
				fh.Write([]byte{change})
				fh.Close()
			case change%3 == 1:
				os.Remove(p)
			default:
				os.WriteFile(p+".user", nil, 0o644)
			}
			if err := checkReplaceable(dir, "marker"); err == nil {
				t.Fatalf("changed directory (change %d on %s) accepted", change, p)
			}
			return
		}
		os.WriteFile(filepath.Join(dir, IndexFile), index, 0o644)
		if checkReplaceable(dir, "marker") != nil {
			return
		}
		var idx struct {
			Marker string
			Files  []struct {
				Path, SHA256 string
			}
		}
		if err := json.Unmarshal(index, &idx); err != nil {
			t.Fatalf("accepted with an index that is not JSON: %v", err)
		}
		if idx.Marker != "marker" {
			t.Fatalf("accepted with marker %q", idx.Marker)
		}
		listed := map[string]string{}
		for _, e := range idx.Files {
			listed[e.Path] = e.SHA256
		}
		n := 0
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() == IndexFile {
				return err
			}
			n++
			rel, _ := filepath.Rel(dir, p)
			b, _ := os.ReadFile(p)
			sum := sha256.Sum256(b)
			if want, ok := listed[filepath.ToSlash(rel)]; !ok || want != hex.EncodeToString(sum[:]) {
				t.Fatalf("accepted with %s unlisted or changed", rel)
			}
			return nil
		})
		if n != len(listed) {
			t.Fatalf("accepted with %d files, %d listed", n, len(listed))
		}
	})
}
