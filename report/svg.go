package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// Series is one named sequence of values for a chart.
type Series struct {
	Name   string    `json:"name"`
	Values []float64 `json:"values"`
}

// palette is a colour-blind-safe qualitative palette (Okabe-Ito), then
// darker and lighter variants for charts with many series.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
	"#004C7A", "#A87400", "#006B4F", "#8F3F00", "#8A4F72", "#3A7DA3", "#A89C2E", "#777777"}

// Chart geometry in SVG user units. The SVG scales to the page width
// (width="100%", viewBox), so chartW is about the report's text width (980
// px less margins) and fonts render near their nominal size at 1400 px; at
// 800 px the page is about 750 px wide and everything shrinks by 750/900,
// so the smallest text, fontText, is sized to stay at 11 px or more there
// (MinTextPx). padL leaves room for tick labels up to 9 characters
// ("1,250,000") right of the rotated y-axis title, which is centred at x =
// yTitleX.
const (
	chartW    = 900
	chartH    = 330
	padL      = 108
	padR      = 16
	padT      = 30
	padB      = 52
	yTitleX   = 14
	fontTitle = 16
	fontText  = 14
)

// MinTextPx is the smallest size, in CSS pixels, of chart text in a
// window 800 px wide.
const MinTextPx = 11

// dashes are the stroke-dasharray patterns of line series, in palette
// order, so that a series drawn over another with equal values still shows
// (and the legend tells them apart without colour).
var dashes = []string{"none", "9 4", "3 3", "12 4 3 4", "1 4", "6 2 2 2 2 2"}

// markers are the point shapes of line series, in palette order.
var markers = []string{"circle", "square", "triangle", "diamond"}

func esc(s string) string { return html.EscapeString(s) }

func num(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// niceMax rounds v up to 1, 2 or 5 times a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// yTicks returns the grid values of an axis from ymin to ymax: the
// multiples of a round step (1, 2 or 5 times a power of ten) that lie in
// the range, at most 6 of them, so that labels read 0, 10,000, 20,000 or
// 0.2, 0.4, ... rather than quarters of the range (12,500; 0.325).
func yTicks(ymin, ymax float64) []float64 {
	span := ymax - ymin
	if !(span > 0) || math.IsInf(span, 0) {
		return []float64{ymin}
	}
	step := tickStep(ymin, ymax)
	var out []float64
	for k := math.Ceil(ymin/step - 1e-9); k*step <= ymax+1e-9*step; k++ {
		out = append(out, k*step+0) // +0: no -0 tick
	}
	return out
}

// tickStep is the grid step of yTicks: the smallest of 1, 2 or 5 times a
// power of ten that divides the range into at most 5 steps.
func tickStep(ymin, ymax float64) float64 {
	span := ymax - ymin
	if !(span > 0) || math.IsInf(span, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(span/5)))
	for _, m := range []float64{1, 2, 5} {
		if span/(m*p) <= 5 {
			return m * p
		}
	}
	return 10 * p
}

