package lbbeam

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/shards"
)

// Paths. Every file the pipelines read or write (the input logs and the
// PII blacklist, the shard directory, the prepared shards, the outputs)
// is named by a path that is either local (no scheme: a file of the
// machine, or of a file system every worker mounts) or a URL
// "scheme://..." resolved through Beam's file-system layer
// (filesystem.New): gs:// and s3:// when the program imports Beam's gcs
// and s3 packages (lovbench-beam does), memfs:// in tests.
//
// Local paths take the fast path they always took: os files, written
// atomically with internal/atomicfile (temporary file, then rename), so
// the bytes and the behaviour are those of lovbench itself. On an object
// store an object appears only when its writer is closed, whole, so a
// reader never sees a partial file either (writeFile). What Beam's layer
// lacks, ranged reads and seekable readers, shapes the rest: a remote
// plain log is read as one part (PlanParts), a remote shard file is
// copied to a local temporary file before parquet-go reads it
// (openShards), and outputs that lovbench's own writers produce only into
// a local directory (the manifest, the model files, metrics.json) are
// written into a local temporary directory and then copied up
// (stageDir).

// scheme returns the scheme of a URL path ("gs" for gs://b/o), or "" for
// a local path.
func scheme(path string) string {
	if i := strings.Index(path, "://"); i > 0 {
		return path[:i]
	}
	return ""
}

// IsRemote reports whether path is a URL (scheme://...) and not a local
// path.
func IsRemote(path string) bool { return scheme(path) != "" }

// JoinPath returns the path of the file name in directory dir:
// filepath.Join for a local directory, dir + "/" + name for a URL
// (filepath.Join would fold the "//" of the scheme).
func JoinPath(dir, name string) string {
	if !IsRemote(dir) {
		return filepath.Join(dir, name)
	}
	return strings.TrimRight(dir, "/") + "/" + name
}

// baseName returns the last element of path, local or URL.
func baseName(path string) string {
	if !IsRemote(path) {
		return filepath.Base(path)
	}
	p := strings.TrimRight(path, "/")
	return p[strings.LastIndex(p, "/")+1:]
}

var (
	fsMu    sync.Mutex
	fsCache = map[string]filesystem.Interface{}
)

// remoteFS returns the Beam file system of a URL path, one per scheme and
// process (a GCS or S3 client is costly to make, and the prepared shards
// are read in every EM iteration), never closed. It is made with a
// background context: a client keeps its context for token refreshes, and
// a bundle's context ends with the bundle. An unregistered scheme, or a
// file system that cannot start (the S3 one panics on a bad AWS
// configuration), is an error naming the path.
func remoteFS(path string) (fsys filesystem.Interface, err error) {
	s := scheme(path)
	fsMu.Lock()
	defer fsMu.Unlock()
	if f, ok := fsCache[s]; ok {
		return f, nil
	}
	defer func() {
		if r := recover(); r != nil {
			fsys, err = nil, fmt.Errorf("%s: the %s:// file system failed to start: %v", path, s, r)
		}
	}()
	f, err := filesystem.New(context.Background(), path)
	if err != nil { // Beam's error suggests a Go import: for developers
		return nil, fmt.Errorf("%s: no file system for %s:// paths in this program (lovbench-beam reads and writes local paths, gs:// and s3://)", path, s)
	}
	fsCache[s] = f
	return f, nil
}

// CheckPath checks that path can be read or written: a local path always
// can; a URL needs a file system registered for its scheme. Pipelines
// call it when they are built, so that a mistyped scheme fails at once
// and not on a worker.
func CheckPath(path string) error {
	if !IsRemote(path) {
		return nil
	}
	_, err := remoteFS(path)
	return err
}

