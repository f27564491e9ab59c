package pipeline

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/export"
	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/ltr"
	"github.com/lovbench/lovbench/report"
)

// readCSV reads a CSV file with a header into maps by column name.
func readCSV(t *testing.T, path string, comma rune) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = comma
	r.LazyQuotes = true
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = rec[i]
		}
		out = append(out, m)
	}
	return out
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestReportFiguresFromFullData takes the default demo's run (shared with
// TestDemoEndToEnd) and recomputes, from the
// stage files and independently of the report's code, every figure the
// report's sentences state; the report must state exactly those. The demo
// has 1,760 recovery pairs, more than the scatter plot draws, so a figure
// computed from the plot's sample (as the near-prior share was: 46.2%
// instead of 54.2%) shows.
func TestReportFiguresFromFullData(t *testing.T) {
	t.Parallel()
	dm := sharedDemo(t)
	wd, res := dm.wd, dm.res
	// The configuration `lovbench demo` ran with its defaults.
	cfg := DemoConfig(wd, DemoLOVBench, 0, 0, 1)
	b, err := os.ReadFile(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(b))
	stage := func(name, file string) string { return filepath.Join(wd, "stages", name, file) }
	says := func(what string, want string) {
		t.Helper()
		if !strings.Contains(page, want) {
			m := regexp.MustCompile(`[^<>]{0,60}` + regexp.QuoteMeta(what) + `[^<]{0,120}`).FindString(page)
			t.Errorf("the report does not say %q; it says %q", want, m)
		}
	}

	// Recovery: every labelled pair with a true relevance.
	truth := map[[2]string]float64{}
	for _, r := range readCSV(t, stage("simulate", TruthFile), '\t') {
		truth[[2]string{r["query"], r["term"]}] = num(t, r["relevance"])
	}
	var th labels.Thresholds
	copy(th[:], cfg.Labels.Thresholds)
	var xs, ys []float64
	near, agree := 0, 0
	for _, r := range readCSV(t, stage("label", LabelsFile), ',') {
		tr, ok := truth[[2]string{r["query"], r["term"]}]
		if !ok {
			continue
		}
		p := num(t, r["probability"])
		xs, ys = append(xs, p), append(ys, tr)
		if p >= 0.45 && p < 0.5 {
			near++
		}
		if strconv.Itoa(th.Label(tr)) == r["label"] {
			agree++
		}
	}
	n := len(xs)
	if n <= report.MaxScatter {
		t.Fatalf("%d recovery pairs: too few to test figures against the scatter's sample", n)
	}
	mx, my := 0.0, 0.0
	for i := range xs {
		mx += xs[i] / float64(n)
		my += ys[i] / float64(n)
	}
	sxy, sxx, syy := 0.0, 0.0, 0.0
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
		syy += (ys[i] - my) * (ys[i] - my)
	}
	pearson := sxy / math.Sqrt(sxx*syy)
	says("labelled pairs", fmt.Sprintf("Over the %d labelled pairs", n))
	says("Pearson r =", fmt.Sprintf("Pearson r = %.4f", pearson))
	says("Label recovery: Pearson", fmt.Sprintf("Label recovery: Pearson r %.3f", pearson))
	says("between inferred probability", fmt.Sprintf("over %d pairs.", n))
	says("of these pairs have an inferred probability", fmt.Sprintf("%.1f%% of these pairs have an inferred probability in [0.45, 0.5)", 100*float64(near)/float64(n)))
	says("Labels agree exactly", fmt.Sprintf("Labels agree exactly on %.1f%% of the pairs", 100*float64(agree)/float64(n)))
	step := (n + report.MaxScatter - 1) / report.MaxScatter
	shown := (n + step - 1) / step
	says("The scatter plot shows", fmt.Sprintf("The scatter plot shows a sample of %s of the %s pairs", group(shown), group(n)))
	if c := strings.Count(page, `class="pt"`); c != shown {
		t.Errorf("the scatter plot draws %d points, says %d", c, shown)
	}

	// Ground truth: queries and pairs, and the label shares.
	gt := readCSV(t, stage("sample", export.GroundTruthFile), ',')
	qs := map[string]bool{}
	byLabel := map[string]int{}
	for _, r := range gt {
		qs[r["query"]] = true
		byLabel[r["label"]]++
	}
	says("Ground truth:", fmt.Sprintf("Ground truth: %d queries, %d (query, term) pairs.", len(qs), len(gt)))
	for l, c := range byLabel {
		name := l
		if l == "-2" {
			name = "junk (-2)"
		}
		says("<td>"+name+"</td>", fmt.Sprintf("<tr><td>%s</td><td>%d</td><td>%.2f%%</td>", name, c, 100*float64(c)/float64(len(gt))))
	}

	// Cleaned log, from the ingest report's accounting (the report takes
	// it from the sessions file).
	var ing struct {
		KeptQueries int `json:"kept_queries"`
		KeptClicks  int `json:"kept_clicks"`
		Sessions    struct {
			Kept int `json:"kept"`
		} `json:"sessions"`
	}
	rb, err := os.ReadFile(stage("ingest", ingest.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rb, &ing); err != nil {
		t.Fatal(err)
	}
	says("Cleaned log:", fmt.Sprintf("Cleaned log: %d SERPs in %d sessions,", ing.KeptQueries, ing.Sessions.Kept))
	says("clicks.", fmt.Sprintf(" distinct queries, %d clicks.", ing.KeptClicks))

	// Learning to rank: the verdict and the tie count, from results.json.
	var rf ltr.ResultsFile
	rb, err = os.ReadFile(stage("ltr", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rb, &rf); err != nil {
		t.Fatal(err)
	}
	type cand struct {
		name       string
		v, p, holm float64
	}
	var base float64
	var learned []cand
	flagged, systems := 0, 0
	for _, r := range rf.Rows {
		if r.Fold != "MEAN" {
			continue
		}
		if r.Configuration == "Baseline" {
			base = r.Values["NDCG@10"]
			if r.Ranker != rf.Rows[0].Ranker {
				continue // the baseline once
			}
		} else {
			learned = append(learned, cand{name: r.Ranker + " on " + r.Configuration, v: r.Values["NDCG@10"], p: r.PValue["NDCG@10"]})
		}
		systems++
		if r.Ties.NDCG10Optimistic-r.Ties.NDCG10Pessimistic > 0.01 {
			flagged++
		}
	}
	says("Ties: NDCG@10 moves", fmt.Sprintf("tie-breaking for %d of %d rankers", flagged, systems))
	// Holm by hand over the NDCG@10 p-values of the learned rankers.
	idx := make([]int, len(learned))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return learned[idx[a]].p < learned[idx[b]].p })
	run := 0.0
	for j, i := range idx {
		run = math.Max(run, math.Min(1, float64(len(learned)-j)*learned[i].p))
		learned[i].holm = run
	}
	top, better, worse := -1, 0, 0
	for i, c := range learned {
		if top < 0 || c.v > learned[top].v {
			top = i
		}
		if c.holm < 0.05 && c.v > base {
			better++
		}
		if c.holm < 0.05 && c.v < base {
			worse++
		}
	}
	if better > 0 {
		t.Fatalf("the demo has %d learned rankers significantly better than the baseline; this test expects none", better)
	}
	says("No learned ranker beats", fmt.Sprintf("No learned ranker beats the baseline (NDCG@10 %.4f) significantly after Holm correction (α = 0.05); the highest, %s (%.4f)",
		base, learned[top].name, learned[top].v))
	says("corrected p =", fmt.Sprintf("corrected p = %.4f).", learned[top].holm))
	says("significantly worse", fmt.Sprintf("%d of the %d learned rankers are significantly worse than the baseline.", worse, len(learned)))
	if strings.Contains(page, "Best learned ranker") {
		t.Error("the report names a best learned ranker although none is significantly better than the baseline")
	}
}

// group writes n with thousands separators.
func group(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
