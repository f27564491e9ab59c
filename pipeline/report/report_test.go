package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lovbench/lovbench/pipeline/internal/browsertest"
)

func fp(x float64) *float64 { return &x }

// sample returns report data with every section filled.
func sample() *Data {
	return &Data{
		Title:  "lovbench report <test>",
		Notes:  []string{"simulated log & embedded corpus"},
		Stages: []Stage{{Name: "ingest", Fingerprint: "0123456789abcdef0123"}},
		Cleaning: []Count{{Name: "input events", Value: 1700}, {Name: "dropped: rule1_no_session_id", Value: 10, Kind: Dropped},
			{Name: "quarantined: invalid_json", Value: 3, Kind: Quarantined}, {Name: "kept queries (SERPs)", Value: 900, Kind: KeptQueries},
			{Name: "kept clicks", Value: 787, Kind: KeptClicks}},
		Log: &LogStats{SERPs: 900, Sessions: 300, DistinctQueries: 120, Clicks: 700,
			ClicksPerRank: []int64{300, 150, 90, 60, 40, 25, 15, 10, 6, 4},
			QueryLengths:  []int64{0, 600, 250, 50}, ClassClicks: 400, PropertyClicks: 300},
		Models: []ClickModel{
			{Name: "DCTR", TrainSessions: 675, TestSessions: 200, LogLikelihood: -0.27, Perplexity: 1.3, PerplexityAt: []float64{1.8, 1.4, 1.3, 1.2}, GainBase: "DCTR"},
			{Name: "UBM", TrainSessions: 675, TestSessions: 200, LogLikelihood: -0.17, Perplexity: 1.19, PerplexityAt: []float64{1.7, 1.3, 1.2, 1.1}, Gain: 0.36, GainBase: "DCTR", Selected: true, ExpertPearson: fp(0.6), ExpertKendall: fp(0.4)},
		},
		Labels:  []LabelShare{{-2, 1}, {0, 600}, {1, 200}, {2, 60}, {3, 15}, {4, 4}},
		Dataset: []Count{{Name: "queries", Value: 40}, {Name: "pairs", Value: 880}},
		LTR: []LTRResult{
			{Ranker: "baseline", Config: "LabelSearch_T", Measures: map[string]float64{"MAP": 0.4, "NDCG@3": 0.26, "NDCG@5": 0.3, "NDCG@10": 0.36, "ERR@10": 0.1},
				Ties: &LTRTies{Rate: 0.1, Optimistic: 0.365, Pessimistic: 0.356}},
			{Ranker: "RankNet", Config: "Full", Measures: map[string]float64{"MAP": 0.5, "NDCG@3": 0.36, "NDCG@5": 0.4, "NDCG@10": 0.46, "ERR@10": 0.15},
				Ties: &LTRTies{Rate: 0.25, Optimistic: 0.5, Pessimistic: 0.44}},
		},
		Recovery: &Recovery{Pairs: 3, Pearson: 0.8, Kendall: 0.6, Labels: []int{0, 1}, Confusion: [][]int64{{2, 0}, {0, 1}}, Agreement: 1,
			Points: []Point{{0.1, 0.2}, {0.5, 0.5}, {0.9, 0.8}}},
	}
}

