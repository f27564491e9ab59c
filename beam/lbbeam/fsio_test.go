package lbbeam

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/outofcore"
	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/shards"
)

// TestUnregisteredScheme: a path whose scheme no file system serves is an
// error naming the path, when the pipeline is built (not on a worker),
// for each place a path is given.
func TestUnregisteredScheme(t *testing.T) {
	dir := t.TempDir()
	logPath, shardDir := cleanShards(t, dir, 2000, 2)
	const bad = "nosuch://bucket/x"
	check := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "no file system for nosuch:// paths") {
			t.Errorf("%s: error %v, want one naming %s and its scheme", what, err, bad)
		}
	}
	_, s := beam.NewPipelineWithRoot()
	check("shard --log", BuildShard(s, ShardOptions{Logs: []string{logPath, bad}, Shards: 2, OutDir: filepath.Join(dir, "out")}))
	check("shard --out", BuildShard(s, ShardOptions{Logs: []string{logPath}, Shards: 2, OutDir: bad}))
	check("fit --shard-dir", BuildFit(s, FitOptions{ShardDir: bad, Kinds: BeamKinds, OutDir: dir, PrepDir: dir}))
	check("fit --out", BuildFit(s, FitOptions{ShardDir: shardDir, Kinds: BeamKinds, OutDir: bad, PrepDir: dir}))
	check("fit prepared", BuildFit(s, FitOptions{ShardDir: shardDir, Kinds: BeamKinds, OutDir: dir, PrepDir: bad}))
	_, err := OpenText(context.Background(), bad)
	check("open", err)
}

// TestWriteFileAllOrNothing: a write that fails leaves the file as it was,
// on a local path (atomicfile) and on memfs (not closed, so not
// published); one that succeeds replaces it.
func TestWriteFileAllOrNothing(t *testing.T) {
	ctx := context.Background()
	for _, path := range []string{filepath.Join(t.TempDir(), "sub", "f.txt"), memRoot(t) + "/sub/f.txt"} {
		if err := writeBytes(ctx, path, []byte("old\n")); err != nil {
			t.Fatal(err)
		}
		boom := errors.New("boom")
		err := writeFile(ctx, path, func(w io.Writer) error {
			w.Write(bytes.Repeat([]byte("partial "), 300000)) // beyond the 1 MiB buffer
			return boom
		})
		if !errors.Is(err, boom) {
			t.Errorf("%s: error %v, want the writer's", path, err)
		}
		if b, err := readFile(ctx, path); err != nil || string(b) != "old\n" {
			t.Errorf("%s after a failed write: %q, %v; want the old content", path, b, err)
		}
		if err := writeBytes(ctx, path, []byte("new\n")); err != nil {
			t.Fatal(err)
		}
		if b, err := readFile(ctx, path); err != nil || string(b) != "new\n" {
			t.Errorf("%s: %q, %v; want the new content", path, b, err)
		}
	}
}

