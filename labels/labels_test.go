package labels

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/internal/refdata"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/sessions"
)

// docs/method.md section 4: p < 0.2 -> -2; [0.2, 0.45) -> 0; [0.45, 0.5) -> 1;
// [0.5, 0.6) -> 2; [0.6, 0.7) -> 3; >= 0.7 -> 4. Each threshold exactly and
// the float just below it.
func TestLabelBoundaries(t *testing.T) {
	th := DefaultThresholds()
	below := func(v float64) float64 { return math.Nextafter(v, 0) }
	cases := []struct {
		p    float64
		want int
	}{
		{0, -2}, {below(0.2), -2}, {0.2, 0},
		{below(0.45), 0}, {0.45, 1},
		{below(0.5), 1}, {0.5, 2},
		{below(0.6), 2}, {0.6, 3},
		{below(0.7), 3}, {0.7, 4},
		{1, 4},
	}
	for _, c := range cases {
		if got := th.Label(c.p); got != c.want {
			t.Errorf("Label(%v) = %d, want %d", c.p, got, c.want)
		}
	}
}

func TestParseThresholds(t *testing.T) {
	th, err := ParseThresholds("0.2, 0.45,0.5,0.6,0.7")
	if err != nil || th != DefaultThresholds() {
		t.Fatalf("ParseThresholds = %v, %v", th, err)
	}
	if th.String() != "0.2,0.45,0.5,0.6,0.7" {
		t.Errorf("String = %q", th.String())
	}
	for _, bad := range []string{"0.2,0.45,0.5,0.6", "0.2,0.45,0.45,0.6,0.7", "0.2,0.45,0.5,0.6,1.5", "0.2,x,0.5,0.6,0.7", "NaN,0.45,0.5,0.6,0.7"} {
		if _, err := ParseThresholds(bad); err == nil {
			t.Errorf("ParseThresholds(%q): no error", bad)
		}
	}
	// Custom thresholds move the boundaries.
	th, _ = ParseThresholds("0.1,0.2,0.3,0.4,0.5")
	if th.Label(0.1) != 0 || th.Label(0.35) != 2 || th.Label(0.5) != 4 {
		t.Errorf("custom thresholds: %d %d %d", th.Label(0.1), th.Label(0.35), th.Label(0.5))
	}
}

func TestReadRelevanceBadInput(t *testing.T) {
	in := "\xEF\xBB\xBFquery\tdoc\trelevance\r" +
		"q1\td1\t0.5\r" + // 2 ok
		"q1\td2\tNA\r" + // 3 not a number (PyClick's CM file)
		"q1\td3\tNaN\r" + // 4 NaN
		"q1\td4\t1.5\r" + // 5 out of range
		"q1\td5\t-0.1\r" + // 6 out of range
		"q1\td1\t0.5\r" + // 7 duplicate
		"q1\td1\t0.7\r" + // 8 conflicting
		"q1\td6\r" + // 9 malformed
		"\td7\t0.1\r" + // 10 empty query
		"q2\td1\t1\r" // 11 ok
	rel, skips, err := ReadRelevance(strings.NewReader(in), "rel.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(rel) != 2 || rel[0].P != 0.5 || rel[0].Line != 2 || rel[1].Query != "q2" || rel[1].Line != 11 {
		t.Fatalf("rows = %+v", rel)
	}
	want := map[string]int{ReasonNotANumber: 2, ReasonOutOfRange: 2, ReasonDuplicate: 1, ReasonConflict: 1, ReasonMalformed: 1, ReasonEmptyField: 1}
	for k, v := range want {
		if skips.Counts[k] != v {
			t.Errorf("%s = %d, want %d (all %v)", k, skips.Counts[k], v, skips.Counts)
		}
	}
	if skips.Total() != 8 {
		t.Errorf("total skips %d, want 8", skips.Total())
	}
	var conflict Problem
	for _, p := range skips.Examples {
		if p.Reason == ReasonConflict {
			conflict = p
		}
	}
	if conflict.Line != 8 || !strings.Contains(conflict.String(), "rel.tsv:8") || !strings.Contains(conflict.Detail, "line 2") {
		t.Errorf("conflict example %v", conflict)
	}
	if _, _, err := ReadRelevance(strings.NewReader("q\td\tr\n"), "x.tsv"); err == nil || !strings.Contains(err.Error(), "x.tsv:1") {
		t.Errorf("bad header: %v", err)
	}
	if _, _, err := ReadRelevance(strings.NewReader(""), "x.tsv"); err == nil {
		t.Error("empty file: no error")
	}
}

