package report

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Tooltips print grouped integers, not 1.174e+05.
func TestChartTooltipsGroupIntegers(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	svg := string(BarChart("t", "x", "events", []string{"a", "b"}, []Series{{Name: "events", Values: []float64{117400, 3}}}))
	title := regexp.MustCompile(`<text x="([\d.]+)" y="[\d.]+" font-size="(\d+)" text-anchor="middle" transform="rotate\(-90`).FindStringSubmatch(svg)
	if title == nil {
		t.Fatal("no rotated y-axis title")
	}
	tx, _ := strconv.ParseFloat(title[1], 64)
	fs, _ := strconv.ParseFloat(title[2], 64)
	right := tx + fs/2 // the rotated line's extent to the right of its centre
	ticks := regexp.MustCompile(`<text x="([\d.]+)" y="[\d.]+" font-size="`+strconv.Itoa(fontText)+`" text-anchor="end">([^<]+)</text>`).FindAllStringSubmatch(svg, -1)
	if len(ticks) == 0 {
		t.Fatal("no y tick labels")
	}
	for _, m := range ticks {
		x, _ := strconv.ParseFloat(m[1], 64)
		left := x - 0.62*fontText*float64(len(m[2]))
		if left <= right {
			t.Errorf("tick label %q spans from x=%.1f, the y-axis title reaches x=%.1f", m[2], left, right)
		}
	}
}

// Series drawn on top of each other stay visible (each
// has its own dash pattern and marker) and the legend shows each series'
// line style, not only a colour.
func TestLineSeriesDistinctDashesAndLegendLines(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	svg := string(BarChart("t", "x", "y", []string{"a"}, []Series{{Name: "s", Values: []float64{1}}}))
	if m := regexp.MustCompile(`<svg[^>]*>`).FindString(svg); !strings.Contains(m, `width="100%"`) {
		t.Errorf("svg element %s has a fixed width", m)
	}
}

// With 4 rankers x 3 configurations + the baseline (13
// results), the NDCG@k chart shows one line per ranker (its best
// configuration by NDCG@10) and the baseline; all 13 stay in the table.
func TestNDCGChartBestPerRanker(t *testing.T) {
	t.Parallel()
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
	if n := strings.Count(chart, " NDCG@10: "); n != 5 {
		t.Errorf("NDCG chart has %d points at NDCG@10, want 5 (4 rankers + baseline)", n)
	}
	for _, want := range []string{"RankNet / LOVBenchFull", "CoordinateAscent / LOVBenchFull", "baseline / LabelSearch_T"} {
		if !strings.Contains(chart, want) {
			t.Errorf("NDCG chart lacks %q", want)
		}
	}
	if strings.Contains(chart, "RankNet / LOVSimple") {
		t.Error("NDCG chart shows a ranker's non-best configuration")
	}
	if n := strings.Count(out, `<td class="wrap">LambdaMART</td>`); n != 3 {
		t.Errorf("the table lists %d LambdaMART rows, want all 3", n)
	}
	_ = fmt.Sprint()
}

