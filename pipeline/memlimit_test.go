package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitMemoryLimitSameOutputs: the fit stage with
// click_models.memory_limit (the log streamed into query shards, here
// about 40 of them) writes the same relevance and parameter files as the
// in-memory stage.
func TestFitMemoryLimitSameOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("two small pipeline runs")
	}
	base := t.TempDir()
	var fitDirs []string
	for i, extra := range []string{"", "  memory_limit: 1MiB\n"} {
		dir := filepath.Join(base, []string{"mem", "ooc"}[i])
		os.MkdirAll(dir, 0o755)
		cfgText := "simulate: {sessions: 3000, queries: 60, model: ubm, seed: 3}\nltr: {enabled: false}\nworkdir: work\nclick_models:\n  models: [dctr, ubm, dbn]\n" + extra
		if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(cfgText), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := LoadConfig(filepath.Join(dir, "c.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), cfg, RunOptions{}); err != nil {
			t.Fatal(err)
		}
		fitDirs = append(fitDirs, filepath.Join(dir, "work", "stages", StageFit))
	}
	n := 0
	for _, name := range []string{"DCTR", "UBM", "DBN"} {
		for _, suf := range []string{"_relevance.tsv", "_params.json"} {
			a, err := os.ReadFile(filepath.Join(fitDirs[0], name+suf))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(fitDirs[1], name+suf))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s%s differs with memory_limit", name, suf)
			}
			n++
		}
	}
	ents, _ := os.ReadDir(fitDirs[1])
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "lovbench-shards-") {
			t.Errorf("temporary shard directory %s left behind", e.Name())
		}
	}
}