// TestReadRelevanceIntervals: a relevance file with intervals gives every
// row its posterior; a bad interval field is skipped and counted, naming
// the field.
func TestReadRelevanceIntervals(t *testing.T) {
	in := RelevanceHeaderIntervals + "\n" +
		"q1\td1\t0.5\t0.2\t0.8\t2.5\t3\n" + // 2 ok
		"q1\td2\t0.5\n" + // 3 malformed: 3 fields
		"q1\td3\t0.5\tx\t0.8\t2\t3\n" + // 4 lower not a number
		"q1\td4\t0.5\t0.2\t1.5\t2\t3\n" + // 5 upper out of range
		"q1\td5\t0.5\t0.2\t0.8\t0\t3\n" + // 6 alpha not positive
		"q1\td6\t0.5\t0.2\t0.8\t2\t+Inf\n" // 7 beta not finite
	rel, skips, err := ReadRelevance(strings.NewReader(in), "rel.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(rel) != 1 || rel[0].Post != (Posterior{2.5, 3}) || rel[0].P != 0.5 {
		t.Fatalf("rows = %+v", rel)
	}
	want := map[string]int{ReasonMalformed: 1, ReasonNotANumber: 1, ReasonOutOfRange: 3}
	for k, v := range want {
		if skips.Counts[k] != v {
			t.Errorf("%s = %d, want %d (all %v)", k, skips.Counts[k], v, skips.Counts)
		}
	}
	fields := map[string]bool{}
	for _, p := range skips.Examples {
		fields[p.Field] = true
	}
	for _, f := range []string{"lower", "upper", "alpha", "beta"} {
		if !fields[f] {
			t.Errorf("no skip names field %s: %v", f, skips.Examples)
		}
	}
}

func addSERP(t *testing.T, l *sessions.Log, sess, q string, docs ...string) {
	t.Helper()
	if err := l.Add(&sessions.SERP{SessionID: sess, Query: q, Region: "0", Results: docs}); err != nil {
		t.Fatal(err)
	}
}

