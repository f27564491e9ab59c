package measures

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
)

const qrelsText = `q1 0 d1 2
q1 0 d2 1
q1 0 d3 0
q1 0 d4 1
q2 0 e1 1
`

// Run: q1 retrieves d3 (3), d2 (2), d1 (2), d5 (1); d1 and d2 tie at 2 and
// trec_eval puts the larger docid first, so the ranking is d3 d2 d1 d5 with
// grades 0 1 2 0. q2 is not answered (empty ranking). q9 has no judgments
// and is ignored.
const runText = `q1 Q0 d1 2 2.0 t
q1 Q0 d3 1 3.0 t
q9 Q0 x 1 9 t
q1 Q0 d2 3 2.0 t
q1 Q0 d5 4 1 t
`

func mustEval(t *testing.T, measures string, mod func(*Options)) *Result {
	t.Helper()
	q, err := ParseQrels(strings.NewReader(qrelsText), "q.txt")
	if err != nil {
		t.Fatal(err)
	}
	run, err := ParseRun(strings.NewReader(runText), "run.txt")
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Measures, err = ParseMeasures(measures)
	if err != nil {
		t.Fatal(err)
	}
	if mod != nil {
		mod(&opts)
	}
	res, err := Evaluate(context.Background(), q, run, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Hand computations for q1 (ranking grades 0 1 2 0, judged 2 1 0 1, three
// relevant with grade >= 1) and q2 (no ranking, one relevant):
//
//	P@2 = 1/2; q2: 0; mean 0.25
//	R@2 = 1/3; mean 1/6
//	map = (1/2 + 2/3)/3 = 0.3888889; mean 0.1944444
//	mrr@10 = 1/2; hr@1 = 0, hr@2 = 1
//	ndcg@3: gains 0 1 3, DCG = 1/log2(3) + 3/2 = 2.1309298,
//	        ideal 3 1 1 0, IDCG = 3 + 0.6309298 + 0.5 = 4.1309298, 0.5158475
//	err@10 on grades 0 1 2 0: R = 0, 1/16, 3/16, 0:
//	        0 + 1*(1/16)/2 + (15/16)(3/16)/3 = 0.03125 + 0.05859375 = 0.08984375
//	pc: q1 1, q2 0, mean 0.5
//	cc@2: top-2 {d3, d2} of the catalog {d1..d5, e1} (6): 1/3
//	ltp@3: awards d1 d2 d4 e1 one each, total 4; the short head stops once
//	        5*cum >= 4, i.e. after d1: SH = {d1}; top-3 d3 d2 d1 has 2 of 3
//	        outside SH: 2/3
func TestEvaluateHand(t *testing.T) {
	res := mustEval(t, "p@2,r@2,map,mrr@10,hr@1,hr@2,ndcg@3,err@10,pc,cc@2,ltp@3", nil)
	want := map[string][2]float64{ // q1, mean
		"p@2":    {0.5, 0.25},
		"r@2":    {1.0 / 3, 1.0 / 6},
		"map":    {0.3888889, 0.1944444},
		"mrr@10": {0.5, 0.25},
		"hr@1":   {0, 0},
		"hr@2":   {1, 0.5},
		"ndcg@3": {0.5158475, 0.2579237},
		"err@10": {0.08984375, 0.044921875},
		"pc":     {1, 0.5},
	}
	for m, w := range want {
		v, ok := res.Value(m, "q1")
		if !ok || !near(v, w[0], 1e-6) {
			t.Errorf("%s(q1) = %v, want %v", m, v, w[0])
		}
		if !near(res.Mean[m], w[1], 1e-6) {
			t.Errorf("mean %s = %v, want %v", m, res.Mean[m], w[1])
		}
		if v, _ := res.Value(m, "q2"); v != 0 && m != "pc" {
			t.Errorf("%s(q2) = %v, want 0", m, v)
		}
	}
	if !near(res.Mean["cc@2"], 1.0/3, 1e-12) || !near(res.Mean["ltp@3"], 2.0/3, 1e-12) {
		t.Errorf("cc@2 = %v (want 1/3), ltp@3 = %v (want 2/3)", res.Mean["cc@2"], res.Mean["ltp@3"])
	}
	if _, ok := res.PerQuery["cc@2"]; ok {
		t.Error("global measure cc@2 has per-query values")
	}
	if len(res.Queries) != 2 || res.Queries[0] != "q1" || res.Queries[1] != "q2" {
		t.Errorf("queries = %v, want [q1 q2]", res.Queries)
	}
	j := res.JSON()
	if j.PerQuery["q1"]["p@2"] != 0.5 || j.Mean["pc"] != 0.5 {
		t.Errorf("JSON layout: %+v", j)
	}
}

// --relevant-from 2: only d1 is relevant in q1 (rank 3), q2 has none.
//
//	map = (1/3)/1; P@3 = 1/3; mrr@10 = 1/3
func TestEvaluateRelevantFrom(t *testing.T) {
	res := mustEval(t, "map,p@3,mrr", func(o *Options) { o.RelevantFrom = 2 })
	for m, w := range map[string]float64{"map": 1.0 / 3, "p@3": 1.0 / 3, "mrr": 1.0 / 3} {
		if v, _ := res.Value(m, "q1"); !near(v, w, 1e-12) {
			t.Errorf("%s(q1) = %v, want %v", m, v, w)
		}
	}
}

// The list cutoff applies to measures without @k: with --cutoff 2 the
// list is d3 d2 (gains 0 1 with the identity gain), ideal 2 1 1 0, |R| = 3:
// AWP = (1/3)(CG(2)/ICG(2)) = (1/3)(1/3) = 0.1111111.
func TestEvaluateCutoff(t *testing.T) {
	res := mustEval(t, "awp", func(o *Options) { o.Cutoff = 2; o.Gain = IdentityGain })
	if v, _ := res.Value("awp", "q1"); !near(v, 1.0/9, 1e-12) {
		t.Errorf("awp(q1) = %v, want 0.1111111", v)
	}
}

func TestEvaluateAllMeasuresAreFinite(t *testing.T) {
	res := mustEval(t, "all,rp@5,rr@5", func(o *Options) {
		o.Hierarchy = MapHierarchy{"d5": {"d1"}}
	})
	for m, v := range res.Mean {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			t.Errorf("%s = %v", m, v)
		}
	}
	// rp@5 for q1: retrieved d3 d2 d1 d5 (4), relevant d1 d2 d4; exact d2
	// and d1, and d5 (a sub-class of d1) has no partner left; omega = 2,
	// P = 2/4.
	if v, _ := res.Value("rp@5", "q1"); !near(v, 0.5, 1e-12) {
		t.Errorf("rp@5(q1) = %v, want 0.5", v)
	}
}

func TestRelaxedNeedsHierarchy(t *testing.T) {
	q, _ := ParseQrels(strings.NewReader(qrelsText), "q")
	run, _ := ParseRun(strings.NewReader(runText), "r")
	opts := DefaultOptions()
	opts.Measures, _ = ParseMeasures("rp@10")
	if _, err := Evaluate(context.Background(), q, run, opts); err == nil || !strings.Contains(err.Error(), "--corpus") {
		t.Errorf("err = %v, want a request for --corpus", err)
	}
}

func TestParseMeasures(t *testing.T) {
	ms, err := ParseMeasures("NDCG@10, map ,ndcg@10,awp")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "ndcg@10,map,awp" {
		t.Errorf("names = %v", names)
	}
	for _, bad := range []string{"foo", "p", "awp@3", "ndcg@0", "ndcg@x", ","} {
		if _, err := ParseMeasures(bad); err == nil {
			t.Errorf("ParseMeasures(%q) accepted", bad)
		}
	}
}

// TestParseErrors checks that malformed lines name the file, line and field.
func TestParseErrors(t *testing.T) {
	runs := []struct{ text, want string }{
		{"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 1 abc t\n", "run.txt:2: field score: \"abc\" is not a number"},
		{"q1 Q0 d1 x 0.5 t\n", "run.txt:1: field rank: \"x\" is not an integer"},
		{"q1 Q0 d1 1 0.5\n", "run.txt:1: want 6 fields (qid Q0 docid rank score tag), got 5"},
		{"q1 Q0 d1 1 NaN t\n", "run.txt:1: field score: \"NaN\" is not a finite number"},
		{"q1 Q0 d1 1 0.5 t\n\nq1 Q0 d1 2 0.4 t\n", "run.txt:3: field docid: document \"d1\" retrieved twice for query \"q1\" (also on line 1)"},
	}
	for _, c := range runs {
		_, err := ParseRun(strings.NewReader(c.text), "run.txt")
		var pe *ParseError
		if err == nil || !errors.As(err, &pe) || err.Error() != c.want {
			t.Errorf("ParseRun(%q) = %v, want %q", c.text, err, c.want)
		}
	}
	qrels := []struct{ text, want string }{
		{"q1 0 d1 1\nq1 0 d2\n", "q.txt:2: want 4 fields (qid iter docid grade), got 3"},
		{"q1 0 d1 high\n", "q.txt:1: field grade: \"high\" is not a number"},
		{"q1 0 d1 1\nq1 0 d1 2\n", "q.txt:2: field docid: document \"d1\" judged twice for query \"q1\""},
	}
	for _, c := range qrels {
		_, err := ParseQrels(strings.NewReader(c.text), "q.txt")
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseQrels(%q) = %v, want %q", c.text, err, c.want)
		}
	}
}

// trec_eval orders by score descending, then docid descending (strcmp):
// "b10" > "b1" > "a9" byte-wise.
func TestRunOrderTrecEval(t *testing.T) {
	run, err := ParseRun(strings.NewReader("q Q0 a9 1 1 t\nq Q0 b1 2 1 t\nq Q0 z 3 0.5 t\nq Q0 b10 4 1 t\nq Q0 c 5 2 t\n"), "r")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range run.Ranking("q") {
		got = append(got, e.Doc)
	}
	if strings.Join(got, " ") != "c b10 b1 a9 z" {
		t.Errorf("order = %v, want c b10 b1 a9 z", got)
	}
}

func TestCompareAndSensitivity(t *testing.T) {
	q, _ := ParseQrels(strings.NewReader(qrelsText+"q2 0 e2 2\n"), "q")
	a, _ := ParseRun(strings.NewReader(runText), "a")
	// b answers q2 perfectly and q1 with d1 first.
	b, _ := ParseRun(strings.NewReader("q1 Q0 d1 1 5 t\nq1 Q0 d3 2 4 t\nq2 Q0 e2 1 3 t\nq2 Q0 e1 2 2 t\n"), "b")
	opts := DefaultOptions()
	opts.Measures, _ = ParseMeasures("ndcg@10,map,p@1,awp")
	rs, err := EvaluateRuns(context.Background(), q, []*Run{a, b}, opts)
	if err != nil {
		t.Fatal(err)
	}
	cs := Compare(rs, CompareOptions{Trials: 1000, Seed: 1})
	if len(cs) != 4 {
		t.Fatalf("%d comparisons, want 4", len(cs))
	}
	for _, c := range cs {
		if c.Run != "b" || c.Baseline != "a" || c.N != 2 || !(c.Diff > 0) {
			t.Errorf("comparison %+v", c)
		}
		// With two queries the exact randomisation p is at least 2/4.
		if c.PRand < 0.5 {
			t.Errorf("%s: randomisation p = %v with two queries", c.Measure, c.PRand)
		}
	}
	s, err := AnalyseSensitivity(context.Background(), q, []*Run{a, b}, rs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if s.RunPairs != 1 || len(s.GainSettings) != 4 || s.MeasureSwapRate != 0 {
		t.Errorf("sensitivity %+v", s)
	}
}

// swaps counts strictly discordant pairs: x = (1 2 3), y = (3 2 1): 3;
// y = (1 1 3): the tie between runs 1 and 2 is not a swap: 0.
func TestSwaps(t *testing.T) {
	if n := swaps([]float64{1, 2, 3}, []float64{3, 2, 1}); n != 3 {
		t.Errorf("swaps = %d, want 3", n)
	}
	if n := swaps([]float64{1, 2, 3}, []float64{1, 1, 3}); n != 0 {
		t.Errorf("swaps = %d, want 0", n)
	}
}

// lineChunks cuts at line ends and numbers lines across chunks:
// "a\nbb\nccc\nd" in 3 chunks.
func TestLineChunks(t *testing.T) {
	text := "a\nbb\nccc\nd"
	cs := lineChunks(text, 3, 0)
	var parts []string
	for _, c := range cs {
		parts = append(parts, text[c.start:c.end])
	}
	if strings.Join(parts, "|") != "a\nbb\n|ccc\n|d" || cs[1].line != 3 || cs[2].line != 4 {
		t.Errorf("chunks %q lines %+v", parts, cs)
	}
	if cs := lineChunks(text, 4, 100); len(cs) != 1 {
		t.Errorf("short text split into %d chunks", len(cs))
	}
}

// bigRun returns a run file of more than parallelParseMin bytes (so it is
// parsed in parallel chunks) with 300 queries of 200 documents, queries
// interleaved so that each spans every chunk; bad, when > 0, is the line
// whose score is broken.
func bigRun(bad int) string {
	var sb strings.Builder
	line := 0
	for d := 0; d < 200; d++ {
		for q := 0; q < 300; q++ {
			line++
			score := fmt.Sprintf("%d", (q*7+d*13)%50)
			if line == bad {
				score = "oops"
			}
			fmt.Fprintf(&sb, "q%03d Q0 doc-%03d %d %s tag\n", q, d, d+1, score)
		}
	}
	return sb.String()
}

// A run parsed in parallel chunks gives the same rankings as the same lines
// sorted by hand, and an error deep in the file names its true line.
func TestParseRunParallelChunks(t *testing.T) {
	text := bigRun(0)
	if len(text) < parallelParseMin {
		t.Fatalf("test run too small: %d bytes", len(text))
	}
	run, err := ParseRun(strings.NewReader(text), "big")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(run.Queries()); n != 300 {
		t.Fatalf("%d queries, want 300", n)
	}
	// Query q007: score of doc d is (49 + 13d) mod 50; highest first, ties
	// by docid descending.
	want := make([]Entry, 200)
	for d := range want {
		want[d] = Entry{Doc: fmt.Sprintf("doc-%03d", d), Score: float64((7*7 + d*13) % 50)}
	}
	sortTREC(want)
	got := run.Ranking("q007")
	for i := range want {
		if got[i].Doc != want[i].Doc || got[i].Score != want[i].Score {
			t.Fatalf("rank %d: got %v, want %v", i+1, got[i], want[i])
		}
	}
	_, err = ParseRun(strings.NewReader(bigRun(55555)), "big")
	if err == nil || err.Error() != `big:55555: field score: "oops" is not a number` {
		t.Errorf("err = %v", err)
	}
}

// Evaluation does not depend on the number of workers.
func TestEvaluateWorkersDeterministic(t *testing.T) {
	var qb strings.Builder
	for q := 0; q < 300; q++ {
		for d := 0; d < 200; d += 9 {
			fmt.Fprintf(&qb, "q%03d 0 doc-%03d %d\n", q, d, (q+d)%5)
		}
	}
	qr, err := ParseQrels(strings.NewReader(qb.String()), "q")
	if err != nil {
		t.Fatal(err)
	}
	run, err := ParseRun(strings.NewReader(bigRun(0)), "big")
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Measures, _ = ParseMeasures("all")
	eval := func(procs int) *Result {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		r, err := Evaluate(context.Background(), qr, run, opts)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	one, four := eval(1), eval(4)
	for m, v := range one.Mean {
		if four.Mean[m] != v {
			t.Errorf("%s: %v with 1 worker, %v with 4", m, v, four.Mean[m])
		}
	}
}

// The rankings R5, R6 and R7 of Table 1 of
// papers/retrieval-correctness-measures.md as three runs over one query
// (identity gain, sqrt discount). From Tables 1 and 2:
//
//	AWP:      R5 0.54 < R6 0.79 = R7 0.79   (the order versus rank defect)
//	ANCG:     R5 0.51 > R6 0.37 > R7 0.26
//	NDCG9:    R5 0.52 > R6 0.46 > R7 0.43
//
// so AWP and ANCG order the pairs (R5,R6) and (R5,R7) differently and tie
// on (R6,R7): 2 swaps of 3 pairs; NDCG and ANCG agree (0 swaps); AWP and
// NDCG swap 2. Over the 3 measure pairs x 3 run pairs: 4/9.
// With the binary:1 gain (relevant gain 1) ANCG(R5) = (1/3 + 2/3 + 1+1+1+1)/9
// = 5/9: CG = 0 0 0 1 2 3 3 3 3 against ICG = 1 2 3 3 ...
func TestSensitivityPaperRankings(t *testing.T) {
	qrels := "q 0 a 10\nq 0 b 6\nq 0 c 3\nq 0 z1 0\nq 0 z2 0\nq 0 z3 0\nq 0 z4 0\nq 0 z5 0\nq 0 z6 0\n"
	order := map[string][]string{
		"R5": {"z1", "z2", "z3", "c", "b", "a", "z4", "z5", "z6"},
		"R6": {"z1", "z2", "z3", "z4", "z5", "a", "b", "c", "z6"},
		"R7": {"z1", "z2", "z3", "z4", "z5", "z6", "a", "b", "c"},
	}
	q, err := ParseQrels(strings.NewReader(qrels), "q")
	if err != nil {
		t.Fatal(err)
	}
	var runs []*Run
	for _, name := range []string{"R5", "R6", "R7"} {
		var sb strings.Builder
		for i, d := range order[name] {
			fmt.Fprintf(&sb, "q Q0 %s %d %d %s\n", d, i+1, 9-i, name)
		}
		r, err := ParseRun(strings.NewReader(sb.String()), name)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	opts := DefaultOptions()
	opts.Gain, opts.Discount = IdentityGain, SqrtDiscount
	opts.Measures, _ = ParseMeasures("awp,ancg,ndcg@9")
	rs, err := EvaluateRuns(context.Background(), q, runs, opts)
	if err != nil {
		t.Fatal(err)
	}
	paper := map[string][3]float64{"awp": {0.54, 0.79, 0.79}, "ancg": {0.51, 0.37, 0.26}, "ndcg@9": {0.52, 0.46, 0.43}}
	for m, want := range paper {
		for i := range rs {
			if got := math.Round(rs[i].Mean[m]*100) / 100; got != want[i] {
				t.Errorf("%s(%s) = %.2f, paper %.2f", m, rs[i].Run, got, want[i])
			}
		}
	}
	s, err := AnalyseSensitivity(context.Background(), q, runs, rs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if s.RunPairs != 3 || s.MeasureSwaps[0][1] != 2 || s.MeasureSwaps[1][2] != 0 || s.MeasureSwaps[0][2] != 2 {
		t.Errorf("measure swaps %v (run pairs %d), want awp/ancg 2, ancg/ndcg 0, awp/ndcg 2", s.MeasureSwaps, s.RunPairs)
	}
	if !near(s.MeasureSwapRate, 4.0/9, 1e-12) {
		t.Errorf("swap rate %v, want 4/9", s.MeasureSwapRate)
	}
	if got := s.GainMeans["binary:1"][0]["ancg"]; !near(got, 5.0/9, 1e-12) {
		t.Errorf("ANCG(R5) with binary gain = %v, want 5/9", got)
	}
}

// At --relevant-from 0 (or below) only judged documents
// with a non-negative grade >= the level are relevant, as in trec_eval
// (form_res_rels.c: unjudged documents get RELVALUE_NONPOOL = -1 and
// negative qrels grades are not counted in num_rel).
//
// The example: qrels "q1 0 d1 1", run x then d1. trec_eval -l 0
// gives map = (1/2)/1 = 0.5, P@2 = 1/2, recall@2 = 1, mrr = 1/2.
// With a judged 0 (d0) and a judged -1 (dn) added: d0 is relevant at
// level 0 (judged, 0 >= 0), dn is not. Run dn x d1 d0:
//
//	num_rel = 2 (d1, d0); relevant ranks 3 and 4:
//	map = (1/3 + 2/4)/2 = 0.4166667; r@4 = 1; p@4 = 2/4; mrr = 1/3.
func TestEvaluateRelevantFromZeroUnjudged(t *testing.T) {
	cases := []struct {
		qrels, run string
		level      float64
		want       map[string]float64
	}{
		{"q1 0 d1 1\n", "q1 Q0 x 1 2 t\nq1 Q0 d1 2 1 t\n", 0,
			map[string]float64{"map": 0.5, "p@2": 0.5, "r@2": 1, "mrr": 0.5}},
		{"q1 0 d1 1\n", "q1 Q0 x 1 2 t\nq1 Q0 d1 2 1 t\n", -3,
			map[string]float64{"map": 0.5, "p@2": 0.5, "r@2": 1, "mrr": 0.5}},
		{"q1 0 d1 1\nq1 0 d0 0\nq1 0 dn -1\n", "q1 Q0 dn 1 4 t\nq1 Q0 x 2 3 t\nq1 Q0 d1 3 2 t\nq1 Q0 d0 4 1 t\n", 0,
			map[string]float64{"map": (1.0/3 + 2.0/4) / 2, "p@4": 0.5, "r@4": 1, "mrr": 1.0 / 3}},
	}
	for i, c := range cases {
		q, err := ParseQrels(strings.NewReader(c.qrels), "q")
		if err != nil {
			t.Fatal(err)
		}
		run, err := ParseRun(strings.NewReader(c.run), "r")
		if err != nil {
			t.Fatal(err)
		}
		opts := DefaultOptions()
		opts.RelevantFrom = c.level
		for m := range c.want {
			ms, _ := ParseMeasures(m)
			opts.Measures = append(opts.Measures, ms...)
		}
		res, err := Evaluate(context.Background(), q, run, opts)
		if err != nil {
			t.Fatal(err)
		}
		for m, w := range c.want {
			if v, _ := res.Value(m, "q1"); !near(v, w, 1e-9) {
				t.Errorf("case %d level %v: %s = %v, want %v (trec_eval)", i, c.level, m, v, w)
			}
		}
	}
}

// A leading BOM is not part of the first qid.
func TestParseBOM(t *testing.T) {
	q, err := ParseQrels(strings.NewReader("\xef\xbb\xbfq1 0 d1 1\n"), "q")
	if err != nil || len(q.Queries()) != 1 || q.Queries()[0] != "q1" {
		t.Fatalf("qrels with BOM: %v %v", q, err)
	}
	r, err := ParseRun(strings.NewReader("\xef\xbb\xbfq1 Q0 d1 1 1 t\n"), "r")
	if err != nil || len(r.Ranking("q1")) != 1 {
		t.Fatalf("run with BOM: %v", err)
	}
}
