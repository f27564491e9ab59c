package lbbeam

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
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
// file byte for byte, and the manifest. It runs once with the log and the
// outputs on local files and once on Beam's in-memory file system
// (memfs://, through Beam's file-system layer as gs:// and s3:// are),
// the log gzip-compressed there for the random split. A remote log is
// read as one part, so the memfs runs also check that one part gives what
// hundreds give; report.json and quarantine.jsonl name the log, so the
// memfs log's path is replaced by the local one before they are compared.
func TestShardEqualsIngestThenShard(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log.tsv")
	logBytes := awkwardLog(t, 30000)
	if err := os.WriteFile(logPath, logBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sp := range []shards.SplitConfig{{Split: "spec", TrainFraction: 0.75}, {Split: "random", TrainFraction: 0.6, Seed: 3}, {Split: "time", TrainFraction: 0.7}} {
		const n = 7
		ingDir := filepath.Join(dir, string(sp.Split), "ingest")
		rep, err := ingest.Run(context.Background(), ingest.Config{Format: ingest.FormatYandex, Log: logPath, OutDir: ingDir, PIISalt: testSalt})
		if err != nil {
			t.Fatal(err)
		}
		if rep.SERPsWithoutClickSession == 0 {
			t.Fatal("the log has no session without a click: the comparison would not cover them")
		}
		wantDir := filepath.Join(dir, string(sp.Split), "want")
		want, err := shards.Write(context.Background(), ingDir, n, sp, wantDir, shards.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, where := range []string{"local", "memfs"} {
			t.Run(string(sp.Split)+"/"+where, func(t *testing.T) {
				in, gotDir := logPath, filepath.Join(dir, string(sp.Split), "beam")
				if where == "memfs" {
					root := memRoot(t)
					in, gotDir = root+"/log.tsv", root+"/shards"
					data := logBytes
					if sp.Split == "random" {
						in, data = root+"/log.tsv.gz", gzipped(t, logBytes)
					}
					memfs.Write(in, data)
				}
				p, s := beam.NewPipelineWithRoot()
				if err := BuildShard(s, ShardOptions{Logs: []string{in}, Shards: n, OutDir: gotDir, PartSize: 20000, Split: sp, PIISalt: testSalt}); err != nil {
					t.Fatal(err)
				}
				if err := ptest.Run(p); err != nil {
					t.Fatal(err)
				}
				parts, _ := PlanParts([]string{in}, 20000, 0)
				if where == "local" && len(parts) < 50 || where == "memfs" && len(parts) != 1 {
					t.Fatalf("%d parts", len(parts))
				}
				for _, name := range []string{ingest.ReportFile, ingest.QuarantineFile} {
					sameFileAs(t, filepath.Join(ingDir, name), JoinPath(gotDir, name), in, logPath)
				}
				for i := 0; i < n; i++ {
					sameFile(t, filepath.Join(wantDir, shards.FileName(i, n)), JoinPath(gotDir, shards.FileName(i, n)))
				}
				got, err := ReadManifest(context.Background(), gotDir)
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
}

// TestShardDropClickless: with DropClickless (lovbench-beam shard
// -drop-clickless) the Beam pipeline equals lovbench ingest
// --drop-clickless followed by shards.Write, report and shards byte for
// byte, and differs from the default (the sessions without a click
// kept), whose shards TestShardEqualsIngestThenShard compares.
func TestShardDropClickless(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log.tsv")
	if err := os.WriteFile(logPath, awkwardLog(t, 20000), 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 5
	sp := shards.SplitConfig{Split: "spec", TrainFraction: 0.75}
	ingDir, wantDir, gotDir := filepath.Join(dir, "ingest"), filepath.Join(dir, "want"), filepath.Join(dir, "beam")
	rep, err := ingest.Run(context.Background(), ingest.Config{Format: ingest.FormatYandex, Log: logPath, OutDir: ingDir, PIISalt: testSalt, DropClickless: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions.DroppedNoClick == 0 || rep.SERPsWithoutClickSession != 0 {
		t.Fatalf("ingest --drop-clickless: %d sessions dropped without a click, %d SERPs of such sessions kept", rep.Sessions.DroppedNoClick, rep.SERPsWithoutClickSession)
	}
	if _, err := shards.Write(context.Background(), ingDir, n, sp, wantDir, shards.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	if err := BuildShard(s, ShardOptions{Logs: []string{logPath}, Shards: n, OutDir: gotDir, PartSize: 20000, Split: sp, PIISalt: testSalt, DropClickless: true}); err != nil {
		t.Fatal(err)
	}
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	sameFile(t, filepath.Join(ingDir, ingest.ReportFile), JoinPath(gotDir, ingest.ReportFile))
	for i := 0; i < n; i++ {
		sameFile(t, filepath.Join(wantDir, shards.FileName(i, n)), JoinPath(gotDir, shards.FileName(i, n)))
	}
}

// memRoot is a memfs:// directory of its own for test t (memfs is one
// store per process).
func memRoot(t *testing.T) string {
	return "memfs://" + strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
}

// toMemfs copies the files of the local directory dir to the memfs
// directory root.
func toMemfs(t *testing.T, dir, root string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		memfs.Write(root+"/"+e.Name(), b)
	}
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sameFile checks that the file got (a local path or a URL) holds the
// bytes of the local file want.
func sameFile(t *testing.T, want, got string) {
	t.Helper()
	sameFileAs(t, want, got, "", "")
}

// sameFileAs is sameFile with every occurrence of the string from in got
// replaced by to (the path of an input file that the output names).
func sameFileAs(t *testing.T, want, got, from, to string) {
	t.Helper()
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	g, err := readFile(context.Background(), got)
	if err != nil {
		t.Fatal(err)
	}
	if from != to {
		g = bytes.ReplaceAll(g, []byte(from), []byte(to))
	}
	if !bytes.Equal(w, g) {
		t.Errorf("%s differs from %s (%d vs %d bytes)", got, want, len(g), len(w))
	}
}