func TestAssignFirstSERP(t *testing.T) {
	l := &sessions.Log{}
	// q1: shown as [a b c] twice and [b a c] once (first): most-frequent is
	// [a b c], first is [b a c].
	addSERP(t, l, "s1", "q1", "b", "a", "c")
	addSERP(t, l, "s2", "q1", "a", "b", "c")
	addSERP(t, l, "s3", "q1", "a", "b", "c", "z") // longer SERP: first 3 count
	// q2: full SERP but d3 has no relevance: left out.
	addSERP(t, l, "s4", "q2", "d1", "d2", "d3")
	// q3: only a short SERP.
	addSERP(t, l, "s5", "q3", "x")
	rel := []Relevance{
		// Posteriors by hand: Beta(1, 1) is uniform, so label 4's band
		// [0.7, 1] has probability 0.3; Beta(2, 1) has CDF x^2, so label 1's
		// band [0.45, 0.5) has 0.25 - 0.2025 = 0.0475; no posterior, no
		// confidence.
		{"q1", "a", 0.7, 2, Posterior{1, 1}}, {"q1", "b", 0.45, 3, Posterior{2, 1}}, {"q1", "c", 0.1999, 4, Posterior{}}, {"q1", "z", 0.9, 5, Posterior{}},
		{"q2", "d1", 0.5, 6, Posterior{}}, {"q2", "d2", 0.5, 7, Posterior{}},
		{"q9", "a", 0.5, 8, Posterior{}},
	}
	ls, rep, err := Assign(context.Background(), l, rel, "rel.tsv", Options{SERPSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []Label{{"q1", "a", 1, 4, 0.7, 0.3, Posterior{1, 1}}, {"q1", "b", 2, 1, 0.45, 0.0475, Posterior{2, 1}}, {"q1", "c", 3, -2, 0.1999, NoConfidence, Posterior{}}}
	if len(ls) != len(want) {
		t.Fatalf("labels %+v", ls)
	}
	for i := range want {
		got := ls[i]
		if math.Abs(got.Confidence-want[i].Confidence) < 1e-12 {
			got.Confidence = want[i].Confidence
		}
		if got != want[i] {
			t.Errorf("label %d = %+v, want %+v", i, ls[i], want[i])
		}
	}
	if rep.LabelledQueries != 1 || rep.LogQueries != 3 {
		t.Errorf("report %+v", rep)
	}
	// Every relevance row is either labelled or counted: 7 = 3 + 4.
	if rep.Labels+rep.RowSkips.Total() != len(rel) {
		t.Errorf("labels %d + skipped %d != rows %d (%v)", rep.Labels, rep.RowSkips.Total(), len(rel), rep.RowSkips.Counts)
	}
	if rep.RowSkips.Counts[ReasonUnknownQuery] != 1 || rep.RowSkips.Counts[ReasonNotOnFirstSERP] != 1 || rep.RowSkips.Counts[ReasonQueryDropped] != 2 {
		t.Errorf("row skips %v", rep.RowSkips.Counts)
	}
	if rep.QuerySkips.Counts[ReasonIncompleteSERP] != 1 || rep.QuerySkips.Counts[ReasonShortSERP] != 1 {
		t.Errorf("query skips %v", rep.QuerySkips.Counts)
	}

	ls, _, err = Assign(context.Background(), l, rel, "rel.tsv", Options{SERPSize: 3, Choice: Earliest})
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 3 || ls[0].Term != "b" || ls[1].Term != "a" {
		t.Errorf("first SERP: %+v", ls)
	}
}

func TestLabelsRoundTrip(t *testing.T) {
	in := []Label{{"q,1", "foaf:Person", 1, 4, 0.75, 0.5, Posterior{}}, {"q,1", "x", 2, -2, 0.1, NoConfidence, Posterior{}}, {"q2", "y", 1, 0, 1.0 / 3, 1, Posterior{}}}
	var b bytes.Buffer
	if err := WriteLabels(&b, in); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "query,term,label,probability,confidence\n\"q,1\",foaf:Person,4,0.75,0.5\n\"q,1\",x,-2,0.1,\n") {
		t.Errorf("output %q", b.String())
	}
	out, err := ReadLabels(&b, "labels.csv")
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if out[i] != in[i] {
			t.Errorf("row %d = %+v, want %+v", i, out[i], in[i])
		}
	}
	_, err = ReadLabels(strings.NewReader("query,term,label,probability\nq,t,5,0.5\n"), "labels.csv")
	if err == nil || !strings.Contains(err.Error(), "labels.csv:2: field label") {
		t.Errorf("bad label: %v", err)
	}
	// A file from before the confidence column reads with NoConfidence.
	old, err := ReadLabels(strings.NewReader("query,term,label,probability\nq,t,3,0.6\n"), "labels.csv")
	if err != nil || len(old) != 1 || old[0].Confidence != NoConfidence || old[0].Grade != 3 {
		t.Errorf("old header: %+v, %v", old, err)
	}
	_, err = ReadLabels(strings.NewReader("query,term,label,probability,confidence\nq,t,3,0.6,1.5\n"), "labels.csv")
	if err == nil || !strings.Contains(err.Error(), "labels.csv:2: field confidence") {
		t.Errorf("bad confidence: %v", err)
	}
}

func near(a *float64, want float64) bool { return a != nil && math.Abs(*a-want) < 1e-12 }