// TestYTicksRound: grid values are multiples of 1, 2 or 5 times a power of
// ten, never quarters of the range (the report showed 12,500 and 37,500 on
// a 0-50,000 axis and 0.325, 0.775 on a 0.1-1 axis).
func TestYTicksRound(t *testing.T) {
	t.Parallel()
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

// viewBoxH returns the height of an SVG's viewBox.
func viewBoxH(t *testing.T, svg string) float64 {
	t.Helper()
	m := regexp.MustCompile(`viewBox="0 0 (\d+) (\d+)"`).FindStringSubmatch(svg)
	if m == nil {
		t.Fatal("no viewBox")
	}
	h, _ := strconv.ParseFloat(m[2], 64)
	return h
}

// TestLineLegendFitsBelowPlot: a line chart's legend sits below the plot,
// inside the viewBox, with room for names of 40 characters at 0.62 em per
// glyph in its half of the width (the report cut "baseline / LabelSearch_T
// (feature 34)" at the right edge and drew the legend over the lines).
func TestLineLegendFitsBelowPlot(t *testing.T) {
	t.Parallel()
	names := []string{"baseline / LabelSearch_T (feature 34)", "RankNet / LOVBenchLight", "AdaRank / LOVBenchFull"}
	var series []Series
	for i, n := range names {
		series = append(series, Series{Name: n, Values: []float64{0.7 + 0.01*float64(i), 0.8, 0.9}})
	}
	svg := string(LineChart("t", "k", "NDCG@k", []string{"3", "5", "10"}, series, 0, 1))
	h := viewBoxH(t, svg)
	texts := regexp.MustCompile(`<text x="(\d+)" y="(\d+)" font-size="`+strconv.Itoa(fontText)+`">([^<]+)</text>`).FindAllStringSubmatch(svg, -1)
	found := 0
	for _, m := range texts {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		for _, n := range names {
			if m[3] != esc(n) {
				continue
			}
			found++
			if y <= chartH || y > h {
				t.Errorf("legend %q at y=%g: want below the plot (%d) and inside the viewBox (%g)", n, y, chartH, h)
			}
			if right := x + 0.62*fontText*40; right > chartW {
				t.Errorf("legend %q from x=%g: 40 characters reach %g > %d", n, x, right, chartW)
			}
		}
	}
	if found != len(names) {
		t.Errorf("%d legend names found, want %d", found, len(names))
	}
}

// TestLineOnAnotherNamed: UBM's perplexity equals DCTR's within 0.005 at
// every rank, so its line lies on DCTR's. The legend says so, and the two
// series' markers are drawn apart horizontally.
func TestLineOnAnotherNamed(t *testing.T) {
	t.Parallel()
	dctr := []float64{1.75, 1.86, 1.71}
	ubm := []float64{1.751, 1.859, 1.712}
	dbn := []float64{1.76, 1.87, 1.73}
	svg := string(LineChart("Test perplexity per rank", "rank", "perplexity", []string{"1", "2", "3"},
		[]Series{{Name: "DCTR", Values: dctr}, {Name: "DBN", Values: dbn}, {Name: "UBM", Values: ubm}}, 1, 2))
	if !strings.Contains(svg, ">UBM, on DCTR&#39;s line<") {
		t.Errorf("legend does not say that UBM lies on DCTR's line")
	}
	if strings.Contains(svg, "DBN, on") {
		t.Errorf("DBN (0.01 to 0.02 from DCTR) named as on another line")
	}
	// First markers: DCTR a circle, UBM a triangle; their x differ.
	cx := regexp.MustCompile(`<circle cx="([\d.]+)"[^>]*><title>DCTR 1:`).FindStringSubmatch(svg)
	tri := regexp.MustCompile(`<polygon points="([\d.]+),[\d.]+ [^"]*"[^>]*><title>UBM 1:`).FindStringSubmatch(svg)
	if cx == nil || tri == nil || cx[1] == tri[1] {
		t.Errorf("markers at rank 1: DCTR %v, UBM %v; want different x", cx, tri)
	}
}

// TestSmallBarsLabelled: a bar of 619 beside one of 157,379 is 1 unit
// high, invisible; every bar of a small chart carries its value.
func TestSmallBarsLabelled(t *testing.T) {
	t.Parallel()
	svg := string(BarChart("Where the input events went", "", "events", []string{"kept queries", "kept clicks", "dropped by a rule", "quarantined"},
		[]Series{{Name: "events", Values: []float64{39381, 117379, 619, 0}}}))
	for _, want := range []string{">39,381<", ">117,379<", ">619<", ">0<"} {
		if !strings.Contains(svg, `class="value"`) || !strings.Contains(svg, want) {
			t.Errorf("bar chart lacks the value label %s", want)
		}
	}
}

// TestLineUnderAnotherWider: with markers apart but lines drawn alike, the
// demo's UBM line still hid DCTR's (one teal line in Chromium at 1400 and
// 800 px). DCTR, with UBM on it, is drawn wider and paler than UBM, so
// both lines show, in the chart and in its legend; DBN, apart from both,
// keeps the normal width.
func TestLineUnderAnotherWider(t *testing.T) {
	t.Parallel()
	svg := string(LineChart("Test perplexity per rank", "rank", "perplexity", []string{"1", "2", "3"},
		[]Series{{Name: "DCTR", Values: []float64{1.75, 1.86, 1.71}}, {Name: "DBN", Values: []float64{1.76, 1.87, 1.73}}, {Name: "UBM", Values: []float64{1.751, 1.859, 1.712}}}, 1, 2))
	lines := regexp.MustCompile(`<polyline class="series"[^>]*stroke-width="(\d+)" stroke-opacity="([\d.]+)"`).FindAllStringSubmatch(svg, -1)
	if len(lines) != 3 {
		t.Fatalf("%d lines with width and opacity, want 3", len(lines))
	}
	wd, _ := strconv.Atoi(lines[0][1])
	wb, _ := strconv.Atoi(lines[1][1])
	wu, _ := strconv.Atoi(lines[2][1])
	if wd <= wu || lines[0][2] == "1" {
		t.Errorf("DCTR drawn %d wide (opacity %s), UBM on it %d: one hides the other", wd, lines[0][2], wu)
	}
	if wb != wu || lines[1][2] != "1" || lines[2][2] != "1" {
		t.Errorf("DBN %d wide (opacity %s), UBM %d (opacity %s): want both at the normal width, opaque", wb, lines[1][2], wu, lines[2][2])
	}
	// The legend draws each line as the chart does.
	leg := regexp.MustCompile(`<line class="legend"[^>]*stroke-width="(\d+)" stroke-opacity="([\d.]+)"`).FindAllStringSubmatch(svg, -1)
	if len(leg) != 3 {
		t.Fatalf("%d legend lines with width and opacity, want 3", len(leg))
	}
	for i := range leg {
		if leg[i][1] != lines[i][1] || leg[i][2] != lines[i][2] {
			t.Errorf("legend line %d: width %s opacity %s, chart %s %s", i, leg[i][1], leg[i][2], lines[i][1], lines[i][2])
		}
	}
}

// TestBarLabelsMatchTables: the label chart's value labels read as the
// label table prints the shares (1.81, 4.38, 24.10), not 1.808, 4.375,
// 24.1; counts keep their thousands separators and small shares their
// digits.
func TestBarLabelsMatchTables(t *testing.T) {
	t.Parallel()
	svg := string(BarChart("Label distribution (% of pairs)", "label", "% of pairs", []string{"1", "3", "junk (-2)"},
		[]Series{{Name: "this run", Values: []float64{1.808, 4.375, 0.06}}, {Name: "LOVBench", Values: []float64{24.1, 1.63, 0.06}}}))
	got := regexp.MustCompile(`<text class="value"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1)
	var vals []string
	for _, m := range got {
		vals = append(vals, m[1])
	}
	if s := strings.Join(vals, " "); s != "1.81 24.10 4.38 1.63 0.06 0.06" {
		t.Errorf("bar labels %q, want %q", s, "1.81 24.10 4.38 1.63 0.06 0.06")
	}
}

// TestNDCGDotChart: the NDCG@k chart draws k = 3, 5, 10 as separate
// groups of points, never joined by lines; its y axis is titled and runs
// from a labelled tick below the lowest value drawn (the series drawn, not
// every configuration: the report's axis started at an unlabelled 0.1 set
// by a configuration that was not drawn); each series has its own marker
// shape and colour, also in the legend.
func TestNDCGDotChart(t *testing.T) {
	d := sample()
	d.LTR = append(d.LTR, LTRResult{Ranker: "RankNet", Config: "CBRBench", Measures: map[string]float64{"NDCG@3": 0.12, "NDCG@5": 0.15, "NDCG@10": 0.2}})
	out := render(t, d)
	i := strings.Index(out, "Mean test NDCG@k")
	chart := out[strings.LastIndex(out[:i], "<svg"):]
	chart = chart[:strings.Index(chart, "</svg>")]
	if strings.Contains(chart, "<polyline") {
		t.Error("NDCG@k points are joined by lines")
	}
	for _, want := range []string{">mean test NDCG@k over the folds<", ">NDCG@3<", ">NDCG@5<", ">NDCG@10<"} {
		if !strings.Contains(chart, want) {
			t.Errorf("NDCG chart lacks %s", want)
		}
	}
	// Drawn: baseline 0.26-0.36 and RankNet/Full 0.36-0.46 (CBRBench's
	// 0.12 is not drawn). DotRange(0.26, 0.46): step 0.05, 0.25 is within
	// a quarter step of 0.26, so the axis starts at 0.2 and ends at 0.5.
	if lo, hi := DotRange(0.26, 0.46); math.Abs(lo-0.2) > 1e-9 || math.Abs(hi-0.5) > 1e-9 {
		t.Errorf("DotRange(0.26, 0.46) = %v, %v; want 0.2, 0.5", lo, hi)
	}
	ticks := regexp.MustCompile(`text-anchor="end">([^<]+)</text>`).FindAllStringSubmatch(chart, -1)
	if len(ticks) == 0 || ticks[0][1] != "0.2" || ticks[len(ticks)-1][1] != "0.5" {
		t.Errorf("y ticks %v, want 0.2 up to 0.5", ticks)
	}
	// Distinct markers: a circle for the first series, a square for the
	// second, in the plot and in the legend.
	if strings.Count(chart, "<circle") != 4 || strings.Count(chart, "<rect x=") < 4 {
		t.Errorf("markers: %d circles, %d rects", strings.Count(chart, "<circle"), strings.Count(chart, "<rect x="))
	}
}

// With many bars (6 labels x 5 confidence bins, as "Labels by confidence"),
// every bar carries its value, the tall ones too (they had none: only bars
// under 3 units were labelled): written upwards, inside a bar whose height
// holds the label (white on the bar), else above it. Here the bar of 5,000
// of ymax 5,000 is 248 units tall, 0.62 x 14 x 5 = 43.4 units of label
// fit inside; the bar of 40 is 2 units tall, its label goes above.
func TestManyBarsAllLabelled(t *testing.T) {
	t.Parallel()
	var series []Series
	for b := range 5 {
		s := Series{Name: fmt.Sprintf("bin %d", b)}
		for l := range 6 {
			s.Values = append(s.Values, float64([]int{5000, 40, 1200, 300, 2500, 800}[(l+b)%6]))
		}
		series = append(series, s)
	}
	svg := string(BarChart("Labels by confidence", "label", "pairs", []string{"-2", "0", "1", "2", "3", "4"}, series))
	bars := strings.Count(svg, `<rect class="bar"`)
	values := regexp.MustCompile(`<text class="value"[^>]*>([^<]+)</text>`).FindAllStringSubmatch(svg, -1)
	if bars != 30 || len(values) != 30 {
		t.Fatalf("%d bars, %d value labels; want 30 and 30", bars, len(values))
	}
	inside := regexp.MustCompile(`<text class="value"[^>]*fill="white"[^>]*>5,000</text>`).FindAllString(svg, -1)
	above := regexp.MustCompile(`<text class="value" [^>]*text-anchor="start"[^>]*>40</text>`).FindAllString(svg, -1)
	if len(inside) != 5 || len(above) != 5 {
		t.Errorf("5,000 inside its bar %d times, 40 above its bar %d times; want 5 and 5", len(inside), len(above))
	}
}
