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

const (
	chartW = 640
	chartH = 300
	padL   = 56
	padR   = 16
	padT   = 28
	padB   = 48
)

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

func fmtTick(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e9 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// legendW is the width added on the right of a chart whose legend has too
// many entries to sit inside the plot.
const legendW = 240

// frame opens an SVG with a title, axes and y grid from ymin to ymax; extra
// widens the canvas on the right (for an outside legend).
func frame(b *strings.Builder, title, xlabel, ylabel string, ymin, ymax float64, extra int) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, chartW+extra, chartH, chartW+extra, chartH, esc(title))
	fmt.Fprintf(b, `<title>%s</title>`, esc(title))
	fmt.Fprintf(b, `<text x="%d" y="18" font-size="14" font-weight="bold">%s</text>`, padL, esc(title))
	for i := 0; i <= 4; i++ {
		v := ymin + (ymax-ymin)*float64(i)/4
		y := yPos(v, ymin, ymax)
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%s" y2="%s" stroke="#ddd"/>`, padL, chartW-padR, num(y), num(y))
		fmt.Fprintf(b, `<text x="%d" y="%s" font-size="11" text-anchor="end">%s</text>`, padL-6, num(y+4), esc(fmtTick(v)))
	}
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`, padL, chartW-padR, chartH-padB, chartH-padB)
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`, padL, padL, padT, chartH-padB)
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="12" text-anchor="middle">%s</text>`, (padL+chartW-padR)/2, chartH-8, esc(xlabel))
	fmt.Fprintf(b, `<text x="14" y="%d" font-size="12" text-anchor="middle" transform="rotate(-90 14 %d)">%s</text>`, (padT+chartH-padB)/2, (padT+chartH-padB)/2, esc(ylabel))
}

func yPos(v, ymin, ymax float64) float64 {
	if ymax == ymin {
		ymax = ymin + 1
	}
	return float64(chartH-padB) - (v-ymin)/(ymax-ymin)*float64(chartH-padB-padT)
}

// legend draws the series names inside the plot's top right corner, or,
// with outside set, in the extra area right of the plot.
func legend(b *strings.Builder, names []string, outside bool) {
	x := chartW - padR - 170
	if outside {
		x = chartW + 4
	}
	step := 16
	if len(names) > 14 {
		step = 12
	}
	for i, n := range names {
		c := palette[i%len(palette)]
		y := padT + 2 + step*i
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/>`, x, y, c)
		fmt.Fprintf(b, `<text x="%d" y="%d" font-size="11">%s</text>`, x+15, y+9, esc(n))
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
	frame(&b, title, xlabel, ylabel, 0, ymax, 0)
	n := len(categories)
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
				esc(s.Name), esc(cat), esc(strconv.FormatFloat(v, 'g', 4, 64)))
		}
		if len(categories) <= 24 || ci%((len(categories)+23)/24) == 0 {
			fmt.Fprintf(&b, `<text x="%s" y="%d" font-size="11" text-anchor="middle">%s</text>`, num(gx+groupW*0.4), chartH-padB+14, esc(cat))
		}
	}
	if len(series) > 1 {
		names := make([]string, len(series))
		for i, s := range series {
			names[i] = s.Name
		}
		legend(&b, names, false)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// LineChart draws one polyline with point markers per series over the x
// labels.
func LineChart(title, xlabel, ylabel string, xs []string, series []Series, ymin, ymax float64) template.HTML {
	var b strings.Builder
	outside := len(series) > 3
	extra := 0
	if outside {
		extra = legendW
	}
	frame(&b, title, xlabel, ylabel, ymin, ymax, extra)
	n := len(xs)
	step := float64(chartW-padL-padR-20) / float64(max(1, n-1))
	xAt := func(i int) float64 { return float64(padL+10) + step*float64(i) }
	for i, x := range xs {
		fmt.Fprintf(&b, `<text x="%s" y="%d" font-size="11" text-anchor="middle">%s</text>`, num(xAt(i)), chartH-padB+14, esc(x))
	}
	names := make([]string, len(series))
	for si, s := range series {
		names[si] = s.Name
		c := palette[si%len(palette)]
		var pts []string
		for i, v := range s.Values {
			if i >= n || math.IsNaN(v) {
				continue
			}
			pts = append(pts, num(xAt(i))+","+num(yPos(v, ymin, ymax)))
		}
		fmt.Fprintf(&b, `<polyline class="series" fill="none" stroke="%s" stroke-width="2" points="%s"/>`, c, strings.Join(pts, " "))
		for i, v := range s.Values {
			if i >= n || math.IsNaN(v) {
				continue
			}
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"><title>%s %s: %s</title></circle>`, num(xAt(i)), num(yPos(v, ymin, ymax)), c, esc(s.Name), esc(xs[i]), esc(strconv.FormatFloat(v, 'f', 4, 64)))
		}
	}
	legend(&b, names, outside)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// Point is one (x, y) point of a scatter plot.
type Point struct{ X, Y float64 }

// ScatterChart draws points in [xmin,xmax] x [ymin,ymax], with a little
// deterministic horizontal jitter-free layout (points are drawn as given).
func ScatterChart(title, xlabel, ylabel string, pts []Point, xmin, xmax, ymin, ymax float64) template.HTML {
	var b strings.Builder
	frame(&b, title, xlabel, ylabel, ymin, ymax, 0)
	w := float64(chartW - padL - padR)
	for i := 0; i <= 4; i++ {
		v := xmin + (xmax-xmin)*float64(i)/4
		x := float64(padL) + w*float64(i)/4
		fmt.Fprintf(&b, `<text x="%s" y="%d" font-size="11" text-anchor="middle">%s</text>`, num(x), chartH-padB+14, esc(fmtTick(v)))
	}
	for _, p := range pts {
		x := float64(padL) + (p.X-xmin)/(xmax-xmin)*w
		fmt.Fprintf(&b, `<circle class="pt" cx="%s" cy="%s" r="2" fill="%s" fill-opacity="0.35"/>`, num(x), num(yPos(p.Y, ymin, ymax)), palette[0])
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
