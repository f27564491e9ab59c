package lbbeam

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/shards"
)

func TestMain(m *testing.M) { ptest.Main(m) }

// testSalt keys the session-ID pseudonyms of both sides of a comparison.
var testSalt = []byte("lbbeam test key")

// awkwardLog is a synthetic Yandex log with the lines that make cutting a
// log hard: CRLF and lone-CR terminators, blank and malformed lines inside
// sessions, clicks without a session ID, clicks outside their SERP, and a
// session ID that comes back after another session.
func awkwardLog(t *testing.T, events int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := ingest.SyntheticYandex(&buf, events, 11); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	var out bytes.Buffer
	for i, l := range lines {
		switch i % 89 {
		case 3:
			out.WriteString(l + "\r\n")
		case 5:
			out.WriteString(l + "\r")
		case 11:
			out.WriteString(l + "\n\n")
		case 13:
			out.WriteString(l + "\nnot a yandex line\n")
		case 17:
			out.WriteString(l + "\n\t1\tC\t5\n")
		case 19:
			sid, _, _ := strings.Cut(l, "\t")
			out.WriteString(l + "\n" + sid + "\t999\tC\tnot-in-serp\n")
		case 23:
			out.WriteString(l + "\nzz\t0\tQ\tq\t0\tu1\tu2\nzz\t1\tC\tu1\n" + l + "\n")
		default:
			out.WriteString(l + "\n")
		}
	}
	return out.Bytes()
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
	for _, sp := range []shards.SplitConfig{{Split: "spec", TrainFraction: 0.75}, {Split: "random", TrainFraction: 0.6, Seed: 3}} {
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
