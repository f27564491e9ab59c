package fit

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
)

// TestDefaultConfig: the defaults are those lovbench fit --help and
// docs/method.md section 3 state: DCTR, DBN and UBM in that order, the
// first 75% of SERPs in file order train, the exact estimator run to a
// tolerance of 1e-7 for at most 200 iterations.
func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	want := []clickmodels.Kind{clickmodels.DCTR, clickmodels.DBN, clickmodels.UBM}
	if len(c.Kinds) != len(want) {
		t.Fatalf("models %v, want %v", c.Kinds, want)
	}
	for i := range want {
		if c.Kinds[i] != want[i] {
			t.Errorf("model %d: %v, want %v", i, c.Kinds[i], want[i])
		}
	}
	if c.TrainFraction != 0.75 || c.Split != split.Spec || c.Seed != 1 {
		t.Errorf("split %s %g seed %d, want spec 0.75 seed 1", c.Split, c.TrainFraction, c.Seed)
	}
	if !c.Exact || c.Tolerance != 1e-7 || c.Iterations != 200 || c.NoIntervals {
		t.Errorf("EM: exact %v, tolerance %g, %d iterations, no intervals %v; want the exact estimator to 1e-7, at most 200, with intervals",
			c.Exact, c.Tolerance, c.Iterations, c.NoIntervals)
	}
}

// TestRunNoMetricsFile: with NoMetricsFile set, Run writes every file it
// writes without it (byte for byte) except clickmodels.MetricsFile, on
// each of its paths: a Yandex log in memory, a sessions Parquet file cut
// into query shards, a Yandex log under a memory limit.
func TestRunNoMetricsFile(t *testing.T) {
	var serps []sessions.SERP
	for i := 0; i < 120; i++ {
		s := sessions.SERP{SessionID: fmt.Sprint("s", i/2), Index: i % 2, Query: fmt.Sprint("q", i%7), Region: "0"}
		for r := 0; r < 5; r++ {
			s.Results = append(s.Results, fmt.Sprint("d", (i+r)%9))
		}
		if i%3 != 0 {
			s.Clicks = []sessions.Click{{Rank: i % 5}}
		}
		serps = append(serps, s)
	}
	yandex := writeYandex(t, serps)
	in := filepath.Dir(yandex)
	if _, err := sessions.YandexToParquet(yandex, filepath.Join(in, sessions.ParquetName)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		input string
		limit int64
	}{{"yandex in memory", yandex, 0}, {"parquet in shards", filepath.Join(in, sessions.ParquetName), 0}, {"yandex under a limit", yandex, 64 << 20}} {
		files := map[bool]map[string][]byte{}
		for _, no := range []bool{false, true} {
			cfg := DefaultConfig()
			cfg.Kinds = []clickmodels.Kind{clickmodels.DCTR, clickmodels.UBM}
			cfg.Iterations, cfg.MemoryLimit, cfg.NoMetricsFile = 5, c.limit, no
			cfg.Input, cfg.Dir = c.input, t.TempDir()
			reps, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if len(reps) != 2 {
				t.Fatalf("%s: %d reports, want 2", c.name, len(reps))
			}
			ents, err := os.ReadDir(cfg.Dir)
			if err != nil {
				t.Fatal(err)
			}
			files[no] = map[string][]byte{}
			for _, e := range ents {
				b, err := os.ReadFile(filepath.Join(cfg.Dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				files[no][e.Name()] = b
			}
		}
		if _, ok := files[false][clickmodels.MetricsFile]; !ok {
			t.Errorf("%s: no %s without NoMetricsFile", c.name, clickmodels.MetricsFile)
		}
		if _, ok := files[true][clickmodels.MetricsFile]; ok {
			t.Errorf("%s: %s written with NoMetricsFile", c.name, clickmodels.MetricsFile)
		}
		if len(files[true]) != len(files[false])-1 {
			t.Errorf("%s: %d files with NoMetricsFile, %d without; want one fewer", c.name, len(files[true]), len(files[false]))
		}
		for name, b := range files[true] {
			if !bytes.Equal(b, files[false][name]) {
				t.Errorf("%s: %s differs with NoMetricsFile", c.name, name)
			}
		}
	}
}

// writeYandex writes serps as a Yandex log, log.tsv in a new temporary
// directory, and returns its path.
func writeYandex(t *testing.T, serps []sessions.SERP) string {
	t.Helper()
	in := t.TempDir()
	var y bytes.Buffer
	if err := sessions.WriteYandex(&y, serps); err != nil {
		t.Fatal(err)
	}
	yandex := filepath.Join(in, "log.tsv")
	if err := os.WriteFile(yandex, y.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return yandex
}