// pathErr names path in err unless err already does.
func pathErr(path string, err error) error {
	if err == nil || strings.Contains(err.Error(), path) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// openRead opens path for reading from its beginning, as stored.
func openRead(ctx context.Context, path string) (io.ReadCloser, error) {
	if !IsRemote(path) {
		return os.Open(path)
	}
	fsys, err := remoteFS(path)
	if err != nil {
		return nil, err
	}
	r, err := fsys.OpenRead(ctx, path)
	return r, pathErr(path, err)
}

// fileSize returns the size of path in bytes.
func fileSize(ctx context.Context, path string) (int64, error) {
	if !IsRemote(path) {
		st, err := os.Stat(path)
		if err != nil {
			return 0, err
		}
		return st.Size(), nil
	}
	fsys, err := remoteFS(path)
	if err != nil {
		return 0, err
	}
	n, err := fsys.Size(ctx, path)
	return n, pathErr(path, err)
}

// readFile reads the whole of path, into a buffer sized from the file.
func readFile(ctx context.Context, path string) ([]byte, error) {
	if !IsRemote(path) {
		return os.ReadFile(path)
	}
	n, err := fileSize(ctx, path)
	if err != nil {
		return nil, err
	}
	r, err := openRead(ctx, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var buf bytes.Buffer
	buf.Grow(int(n) + bytes.MinRead)
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, pathErr(path, err)
	}
	return buf.Bytes(), nil
}

var gzipMagic = []byte{0x1f, 0x8b}

// OpenText opens a plain or gzip-compressed text file (a log, a PII
// blacklist) without a leading UTF-8 BOM, as sessions.Open does for a
// local path: compression is detected from the magic bytes, and errors,
// a corrupt gzip stream included, name the file.
func OpenText(ctx context.Context, path string) (io.ReadCloser, error) {
	if !IsRemote(path) {
		return sessions.Open(path)
	}
	f, err := openRead(ctx, path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 1<<20)
	if magic, _ := br.Peek(2); bytes.Equal(magic, gzipMagic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: bad gzip header: %w", path, err)
		}
		zb := textio.NewReader(&gzipText{zr: zr, name: path})
		return readCloser{zb, func() error { zr.Close(); return f.Close() }}, nil
	}
	textio.SkipBOM(br)
	return readCloser{br, f.Close}, nil
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }

// gzipText decompresses; a truncated or corrupt stream is an error naming
// the file.
type gzipText struct {
	zr   *gzip.Reader
	name string
}

func (g *gzipText) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: corrupt or truncated gzip data: %w", g.name, err)
	}
	return n, err
}

