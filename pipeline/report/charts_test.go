package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Tooltips print grouped integers, not 1.174e+05.
func TestChartTooltipsGroupIntegers(t *testing.T) {
	svg := string(BarChart("t", "x", "events", []string{"kept"}, []Series{{Name: "events", Values: []float64{117400}}}))
	if strings.Contains(svg, "e+") || !strings.Contains(svg, "117,400") {
		t.Errorf("tooltip of 117400: %s", regexp.MustCompile(`<title>[^<]*</title>`).FindAllString(svg, -1))
	}
	if got := fmtTick(1_250_000); got != "1,250,000" {
		t.Errorf("tick 1250000: %q", got)
	}
}

// The rotated y-axis title does not overlap the tick
// labels. Glyph widths are bounded by 0.62 em (a generous average for digits
// and commas in sans-serif fonts at font-size 11).
func TestYAxisTitleClearsTickLabels(t *testing.T) {
	svg := string(BarChart("t", "x", "events", []string{"a", "b"}, []Series{{Name: "events", Values: []float64{117400, 3}}}))
	title := regexp.MustCompile(`<text x="([\d.]+)" y="[\d.]+" font-size="(\d+)" text-anchor="middle" transform="rotate\(-90`).FindStringSubmatch(svg)
	if title == nil {
		t.Fatal("no rotated y-axis title")
	}
	tx, _ := strconv.ParseFloat(title[1], 64)
	fs, _ := strconv.ParseFloat(title[2], 64)
	right := tx + fs/2 // the rotated line's extent to the right of its centre
	ticks := regexp.MustCompile(`<text x="([\d.]+)" y="[\d.]+" font-size="11" text-anchor="end">([^<]+)</text>`).FindAllStringSubmatch(svg, -1)
	if len(ticks) == 0 {
		t.Fatal("no y tick labels")
	}
	for _, m := range ticks {
		x, _ := strconv.ParseFloat(m[1], 64)
		left := x - 0.62*11*float64(len(m[2]))
		if left <= right {
			t.Errorf("tick label %q spans from x=%.1f, the y-axis title reaches x=%.1f", m[2], left, right)
		}
	}
}

// Series drawn on top of each other stay visible (each
// has its own dash pattern and marker) and the legend shows each series'
// line style, not only a colour.
func TestLineSeriesDistinctDashesAndLegendLines(t *testing.T) {
	same := []float64{0.5, 0.6, 0.7}
	svg := string(LineChart("t", "k", "NDCG", []string{"1", "2", "3"}, []Series{{Name: "a", Values: same}, {Name: "b", Values: same}, {Name: "c", Values: same}}, 0, 1))
	dashes := regexp.MustCompile(`<polyline class="series"[^>]*stroke-dasharray="([^"]*)"`).FindAllStringSubmatch(svg, -1)
	if len(dashes) != 3 || dashes[0][1] == dashes[1][1] || dashes[1][1] == dashes[2][1] || dashes[0][1] == dashes[2][1] {
		t.Errorf("series dash patterns %v, want 3 distinct", dashes)
	}
	legend := regexp.MustCompile(`<line class="legend"[^>]*stroke-dasharray="([^"]*)"`).FindAllStringSubmatch(svg, -1)
	if len(legend) != 3 {
		t.Fatalf("%d legend lines, want 3", len(legend))
	}
	for i := range legend {
		if legend[i][1] != dashes[i][1] {
			t.Errorf("legend line %d dash %q, series %q", i, legend[i][1], dashes[i][1])
		}
	}
}

// The charts scale to the page width (no fixed pixel
// width).
func TestChartsUsePageWidth(t *testing.T) {
	svg := string(BarChart("t", "x", "y", []string{"a"}, []Series{{Name: "s", Values: []float64{1}}}))
	if m := regexp.MustCompile(`<svg[^>]*>`).FindString(svg); !strings.Contains(m, `width="100%"`) {
		t.Errorf("svg element %s has a fixed width", m)
	}
}

// With 4 rankers x 3 configurations + the baseline (13
// results), the NDCG@k chart shows one line per ranker (its best
// configuration by NDCG@10) and the baseline; all 13 stay in the table.
func TestNDCGChartBestPerRanker(t *testing.T) {
	d := sample()
	d.LTR = d.LTR[:1]
	for ri, r := range []string{"RankNet", "AdaRank", "LambdaMART", "CoordinateAscent"} {
		for ci, c := range []string{"LOVSimple", "DWRank", "LOVBenchFull"} {
			base := 0.3 + 0.05*float64(ri) + 0.01*float64(ci)
			d.LTR = append(d.LTR, LTRResult{Ranker: r, Config: c, Measures: map[string]float64{"MAP": base, "NDCG@3": base, "NDCG@5": base + 0.01, "NDCG@10": base + 0.02}})
		}
	}
	out := render(t, d)
	i := strings.Index(out, "Mean test NDCG@k")
	if i < 0 {
		t.Fatal("no NDCG chart")
	}
	chart := out[strings.LastIndex(out[:i], "<svg"):]
	chart = chart[:strings.Index(chart, "</svg>")]
	if n := strings.Count(chart, `<polyline class="series"`); n != 5 {
		t.Errorf("NDCG chart has %d lines, want 5 (4 rankers + baseline)", n)
	}
	for _, want := range []string{"RankNet / LOVBenchFull", "CoordinateAscent / LOVBenchFull", "baseline / LabelSearch_T"} {
		if !strings.Contains(chart, want) {
			t.Errorf("NDCG chart lacks %q", want)
		}
	}
	if strings.Contains(chart, "RankNet / LOVSimple") {
		t.Error("NDCG chart shows a ranker's non-best configuration")
	}
	if n := strings.Count(out, "<td>LambdaMART</td>"); n != 3 {
		t.Errorf("the table lists %d LambdaMART rows, want all 3", n)
	}
	_ = fmt.Sprint()
}

// TestYTicksRound: grid values are multiples of 1, 2 or 5 times a power of
// ten, never quarters of the range (the report showed 12,500 and 37,500 on
// a 0-50,000 axis and 0.325, 0.775 on a 0.1-1 axis).
func TestYTicksRound(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 50000, "[0 10000 20000 30000 40000 50000]"},
		{0.1, 1, "[0.2 0.4 0.6 0.8 1]"},
		{0, 200000, "[0 50000 100000 150000 200000]"},
		{1, 2, "[1 1.2 1.4 1.6 1.8 2]"},
		{0, 100, "[0 20 40 60 80 100]"},
	} {
		var got []string
		for _, v := range yTicks(c.lo, c.hi) {
			got = append(got, strconv.FormatFloat(v, 'g', 10, 64))
		}
		if s := "[" + strings.Join(got, " ") + "]"; s != c.want {
			t.Errorf("yTicks(%v, %v) = %s, want %s", c.lo, c.hi, s, c.want)
		}
	}
}
