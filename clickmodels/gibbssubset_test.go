package clickmodels

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// emFit is the EM fit of kind with opt on d that Fit's sampler starts
// from, as a shard's fit after FitShards.
func emFit(t *testing.T, d *Data, kind Kind, opt Options) (*ShardFit, int) {
	t.Helper()
	ctx := context.Background()
	global := InitialGlobals(kind, d.ranks, opt)
	f := newFitter(ctx, d, kind, opt, global, true)
	done, err := fitLoop(ctx, held([]*fitter{f}), d.ranks, kind, opt, global, kind.Iterations(opt.Iterations, opt.Exact), d.serps, []*fitter{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &ShardFit{f: f, d: d}, done
}

// TestGibbsGatherByHand gathers the subset of rate 0.6 (q2 and q4 in, q0
// out: TestSubsetKeyByHand's keys) of a log of six SERPs written out
// here: q2 shows [a b] clicked at a, [a b] without a click twice and [b
// c] clicked at c; q0 [a d]; q4 [e] clicked. The part holds q2's and
// q4's records alone, the identical SERPs merged (weight 2), with their
// pairs (a, b, c of q2; e of q4) in the shard's order, each record's
// pairs and clicks its SERP's, the pairs' fitted values, and one chunk;
// its encoding round-trips and a damaged one is refused.
func TestGibbsGatherByHand(t *testing.T) {
	serps := []sessions.SERP{
		{SessionID: "1", Query: "q2", Results: []string{"a", "b"}, Clicks: []sessions.Click{{Rank: 0}}},
		{SessionID: "2", Query: "q0", Results: []string{"a", "d"}, Clicks: []sessions.Click{{Rank: 1}}},
		{SessionID: "3", Query: "q2", Results: []string{"a", "b"}},
		{SessionID: "4", Query: "q4", Results: []string{"e"}, Clicks: []sessions.Click{{Rank: 0}}},
		{SessionID: "5", Query: "q2", Results: []string{"b", "c"}, Clicks: []sessions.Click{{Rank: 1}}},
		{SessionID: "6", Query: "q2", Results: []string{"a", "b"}},
	}
	d := preparedLog(t, len(serps), func(i int) sessions.SERP { return serps[i] })
	opt := EstimatorExact.Options()
	opt.Intervals, opt.Workers = IntervalsGibbsSubset, 1
	opt = opt.ResolveIntervals(int64(d.serps))
	opt.subsetRate = 0.6
	gs, err := NewGibbsShards(DBN, opt, 1, nil)
	if err != nil || gs == nil || !gs.Subset() {
		t.Fatalf("NewGibbsShards: %v, %v", gs, err)
	}
	sf, _ := emFit(t, d, DBN, opt)
	p, err := gs.Gather(sf)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.queries, []string{"q2", "q4"}) {
		t.Errorf("queries %q, want q2, q4", p.queries)
	}
	type rec struct {
		docs   string
		clicks uint64
		weight float64
	}
	var got []rec
	for i := range p.Records() {
		var ds []string
		for _, x := range p.recPair[p.recOff[i]:p.recOff[i+1]] {
			ds = append(ds, p.queries[p.pairQuery[x]]+"/"+p.docs[p.pairDoc[x]])
		}
		got = append(got, rec{strings.Join(ds, " "), p.recClicks[i], p.recWeight[i]})
	}
	want := []rec{{"q2/a q2/b", 1, 1}, {"q2/a q2/b", 0, 2}, {"q2/b q2/c", 2, 1}, {"q4/e", 1, 1}}
	if !slices.Equal(got, want) {
		t.Errorf("records %v, want %v", got, want)
	}
	var pairs []string
	for x := range p.Pairs() {
		name := p.queries[p.pairQuery[x]] + "/" + p.docs[p.pairDoc[x]]
		pairs = append(pairs, name)
		// The pair's fitted values: those of the same pair of the shard.
		for q := range d.Pairs() {
			if d.log.Queries.Names[d.pairQuery[q]]+"/"+d.log.Docs.Names[d.pairDoc[q]] == name &&
				(p.attr[x] != sf.f.attr[q] || p.sat[x] != sf.f.sat[q]) {
				t.Errorf("pair %s: values (%v, %v), the fit's (%v, %v)", name, p.attr[x], p.sat[x], sf.f.attr[q], sf.f.sat[q])
			}
		}
	}
	if !slices.Equal(pairs, []string{"q2/a", "q2/b", "q2/c", "q4/e"}) {
		t.Errorf("pairs %q, want q2/a q2/b q2/c q4/e", pairs)
	}
	if len(p.chunks) != 1 || p.chunks[0] != [4]int{0, 4, 0, 4} {
		t.Errorf("chunks %v, want one of the 4 records and 4 pairs", p.chunks)
	}
	b, _ := p.MarshalBinary()
	back, err := UnmarshalGibbsPart(b)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := back.MarshalBinary(); !slices.Equal(again, b) {
		t.Error("the part's encoding does not round-trip")
	}
	for _, bad := range [][]byte{b[:len(b)-1], append(slices.Clone(b), 0)} {
		if _, err := UnmarshalGibbsPart(bad); err == nil {
			t.Errorf("a part of %d bytes (of %d) read", len(bad), len(b))
		}
	}
}

// TestGibbsGatheredEqualsFit: the sampler on the gathered subset
// (Gather, RunParts, FinalModel), its part and result passed through
// their encodings, gives every pair of gibbsLogSERPs the relevance Betas
// of the sampler on the whole log with the other queries held in place
// (gibbsInPlace, GibbsChain.hold's readOut), to the bit, DBN and SDBN,
// and to the pairs outside the subset none, and so does Fit, which
// gathers the subset in memory; its chain holds the subset's pairs and
// records alone (about 0.6 of the log's 30 random queries), and the
// sampler without a subset would have given other Betas.
func TestGibbsGatheredEqualsFit(t *testing.T) {
	ctx := context.Background()
	serps := gibbsLogSERPs()
	d := preparedLog(t, len(serps), func(i int) sessions.SERP { return serps[i] })
	setting := GibbsSetting{BurnIn: 3, Sweeps: 5, RefitEvery: 2, PoolSat: true, RankOnly: true, HoldShown: 100, Subset: 1, SubsetRate: 0.6}
	bound := subsetBound(setting.SubsetRate)
	inPairs, inRecs := 0, 0
	for p := range d.Pairs() {
		if subsetKey(d.log.Queries.Names[d.pairQuery[p]]) < bound {
			inPairs++
		}
	}
	for i := range d.Records() {
		if subsetKey(d.log.Queries.Names[d.pairQuery[d.recPair[d.recOff[i]]]]) < bound {
			inRecs++
		}
	}
	if inPairs == 0 || inPairs == d.Pairs() {
		t.Fatalf("%d of %d pairs in the subset", inPairs, d.Pairs())
	}
	for _, kind := range []Kind{DBN, SDBN} {
		opt := EstimatorExact.Options()
		opt.Workers, opt.Gibbs = 2, setting
		fitted, err := Fit(ctx, d, kind, opt)
		if err != nil {
			t.Fatal(err)
		}
		sf, done := emFit(t, d, kind, opt)
		// The oracle: the sampler on every pair of the whole log, those
		// outside the subset held in place.
		inPlace := sf.f.evidence(ctx, opt.IntervalLevel())
		emVals := slices.Clone(sf.f.attr)
		sf.f.gibbsInPlace(ctx, inPlace, setting)
		if !slices.Equal(emVals, sf.f.attr) {
			t.Fatalf("%v: the sampler changed the fit's values", kind)
		}
		want := &Model{Evidence: inPlace}
		gs, err := NewGibbsShards(kind, opt, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		part, err := gs.Gather(sf)
		if err != nil {
			t.Fatal(err)
		}
		if part.Pairs() != inPairs || part.Records() != inRecs {
			t.Fatalf("%v: the part holds %d pairs and %d records, the subset %d and %d", kind, part.Pairs(), part.Records(), inPairs, inRecs)
		}
		b, _ := part.MarshalBinary()
		if part, err = UnmarshalGibbsPart(b); err != nil {
			t.Fatal(err)
		}
		res, err := gs.RunParts(ctx, []*GibbsPart{part})
		if err != nil {
			t.Fatal(err)
		}
		rb, _ := res[0].MarshalBinary()
		r, err := UnmarshalGibbsPartResult(rb)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.relA) != inPairs {
			t.Fatalf("%v: %d Betas for %d pairs", kind, len(r.relA), inPairs)
		}
		// A fresh sampler, as a pipeline's finish has it.
		fin, _ := NewGibbsShards(kind, opt, 1, nil)
		if _, err := fin.FinalModel(ctx, sf, 0, done, opt); err == nil {
			t.Fatalf("%v: a final model without the subset's result", kind)
		}
		if err := fin.SetPartResult(0, r); err != nil {
			t.Fatal(err)
		}
		m, err := fin.FinalModel(ctx, sf, 0, done, opt)
		if err != nil {
			t.Fatal(err)
		}
		w, g := want.Evidence, m.Evidence
		if g.Gibbs == nil || *g.Gibbs != setting || len(g.RelAlpha) != len(w.RelAlpha) {
			t.Fatalf("%v: setting %v, %d Betas, Fit's %d", kind, g.Gibbs, len(g.RelAlpha), len(w.RelAlpha))
		}
		drawn := 0
		for p := range w.RelAlpha {
			if g.RelAlpha[p] != w.RelAlpha[p] || g.RelBeta[p] != w.RelBeta[p] {
				t.Fatalf("%v pair %d: gathered Beta(%v, %v), Fit's (%v, %v)", kind, p, g.RelAlpha[p], g.RelBeta[p], w.RelAlpha[p], w.RelBeta[p])
			}
			if w.RelAlpha[p] > 0 {
				drawn++
			}
		}
		// Fit in memory takes the gathered subset too.
		if !slices.Equal(fitted.Evidence.RelAlpha, w.RelAlpha) || !slices.Equal(fitted.Evidence.RelBeta, w.RelBeta) {
			t.Errorf("%v: Fit's Betas are not the in-place sampler's", kind)
		}
		if drawn == 0 || drawn >= inPairs {
			t.Errorf("%v: %d pairs drawn of the subset's %d (the held ones of \"grouped\" are not)", kind, drawn, inPairs)
		}
		// The whole log's sampler draws other Betas: the test compares
		// the subset's.
		opt.Gibbs.Subset, opt.Gibbs.SubsetRate = 0, 0
		whole, err := Fit(ctx, d, kind, opt)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Equal(whole.Evidence.RelAlpha, w.RelAlpha) {
			t.Errorf("%v: the sampler on the subset gave the whole log's Betas", kind)
		}
	}
}

// TestGibbsSubsetSetPartResult: a shard's result of another size than
// its pairs in the subset is refused.
func TestGibbsSubsetSetPartResult(t *testing.T) {
	ctx := context.Background()
	serps := gibbsLogSERPs()
	d := preparedLog(t, len(serps), func(i int) sessions.SERP { return serps[i] })
	opt := EstimatorExact.Options()
	opt.Workers, opt.Gibbs = 1, GibbsSetting{BurnIn: 1, Sweeps: 1, HoldShown: 100, Subset: 1, SubsetRate: 0.6}
	sf, done := emFit(t, d, DBN, opt)
	gs, _ := NewGibbsShards(DBN, opt, 1, nil)
	if err := gs.SetPartResult(0, &GibbsPartResult{relA: []float64{1}, relB: []float64{1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := gs.FinalModel(ctx, sf, 0, done, opt); err == nil || !strings.Contains(err.Error(), "pairs in the Gibbs subset") {
		t.Errorf("a result of one pair taken: %v", err)
	}
	if err := gs.SetPartResult(1, &GibbsPartResult{}); err == nil {
		t.Error("a result of shard 1 of 1 taken")
	}
	unresolved := opt
	unresolved.Gibbs.SubsetRate = 0
	if _, err := NewGibbsShards(DBN, unresolved, 2, nil); err == nil {
		t.Error("a subset over 2 shards without its rate")
	}
}
