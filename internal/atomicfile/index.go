package atomicfile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lovbench/lovbench/internal/filehash"
)

// IndexFile is the file that Dir.Commit writes into every output directory
// it publishes: the command's marker and every file of the directory with
// its size and SHA-256 (and every subdirectory), in a fixed order, so that
// reruns with the same inputs write it byte-identically. CreateDir replaces
// a directory only when it holds exactly what its IndexFile lists.
//
// It is a file of its own rather than a field of the command's index
// (manifest.json, report.json, metrics.json, results.json), whose formats
// differ (fit's metrics.json is a JSON array read by other tools): one
// format, written and checked in one place, for every command.
const IndexFile = ".lovbench-files.json"

// Index is the content of IndexFile.
type Index struct {
	// Marker is the command's marker file (say manifest.json): a directory
	// is replaced only by a command with the same marker.
	Marker string `json:"marker"`
	// Dirs are the subdirectories, as sorted slash paths.
	Dirs []string `json:"dirs,omitempty"`
	// Files are the files other than IndexFile, sorted by path.
	Files []IndexEntry `json:"files"`
}

// IndexEntry is one file of an Index.
type IndexEntry struct {
	Path   string `json:"path"` // slash path relative to the directory
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"` // lower-case hex
}

// writeIndex lists the content of dir into dir/IndexFile.
func writeIndex(dir, marker string) error {
	b, err := MakeIndex(os.DirFS(dir), marker)
	if err != nil {
		return err
	}
	return WriteBytes(filepath.Join(dir, IndexFile), b)
}

// MakeIndex returns the IndexFile of the directory fsys (every file and
// directory in it but the IndexFile itself, with the command's marker):
// what Dir.Commit writes, for a directory that is not published by a
// rename (an object store's prefix, whose index is written last).
func MakeIndex(fsys fs.FS, marker string) ([]byte, error) {
	idx := Index{Marker: marker, Files: []IndexEntry{}}
	err := walkOutput(fsys, func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			idx.Dirs = append(idx.Dirs, rel)
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file (an output holds files and directories only)", rel)
		}
		n, sum, err := sizeSHA256(fsys, rel)
		if err != nil {
			return err
		}
		idx.Files = append(idx.Files, IndexEntry{Path: rel, Bytes: n, SHA256: sum})
		return nil
	})
	if err != nil {
		return nil, err
	}
	// WalkDir visits in lexical order of each directory's names, which is
	// not the order of the joined paths ("a/b" < "a.txt" but "a" is
	// visited first), so sort the lists themselves.
	sort.Strings(idx.Dirs)
	sort.Slice(idx.Files, func(i, j int) bool { return idx.Files[i].Path < idx.Files[j].Path })
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// sizeSHA256 returns the size and SHA-256 of the file rel of fsys.
func sizeSHA256(fsys fs.FS, rel string) (int64, string, error) {
	f, err := fsys.Open(rel)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	n, sum, err := filehash.ReaderSizeSHA256(f)
	if err != nil {
		return 0, "", fmt.Errorf("%s: %w", rel, err)
	}
	return n, sum, nil
}

// walkOutput calls fn for every entry of fsys (not following links) but
// its root, its IndexFile and its StagingFile, with its slash path; fn may
// return
// fs.SkipDir.
func walkOutput(fsys fs.FS, fn func(rel string, d fs.DirEntry) error) error {
	return fs.WalkDir(fsys, ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if rel == "." || rel == IndexFile || rel == StagingFile {
			return nil
		}
		return fn(rel, d)
	})
}

