package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

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
