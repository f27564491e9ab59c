package outofcore_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
	"github.com/lovbench/lovbench/shards"
)

// TestGibbsShardInvariance: the Gibbs sampler's intervals
// (clickmodels.IntervalsGibbs) of DBN and SDBN fitted on the whole log in
// memory (Run) and on 1, 2 and 5 query shards with 1 and 2 workers, the
// prepared shards and the sampler's chains held in memory or every one
// spilled to its file, give byte-identical files. Beside 1,200 simulated
// SERPs the log repeats three SERPs of a query of its own 20 to 60 times
// each, clicked and not (about 70% of them train: records of weight 16
// and more, on which the grouped walks, cascadeWalks, run). The pairs'
// files under a memory limit carry the sampler's Betas (WritePairFile).
// The same with the pairs of that query held at their fit
// (GibbsSetting.HoldShown), and on a subset of the queries
// (GibbsSetting.Subset).
func TestGibbsShardInvariance(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	serps := simulatedSERPs(t, 1_200, false)
	docs := []string{"g1", "g2", "g3", "g4", "g5", "g6", "g7", "g8"}
	for i := range 120 {
		s := sessions.SERP{SessionID: fmt.Sprint("g", i), Query: "grouped", Region: "0", Results: docs}
		switch i % 3 {
		case 0: // no click: 40 of them
		case 1:
			s.Clicks = []sessions.Click{{Rank: 1}}
		case 2:
			if i%2 == 0 {
				s.Clicks = []sessions.Click{{Rank: 0}, {Rank: 3}}
			}
		}
		serps = append(serps, s)
	}
	writeSERPs(t, src, serps)
	opt := clickmodels.DefaultEstimator.Options()
	opt.Intervals, opt.Workers = clickmodels.IntervalsGibbs, 1
	cfg := clickmodels.RunConfig{Kinds: []clickmodels.Kind{clickmodels.DBN, clickmodels.SDBN},
		Split: split.Spec, TrainFraction: 0.7, Options: opt}
	want := wholeFit(t, src, cfg)
	if !bytes.Contains(want["metrics.json"], []byte("gibbs-hierarchical-cascade")) {
		t.Fatalf("the in-memory fit ran no sampler: metrics.json %s", want["metrics.json"])
	}
	// The counts' intervals differ: the files compared are the sampler's.
	counts := cfg
	counts.Intervals = clickmodels.IntervalsCounts
	countsFit := wholeFit(t, src, counts)
	if f := clickmodels.RelevanceFile("DBN"); bytes.Equal(countsFit[f], want[f]) {
		t.Fatalf("%s: the sampler's is the counts'", f)
	}
	sp := shards.SplitConfig{Split: cfg.Split, TrainFraction: cfg.TrainFraction}
	shardFitsEqual(t, src, sp, cfg, want, [][2]int{{1, 1}, {2, 2}, {5, 1}}, nil)
	// The opt-in's setting with the pairs shown in 60 training SERPs or
	// more held (those of "grouped", in some 84): their records not
	// visited, their counts in every refit (GibbsSetting.HoldShown);
	// the others drawn, so the file is neither the sampler's holding
	// none nor the counts'.
	held := cfg
	held.Intervals = clickmodels.IntervalsCounts
	held.Gibbs = clickmodels.GibbsIntervals()
	held.Gibbs.HoldShown = 60
	wantHeld := wholeFit(t, src, held)
	if f := clickmodels.RelevanceFile("DBN"); bytes.Equal(wantHeld[f], want[f]) {
		t.Fatalf("%s: the sampler holding pairs writes what it writes holding none", f)
	}
	if f := clickmodels.RelevanceFile("DBN"); bytes.Equal(wantHeld[f], countsFit[f]) {
		t.Fatalf("%s: the sampler holding pairs writes the counts'", f)
	}
	// The most split of the layouts above (the others are the same code
	// with the same pairs held).
	shardFitsEqual(t, src, sp, held, wantHeld, [][2]int{{5, 1}}, nil)
	// The sampler on a subset of the queries (about 300 of the some 940
	// training SERPs; GibbsSetting.Subset, its rate resolved from the
	// whole log's training SERPs in every engine), the other pairs' Betas
	// the counts' corrected by the maps the writer fits to the subset's:
	// neither the file holding pairs nor the counts'.
	sub := held
	sub.Gibbs.Subset = 300
	wantSub := wholeFit(t, src, sub)
	if f := clickmodels.RelevanceFile("DBN"); bytes.Equal(wantSub[f], wantHeld[f]) || bytes.Equal(wantSub[f], countsFit[f]) {
		t.Fatalf("%s: the sampler on a subset writes the file of the whole log's or the counts'", f)
	}
	if !bytes.Contains(wantSub["metrics.json"], []byte("gibbs_transfer")) {
		t.Fatalf("metrics.json without the transfer maps: %s", wantSub["metrics.json"])
	}
	shardFitsEqual(t, src, sp, sub, wantSub, [][2]int{{5, 1}}, nil)
}
