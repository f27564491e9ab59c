package lbbeam

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/ingest/ingesttest"
	"github.com/lovbench/lovbench/shards"
)

func TestMain(m *testing.M) { ptest.Main(m) }

// testSalt keys the session-ID pseudonyms of both sides of a comparison.
var testSalt = []byte("lbbeam test key")

// awkwardLog is ingesttest.AwkwardYandex's log: the lines that make cutting a
// log hard.
func awkwardLog(t *testing.T, events int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := ingesttest.AwkwardYandex(&buf, events, 11); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestShardEqualsIngestThenShard runs the Beam ingest-and-shard pipeline on
// Prism, with parts small enough to cut the log hundreds of times, and
// checks every output against lovbench's own ingest followed by
// shards.Write: report.json and quarantine.jsonl byte for byte, every shard
// file byte for byte, and the manifest.
func TestShardEqualsIngestThenShard(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log.tsv")
	if err := os.WriteFile(logPath, awkwardLog(t, 30000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sp := range []shards.SplitConfig{{Split: "spec", TrainFraction: 0.75}, {Split: "random", TrainFraction: 0.6, Seed: 3}, {Split: "time", TrainFraction: 0.7}} {
		t.Run(sp.Split, func(t *testing.T) {
			const n = 7
			ingDir := filepath.Join(dir, sp.Split, "ingest")
			if _, err := ingest.Run(context.Background(), ingest.Options{Format: ingest.FormatYandex, Log: logPath, OutDir: ingDir, PIISalt: testSalt}); err != nil {
				t.Fatal(err)
			}
			wantDir := filepath.Join(dir, sp.Split, "want")
			want, err := shards.Write(context.Background(), ingDir, n, sp, wantDir, shards.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			gotDir := filepath.Join(dir, sp.Split, "beam")
			p, s := beam.NewPipelineWithRoot()
			if err := BuildShard(s, ShardOptions{Logs: []string{logPath}, Shards: n, OutDir: gotDir, PartSize: 20000, Split: sp, PIISalt: testSalt}); err != nil {
				t.Fatal(err)
			}
			if err := ptest.Run(p); err != nil {
				t.Fatal(err)
			}
			parts, _ := PlanParts([]string{logPath}, 20000, 0)
			if len(parts) < 50 {
				t.Fatalf("only %d parts", len(parts))
			}
			for _, name := range []string{ingest.ReportFile, ingest.QuarantineFile} {
				sameFile(t, filepath.Join(ingDir, name), filepath.Join(gotDir, name))
			}
			for i := 0; i < n; i++ {
				sameFile(t, filepath.Join(wantDir, shards.FileName(i, n)), filepath.Join(gotDir, shards.FileName(i, n)))
			}
			got, err := shards.ReadManifest(gotDir)
			if err != nil {
				t.Fatal(err)
			}
			got.Source = want.Source
			if got != want {
				t.Errorf("manifest = %+v, want %+v", got, want)
			}
		})
	}
}

func sameFile(t *testing.T, want, got string) {
	t.Helper()
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	g, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w, g) {
		t.Errorf("%s differs from %s (%d vs %d bytes)", got, want, len(g), len(w))
	}
}
