package clickmodels

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lovbench/lovbench/internal/atomicfile"
)

// A fit with fewer models into the directory of an
// earlier fit leaves none of the earlier models' files behind.
func TestRunReplacesEarlierOutput(t *testing.T) {
	src, err := NewSyntheticSource(synthCfg(50, 0.3, 3))
	if err != nil {
		t.Fatal(err)
	}
	log, _, err := SimulateLog(context.Background(), SimConfig{Kind: DBN, SERPs: 2000, Seed: 5, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "fit")
	for _, kinds := range [][]Kind{{UBM, DBN}, {UBM}} {
		if _, err := Run(context.Background(), log, RunConfig{Kinds: kinds, Options: Options{Iterations: 2}}, out); err != nil {
			t.Fatal(err)
		}
	}
	ents, _ := os.ReadDir(out)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 4 || names[0] != atomicfile.IndexFile {
		t.Errorf("fit directory holds %v, want its index, metrics.json and UBM's two files", names)
	}
}