func fmtTick(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return groupInt(int64(v))
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// fmtValue prints a value for a tooltip: integers (and anything of 1,000 or
// more, rounded) with thousands separators, never in exponent form; smaller
// fractions with 4 significant digits.
func fmtValue(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	if (v == math.Trunc(v) || math.Abs(v) >= 1000) && math.Abs(v) < 1e15 {
		return groupInt(int64(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// fmtBarLabel prints a bar's value label: as fmtValue, but fractions from
// 0.1 up with two decimals (1.81, 24.10, not 1.808, 24.1), as the report's
// tables print shares.
func fmtBarLabel(v float64) string {
	if v != math.Trunc(v) && math.Abs(v) >= 0.1 && math.Abs(v) < 1000 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return fmtValue(v)
}

// groupInt prints n with a comma every three digits (117,400).
func groupInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// frame opens an SVG with a title, axes and y grid from ymin to ymax; the
// plot spans x from padL to right (chartW-padR) and the SVG is extraH
// units taller than chartH, for a legend below the x-axis title.
func frame(b *strings.Builder, title, xlabel, ylabel string, ymin, ymax float64, right, extraH int) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="%s">`, chartW, chartH+extraH, esc(title))
	fmt.Fprintf(b, `<title>%s</title>`, esc(title))
	fmt.Fprintf(b, `<text x="%d" y="20" font-size="%d" font-weight="bold">%s</text>`, padL, fontTitle, esc(title))
	for _, v := range yTicks(ymin, ymax) {
		y := yPos(v, ymin, ymax)
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%s" y2="%s" stroke="#ddd"/>`, padL, right, num(y), num(y))
		fmt.Fprintf(b, `<text x="%d" y="%s" font-size="%d" text-anchor="end">%s</text>`, padL-6, num(y+5), fontText, esc(fmtTick(v)))
	}
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`, padL, right, chartH-padB, chartH-padB)
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`, padL, padL, padT, chartH-padB)
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="%d" text-anchor="middle">%s</text>`, (padL+right)/2, chartH-8, fontText, esc(xlabel))
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="%d" text-anchor="middle" transform="rotate(-90 %d %d)">%s</text>`, yTitleX, (padT+chartH-padB)/2, fontText, yTitleX, (padT+chartH-padB)/2, esc(ylabel))
}

func yPos(v, ymin, ymax float64) float64 {
	if ymax == ymin {
		ymax = ymin + 1
	}
	return float64(chartH-padB) - (v-ymin)/(ymax-ymin)*float64(chartH-padB-padT)
}

// legendRowH is the height of one legend row below a chart.
const legendRowH = 20

// legendBelowH is the height a legend of n entries takes below the chart:
// two entries per row.
func legendBelowH(n int) int { return 8 + legendRowH*((n+1)/2) }

// Legend entry styles: a colour swatch (bars), the series' line with its
// marker (lines) or its marker alone (dots).
const (
	legendSwatch = iota
	legendLine
	legendMarker
)