func TestCorrelations(t *testing.T) {
	// x = (0.9, 0.5, 0.5, 0.1), y = (3, 2, 1, 0).
	// Mid-ranks: rx = (4, 2.5, 2.5, 1), ry = (4, 3, 2, 1); deviations from
	// 2.5: (1.5, 0, 0, -1.5) and (1.5, .5, -.5, -1.5); Sxy = 4.5, Sxx = 4.5,
	// Syy = 5, r = 4.5 / sqrt(22.5) = sqrt(0.9).
	x, y := []float64{0.9, 0.5, 0.5, 0.1}, []float64{3, 2, 1, 0}
	if got := RankPearson(x, y); math.Abs(got-math.Sqrt(0.9)) > 1e-12 {
		t.Errorf("RankPearson = %v, want %v", got, math.Sqrt(0.9))
	}
	// Pairs: 5 concordant, 0 discordant, 1 tied in x (0.5, 0.5), none in y;
	// n0 = 6; tau_b = 5 / sqrt((6-1)(6-0)) = 5/sqrt(30).
	if got := KendallTauB(x, y); math.Abs(got-5/math.Sqrt(30)) > 1e-12 {
		t.Errorf("KendallTauB = %v, want %v", got, 5/math.Sqrt(30))
	}
	// x = (1,2,3), y = (1,3,2): C = 2, D = 1, tau = 1/3; rank deviations
	// (-1,0,1) and (-1,1,0): r = 1/2.
	if got := KendallTauB([]float64{1, 2, 3}, []float64{1, 3, 2}); math.Abs(got-1.0/3) > 1e-12 {
		t.Errorf("KendallTauB = %v, want 1/3", got)
	}
	if got := RankPearson([]float64{1, 2, 3}, []float64{1, 3, 2}); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("RankPearson = %v, want 0.5", got)
	}
	if !math.IsNaN(KendallTauB([]float64{1, 1}, []float64{1, 2})) || !math.IsNaN(RankPearson([]float64{1}, []float64{1})) {
		t.Error("undefined correlations are not NaN")
	}
}

type mapResolver map[string]string

func (m mapResolver) Resolve(s string) (string, bool) { u, ok := m[s]; return u, ok }

func TestCompareExperts(t *testing.T) {
	expert := []Judgment{
		{Query: "person", Term: "http://x/A", Label: 3}, {Query: "person", Term: "http://x/B", Label: 2},
		{Query: "person", Term: "http://x/C", Label: 1}, {Query: "person", Term: "http://x/D", Label: 0},
		{Query: "music", Term: "http://x/A", Label: 1}, {Query: "music", Term: "http://x/B", Label: 2},
		{Query: "music", Term: "http://x/C", Label: 3},
	}
	res := mapResolver{"x:A": "http://x/A", "x:B": "http://x/B", "x:C": "http://x/C", "x:D": "http://x/D", "x:A2": "http://x/A"}
	pred := []Relevance{
		{Query: "Person ", Doc: "x:A", P: 0.9}, {Query: "person", Doc: "x:B", P: 0.5}, {Query: "person", Doc: "x:C", P: 0.5},
		{Query: "person", Doc: "x:D", P: 0.1}, {Query: "person", Doc: "x:A2", P: 0.0}, // duplicate URI
		{Query: "person", Doc: "y:Z", P: 0.3}, // unresolved, unmatched
		{Query: "music", Doc: "x:A", P: 1}, {Query: "music", Doc: "x:B", P: 3}, {Query: "music", Doc: "x:C", P: 2},
		{Query: "other", Doc: "x:A", P: 0.3}, // not an expert query
	}
	a := CompareExperts(pred, expert, res)
	if len(a.PerQuery) != 2 || a.PerQuery[0].Query != "music" || a.PerQuery[1].Query != "person" {
		t.Fatalf("per query %+v", a.PerQuery)
	}
	// person is the first case of TestCorrelations; music the second.
	if !near(a.PerQuery[1].Pearson, math.Sqrt(0.9)) || !near(a.PerQuery[1].Kendall, 5/math.Sqrt(30)) {
		t.Errorf("person %+v", a.PerQuery[1])
	}
	if !near(a.PerQuery[0].Pearson, 0.5) || !near(a.PerQuery[0].Kendall, 1.0/3) {
		t.Errorf("music %+v", a.PerQuery[0])
	}
	if !near(a.MeanPearson, (0.5+math.Sqrt(0.9))/2) {
		t.Errorf("mean pearson %v", *a.MeanPearson)
	}
	if a.Pooled.Pairs != 7 || a.DuplicatePairs != 1 || a.Unresolved != 1 || a.Unmatched != 1 {
		t.Errorf("counts %+v", a)
	}
	// Pooled x = (1,3,2, 0.9,0.5,0.5,0.1), y = (1,2,3, 3,2,1,0), 21 pairs:
	// music internal C2 D1; person internal C5 D0, 1 tie in x; cross pairs
	// (music, person) always have x_m > x_p, so they are concordant iff
	// y_m > y_p: y_m=1 vs (3,2,1,0): C1 D2, 1 tie in y; y_m=2: C2 D1, 1 tie;
	// y_m=3: C3, 1 tie. C = 13, D = 4, tx = 1, ty = 3:
	// tau_b = 9 / sqrt((21-1)(21-3)) = 9/sqrt(360).
	if !near(a.Pooled.Kendall, 9/math.Sqrt(360)) {
		t.Errorf("pooled kendall %v, want %v", *a.Pooled.Kendall, 9/math.Sqrt(360))
	}
}

