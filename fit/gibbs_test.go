package fit

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/sessions"
)

// gibbsLog writes a log of 3,000 SERPs over 40 queries, each query's
// results a rotation of its pool of 14 documents, clicks by a fixed rule
// (some SERPs without one), as a Yandex log and as a sessions Parquet
// file, and returns both paths.
func gibbsLog(t *testing.T) (yandex, parquet string) {
	t.Helper()
	var serps []sessions.SERP
	for i := 0; i < 3000; i++ {
		q := (i * 7) % 40
		s := sessions.SERP{SessionID: fmt.Sprint("s", i), Query: fmt.Sprint("q", q), Region: "0"}
		for r := 0; r < 10; r++ {
			s.Results = append(s.Results, fmt.Sprint("d", q, "-", (r+i%3)%14))
		}
		switch i % 5 {
		case 0: // no click
		case 1, 2:
			s.Clicks = []sessions.Click{{Rank: (i / 5) % 4}}
		case 3:
			s.Clicks = []sessions.Click{{Rank: 0}, {Rank: 2 + (i/5)%6}}
		case 4:
			s.Clicks = []sessions.Click{{Rank: (q + i/5) % 10}}
		}
		serps = append(serps, s)
	}
	in := t.TempDir()
	var y bytes.Buffer
	if err := sessions.WriteYandex(&y, serps); err != nil {
		t.Fatal(err)
	}
	yandex = filepath.Join(in, "log.tsv")
	if err := os.WriteFile(yandex, y.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	parquet = filepath.Join(in, sessions.ParquetName)
	if _, err := sessions.YandexToParquet(yandex, parquet); err != nil {
		t.Fatal(err)
	}
	return yandex, parquet
}

// TestRunGibbsPaths: with the Gibbs sampler's intervals
// (clickmodels.IntervalsGibbs), a Yandex log fitted in memory and the same
// log as a sessions Parquet file (one query shard: no memory limit) write
// the same relevance file, byte for byte; Check refuses a shard directory
// and a memory limit with errors that name the option.
func TestRunGibbsPaths(t *testing.T) {
	yandex, parquet := gibbsLog(t)
	files := map[string][]byte{}
	for _, in := range []string{yandex, parquet} {
		cfg := DefaultConfig()
		cfg.Kinds = []clickmodels.Kind{clickmodels.DBN}
		cfg.Intervals = clickmodels.IntervalsGibbs
		cfg.Input, cfg.Dir, cfg.NoMetricsFile = in, t.TempDir(), true
		if _, err := Run(context.Background(), cfg); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		b, err := os.ReadFile(filepath.Join(cfg.Dir, clickmodels.RelevanceFile("DBN")))
		if err != nil {
			t.Fatal(err)
		}
		files[in] = b
	}
	if !bytes.Equal(files[yandex], files[parquet]) || len(files[yandex]) < 1000 {
		t.Errorf("DBN relevance: the Yandex log in memory (%d bytes) and its Parquet file (%d bytes) differ", len(files[yandex]), len(files[parquet]))
	}
	for _, c := range []struct {
		name string
		cfg  func(*Config)
		want string
	}{
		{"shards", func(c *Config) { c.ShardDir = t.TempDir() }, "not for a query-shard directory (--shards)"},
		{"memory limit", func(c *Config) { c.MemoryLimit = 1 << 30 }, "a memory limit (--memory-limit, run's memory_limit)"},
	} {
		cfg := DefaultConfig()
		cfg.Kinds = []clickmodels.Kind{clickmodels.DBN}
		cfg.Intervals = clickmodels.IntervalsGibbs
		cfg.Input, cfg.Dir = parquet, t.TempDir()
		c.cfg(&cfg)
		_, err := Run(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "intervals from gibbs") {
			t.Errorf("%s: error %v, want one naming intervals from gibbs and %q", c.name, err, c.want)
		}
	}
}