// writeFile writes path with the content fn produces, so that no reader
// sees a partial file. A local path is written with atomicfile (a
// temporary file beside it, renamed over it; the parent directory is
// created). A URL is streamed to its object through Beam's OpenWrite,
// behind a 1 MiB buffer: object stores publish an object when its writer
// is closed, whole, and not before, so no temporary object and rename
// (on S3 a copy, limited to 5 GB) is needed. If fn or the upload fails,
// the write's context is cancelled before the writer is closed, which
// makes GCS and S3 drop the upload; memfs publishes whatever it holds on
// Close, so a failed write to memfs is not closed at all. Directories
// need no creating on object stores.
func writeFile(ctx context.Context, path string, fn func(w io.Writer) error) error {
	if !IsRemote(path) {
		return atomicfile.WriteFile(path, fn)
	}
	fsys, err := remoteFS(path)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := fsys.OpenWrite(wctx, path)
	if err != nil {
		return pathErr(path, err)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := fn(bw); err != nil {
		abortWrite(path, cancel, w)
		return err
	}
	if err := bw.Flush(); err != nil {
		abortWrite(path, cancel, w)
		return pathErr(path, err)
	}
	return pathErr(path, w.Close())
}

// abortWrite gives up a write to a URL (see writeFile).
func abortWrite(path string, cancel context.CancelFunc, w io.WriteCloser) {
	cancel()
	if scheme(path) != "memfs" {
		w.Close() // the cancelled context makes the store drop the upload
	}
}

// writeBytes writes data to path (writeFile).
func writeBytes(ctx context.Context, path string, data []byte) error {
	return writeFile(ctx, path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeScratch writes data to path as writeBytes does, but a local file
// unsynced (atomicfile.File.SkipSync): for the run's scratch files in its
// prepared-shard directory, which it writes one of per shard and step,
// reads back within the run and removes at its end.
func writeScratch(ctx context.Context, path string, data []byte) error {
	if IsRemote(path) {
		return writeBytes(ctx, path, data)
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	f.SkipSync()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// copyUp copies the local file src to path (writeFile).
func copyUp(ctx context.Context, src, path string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	return writeFile(ctx, path, func(w io.Writer) error {
		_, err := io.Copy(w, f)
		return err
	})
}

// copyDown copies path to the local file dst.
func copyDown(ctx context.Context, path, dst string) error {
	r, err := openRead(ctx, path)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return pathErr(path, err)
	}
	return f.Close()
}

// stageDir runs fn, which writes files into a local directory with
// lovbench's own writers, for the output directory dir. A local dir is
// created and given to fn as it is. For a URL, fn writes into a local
// temporary directory whose files are then copied to dir (writeFile),
// one by one in name order.
func stageDir(ctx context.Context, dir string, fn func(local string) error) error {
	if !IsRemote(dir) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		return fn(dir)
	}
	if err := CheckPath(dir); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "lovbench-beam-out-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := fn(tmp); err != nil {
		return err
	}
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if err := copyUp(ctx, filepath.Join(tmp, e.Name()), JoinPath(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// remover returns the file system of a URL as a filesystem.Remover.
func remover(path string) (filesystem.Interface, filesystem.Remover, error) {
	fsys, err := remoteFS(path)
	if err != nil {
		return nil, nil, err
	}
	rm, ok := fsys.(filesystem.Remover)
	if !ok {
		return nil, nil, fmt.Errorf("%s: the %s:// file system cannot remove files", path, scheme(path))
	}
	return fsys, rm, nil
}

// removeIfExists removes the file path if there is one.
func removeIfExists(ctx context.Context, path string) error {
	if !IsRemote(path) {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	fsys, rm, err := remover(path)
	if err != nil {
		return err
	}
	found, err := fsys.List(ctx, path) // a glob without wildcards: the file itself
	if err != nil {
		return pathErr(path, err)
	}
	if slices.Contains(found, path) {
		return pathErr(path, rm.Remove(ctx, path))
	}
	return nil
}

// ReadManifest reads and checks the manifest of the shard directory dir
// (shards.ReadManifest; for a URL, through a local copy).
func ReadManifest(ctx context.Context, dir string) (shards.Manifest, error) {
	if !IsRemote(dir) {
		return shards.ReadManifest(dir)
	}
	if err := CheckPath(dir); err != nil {
		return shards.Manifest{}, err
	}
	tmp, err := os.MkdirTemp("", "lovbench-beam-manifest-")
	if err != nil {
		return shards.Manifest{}, err
	}
	defer os.RemoveAll(tmp)
	src := JoinPath(dir, shards.ManifestName)
	if err := copyDown(ctx, src, filepath.Join(tmp, shards.ManifestName)); err != nil {
		return shards.Manifest{}, fmt.Errorf("shards: %w (not a shard directory?)", err)
	}
	m, err := shards.ReadManifest(tmp)
	if err != nil {
		return m, fmt.Errorf("%s: %w", src, err)
	}
	return m, nil
}

// openShard opens shard i of the shard directory dir for reading. A local
// directory is opened as it is (shards.Open). parquet-go reads a file at
// random offsets, which Beam's file systems do not offer, so for a URL
// the manifest and shard i's file are first copied into a local
// temporary directory, which cleanup removes.
func openShard(ctx context.Context, dir string, i int) (src *shards.Dir, cleanup func(), err error) {
	if !IsRemote(dir) {
		d, err := shards.Open(dir)
		return d, func() {}, err
	}
	if err := CheckPath(dir); err != nil {
		return nil, nil, err
	}
	tmp, err := os.MkdirTemp("", "lovbench-beam-shard-")
	if err != nil {
		return nil, nil, err
	}
	remove := func() { os.RemoveAll(tmp) }
	defer func() {
		if err != nil {
			remove()
		}
	}()
	if err := copyDown(ctx, JoinPath(dir, shards.ManifestName), filepath.Join(tmp, shards.ManifestName)); err != nil {
		return nil, nil, fmt.Errorf("shards: %w (not a shard directory?)", err)
	}
	d, err := shards.Open(tmp)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	if i < 0 || i >= d.NumShards() {
		return nil, nil, fmt.Errorf("%s: no shard %d among %d", dir, i, d.NumShards())
	}
	name := shards.FileName(i, d.NumShards())
	if err := copyDown(ctx, JoinPath(dir, name), filepath.Join(tmp, name)); err != nil {
		return nil, nil, err
	}
	return d, remove, nil
}