// TestRemoveScratch: RemoveScratch removes the prepared shards, values
// and chain files of a scratch directory, on memfs and locally, and
// nothing beside it or of another name in it (an error names what
// stays); removeIfExists removes a file and accepts a missing one.
func TestRemoveScratch(t *testing.T) {
	ctx := context.Background()
	root := memRoot(t)
	local := t.TempDir()
	own := []string{".prepared/shard-00000.prep", ".prepared/shard-00001.prep", ".prepared/values-00001-UBM-0123456789abcdef0123456789abcdef",
		".prepared/chain-00001-DBN-0123456789abcdef0123456789abcdef"}
	for _, name := range append(own, ".prepared.keep", "UBM_params.json") {
		memfs.Write(root+"/"+name, []byte("x"))
		p := filepath.Join(local, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{root, local} {
		if err := RemoveScratch(ctx, JoinPath(dir, ".prepared")); err != nil {
			t.Fatal(err)
		}
		if err := RemoveScratch(ctx, JoinPath(dir, ".prepared")); err != nil {
			t.Errorf("removing a removed directory: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(local, ".prepared")); !os.IsNotExist(err) {
		t.Errorf("local scratch directory left: %v", err)
	}
	for _, name := range []string{"UBM_params.json", "UBM_params.parquet"} {
		if err := removeIfExists(ctx, root+"/"+name); err != nil {
			t.Error(err)
		}
	}
	fsys, err := remoteFS(root)
	if err != nil {
		t.Fatal(err)
	}
	left, err := fsys.List(ctx, root+"/*")
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0] != root+"/.prepared.keep" {
		t.Errorf("left %q, want only %s/.prepared.keep", left, root)
	}
	// A file the pipeline did not write stays, and is named.
	for _, dir := range []string{root, local} {
		scratch := JoinPath(dir, "scratch")
		if err := writeBytes(ctx, JoinPath(scratch, "shard-00000.prep"), []byte("p")); err != nil {
			t.Fatal(err)
		}
		if err := writeBytes(ctx, JoinPath(scratch, "notes.txt"), []byte("mine")); err != nil {
			t.Fatal(err)
		}
		err := RemoveScratch(ctx, scratch)
		if err == nil || !strings.Contains(err.Error(), "notes.txt") {
			t.Errorf("%s: %v, want an error naming notes.txt", scratch, err)
		}
		if b, err := readFile(ctx, JoinPath(scratch, "notes.txt")); err != nil || string(b) != "mine" {
			t.Errorf("%s: the user's file is gone or changed: %q, %v", scratch, b, err)
		}
		if _, err := readFile(ctx, JoinPath(scratch, "shard-00000.prep")); err == nil {
			t.Errorf("%s: the prepared shard stayed", scratch)
		}
	}
}

// TestOpenTextMemfs: a remote text file is read as a local one is, with
// its BOM dropped and gzip detected by its magic bytes; a corrupt gzip
// stream is an error naming the file.
func TestOpenTextMemfs(t *testing.T) {
	ctx := context.Background()
	root := memRoot(t)
	text := "\xef\xbb\xbfline 1\nline 2\n"
	memfs.Write(root+"/plain.tsv", []byte(text))
	memfs.Write(root+"/packed.bin", gzipped(t, []byte(text)))
	bad := gzipped(t, bytes.Repeat([]byte(text), 1000))
	memfs.Write(root+"/bad.gz", bad[:len(bad)/2])
	for _, name := range []string{"plain.tsv", "packed.bin"} {
		r, err := OpenText(ctx, root+"/"+name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil || string(b) != "line 1\nline 2\n" {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
	r, err := OpenText(ctx, root+"/bad.gz")
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(r)
	r.Close()
	if err == nil || !strings.Contains(err.Error(), root+"/bad.gz") {
		t.Errorf("truncated gzip: %v, want an error naming the file", err)
	}
	if _, err := OpenText(ctx, root+"/missing.tsv"); err == nil || !strings.Contains(err.Error(), root+"/missing.tsv") {
		t.Errorf("missing file: %v, want an error naming it", err)
	}
}

// TestPreparedMemfs: a prepared shard written to memfs reads back equal
// to the local file's bytes.
func TestPreparedMemfs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	_, shardDir := cleanShards(t, dir, 3000, 2)
	root := memRoot(t)
	toMemfs(t, shardDir, root+"/shards")
	src, cleanup, err := openShard(ctx, root+"/shards", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	p, err := outofcore.PrepareShard(ctx, src, 1, clickmodels.DefaultRanks)
	if err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(dir, "p.prep")
	if _, err := writePrepared(ctx, local, p); err != nil {
		t.Fatal(err)
	}
	if _, err := writePrepared(ctx, root+"/p.prep", p); err != nil {
		t.Fatal(err)
	}
	sameFile(t, local, root+"/p.prep")
	if _, err := ReadPrepared(ctx, root+"/p.prep"); err != nil {
		t.Error(err)
	}
	b, _ := os.ReadFile(local)
	b[len(b)/2] ^= 1
	memfs.Write(root+"/bad.prep", b)
	if _, err := ReadPrepared(ctx, root+"/bad.prep"); err == nil || !strings.Contains(err.Error(), root+"/bad.prep") {
		t.Errorf("damaged prepared shard: %v, want an error naming it", err)
	}
	if _, _, err := openShard(ctx, root+"/shards", 2); err == nil {
		t.Error("shard 2 of 2 opened")
	}
}

// cleanShards writes awkwardLog(events) to dir/log.tsv, ingests it and
// shards it into n shards in dir/shards (lovbench ingest + shard).
func cleanShards(t *testing.T, dir string, events, n int) (logPath, shardDir string) {
	t.Helper()
	ctx := context.Background()
	logPath = filepath.Join(dir, "log.tsv")
	if err := os.WriteFile(logPath, awkwardLog(t, events), 0o644); err != nil {
		t.Fatal(err)
	}
	ingDir := filepath.Join(dir, "ingest")
	if _, err := ingest.Run(ctx, ingest.Config{Format: ingest.FormatYandex, Log: logPath, OutDir: ingDir, PIISalt: testSalt}); err != nil {
		t.Fatal(err)
	}
	shardDir = filepath.Join(dir, "shards")
	if _, err := shards.Write(ctx, ingDir, n, shards.SplitConfig{}, shardDir, shards.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return logPath, shardDir
}