// readIndex reads and checks the IndexFile of fsys: every path local and
// in slash form, none twice, sizes non-negative, hashes 64 hex digits.
func readIndex(fsys fs.FS) (*Index, error) {
	b, err := fs.ReadFile(fsys, IndexFile)
	if err != nil {
		return nil, err
	}
	var idx Index
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	check := func(p string) error {
		switch {
		case p == "" || p == IndexFile || !filepath.IsLocal(p) || strings.Contains(p, `\`) || filepath.ToSlash(filepath.Clean(p)) != p:
			return fmt.Errorf("path %q is not a plain relative path", p)
		case seen[p]:
			return fmt.Errorf("path %q listed twice", p)
		}
		seen[p] = true
		return nil
	}
	for _, d := range idx.Dirs {
		if err := check(d); err != nil {
			return nil, err
		}
	}
	for _, f := range idx.Files {
		if err := check(f.Path); err != nil {
			return nil, err
		}
		if _, err := hex.DecodeString(f.SHA256); err != nil || len(f.SHA256) != 2*sha256.Size || strings.ToLower(f.SHA256) != f.SHA256 || f.Bytes < 0 {
			return nil, fmt.Errorf("%s: size %d or SHA-256 %q is not valid", f.Path, f.Bytes, f.SHA256)
		}
	}
	return &idx, nil
}

// IndexDiff is how a directory differs from its IndexFile, as sorted slash
// paths (a directory's with a trailing slash).
type IndexDiff struct {
	Added, Changed, Missing []string
}

// Empty reports whether the directory is exactly as listed.
func (d IndexDiff) Empty() bool {
	return len(d.Added)+len(d.Changed)+len(d.Missing) == 0
}

// String lists the differences, at most ten names of each kind.
func (d IndexDiff) String() string {
	var parts []string
	for _, k := range []struct {
		what  string
		names []string
	}{{"added", d.Added}, {"changed", d.Changed}, {"missing", d.Missing}} {
		if len(k.names) == 0 {
			continue
		}
		parts = append(parts, k.what+": "+listNames(k.names))
	}
	return strings.Join(parts, "; ")
}

// listNames joins at most ten names, saying how many more there are.
func listNames(names []string) string {
	const show = 10
	list := strings.Join(names[:min(show, len(names))], ", ")
	if len(names) > show {
		list += fmt.Sprintf(" and %d more", len(names)-show)
	}
	return list
}

// diffIndex compares fsys with idx: files and directories in it that idx
// does not list (added), listed files whose type, size or SHA-256 differ
// (changed), and listed ones dir lacks (missing). Sizes are compared
// first, so a changed file of another size is not read.
func diffIndex(fsys fs.FS, idx *Index) (IndexDiff, error) {
	var diff IndexDiff
	files := map[string]IndexEntry{}
	for _, f := range idx.Files {
		files[f.Path] = f
	}
	dirs := map[string]bool{}
	for _, d := range idx.Dirs {
		dirs[d] = true
	}
	seen := map[string]bool{}
	err := walkOutput(fsys, func(rel string, d fs.DirEntry) error {
		seen[rel] = true
		if d.IsDir() {
			if !dirs[rel] {
				if _, ok := files[rel]; ok {
					diff.Changed = append(diff.Changed, rel)
				} else {
					diff.Added = append(diff.Added, rel+"/")
				}
				return fs.SkipDir // what is inside is the user's, too
			}
			return nil
		}
		f, ok := files[rel]
		switch {
		case !ok && leftover(rel, files):
			return nil
		case !ok && dirs[rel]:
			diff.Changed = append(diff.Changed, rel+"/")
		case !ok:
			diff.Added = append(diff.Added, rel)
		case !d.Type().IsRegular():
			diff.Changed = append(diff.Changed, rel)
		default:
			st, err := d.Info()
			if err != nil {
				return err
			}
			if st.Size() != f.Bytes {
				diff.Changed = append(diff.Changed, rel)
				return nil
			}
			_, sum, err := sizeSHA256(fsys, rel)
			if err != nil {
				return err
			}
			if sum != f.SHA256 {
				diff.Changed = append(diff.Changed, rel)
			}
		}
		return nil
	})
	if err != nil {
		return diff, err
	}
	for _, d := range idx.Dirs {
		if !seen[d] {
			diff.Missing = append(diff.Missing, d+"/")
		}
	}
	for _, f := range idx.Files {
		if !seen[f.Path] {
			diff.Missing = append(diff.Missing, f.Path)
		}
	}
	for _, l := range [][]string{diff.Added, diff.Changed, diff.Missing} {
		sort.Strings(l)
	}
	return diff, nil
}

// leftover reports whether rel is the temporary file that an atomic write
// (Create) of a listed file, or of the index, left when it was killed:
// ".<name>.tmp-<digits>" beside the listed <name>. Nothing else unlisted is
// taken for the command's.
func leftover(rel string, files map[string]IndexEntry) bool {
	dir, base := path.Split(rel)
	name, suffix, ok := strings.Cut(strings.TrimPrefix(base, "."), ".tmp-")
	if !ok || !strings.HasPrefix(base, ".") || suffix == "" || strings.Trim(suffix, "0123456789") != "" {
		return false
	}
	_, listed := files[dir+name]
	return listed || dir+name == IndexFile
}

// RefusedError says that an output directory is not replaced because it
// may hold files that are not the command's (CheckReplaceable).
type RefusedError struct{ msg string }

func (e *RefusedError) Error() string { return e.msg }

// checkReplaceable is CheckReplaceable for the local directory target.
func checkReplaceable(target, marker string, names ...string) error {
	if st, err := os.Stat(target); err == nil && !st.IsDir() {
		return &RefusedError{fmt.Sprintf("%s exists and is not a directory", target)}
	}
	return CheckReplaceable(os.DirFS(target), target, marker, names...)
}

// CheckReplaceable returns an error unless the directory fsys (named name
// in messages) is missing, empty, or an output of the command with this
// marker that holds exactly what its IndexFile lists; a directory that may
// hold anything else is a *RefusedError naming what is in the way. fsys
// may be a local directory (os.DirFS) or any other file system that lists
// its directories and opens its files, such as an object store's prefix.
// A directory holding nothing but a StagingFile (a staging directory an
// outer command made for this output) counts as empty. With names (see
// CreateDir), an index listing a path the command never writes is refused:
// the index is a file the user can edit, so it alone proves nothing.
//
// A directory with the marker but no IndexFile was written by a lovbench
// from before the index (whose outputs were trusted by their time stamps):
// it cannot tell the command's files from a user's, so it is refused too,
// with a message saying to remove it (after moving out anything added to
// it) or to choose another directory.
func CheckReplaceable(fsys fs.FS, name, marker string, names ...string) error {
	refuse := func(format string, a ...any) error {
		return &RefusedError{fmt.Sprintf(format, a...)}
	}
	st, err := fs.Stat(fsys, ".")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return refuse("%s exists and is not a directory", name)
	}
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return err
	}
	if len(ents) == 0 || len(ents) == 1 && ents[0].Name() == StagingFile && ents[0].Type().IsRegular() {
		return nil
	}
	idx, err := readIndex(fsys)
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := fs.Stat(fsys, marker); marker != "" && err == nil {
			return refuse("%s holds a %s but no %s: it was written by an earlier lovbench, which did not record its files' checksums, so there is no telling its files from ones added later: not replacing it (move out anything you added and remove it, or choose another directory)", name, marker, IndexFile)
		}
		var names []string
		for _, e := range ents {
			if e.IsDir() {
				names = append(names, e.Name()+"/")
			} else {
				names = append(names, e.Name())
			}
		}
		return refuse("%s is not empty (it holds %s) and holds no %s, so it is not an earlier output of this command: not replacing it (remove it or choose another directory)", name, listNames(names), marker)
	}
	if err != nil {
		return refuse("%s: its %s cannot be read (%v), so there is no telling which files are the command's: not replacing it (remove it or choose another directory)", name, IndexFile, err)
	}
	if idx.Marker != marker {
		return refuse("%s is the output of another command (its %s names %q, this command writes %q): not replacing it (choose another directory)", name, IndexFile, idx.Marker, marker)
	}
	if bad := checkNames(idx, names); len(bad) > 0 {
		return refuse("%s: its %s lists %s, which this command never writes (was the index edited?): not replacing it, which would delete those files (move them elsewhere, or choose another directory)", name, IndexFile, listNames(bad))
	}
	diff, err := diffIndex(fsys, idx)
	if err != nil {
		return err
	}
	if diff.Empty() {
		return nil
	}
	return refuse("%s is an earlier output of this command, but it is not as the command left it (%s): not replacing it, which would delete or overwrite those files (move them elsewhere, or choose another directory)", name, diff)
}
