package lbbeam

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/lovbench/lovbench/internal/atomicfile"
)

// Output directories. lovbench-beam holds its outputs to lovbench's rule
// (internal/atomicfile): no run deletes or overwrites a file it did not
// write. An output directory may be missing or empty, or be an earlier
// output of the same command exactly as its index (atomicfile.IndexFile)
// lists it; anything else is refused before the pipeline runs
// (atomicfile.CheckReplaceable, one home for the check on both kinds of
// path).
//
// A local directory is built beside its target and published whole
// (atomicfile.CreateDir): a failed run leaves the target as it was. An
// object store has no rename of a prefix, so a URL is written in place:
// Start removes the earlier output's files (each listed by its index and
// unchanged, so the command's), the pipeline writes the new ones, and
// Commit writes the index last, listing what the prefix then holds. A run
// that fails on an object store leaves its files without an index, which
// the next run refuses: see beam/README.md.

// Output is the output directory of one run.
type Output struct {
	target, marker string
	names          []string        // what the command writes (atomicfile.CreateDir)
	dir            *atomicfile.Dir // a local target; nil for a URL
}

// CreateOutput checks that target may receive the output of the command
// whose marker file (every output of it has one) is marker, and returns
// the run's output. It deletes nothing: a local target gets a new
// directory beside it, a URL is only checked. A target that may hold
// files not the command's is a *atomicfile.RefusedError; names are the
// patterns of the files the command writes besides its marker
// (atomicfile.CreateDir), so that an index listing anything else is not
// trusted.
func CreateOutput(ctx context.Context, target, marker string, names ...string) (*Output, error) {
	if !IsRemote(target) {
		d, err := atomicfile.CreateDir(target, marker, names...)
		if err != nil {
			return nil, err
		}
		return &Output{target: target, marker: marker, names: names, dir: d}, nil
	}
	if err := CheckPath(target); err != nil {
		return nil, err
	}
	sfs, err := newStoreFS(ctx, target)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.CheckReplaceable(sfs, target, marker, names...); err != nil {
		return nil, err
	}
	return &Output{target: target, marker: marker, names: names}, nil
}

// Path is the directory the pipeline writes into: for a local target the
// new directory beside it, for a URL the target itself.
func (o *Output) Path() string {
	if o.dir != nil {
		return o.dir.Path()
	}
	return strings.TrimRight(o.target, "/")
}

// Start readies a URL target for the pipeline, right before it runs: it
// checks the target again and removes the files of the earlier output it
// holds (the index last), so that the run starts from an empty prefix.
// For a local target it does nothing.
func (o *Output) Start(ctx context.Context) error {
	if o.dir != nil {
		return nil
	}
	sfs, err := newStoreFS(ctx, o.target)
	if err != nil {
		return err
	}
	if err := atomicfile.CheckReplaceable(sfs, o.target, o.marker, o.names...); err != nil {
		return err
	}
	var files []string
	for rel := range sfs.files {
		if rel != atomicfile.IndexFile {
			files = append(files, rel)
		}
	}
	sort.Strings(files)
	if sfs.files[atomicfile.IndexFile] {
		files = append(files, atomicfile.IndexFile)
	}
	_, rm, err := remover(o.target)
	if err != nil {
		return err
	}
	for _, rel := range files {
		if err := rm.Remove(ctx, JoinPath(o.Path(), rel)); err != nil {
			return pathErr(JoinPath(o.Path(), rel), err)
		}
	}
	return nil
}

// Commit publishes the output once the pipeline has run: a local
// directory replaces the target whole (atomicfile.Dir.Commit); on an
// object store the index of what the prefix holds is written last.
func (o *Output) Commit(ctx context.Context) error {
	if o.dir != nil {
		return o.dir.Commit()
	}
	sfs, err := newStoreFS(ctx, o.target)
	if err != nil {
		return err
	}
	b, err := atomicfile.MakeIndex(sfs, o.marker)
	if err != nil {
		return fmt.Errorf("index of %s: %w", o.target, err)
	}
	return writeBytes(ctx, JoinPath(o.Path(), atomicfile.IndexFile), b)
}