// The CBRBench file: BOM, CR line endings, 819 rows, one conflicting
// duplicate (music, schema:MusicEvent rated 1 on line 696 and 2 on line 697).
// With the duplicate's second rating the label shares are LOVBench Table 4's
// CBRBench column over 819 judgments: 4.64, 10.01, 19.90, 25.76, 39.68, 0.
func TestReadCBRBench(t *testing.T) {
	path := refdata.Path(t, "lovbench", "cbrbench", "CBRBenchGroundTruth.csv.gz")
	f, err := textio.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	js, skips, err := ReadExpert(f, "CBRBenchGroundTruth.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(js) != 818 || skips.Total() != 1 || skips.Counts[ReasonConflict] != 1 {
		t.Fatalf("%d judgments, skips %v", len(js), skips.Counts)
	}
	p := skips.Examples[0]
	if p.Line != 697 || !strings.Contains(p.Detail, "music, http://schema.org/MusicEvent") || !strings.Contains(p.Detail, "line 696") {
		t.Errorf("duplicate reported as %v", p)
	}
	if js[0].Query != "title" || js[0].Term != "http://bibframe.org/vocab/Title" || js[0].Rating != 4 || js[0].Label != 4 || js[0].Line != 1 {
		t.Errorf("first row %+v (BOM not stripped?)", js[0])
	}
	queries := map[string]int{}
	ls := make([]int, 0, 819)
	for _, j := range js {
		queries[j.Query]++
		ls = append(ls, j.Label)
	}
	if len(queries) != 10 || queries["event"] != 137 || queries["music"] != 46 {
		t.Errorf("queries %v", queries)
	}
	ls = append(ls, 2) // line 697's label
	table4 := map[int]float64{4: 4.64, 3: 10.01, 2: 19.90, 1: 25.76, 0: 39.68, -2: 0}
	for _, r := range Distribution(ls) {
		if math.Abs(100*r.Share-table4[r.Label]) > 0.005 {
			t.Errorf("label %d share %.4f%%, Table 4 says %.2f%%", r.Label, 100*r.Share, table4[r.Label])
		}
	}
}