func render(t *testing.T, d *Data) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestRenderSectionsAndCharts(t *testing.T) {
	t.Parallel()
	out := render(t, sample())
	if strings.Contains(out, "No expert correlation") {
		t.Error("expert note although UBM has expert correlations")
	}
	d := sample()
	d.Models[1].ExpertPearson, d.Models[1].ExpertKendall = nil, nil
	if !strings.Contains(render(t, d), "No expert correlation") {
		t.Error("no note on the missing expert correlations")
	}
	for _, want := range []string{
		`id="cleaning"`, `id="log"`, `id="models"`, `id="labels"`, `id="ltr"`, `id="recovery"`, `id="stages"`,
		"Pearson r = 0.8000", "LOVBench share (Table 4, labelled + sampled)", "labelled and 110,274 sampled pairs", "66.59%", "NDCG@10", `class="sel"`,
		"lovbench report &lt;test&gt;", "simulated log &amp; embedded corpus",
		"Best learned ranker by NDCG@10: RankNet on Full, 0.4600 (baseline 0.3600).",
		"Labels from UBM, the selected click model (test log-likelihood -0.1700, perplexity 1.1900).",
		// Tie columns: the baseline's gap 0.009 is not flagged, RankNet's 0.06 is.
		"<td>10.0%</td><td>0.3560 – 0.3650</td>", "<td>25.0%</td><td>0.4400 – 0.5000 ⚠</td>",
		"by docid descending, as trec_eval does",
		// The cleaning chart takes its bars from the counts' kinds.
		"<title>events kept queries: 900</title>", "<title>events kept clicks: 787</title>",
		"<title>events dropped by a rule: 10</title>", "<title>events quarantined: 3</title>",
		"Ties: NDCG@10 moves by more than 0.01 between pessimistic and optimistic tie-breaking for 1 of 2 rankers (table in section 5).",
		// The flagged ranker in a table of its own, not a sentence; both
		// tables in a horizontal scroll container (800 px screens).
		`<table class="ties">`, `<tr><td>RankNet</td><td style="text-align:left">Full</td><td>25.0%</td><td>0.4400</td><td>0.5000</td><td>0.0600</td></tr>`,
		`<div class="scroll"><table><tr><th>ranker</th>`, `.scroll{overflow-x:auto`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Charts: cleaning, 3 log charts, perplexity, labels, NDCG, scatter.
	if n := strings.Count(out, "<svg "); n != 8 {
		t.Errorf("%d charts, want 8", n)
	}
	if !strings.Contains(out, "This report has 8 charts.") {
		t.Error("chart count line missing")
	}
	// Self-contained: no external resources, no scripts.
	for _, bad := range []string{"<script", "src=", `href="http`, "<link", "@import", "url("} {
		if strings.Contains(out, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	if out != render(t, sample()) {
		t.Error("two renders of the same data differ")
	}
}

func TestRenderEmpty(t *testing.T) {
	t.Parallel()
	out := render(t, &Data{Title: "empty"})
	for _, want := range []string{"No ingest report", "No sessions", "No click models", "No ground truth", "No learning-to-rank"} {
		if !strings.Contains(out, want) {
			t.Errorf("empty report lacks %q", want)
		}
	}
	if strings.Contains(out, "No expert correlation") {
		t.Error("expert note without click models")
	}
	if strings.Contains(out, "<svg") || strings.Contains(out, `id="recovery"`) {
		t.Error("empty report has charts or a recovery section")
	}
}

func TestRenderOddValues(t *testing.T) {
	t.Parallel()
	d := sample()
	d.Log.ClicksPerRank = []int64{0, 0}
	d.Models[0].PerplexityAt = nil
	d.LTR[0].Measures = map[string]float64{}
	out := render(t, d)
	d.LTR = d.LTR[1:] // no baseline row
	noBase := render(t, d)
	for _, o := range []string{out, noBase} {
		if regexp.MustCompile(`NaN|Inf\b`).MatchString(o) {
			t.Error("report prints NaN or Inf")
		}
	}
	if strings.Contains(noBase, "(baseline ") {
		t.Error("summary names a baseline although the results have none")
	}
}

func TestReportRendersInChromium(t *testing.T) {
	t.Parallel()
	chromium := browsertest.Find()
	if chromium == "" {
		t.Skip("chromium not found (Debian package chromium; .ci/run installs it): skipping the browser rendering check")
	}
	p := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(p, []byte(render(t, sample())), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	r, err := browsertest.Check(ctx, chromium, p, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if r.Charts != 8 || r.Rendered != r.Charts {
		t.Errorf("chromium rendered %d of %d charts, want 8 of 8", r.Rendered, r.Charts)
	}
	if r.Errors != 0 || len(r.Console) != 0 {
		t.Errorf("page errors %d, console: %q", r.Errors, r.Console)
	}
}

// TestRecoveryNotesASparseLog: when most recovery pairs sit just below the
// prior (inferred probability in [0.45, 0.5)), the report says why
// recovery is limited; 3 of the 4 points here (75%), and none of the
// sample's 3 points, so only the first report has the note.
func TestRecoveryNotesASparseLog(t *testing.T) {
	t.Parallel()
	d := sample()
	d.Recovery.Points = []Point{{0.47, 0.1}, {0.45, 0.9}, {0.4999, 0.5}, {0.5, 0.3}}
	out := render(t, d)
	if !strings.Contains(out, "75.0% of these pairs have an inferred probability in [0.45, 0.5)") {
		t.Error("no sparse-log note for 3 of 4 pairs just below the prior")
	}
	if out := render(t, sample()); strings.Contains(out, "of these pairs have an inferred probability in [0.45, 0.5)") {
		t.Error("sparse-log note on a log whose pairs are spread out")
	}
}