// Abort gives up the output: a local target is left as it was (the new
// directory beside it is removed); on an object store the files the run
// wrote stay, without an index.
func (o *Output) Abort() {
	if o.dir != nil {
		o.dir.Abort()
	}
}

// scratchName matches the files a fit writes into its scratch directory
// (PreparedPath, valuesPath, chainPath), and the temporary file a killed local write
// of one of them leaves (atomicfile.Create).
var scratchName = regexp.MustCompile(`^(\.)?(shard-[0-9]{5,}\.prep|(values|chain)-[0-9]{5,}-[A-Za-z0-9]+-[0-9a-f]{32})(\.tmp-[0-9]+)?$`)

// RemoveScratch removes the files the fit pipeline wrote into its scratch
// directory dir (prepared shards, values and chain files), and dir itself
// when it is local. Nothing else is removed: a file of another name in
// dir is an error naming it, and stays.
func RemoveScratch(ctx context.Context, dir string) error {
	var left []string
	if !IsRemote(dir) {
		ents, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, e := range ents {
			if !e.Type().IsRegular() || !scratchName.MatchString(e.Name()) {
				left = append(left, e.Name())
				continue
			}
			if err := os.Remove(JoinPath(dir, e.Name())); err != nil {
				return err
			}
		}
		if len(left) == 0 {
			return os.Remove(dir)
		}
	} else {
		sfs, err := newStoreFS(ctx, dir)
		if err != nil {
			return err
		}
		_, rm, err := remover(dir)
		if err != nil {
			return err
		}
		for rel := range sfs.files {
			if strings.Contains(rel, "/") || !scratchName.MatchString(rel) {
				left = append(left, rel)
				continue
			}
			if err := rm.Remove(ctx, JoinPath(dir, rel)); err != nil {
				return pathErr(JoinPath(dir, rel), err)
			}
		}
	}
	if len(left) > 0 {
		sort.Strings(left)
		return fmt.Errorf("%s holds files the pipeline did not write (%s): left in place", dir, strings.Join(left, ", "))
	}
	return nil
}

// CheckOutputs refuses outputs that would write over inputs, before
// anything runs: local paths as atomicfile.CheckOutputs does; a URL
// output that names an input URL, or a prefix that holds one.
func CheckOutputs(inputs, outputs []atomicfile.Arg) error {
	var li, lo, ri, ro []atomicfile.Arg
	for _, a := range inputs {
		if IsRemote(a.Path) {
			ri = append(ri, a)
		} else {
			li = append(li, a)
		}
	}
	for _, a := range outputs {
		if IsRemote(a.Path) {
			ro = append(ro, a)
		} else {
			lo = append(lo, a)
		}
	}
	if err := atomicfile.CheckOutputs(li, lo); err != nil {
		return err
	}
	for _, o := range ro {
		dir := strings.TrimRight(o.Path, "/")
		for _, in := range ri {
			p := strings.TrimRight(in.Path, "/")
			if p == dir || strings.HasPrefix(p, dir+"/") {
				return fmt.Errorf("%s %s holds the input %s %s: writing it would delete or overwrite the input; give another output", o.Flag, o.Path, in.Flag, in.Path)
			}
		}
	}
	return nil
}

// maxDepth is how many levels under a prefix newStoreFS lists: Beam's
// file systems match a glob's "*" within one level only, so a prefix is
// listed level by level.
const maxDepth = 32

// storeFS is the objects under a prefix of an object store as an fs.FS
// (files and the directories their names imply), listed once, for
// atomicfile's index and check. Files are read through Beam's file
// system when opened.
type storeFS struct {
	ctx   context.Context
	fsys  filesystem.Interface
	root  string
	files map[string]bool
	dirs  map[string][]string // directory ("." the root) -> names in it
}