// The PyClick reference log and its UBM relevance: every query of the log
// has 10-result SERPs, and every relevance row is labelled or counted.
func TestAssignPyClickReference(t *testing.T) {
	logPath := refdata.Path(t, "pyclick", "golden_ubm6k.tsv")
	relPath := refdata.Path(t, "pyclick", "golden_ubm6k", "UBM_relevance.tsv.gz")
	lf, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	log, _, err := sessions.ReadYandex(lf, logPath, true)
	if err != nil {
		t.Fatal(err)
	}
	rf, err := textio.Open(relPath)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	rel, skips, err := ReadRelevance(rf, "UBM_relevance.tsv")
	if err != nil || skips.Total() != 0 {
		t.Fatalf("read: %v %v", err, skips.Counts)
	}
	ls, rep, err := Assign(context.Background(), log, rel, "UBM_relevance.tsv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	// README: relevance covers the queries of the first 4,500 sessions
	// (training); the others must be reported as having no relevance.
	train := map[int32]bool{}
	for i := range 4500 {
		train[log.Query[i]] = true
	}
	if got := rep.QuerySkips.Counts["no_relevance"]; got != rep.LogQueries-len(train) {
		t.Errorf("no_relevance %d, want %d - %d", got, rep.LogQueries, len(train))
	}
	if rep.Labels+rep.RowSkips.Total() != len(rel) {
		t.Errorf("labels %d + skipped %v != %d rows", rep.Labels, rep.RowSkips.Counts, len(rel))
	}
	if rep.LabelledQueries+rep.QuerySkips.Total() != rep.LogQueries || len(ls) != 10*rep.LabelledQueries {
		t.Errorf("labelled %d, skipped %v, labels %d", rep.LabelledQueries, rep.QuerySkips.Counts, len(ls))
	}
	th := DefaultThresholds()
	for _, l := range ls {
		if l.Grade != th.Label(l.P) {
			t.Fatalf("%+v", l)
		}
	}
}

// The published values match LOVBench's result file and paper Table 2.
func TestLOVBenchAgreementMatchesPublished(t *testing.T) {
	b, err := os.ReadFile(refdata.Path(t, "lovbench", "results", "Correlation_CBRBench_LOVBench.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	pub := LOVBenchAgreement()
	if len(recs) != 1+len(pub) || strings.Join(recs[0], ",") != "ModelName,KendallRC,PearsonRC" {
		t.Fatalf("file %q", recs)
	}
	table2 := map[string]float64{"DCTR": 0.448, "DBN": 0.282, "UBM": 0.613}
	for i, r := range recs[1:] {
		k, _ := strconv.ParseFloat(r[1], 64)
		p, _ := strconv.ParseFloat(r[2], 64)
		if pub[i].Model != r[0] || pub[i].Kendall != k || pub[i].Pearson != p {
			t.Errorf("%+v, file says %v", pub[i], r)
		}
		// Table 2 truncates to three decimals (UBM 0.61364 -> 0.613).
		if p < table2[r[0]] || p >= table2[r[0]]+0.001 {
			t.Errorf("%s: Pearson %v does not truncate to Table 2's %v", r[0], p, table2[r[0]])
		}
	}
}

// FuzzReadRelevance: any input either fails on its header or is split
// exactly into kept rows and counted skips (one per non-blank data line).
func FuzzReadRelevance(f *testing.F) {
	f.Add("query\tdoc\trelevance\nq\td\t0.5\nq\td\t0.7\n")
	f.Add("\xEF\xBB\xBFquery\tdoc\trelevance\rq\td\tNA\r\r")
	f.Add("query\tdoc\trelevance\nq\t\t1\nq\td\n")
	f.Fuzz(func(t *testing.T, s string) {
		rows, skips, err := ReadRelevance(strings.NewReader(s), "f.tsv")
		if err != nil {
			return
		}
		text, _ := io.ReadAll(textio.NewLineReader(strings.NewReader(s)))
		lines := 0
		for i, l := range strings.Split(string(text), "\n") {
			if i > 0 && strings.TrimSpace(l) != "" {
				lines++
			}
		}
		if len(rows)+skips.Total() != lines {
			t.Fatalf("%d rows + %d skips != %d data lines", len(rows), skips.Total(), lines)
		}
		for _, r := range rows {
			if r.P < 0 || r.P > 1 || r.P != r.P {
				t.Fatalf("kept %+v", r)
			}
		}
	})
}

func TestRunByteIdentical(t *testing.T) {
	dir := t.TempDir()
	var log, rel strings.Builder
	rel.WriteString(RelevanceHeader + "\n")
	for i := range 40 {
		q := fmt.Sprintf("q%d", i%7)
		fmt.Fprintf(&log, "s%d\t0\tQ\t%s\t0\td%d\td%d\td%d\ns%d\t1\tC\td%d\n", i, q, i%5, i%5+1, i%5+2, i, i%5)
	}
	for q := range 8 {
		for d := range 7 {
			fmt.Fprintf(&rel, "q%d\td%d\t%g\n", q, d, float64((q*7+d)%10)/10)
		}
	}
	rel.WriteString("q1\td1\tNaN\n")
	lp, rp := filepath.Join(dir, "log.tsv"), filepath.Join(dir, "rel.tsv")
	os.WriteFile(lp, []byte(log.String()), 0o644)
	os.WriteFile(rp, []byte(rel.String()), 0o644)
	var outs [2][]byte
	var reps [2][]byte
	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprintf("labels%d.csv", i))
		rep, err := Run(context.Background(), Config{Relevance: rp, Sessions: lp, Out: out, Quarantine: filepath.Join(dir, "q.tsv"), Options: Options{SERPSize: 3}})
		if err != nil {
			t.Fatal(err)
		}
		outs[i], _ = os.ReadFile(out)
		rep.Order.QueryFile, rep.Order.PairFile = "", "" // named after out
		reps[i], _ = json.Marshal(rep)
		// 57 rows: 56 numbers and one NaN (quarantined).
		if rep.RelevanceRows != 57 || rep.Labels+rep.RowSkips.Total() != 57 || rep.Quarantined != 1+rep.RowSkips.Counts[ReasonUnknownQuery] {
			t.Errorf("report %s", reps[i])
		}
	}
	if !bytes.Equal(outs[0], outs[1]) || !bytes.Equal(reps[0], reps[1]) || len(outs[0]) < 30 {
		t.Errorf("reruns differ or are empty:\n%s\n%s", outs[0], outs[1])
	}
}

// TestRunWritesReport: with Config.Report the stage writes its report
// itself, naming the quarantine file beside it without its directory, so
// that two runs in two directories write the same bytes; DefaultConfig
// holds the documented defaults (docs/method.md section 4).
func TestRunWritesReport(t *testing.T) {
	def := DefaultConfig()
	if def.Options.Thresholds != (Thresholds{0.2, 0.45, 0.5, 0.6, 0.7}) || def.Options.SERPSize != 10 || def.Options.Choice != MostFrequent {
		t.Fatalf("DefaultConfig options %+v", def.Options)
	}
	src := t.TempDir()
	lp, rp := filepath.Join(src, "log.tsv"), filepath.Join(src, "rel.tsv")
	os.WriteFile(lp, []byte("s1\t0\tQ\tq1\t0\ta\tb\tc\ns1\t1\tC\ta\ns2\t0\tQ\tq1\t0\ta\tb\tc\n"), 0o644)
	os.WriteFile(rp, []byte(RelevanceHeader+"\nq1\ta\t0.9\nq1\tb\t0.1\nq1\tc\t0.55\nq1\tc\tNaN\n"), 0o644)
	var files [2][]byte
	for i := range 2 {
		dir := t.TempDir()
		cfg := DefaultConfig()
		cfg.Options.SERPSize = 3
		cfg.Relevance, cfg.Sessions = rp, lp
		cfg.Out, cfg.Report = filepath.Join(dir, FileLabels), filepath.Join(dir, FileReport)
		rep, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if rep.QuarantineFile != filepath.Join(dir, "labels.csv.quarantine.tsv") || rep.Quarantined != 1 || rep.Labels != 3 {
			t.Errorf("returned report: quarantine %s (%d rows), %d labels", rep.QuarantineFile, rep.Quarantined, rep.Labels)
		}
		files[i], err = os.ReadFile(cfg.Report)
		if err != nil {
			t.Fatal(err)
		}
		var back RunReport
		if err := json.Unmarshal(files[i], &back); err != nil {
			t.Fatal(err)
		}
		if back.QuarantineFile != "labels.csv.quarantine.tsv" || back.Labels != 3 || back.Quarantined != 1 {
			t.Errorf("written report: quarantine %q, %d labels, %d quarantined", back.QuarantineFile, back.Labels, back.Quarantined)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Errorf("the reports of two directories differ:\n%s\n%s", files[0], files[1])
	}
}
