package clickmodels_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/internal/atomicfile"
)

// A fit with fewer models into the directory of an
// earlier fit leaves none of the earlier models' files behind.
func TestRunReplacesEarlierOutput(t *testing.T) {
	src, err := sim.NewSyntheticSource(synthCfg(50, 0.3, 3))
	if err != nil {
		t.Fatal(err)
	}
	log, _, err := sim.SimulateLog(context.Background(), sim.Config{Kind: clickmodels.DBN, SERPs: 2000, Seed: 5, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "fit")
	for _, kinds := range [][]clickmodels.Kind{{clickmodels.UBM, clickmodels.DBN}, {clickmodels.UBM}} {
		if _, err := clickmodels.Run(context.Background(), log, clickmodels.RunConfig{Kinds: kinds, Options: clickmodels.Options{Iterations: 2}}, out); err != nil {
			t.Fatal(err)
		}
	}
	ents, _ := os.ReadDir(out)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 4 || names[0] != atomicfile.IndexFile {
		t.Errorf("fit directory holds %v, want its index, metrics.json and clickmodels.UBM's two files", names)
	}
}