func newStoreFS(ctx context.Context, root string) (*storeFS, error) {
	fsys, err := remoteFS(root)
	if err != nil {
		return nil, err
	}
	root = strings.TrimRight(root, "/")
	s := &storeFS{ctx: ctx, fsys: fsys, root: root, files: map[string]bool{}, dirs: map[string][]string{}}
	seenDir := map[string]bool{}
	addDir := func(d string) {
		for d != "." && !seenDir[d] {
			seenDir[d] = true
			parent := path.Dir(d)
			s.dirs[parent] = append(s.dirs[parent], path.Base(d))
			d = parent
		}
	}
	glob := root
	for range maxDepth {
		glob += "/*"
		found, err := fsys.List(ctx, glob)
		if err != nil {
			return nil, pathErr(root, err)
		}
		for _, f := range found {
			rel, ok := strings.CutPrefix(f, root+"/")
			if !ok {
				return nil, fmt.Errorf("%s: listed %s, which is not under it", root, f)
			}
			if strings.HasSuffix(rel, "/") || rel == "" { // a "folder" placeholder object
				if d := strings.TrimRight(rel, "/"); d != "" {
					addDir(d)
				} else if _, ok := s.dirs["."]; !ok {
					s.dirs["."] = nil // the prefix itself: there, and empty
				}
				continue
			}
			if !fs.ValidPath(rel) {
				return nil, fmt.Errorf("%s: object %q has a name no index can list", root, f)
			}
			s.files[rel] = true
			addDir(path.Dir(rel))
			parent := path.Dir(rel)
			s.dirs[parent] = append(s.dirs[parent], path.Base(rel))
		}
	}
	for d := range seenDir {
		if s.files[d] {
			return nil, fmt.Errorf("%s: %s is both an object and a prefix of others", root, JoinPath(root, d))
		}
	}
	for d := range s.dirs {
		sort.Strings(s.dirs[d])
		s.dirs[d] = slices.Compact(s.dirs[d])
	}
	return s, nil
}

func (s *storeFS) info(name string) (*storeInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if s.files[name] {
		return &storeInfo{s: s, name: name}, nil
	}
	if _, ok := s.dirs[name]; ok {
		return &storeInfo{s: s, name: name, dir: true}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: JoinPath(s.root, name), Err: fs.ErrNotExist}
}

// Stat implements fs.StatFS.
func (s *storeFS) Stat(name string) (fs.FileInfo, error) { return s.info(name) }

// ReadDir implements fs.ReadDirFS.
func (s *storeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	fi, err := s.info(name)
	if err != nil {
		return nil, err
	}
	if !fi.dir {
		return nil, &fs.PathError{Op: "readdir", Path: JoinPath(s.root, name), Err: errors.New("not a directory")}
	}
	var out []fs.DirEntry
	for _, n := range s.dirs[name] {
		sub, err := s.info(path.Join(name, n))
		if err != nil {
			return nil, err
		}
		out = append(out, fs.FileInfoToDirEntry(sub))
	}
	return out, nil
}

// Open implements fs.FS; a file's object is opened on its first read.
func (s *storeFS) Open(name string) (fs.File, error) {
	fi, err := s.info(name)
	if err != nil {
		return nil, err
	}
	return &storeFile{info: fi}, nil
}

type storeInfo struct {
	s    *storeFS
	name string
	dir  bool
	size *int64
}

func (i *storeInfo) Name() string { return path.Base(i.name) }
func (i *storeInfo) Size() int64 {
	if i.dir {
		return 0
	}
	if i.size == nil {
		n, err := i.s.fsys.Size(i.s.ctx, JoinPath(i.s.root, i.name))
		if err != nil {
			n = -1 // unknown: differs from every recorded size
		}
		i.size = &n
	}
	return *i.size
}
func (i *storeInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (i *storeInfo) ModTime() time.Time { return time.Time{} }
func (i *storeInfo) IsDir() bool        { return i.dir }
func (i *storeInfo) Sys() any           { return nil }

type storeFile struct {
	info *storeInfo
	r    io.ReadCloser
}

func (f *storeFile) Stat() (fs.FileInfo, error) { return f.info, nil }

func (f *storeFile) Read(p []byte) (int, error) {
	if f.info.dir {
		return 0, &fs.PathError{Op: "read", Path: f.info.name, Err: errors.New("is a directory")}
	}
	if f.r == nil {
		r, err := openRead(f.info.s.ctx, JoinPath(f.info.s.root, f.info.name))
		if err != nil {
			return 0, err
		}
		f.r = r
	}
	return f.r.Read(p)
}

func (f *storeFile) Close() error {
	if f.r != nil {
		return f.r.Close()
	}
	return nil
}
