package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/beam/lbbeam"
	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/internal/textio"
)

// TestShardBadLogs: lovbench-beam shard fails, as lovbench ingest does, on
// an empty log and on a binary file (nothing kept: ingest.NothingKept's
// error, with report.json and quarantine.jsonl published to say why), and
// on a truncated gzip log with one error naming the file before any
// pipeline runs (not a failed bundle's stack), leaving no output.
func TestShardBadLogs(t *testing.T) {
	dir := t.TempDir()
	bin := make([]byte, 4096)
	for i := range bin {
		bin[i] = byte(i*7 + i/13)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	for i := range 2000 {
		zw.Write([]byte("S" + strings.Repeat("x", i%50) + "\t0\tQ\tq\t0\tu1\tu2\nS\t1\tC\tu1\n"))
	}
	zw.Close()
	files := map[string][]byte{"empty.tsv": nil, "binary.tsv": bin, "cut.tsv.gz": gz.Bytes()[:gz.Len()/2]}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out-"+name)
		setFlags(t, map[string]string{"log": p, "out": out, "shards": "2", "keep-session-ids": "true"})
		err := run(context.Background(), "shard")
		var ue usageError
		if err == nil || errors.As(err, &ue) {
			t.Errorf("%s: err %v, want a failure (exit 1)", name, err)
			continue
		}
		if !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %q does not name the file on one line", name, err)
		}
		if name == "cut.tsv.gz" {
			var ie *lbbeam.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), "gzip") {
				t.Errorf("%s: error %v, want an lbbeam.InputError about gzip", name, err)
			}
			if _, serr := os.Stat(out); serr == nil {
				t.Errorf("%s: output directory written", name)
			}
			continue
		}
		var ee *textio.EmptyError
		if !errors.As(err, &ee) {
			t.Errorf("%s: error %v (%T), want ingest's nothing-kept error", name, err, err)
		}
		if _, serr := os.Stat(filepath.Join(out, ingest.ReportFile)); serr != nil {
			t.Errorf("%s: report.json not published: %v", name, serr)
		}
	}
}
