package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A failed ingest leaves no --out directory (it used to
// leave an empty one).
func TestFailedIngestLeavesNoOutDir(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	if _, err := Run(context.Background(), Config{Format: FormatYandex, Log: filepath.Join(dir, "missing.tsv"), OutDir: out}); err == nil {
		t.Fatal("missing log: no error")
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed ingest left its --out directory")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}

// A temporary file that a killed ingest left in --out is
// gone after the next successful run, and a rerun replaces the output.
func TestIngestRemovesLeftoverTempFiles(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "log.tsv", []byte(yandexIn))
	out := filepath.Join(dir, "out")
	if _, err := Run(context.Background(), Config{Format: FormatYandex, Log: in, OutDir: out}); err != nil {
		t.Fatal(err)
	}
	left := filepath.Join(out, "."+SessionsFile+".tmp-4242")
	write(t, out, "."+SessionsFile+".tmp-4242", []byte("partial"))
	if _, err := Run(context.Background(), Config{Format: FormatYandex, Log: in, OutDir: out}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); err == nil {
		t.Errorf("%s survived a successful ingest", left)
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 5 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("out holds %v, want the 4 outputs and their index", names)
	}
}
