package workdir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/lovbench/lovbench/internal/atomicfile"
)

// ReleaseManifest is release.json, written into every published release.
// It holds no timestamp (the directory name carries it), so two releases of
// the same inputs are byte-identical.
type ReleaseManifest struct {
	// Fingerprint identifies the release's content: the SHA-256 over the
	// fingerprints of the stages it was built from.
	Fingerprint string `json:"fingerprint"`
	// Stages maps each stage to its fingerprint.
	Stages map[string]string `json:"stages"`
	// Files maps each published file (slash path) to its SHA-256.
	Files map[string]string `json:"files_sha256"`
}

// ReleaseItem is one file or directory to publish: Src is copied to Dst
// (a slash path relative to the release directory).
type ReleaseItem struct {
	Src, Dst string
}

// Publish copies the items into a new release directory
// DIR/releases/TIMESTAMP (UTC, e.g. 20261122T050415Z) and swaps the
// DIR/releases/latest link to it. The release is assembled in a staging
// directory and renamed into place, then the link is replaced by renaming a
// new link over it, so readers never see a partial release. If latest
// already has the same fingerprint, nothing is published and latest's name
// is returned with published = false.
func (w *Workdir) Publish(items []ReleaseItem, stageFPs map[string]string, now time.Time) (name string, published bool, err error) {
	relDir := filepath.Join(w.root, "releases")
	h := sha256.New()
	io.WriteString(h, "lovbench-release-v1\x00")
	for _, k := range slices.Sorted(maps.Keys(stageFPs)) {
		fmt.Fprintf(h, "%s\x00%s\x00", k, stageFPs[k])
	}
	for _, it := range items {
		fmt.Fprintf(h, "item\x00%s\x00", it.Dst)
	}
	fp := hex.EncodeToString(h.Sum(nil))
	if cur, err := os.Readlink(filepath.Join(relDir, "latest")); err == nil {
		if m, err := ReadRelease(filepath.Join(relDir, cur)); err == nil && m.Fingerprint == fp {
			// Same stages; trusted only if its files are still the
			// bytes release.json lists (its files are hard links of the
			// stage outputs: an edit in place changes both).
			why := recordMatches(filepath.Join(relDir, cur), cur)
			if why == "" {
				return cur, false, nil
			}
			w.log.Warn("latest release changed since it was published; publishing it again", "release", filepath.Join(relDir, cur), "why", why)
		}
	}
	tmpName, err := w.mkdirMade("releases", ".tmp-release-")
	if err != nil {
		return "", false, err
	}
	tmp := filepath.Join(relDir, tmpName)
	defer func() {
		if _, err := os.Lstat(tmp); err == nil {
			w.removeMade("releases", tmpName)
		}
	}()
	for _, it := range items {
		if err := copyTree(it.Src, filepath.Join(tmp, filepath.FromSlash(it.Dst))); err != nil {
			return "", false, fmt.Errorf("publish %s: %w", it.Dst, err)
		}
	}
	files, err := HashTree(tmp)
	if err != nil {
		return "", false, err
	}
	delete(files, "release.json")
	m := ReleaseManifest{Fingerprint: fp, Stages: stageFPs, Files: files}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", false, err
	}
	if err := atomicfile.WriteBytes(filepath.Join(tmp, "release.json"), append(b, '\n')); err != nil {
		return "", false, err
	}
	// release.json is the proof from now on (removeProven).
	if err := atomicfile.UnmarkStaging(tmp); err != nil {
		return "", false, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", false, err
	}
	if err := atomicfile.SyncTree(tmp); err != nil {
		return "", false, err
	}
	w.crashPoint("release", "copied")
	base := now.UTC().Format("20060102T150405Z")
	name = base
	for i := 1; ; i++ {
		if _, err := os.Lstat(filepath.Join(relDir, name)); os.IsNotExist(err) {
			break
		}
		name = base + "-" + strconv.Itoa(i)
	}
	if err := w.renameMade("releases", tmpName, name); err != nil {
		return "", false, err
	}
	if err := atomicfile.SyncDir(relDir); err != nil {
		return "", false, err
	}
	w.crashPoint("release", "renamed")
	if err := w.swapLink("releases", "latest", name); err != nil {
		return "", false, err
	}
	return name, true, nil
}

// ReadRelease reads release.json of a release directory.
func ReadRelease(dir string) (*ReleaseManifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "release.json"))
	if err != nil {
		return nil, fmt.Errorf("release %s: %w", dir, err)
	}
	var m ReleaseManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("release %s: release.json: %w", dir, err)
	}
	return &m, nil
}

// copyTree copies a file or a directory tree. Files are hard-linked when
// possible (committed stage outputs are never modified in place) and copied
// otherwise. Stage stamps (.stage.json) are not copied.
func copyTree(src, dst string) error {
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return copyFile(src, dst)
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if rel == StampFile {
			return nil
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
}

func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Releases lists the release names of a work directory, oldest first.
func Releases(workdir string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(workdir, "releases"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && e.Name()[0] != '.' {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}
