package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lovbench/lovbench/beam/lbbeam"
	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/ingest/ingesttest"
	"github.com/lovbench/lovbench/shards"
)

// TestMain initialises Beam for the pipelines the tests run in process.
func TestMain(m *testing.M) { ptest.Main(m) }

// TestFitFromLog: `lovbench-beam fit --log` shards the log into OUT/shards
// and fits on them, giving the files lovbench fit gives on those shards,
// and removes its prepared shards; --log with --shard-dir is a usage
// error.
func TestFitFromLog(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log.tsv")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := ingesttest.AwkwardYandex(f, 6000, 5); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "fit")
	for name, v := range map[string]string{"log": logPath, "out": out, "shards": "3", "models": "ubm,dbn", "iterations": "4", "keep-session-ids": "true"} {
		if err := flag.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := run(context.Background(), "fit"); err != nil {
		t.Fatal(err)
	}
	d, err := shards.Open(filepath.Join(out, "shards"))
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "want")
	cfg := clickmodels.RunConfig{Kinds: []clickmodels.Kind{clickmodels.UBM, clickmodels.DBN}, Options: clickmodels.Options{Iterations: 4}}
	if _, err := clickmodels.RunShards(context.Background(), d, cfg, want); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"UBM_relevance.tsv", "DBN_relevance.tsv", "UBM_params.json", "DBN_params.json"} {
		a, err1 := os.ReadFile(filepath.Join(want, f))
		b, err2 := os.ReadFile(filepath.Join(out, f))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs from lovbench's fit on the same shards (%v, %v)", f, err1, err2)
		}
	}
	if _, err := os.Stat(lbbeam.PreparedPath(filepath.Join(out, ".prepared"), 0)); !os.IsNotExist(err) {
		t.Errorf("prepared shards left behind: %v", err)
	}
	flag.Set("shard-dir", filepath.Join(out, "shards"))
	if err := run(context.Background(), "fit"); err == nil || !errors.As(err, new(usageError)) {
		t.Errorf("--log with --shard-dir: %v, want a usage error", err)
	}
}

// setFlags sets the command's own flags for one run: those in set to
// their values, the others to their defaults.
func setFlags(t *testing.T, set map[string]string) {
	t.Helper()
	for _, name := range []string{"log", "shards", "out", "part-size", "pii-blacklist", "full-serp", "max-line", "shard-dir",
		"models", "iterations", "pii-salt", "keep-session-ids", "tolerance", "exact", "split", "train-fraction", "seed"} {
		f := flag.Lookup(name)
		v, ok := set[name]
		if !ok {
			v = f.DefValue
		}
		if err := flag.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFitFromLogMemfs: `lovbench-beam fit --log` with the log and the
// output directory on Beam's in-memory file system (memfs://, reached
// through Beam's file-system layer as gs:// and s3:// are) gives the
// files lovbench fit gives on the same shards, byte for byte, and removes
// its prepared shards from the store.
func TestFitFromLogMemfs(t *testing.T) {
	ctx := context.Background()
	var buf bytes.Buffer
	if err := ingesttest.AwkwardYandex(&buf, 6000, 5); err != nil {
		t.Fatal(err)
	}
	root := "memfs://TestFitFromLogMemfs"
	memfs.Write(root+"/log.tsv", buf.Bytes())
	out := root + "/fit"
	setFlags(t, map[string]string{"log": root + "/log.tsv", "out": out, "shards": "3", "models": "ubm,dbn", "iterations": "4", "keep-session-ids": "true"})
	if err := run(ctx, "fit"); err != nil {
		t.Fatal(err)
	}
	fsys := memfs.New(ctx)
	// lovbench fit on a local copy of the shards Beam wrote.
	shardDir := filepath.Join(t.TempDir(), "shards")
	if err := os.MkdirAll(shardDir, 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := fsys.List(ctx, out+"/shards/*")
	if err != nil || len(files) != 3+3 { // 3 shards, manifest, report, quarantine
		t.Fatalf("shard directory holds %q (%v)", files, err)
	}
	for _, f := range files {
		b, err := filesystem.Read(ctx, fsys, f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(shardDir, f[strings.LastIndex(f, "/")+1:]), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := shards.Open(shardDir)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(t.TempDir(), "want")
	cfg := clickmodels.RunConfig{Kinds: []clickmodels.Kind{clickmodels.UBM, clickmodels.DBN}, Options: clickmodels.Options{Iterations: 4}}
	if _, err := clickmodels.RunShards(ctx, d, cfg, want); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"UBM_relevance.tsv", "DBN_relevance.tsv", "UBM_params.json", "DBN_params.json"} {
		a, err1 := os.ReadFile(filepath.Join(want, f))
		b, err2 := filesystem.Read(ctx, fsys, out+"/"+f)
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs from lovbench's fit on the same shards (%v, %v)", f, err1, err2)
		}
	}
	if left, err := fsys.List(ctx, out+"/.prepared/*"); err != nil || len(left) != 0 {
		t.Errorf("prepared shards left behind: %q (%v)", left, err)
	}
}

// TestUnknownScheme: a path of a scheme no file system serves is a usage
// error naming the path, before anything runs.
func TestUnknownScheme(t *testing.T) {
	const bad = "hdfs://cluster/logs/day1.tsv"
	for _, set := range []map[string]string{
		{"log": bad, "out": t.TempDir()},
		{"log": "memfs://TestUnknownScheme/log.tsv", "out": "hdfs://cluster/logs/day1.tsv"},
		{"shard-dir": bad, "out": t.TempDir()},
		{"log": "memfs://TestUnknownScheme/log.tsv", "out": t.TempDir(), "pii-blacklist": bad},
	} {
		memfs.Write("memfs://TestUnknownScheme/log.tsv", []byte("1\t0\tQ\t7\t0\t10,11\n"))
		setFlags(t, set)
		cmd := "shard"
		if set["shard-dir"] != "" {
			cmd = "fit"
		}
		err := run(context.Background(), cmd)
		var ue usageError
		if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "hdfs://") {
			t.Errorf("%v: error %v, want one naming %s", set, err, bad)
		}
		if set["pii-blacklist"] == "" && !errors.As(err, &ue) {
			t.Errorf("%v: %v is no usage error", set, err)
		}
	}
}