// legend draws the series names inside the plot's top right corner (bar
// charts with a few short names) or, with below set, in rows of two under
// the x-axis title, where no name is cut and no entry hides a line. Each
// entry shows the series' style: a colour swatch, its line (colour, dash
// pattern and marker, and, for a line with others lying on it, its width
// and opacity: covered[i] as in lineStyle) or its marker.
func legend(b *strings.Builder, names []string, below bool, style int, covered []int) {
	for i, n := range names {
		c := palette[i%len(palette)]
		x, y := chartW-padR-200, padT+2+legendRowH*i
		if below {
			x, y = padL+(chartW-padL-padR)/2*(i%2), chartH+4+legendRowH*(i/2)
		}
		switch style {
		case legendLine:
			width, opacity := lineStyle(covered, i)
			fmt.Fprintf(b, `<line class="legend" x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="%d" stroke-opacity="%s" stroke-dasharray="%s"/>`, x, x+28, y+6, y+6, c, width, opacity, dashes[i%len(dashes)])
			marker(b, i, float64(x+14), float64(y+6), c, "")
			fmt.Fprintf(b, `<text x="%d" y="%d" font-size="%d">%s</text>`, x+34, y+11, fontText, esc(n))
		case legendMarker:
			markerR(b, i, float64(x+8), float64(y+6), dotR, c, "")
			fmt.Fprintf(b, `<text x="%d" y="%d" font-size="%d">%s</text>`, x+20, y+11, fontText, esc(n))
		default:
			fmt.Fprintf(b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/>`, x, y, c)
			fmt.Fprintf(b, `<text x="%d" y="%d" font-size="%d">%s</text>`, x+17, y+11, fontText, esc(n))
		}
	}
}

// seriesNames returns the names of the series, in order.
func seriesNames(series []Series) []string {
	names := make([]string, len(series))
	for i, s := range series {
		names[i] = s.Name
	}
	return names
}

// marker draws the point marker of series i at (x, y), with a tooltip when
// title is not empty.
func marker(b *strings.Builder, i int, x, y float64, c, title string) {
	markerR(b, i, x, y, 3.5, c, title)
}

// markerR draws marker as marker does, r units in radius.
func markerR(b *strings.Builder, i int, x, y, r float64, c, title string) {
	tip := ""
	if title != "" {
		tip = "<title>" + esc(title) + "</title>"
	}
	switch markers[i%len(markers)] {
	case "circle":
		fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="%s" fill="%s">%s</circle>`, num(x), num(y), num(r), c, tip)
	case "square":
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s">%s</rect>`, num(x-r), num(y-r), num(2*r), num(2*r), c, tip)
	case "triangle":
		fmt.Fprintf(b, `<polygon points="%s,%s %s,%s %s,%s" fill="%s">%s</polygon>`, num(x), num(y-r-1), num(x-r-1), num(y+r), num(x+r+1), num(y+r), c, tip)
	default: // diamond, hollow so a marker under it shows
		fmt.Fprintf(b, `<polygon points="%s,%s %s,%s %s,%s %s,%s" fill="white" stroke="%s" stroke-width="1.5">%s</polygon>`, num(x), num(y-r-1), num(x+r+1), num(y), num(x), num(y+r+1), num(x-r-1), num(y), c, tip)
	}
}

// BarChart draws grouped vertical bars: one group per category, one bar per
// series within a group.
func BarChart(title, xlabel, ylabel string, categories []string, series []Series) template.HTML {
	var b strings.Builder
	ymax := 0.0
	for _, s := range series {
		for _, v := range s.Values {
			if !math.IsNaN(v) && v > ymax {
				ymax = v
			}
		}
	}
	ymax = niceMax(ymax)
	frame(&b, title, xlabel, ylabel, 0, ymax, chartW-padR, 0)
	n := len(categories)
	// Every bar carries its value, so a bar of 619 beside one of 157,379
	// is still read: above the bar when there are few bars; with many,
	// written upwards (rotated, so that neighbours do not collide): inside
	// a bar tall enough to hold it, in white, else above it. (Tall bars
	// had no label when there were many.)
	labelAll := n*len(series) <= 12
	if n == 0 {
		n = 1
	}
	groupW := float64(chartW-padL-padR) / float64(n)
	barW := groupW * 0.8 / float64(max(1, len(series)))
	for ci, cat := range categories {
		gx := float64(padL) + groupW*float64(ci) + groupW*0.1
		for si, s := range series {
			if ci >= len(s.Values) || math.IsNaN(s.Values[ci]) {
				continue
			}
			v := s.Values[ci]
			y := yPos(v, 0, ymax)
			fmt.Fprintf(&b, `<rect class="bar" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s %s: %s</title></rect>`,
				num(gx+barW*float64(si)), num(y), num(math.Max(barW-1, 1)), num(float64(chartH-padB)-y), palette[si%len(palette)],
				esc(s.Name), esc(cat), esc(fmtValue(v)))
			cx, label := gx+barW*float64(si)+barW/2, fmtBarLabel(v)
			if labelAll {
				fmt.Fprintf(&b, `<text class="value" x="%s" y="%s" font-size="%d" text-anchor="middle">%s</text>`,
					num(cx), num(y-4), fontText, esc(label))
				continue
			}
			// A rotated line's glyphs lie left of its baseline: the
			// baseline a third of the font right of the centre centres
			// them on the bar.
			bx := cx + float64(fontText)/3
			if h := float64(chartH-padB) - y; h >= textLen(label)+8 {
				fmt.Fprintf(&b, `<text class="value" x="%s" y="%s" font-size="%d" fill="white" text-anchor="end" transform="rotate(-90 %s %s)">%s</text>`,
					num(bx), num(y+4), fontText, num(bx), num(y+4), esc(label))
			} else {
				fmt.Fprintf(&b, `<text class="value" x="%s" y="%s" font-size="%d" text-anchor="start" transform="rotate(-90 %s %s)">%s</text>`,
					num(bx), num(y-4), fontText, num(bx), num(y-4), esc(label))
			}
		}
		if len(categories) <= 24 || ci%((len(categories)+23)/24) == 0 {
			fmt.Fprintf(&b, `<text x="%s" y="%d" font-size="%d" text-anchor="middle">%s</text>`, num(gx+groupW*0.4), chartH-padB+18, fontText, esc(cat))
		}
	}
	if len(series) > 1 {
		legend(&b, seriesNames(series), false, legendSwatch, nil)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// textLen bounds the length in user units of s written at fontText: 0.62
// em per character, generous for digits and commas in sans-serif fonts.
func textLen(s string) float64 { return 0.62 * float64(fontText) * float64(len([]rune(s))) }

// LineChart draws one polyline per series over the x labels, each with its
// own colour, dash pattern and marker shape (dashes, markers), the legend
// below the plot. A series that coincides with an earlier one at every x
// (within 0.5% of the y range) is named so in the legend ("UBM, on DCTR's
// line"), the earlier line is drawn wider and paler so that the later one
// shows inside it, and the markers of the series are set a little apart
// horizontally so that each stays visible.
func LineChart(title, xlabel, ylabel string, xs []string, series []Series, ymin, ymax float64) template.HTML {
	var b strings.Builder
	right := chartW - padR
	frame(&b, title, xlabel, ylabel, ymin, ymax, right, legendBelowH(len(series)))
	n := len(xs)
	step := float64(right-padL-20) / float64(max(1, n-1))
	xAt := func(i int) float64 { return float64(padL+10) + step*float64(i) }
	for i, x := range xs {
		fmt.Fprintf(&b, `<text x="%s" y="%d" font-size="%d" text-anchor="middle">%s</text>`, num(xAt(i)), chartH-padB+18, fontText, esc(x))
	}
	const dodge = 4.0 // marker offset between consecutive series
	names := make([]string, len(series))
	// covered[j] counts the later series lying on series j's line: j is
	// drawn that much wider and paler, so each shows as a line inside it
	// instead of hiding it (UBM's perplexity on DCTR's).
	covered := make([]int, len(series))
	for si, s := range series {
		names[si] = s.Name
		if j := coincides(series[:si], s, n, 0.005*(ymax-ymin)); j >= 0 {
			names[si] = s.Name + ", on " + series[j].Name + "'s line"
			covered[j]++
		}
	}
	for si, s := range series {
		c := palette[si%len(palette)]
		var pts []string
		for i, v := range s.Values {
			if i >= n || math.IsNaN(v) {
				continue
			}
			pts = append(pts, num(xAt(i))+","+num(yPos(v, ymin, ymax)))
		}
		width, opacity := lineStyle(covered, si)
		fmt.Fprintf(&b, `<polyline class="series" fill="none" stroke="%s" stroke-width="%d" stroke-opacity="%s" stroke-dasharray="%s" points="%s"/>`, c, width, opacity, dashes[si%len(dashes)], strings.Join(pts, " "))
		off := dodge * (float64(si) - float64(len(series)-1)/2)
		for i, v := range s.Values {
			if i >= n || math.IsNaN(v) {
				continue
			}
			marker(&b, si, xAt(i)+off, yPos(v, ymin, ymax), c, s.Name+" "+xs[i]+": "+strconv.FormatFloat(v, 'f', 4, 64))
		}
	}
	legend(&b, names, true, legendLine, covered)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// lineStyle is the stroke width and opacity of line series i, of which
// covered[i] later series lie on its line (nil: none): 2 and opaque, or
// 4 wider per covering series and pale, so that they show inside it.
func lineStyle(covered []int, i int) (int, string) {
	if i < len(covered) && covered[i] > 0 {
		return 2 + 4*covered[i], "0.45"
	}
	return 2, "1"
}

// coincides returns the index of the first of earlier whose values are
// within tol of s at each of the first n points where both are numbers
// (and at one at least), or -1.
func coincides(earlier []Series, s Series, n int, tol float64) int {
	for j, e := range earlier {
		same, any := true, false
		for i := 0; i < n && i < len(s.Values) && i < len(e.Values); i++ {
			if math.IsNaN(s.Values[i]) || math.IsNaN(e.Values[i]) {
				continue
			}
			any = true
			if math.Abs(s.Values[i]-e.Values[i]) > tol {
				same = false
				break
			}
		}
		if same && any {
			return j
		}
	}
	return -1
}

// dotR is the marker radius of DotChart and its legend.
const dotR = 5.5

// DotChart draws, for each category (such as k of NDCG@k), one point per
// series, side by side within the category and never joined: the
// categories are separate measures, not a continuous axis. Each series has
// its own colour and marker shape, the legend below the plot; a point's
// tooltip gives its value. The y axis runs from ymin to ymax.
func DotChart(title, xlabel, ylabel string, categories []string, series []Series, ymin, ymax float64) template.HTML {
	var b strings.Builder
	right := chartW - padR
	frame(&b, title, xlabel, ylabel, ymin, ymax, right, legendBelowH(len(series)))
	n := max(1, len(categories))
	groupW := float64(right-padL) / float64(n)
	ns := max(1, len(series))
	for ci, cat := range categories {
		gx := float64(padL) + groupW*float64(ci)
		if ci > 0 {
			fmt.Fprintf(&b, `<line x1="%s" x2="%s" y1="%d" y2="%d" stroke="#bbb" stroke-dasharray="2 3"/>`, num(gx), num(gx), padT, chartH-padB)
		}
		fmt.Fprintf(&b, `<text x="%s" y="%d" font-size="%d" text-anchor="middle">%s</text>`, num(gx+groupW/2), chartH-padB+18, fontText, esc(cat))
		for si, s := range series {
			if ci >= len(s.Values) || math.IsNaN(s.Values[ci]) {
				continue
			}
			x := gx + groupW*(0.15+0.7*(float64(si)+0.5)/float64(ns))
			markerR(&b, si, x, yPos(s.Values[ci], ymin, ymax), dotR, palette[si%len(palette)], s.Name+" "+cat+": "+strconv.FormatFloat(s.Values[ci], 'f', 4, 64))
		}
	}
	legend(&b, seriesNames(series), true, legendMarker, nil)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// DotRange returns the y range of a DotChart of fractions (such as NDCG)
// lying in [lo, hi]: from a grid line below lo to one above hi (at most 1),
// with at least a quarter step between the points and the axis ends, so
// the lowest tick is labelled and no point sits on the axis. The range
// spans 0.1 at least, so that small differences are not blown up.
func DotRange(lo, hi float64) (float64, float64) {
	if math.IsNaN(lo) || math.IsNaN(hi) || lo > hi {
		return 0, 1
	}
	step := tickStep(lo, math.Max(hi, lo+0.1))
	ymin := math.Floor(lo/step) * step
	if lo-ymin < step/4 {
		ymin -= step
	}
	ymax := math.Ceil(hi/step) * step
	if ymax-hi < step/4 {
		ymax += step
	}
	return math.Max(0, ymin), math.Min(1, ymax)
}

// Point is one (x, y) point of a scatter plot.
type Point struct{ X, Y float64 }

// ScatterChart draws points in [xmin,xmax] x [ymin,ymax], with a little
// deterministic horizontal jitter-free layout (points are drawn as given).
func ScatterChart(title, xlabel, ylabel string, pts []Point, xmin, xmax, ymin, ymax float64) template.HTML {
	var b strings.Builder
	frame(&b, title, xlabel, ylabel, ymin, ymax, chartW-padR, 0)
	w := float64(chartW - padL - padR)
	for i := 0; i <= 4; i++ {
		v := xmin + (xmax-xmin)*float64(i)/4
		x := float64(padL) + w*float64(i)/4
		fmt.Fprintf(&b, `<text x="%s" y="%d" font-size="%d" text-anchor="middle">%s</text>`, num(x), chartH-padB+18, fontText, esc(fmtTick(v)))
	}
	for _, p := range pts {
		x := float64(padL) + (p.X-xmin)/(xmax-xmin)*w
		fmt.Fprintf(&b, `<circle class="pt" cx="%s" cy="%s" r="2" fill="%s" fill-opacity="0.35"/>`, num(x), num(yPos(p.Y, ymin, ymax)), palette[0])
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
