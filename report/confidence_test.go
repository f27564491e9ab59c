package report

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The section "How sure are the labels": numbered after the recovery
// section (Stages moves to 8), the distribution table, its chart, the prior
// share, the recovery table with the levels that reach the target in bold,
// and the lowest level reaching it.
func TestRenderConfidence(t *testing.T) {
	d := sample()
	d.Confidence = &Confidence{
		Bins: []string{"< 0.5", "0.5-0.8", "0.8-0.9", ">= 0.9"}, Pairs: 10, Known: 9, Target: 0.8, MinPairs: 3,
		ByLabel: []ConfidenceRow{{Label: 4, Pairs: 2, Mean: 0.95, Bins: []int{0, 0, 0, 2}}, {Label: 1, Pairs: 8, Unknown: 1, Mean: 0.25, Bins: []int{6, 1, 0, 0}}},
		Prior:   &PriorShare{Labels: 6, Of: 9, Definition: "their confidence is below the prior's."},
		Recovery: []ConfidenceLevel{{Min: 0, Pairs: 10, Queries: 4, Pearson: 0.25, Kendall: 0.1},
			{Min: 0.9, Pairs: 3, Queries: 1, Pearson: 0.85, Kendall: 0.5}, {Min: 0.92, Pairs: 2, Queries: 1, Pearson: 0.9, Kendall: 1},
			{Min: 0.95, Pairs: 1, Queries: 1, Pearson: math.NaN(), Kendall: math.NaN()}},
		Reached: &ConfidenceLevel{Min: 0.83, Pairs: 3, Queries: 2, Pearson: 0.81, Kendall: 0.4},
	}
	out := render(t, d)
	for _, want := range []string{
		`<li><a href="#confidence">How sure are the labels</a></li>`,
		`<h2 id="confidence">7. How sure are the labels</h2>`, `<h2 id="stages">8. Stages</h2>`,
		"9 of the 10 labelled pairs have one.",
		"<tr><td>4</td><td>2</td><td>0</td><td>0.9500</td><td>0</td><td>0</td><td>0</td><td>2</td></tr>",
		"<tr><td>1</td><td>8</td><td>1</td><td>0.2500</td><td>6</td><td>1</td><td>0</td><td>0</td></tr>",
		`The log cannot tell <span class="figure">66.7%</span> of the labels (6 of 9) from the click model's prior: their confidence is below the prior&#39;s.`,
		"<tr><td>all labels</td><td>10</td><td>4</td><td>0.2500</td><td>0.1000</td></tr>",
		// Bold only at r >= 0.8 over at least MinPairs (3) pairs.
		"<tr><td>confidence ≥ 0.9</td><td>3</td><td>1</td><td><b>0.8500</b></td><td>0.5000</td></tr>",
		"<tr><td>confidence ≥ 0.92</td><td>2</td><td>1</td><td>0.9000</td><td>1.0000</td></tr>",
		"Bold: r ≥ 0.8 over at least 3 pairs.",
		"<tr><td>confidence ≥ 0.95</td><td>1</td><td>1</td><td>–</td><td>–</td></tr>",
		"at least <b>0.83</b> (the lowest such level, in steps of 0.01, that keeps at least 3 pairs) recover the truth at Pearson r = 0.8100 ≥ 0.8 (Kendall τ<sub>b</sub> = 0.4000): 3 pairs over 2 queries remain.",
		"<title>confidence &gt;= 0.9 4: 2</title>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// The 8 charts of sample() and the confidence chart.
	if !strings.Contains(out, "This report has 9 charts.") {
		t.Error("chart count does not include the confidence chart")
	}
	// No confidence at all: the section says so, without a chart; no
	// simulated log: no recovery table; no recovery section: it is 6.
	d.Confidence.Reached = &ConfidenceLevel{Min: 0, Pairs: 10, Queries: 4, Pearson: 0.9, Kendall: 0.7}
	if out = render(t, d); !strings.Contains(out, "All 10 labels, over 4 queries, already recover the truth at Pearson r = 0.9000 ≥ 0.8 (Kendall τ<sub>b</sub> = 0.7000): no minimum confidence is needed.") {
		t.Error("no sentence when all labels reach the target")
	}
	d.Confidence.Reached = nil
	if out = render(t, d); !strings.Contains(out, "No minimum confidence (in steps of 0.01) keeps at least 3 labels that recover the truth at Pearson r ≥ 0.8.") {
		t.Error("no note when no level reaches the target")
	}
	d.Confidence = &Confidence{Bins: d.Confidence.Bins, Pairs: 10, ByLabel: []ConfidenceRow{{Label: 4, Pairs: 10, Unknown: 10, Bins: []int{0, 0, 0, 0}}}}
	d.Recovery = nil
	out = render(t, d)
	if !strings.Contains(out, `<h2 id="confidence">6. How sure are the labels</h2>`) || !strings.Contains(out, `<h2 id="stages">7. Stages</h2>`) ||
		!strings.Contains(out, "The labels carry no confidence (10 labelled pairs)") || strings.Contains(out, "Labels by confidence") {
		t.Error("section without confidences")
	}
	d.Confidence = nil
	if out = render(t, d); strings.Contains(out, `id="confidence"`) || !strings.Contains(out, `<h2 id="stages">6. Stages</h2>`) {
		t.Error("section without data")
	}
}

// A correlation that is not defined is null in JSON (the report stage
// writes its data as report.json), and reads back as NaN.
func TestConfidenceLevelJSON(t *testing.T) {
	b, err := json.Marshal(Confidence{Recovery: []ConfidenceLevel{{Min: 0.95, Pairs: 1, Queries: 1, Pearson: math.NaN(), Kendall: math.NaN()}, {Min: 0.5, Pairs: 3, Queries: 2, Pearson: 0.5, Kendall: 0.25}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `{"min_confidence":0.95,"pairs":1,"queries":1,"pearson":null,"kendall":null}`) ||
		!strings.Contains(string(b), `{"min_confidence":0.5,"pairs":3,"queries":2,"pearson":0.5,"kendall":0.25}`) {
		t.Errorf("JSON %s", b)
	}
	var c Confidence
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if l := c.Recovery[0]; !math.IsNaN(l.Pearson) || !math.IsNaN(l.Kendall) || l.Pairs != 1 || c.Recovery[1].Kendall != 0.25 {
		t.Errorf("read back %+v", c.Recovery)
	}
}
