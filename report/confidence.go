package report

import (
	"bytes"
	"encoding/json"
	"html/template"
	"math"
	"strconv"

	"github.com/lovbench/lovbench/labels"
)

// Confidence is the data of the section "How sure are the labels": the
// confidence of the labels (labels.csv; issue 26: the probability, under
// the click model's uncertainty, that a pair's relevance lies in the band of
// its label) per label, and, for a simulated log, how well the confident
// labels recover the hidden relevance beside all labels.
type Confidence struct {
	// Bins name the confidence bins of ConfidenceRow.Bins.
	Bins    []string        `json:"bins"`
	ByLabel []ConfidenceRow `json:"by_label"`
	// Pairs counts the labels, Known those with a confidence.
	Pairs int `json:"pairs"`
	Known int `json:"known"`
	// Prior says how many labels the log cannot tell from the click
	// model's prior; nil when it was not measured.
	Prior *PriorShare `json:"prior,omitempty"`
	// Recovery (simulated logs): the first level is all labels (Min 0),
	// then minimum confidences in ascending order, then, when the export
	// kept the label shares (Filter.KeepConfident or Filter.Agreeing),
	// its selection.
	Recovery []ConfidenceLevel `json:"recovery,omitempty"`
	// Target is the Pearson r looked for; Reached the lowest minimum
	// confidence (on a grid) whose labels, at least MinPairs of them, reach
	// it, nil when none does.
	Target   float64          `json:"target"`
	MinPairs int              `json:"min_pairs"`
	Reached  *ConfidenceLevel `json:"reached,omitempty"`
	// Order is the order confidence of the labels (labels.csv's order
	// files): nil when not written.
	Order *labels.OrderSummary `json:"order,omitempty"`
	// Filter is what export's minimum confidence and query agreement did
	// to the label distribution (the manifest's confidence_filter): nil
	// without a filter.
	Filter *LabelFilter `json:"filter,omitempty"`
}

// LabelFilter is the label distribution before and after export's
// minimum confidence and query agreement.
type LabelFilter struct {
	MinConfidence     float64 `json:"min_confidence"`
	MinQueryAgreement float64 `json:"min_query_agreement,omitempty"`
	// KeepConfident is the stratified filter's fraction of each label
	// (export --keep-confident; 0: not applied).
	KeepConfident float64 `json:"keep_confident,omitempty"`
	// Agreeing is the agreeing filter's choice (export
	// --keep-agreeing-queries; nil: not applied).
	Agreeing *AgreeingFilter  `json:"agreeing,omitempty"`
	ByLabel  []LabelFilterRow `json:"by_label"`
}

// AgreeingFilter is what export's agreeing filter aimed at and reached
// (the manifest's confidence_filter.agreeing): of Eligible queries with
// an expected agreement, Target aimed at and Kept kept, whole, with the
// largest difference between a label's share before and after
// ShareDeviation (the tolerance ShareTolerance), the largest over the
// label's bound ToleranceRatio (labels.ToleranceRatio), the kept queries'
// mean expected agreement MeanAgreement.
type AgreeingFilter struct {
	Fraction       float64 `json:"keep_agreeing_queries"`
	Eligible       int     `json:"queries_with_agreement"`
	Target         int     `json:"target_queries"`
	Kept           int     `json:"kept_queries"`
	ShareTolerance float64 `json:"share_tolerance"`
	ShareDeviation float64 `json:"share_deviation"`
	ToleranceRatio float64 `json:"tolerance_ratio"`
	MeanAgreement  float64 `json:"mean_agreement"`
}

// LabelFilterRow is one label's rows and shares before and after a
// filter.
type LabelFilterRow struct {
	Label       int     `json:"label"`
	Before      int     `json:"before"`
	After       int     `json:"after"`
	ShareBefore float64 `json:"share_before"`
	ShareAfter  float64 `json:"share_after"`
	// Threshold is the lowest confidence the stratified filter kept of
	// the label (nil: not stratified, or none kept).
	Threshold *float64 `json:"kept_min_confidence,omitempty"`
	// Bound is the agreeing filter's bound on the label's share
	// difference (labels.LabelShareTolerance; 0: not agreeing).
	Bound float64 `json:"share_tolerance,omitempty"`
}

// ConfidenceRow is one label's confidence distribution.
type ConfidenceRow struct {
	Label   int     `json:"label"`
	Pairs   int     `json:"pairs"`
	Unknown int     `json:"unknown"` // pairs without a confidence
	Mean    float64 `json:"mean"`    // mean confidence of the others
	Bins    []int   `json:"bins"`    // pairs per bin of Confidence.Bins
}

// PriorShare is the share of labels the log cannot tell from the prior,
// with the definition it was counted by.
type PriorShare struct {
	Labels     int    `json:"labels"`
	Of         int    `json:"of"`
	Definition string `json:"definition"`
}

// ConfidenceLevel is the recovery of the labels whose confidence is at least
// Min (0: all labels), or, with KeepConfident above 0, of the most
// confident fraction KeepConfident of each label (labels.Selection's
// stratified mode), or, with KeepAgreeing above 0, of the most agreeing
// fraction KeepAgreeing of the queries that keep the label shares within
// their bounds under ShareTolerance (the agreeing mode).
type ConfidenceLevel struct {
	Min            float64 `json:"min_confidence"`
	KeepConfident  float64 `json:"keep_confident,omitempty"`
	KeepAgreeing   float64 `json:"keep_agreeing_queries,omitempty"`
	ShareTolerance float64 `json:"share_tolerance,omitempty"`
	Pairs          int     `json:"pairs"`
	Queries        int     `json:"queries"`
	Pearson        float64 `json:"pearson"`
	Kendall        float64 `json:"kendall"`
}

// levelFields is ConfidenceLevel without its JSON methods.
type levelFields ConfidenceLevel

// confidenceLevelJSON is ConfidenceLevel on the wire: its fields, in
// their order, but a correlation that is not defined (NaN: fewer than two
// pairs, or a constant) is null, which JSON can hold (the outer Pearson
// and Kendall hide the embedded ones).
type confidenceLevelJSON struct {
	*levelFields
	Pearson *float64 `json:"pearson"`
	Kendall *float64 `json:"kendall"`
}

// MarshalJSON writes l as confidenceLevelJSON (NaN as null).
func (l ConfidenceLevel) MarshalJSON() ([]byte, error) {
	num := func(x float64) *float64 {
		if math.IsNaN(x) {
			return nil
		}
		return &x
	}
	return json.Marshal(confidenceLevelJSON{(*levelFields)(&l), num(l.Pearson), num(l.Kendall)})
}

// UnmarshalJSON reads what MarshalJSON writes (null as NaN).
func (l *ConfidenceLevel) UnmarshalJSON(b []byte) error {
	*l = ConfidenceLevel{}
	v := confidenceLevelJSON{levelFields: (*levelFields)(l)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	l.Pearson, l.Kendall = math.NaN(), math.NaN()
	if v.Pearson != nil {
		l.Pearson = *v.Pearson
	}
	if v.Kendall != nil {
		l.Kendall = *v.Kendall
	}
	return nil
}

// confidenceView is what the section's template renders.
type confidenceView struct {
	*Confidence
	Number  int
	Rows    []confidenceRowView
	Chart   template.HTML
	Levels  []confidenceLevelView
	Share   string
	Filters []filterRowView
}

type filterRowView struct {
	Label                   string
	Before, After           int
	ShareBefore, ShareAfter string
	Threshold               string // the stratified filter's lowest kept confidence
	Bound                   string // the agreeing filter's bound on the share difference
}

type confidenceRowView struct {
	Label, Mean string
	Pairs       int
	Unknown     int
	Bins        []int
}

type confidenceLevelView struct {
	Level, Pearson, Kendall string
	Pairs, Queries          int
	Reaches                 bool
}

// confidenceSection renders the section "How sure are the labels" as
// section number n; "" and 0 charts when c is nil.
func confidenceSection(c *Confidence, n int) (template.HTML, int) {
	if c == nil {
		return "", 0
	}
	v := confidenceView{Confidence: c, Number: n}
	var series []Series
	for i, name := range c.Bins {
		series = append(series, Series{Name: "confidence " + name})
		for _, r := range c.ByLabel {
			series[i].Values = append(series[i].Values, float64(r.Bins[i]))
		}
	}
	var cats []string
	for _, r := range c.ByLabel {
		mean := "–"
		if r.Pairs > r.Unknown {
			mean = fmtFloat(r.Mean)
		}
		v.Rows = append(v.Rows, confidenceRowView{Label: labelName(r.Label), Mean: mean, Pairs: r.Pairs, Unknown: r.Unknown, Bins: r.Bins})
		cats = append(cats, labelName(r.Label))
	}
	charts := 0
	if c.Known > 0 {
		v.Chart = BarChart("Labels by confidence", "label", "pairs", cats, series)
		charts++
	}
	if p := c.Prior; p != nil && p.Of > 0 {
		v.Share = fmtPct(float64(p.Labels) / float64(p.Of))
	}
	for _, lv := range c.Recovery {
		name := "all labels"
		switch {
		case lv.KeepConfident > 0:
			name = "most confident " + fmtPct(lv.KeepConfident) + " of each label (the export's)"
		case lv.KeepAgreeing > 0:
			name = "most agreeing " + fmtPct(lv.KeepAgreeing) + " of the queries, label shares within their bounds, tolerance " + strconv.FormatFloat(lv.ShareTolerance, 'g', -1, 64) + " (the export's)"
		case lv.Min > 0:
			name = "confidence ≥ " + strconv.FormatFloat(lv.Min, 'g', -1, 64)
		}
		v.Levels = append(v.Levels, confidenceLevelView{Level: name, Pairs: lv.Pairs, Queries: lv.Queries,
			Pearson: fmtNaN(lv.Pearson), Kendall: fmtNaN(lv.Kendall), Reaches: lv.Pearson >= c.Target && lv.Pairs >= c.MinPairs})
	}
	if f := c.Filter; f != nil {
		for _, r := range f.ByLabel {
			th := "–"
			if r.Threshold != nil {
				th = fmtFloat(*r.Threshold)
			}
			v.Filters = append(v.Filters, filterRowView{Label: labelName(r.Label), Before: r.Before, After: r.After, ShareBefore: fmtPct(r.ShareBefore), ShareAfter: fmtPct(r.ShareAfter), Threshold: th, Bound: strconv.FormatFloat(100*r.Bound, 'f', 2, 64) + "%"})
		}
	}
	var b bytes.Buffer
	if err := confidenceTemplate.Execute(&b, v); err != nil {
		// The template and its data are fixed types: an error is a bug.
		panic(err)
	}
	return template.HTML(b.String()), charts
}

// labelName prints a label as the Labels section does.
func labelName(l int) string {
	if l == -2 {
		return "junk (-2)"
	}
	return strconv.Itoa(l)
}

// fmtNaN is fmtFloat, "–" for NaN (a correlation of fewer than two pairs or
// of a constant).
func fmtNaN(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmtFloat(x)
}

var confidenceTemplate = template.Must(template.New("confidence").Funcs(template.FuncMap{"f": fmtFloat, "pct": fmtPct}).Parse(`
<h2 id="confidence">{{.Number}}. How sure are the labels</h2>
{{if .Known}}
<p>A label's confidence is the probability, under the click model's uncertainty about the pair's relevance, that the relevance lies in the band of the label it got (docs/clickmodels.md, "Uncertainty of the relevance"). {{.Known}} of the {{.Pairs}} labelled pairs have one.</p>
<table><tr><th>label</th><th>pairs</th><th>without confidence</th><th>mean confidence</th>{{range .Bins}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{.Label}}</td><td>{{.Pairs}}</td><td>{{.Unknown}}</td><td>{{.Mean}}</td>{{range .Bins}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{.Chart}}
{{with .Prior}}<p>The log cannot tell <span class="figure">{{$.Share}}</span> of the labels ({{.Labels}} of {{.Of}}) from the click model's prior: {{.Definition}}</p>{{end}}
{{if .Levels}}<p>Recovery of the hidden true relevance (simulated log): Pearson r and Kendall τ<sub>b</sub> between the inferred probability and the truth, for all labels and for the labels that <code>lovbench export --min-confidence</code> keeps at a minimum (one rule: a label below it is left out, a query without a label reaching it is left out whole); queries count those kept. Bold: r ≥ {{.Target}} over at least {{.MinPairs}} pairs.</p>
<table><tr><th>labels</th><th>pairs</th><th>queries</th><th>Pearson r</th><th>Kendall τ<sub>b</sub></th></tr>
{{range .Levels}}<tr><td>{{.Level}}</td><td>{{.Pairs}}</td><td>{{.Queries}}</td><td>{{if .Reaches}}<b>{{.Pearson}}</b>{{else}}{{.Pearson}}{{end}}</td><td>{{.Kendall}}</td></tr>
{{end}}</table>
{{with .Reached}}{{if eq .Min 0.0}}<p>All {{.Pairs}} labels, over {{.Queries}} queries, already recover the truth at Pearson r = {{f .Pearson}} ≥ {{$.Target}} (Kendall τ<sub>b</sub> = {{f .Kendall}}): no minimum confidence is needed.</p>
{{else}}<p>The labels with a confidence of at least <b>{{.Min}}</b> (the lowest such level, in steps of 0.01, that keeps at least {{$.MinPairs}} pairs) recover the truth at Pearson r = {{f .Pearson}} ≥ {{$.Target}} (Kendall τ<sub>b</sub> = {{f .Kendall}}): {{.Pairs}} pairs over {{.Queries}} queries remain.</p>
{{end}}{{else}}<p class="note">No minimum confidence (in steps of 0.01) keeps at least {{.MinPairs}} labels that recover the truth at Pearson r ≥ {{.Target}}.</p>{{end}}{{end}}
{{with .Order}}{{if .Pairs}}<p>Order confidence (what learning to rank uses of the labels): for two labelled terms of a query with different labels, the probability that their relevances are in the labels' order, under the click model's uncertainty; per query, the expected agreement of the labels' order with the true order, the mean over such pairs. {{.Pairs}} pairs in {{.WithPairs}} of {{.Queries}} queries: mean order confidence <span class="figure">{{f .MeanPair}}</span>, mean expected agreement per query <span class="figure">{{f .MeanAgreement}}</span> ({{.QueryFile}}, {{.PairFile}}; docs/dataset.md, "Order confidence").</p>{{end}}{{end}}
{{with .Filter}}{{with .Agreeing}}<p>The dataset keeps whole queries, the most agreeing whose rows keep every label's share within its bound of its share before: the share tolerance {{pct .ShareTolerance}} (<code>--agreeing-share-tolerance</code>), or half the label's share before when that is less, so a rare label neither vanishes nor grows past 1.5 times its share; or, when none does, the largest difference over its label's bound as low as single additions and exchanges of queries bring it (<code>lovbench export --keep-agreeing-queries {{.Fraction}}</code>; docs/dataset.md, "Whole queries that keep the label shares"): {{.Kept}} of the {{.Target}} aimed at, of {{.Eligible}} queries with an expected agreement, their mean expected agreement {{f .MeanAgreement}}. The largest difference between a label's share before and after is <span class="figure">{{pct .ShareDeviation}}</span>, and the largest over its label's bound {{f .ToleranceRatio}} (every label within its bound when at most 1){{if $.Levels}}; the recovery table's last row measures the same rule on the labels{{end}}:</p>
<table><tr><th>label</th><th>rows before</th><th>rows after</th><th>share before</th><th>share after</th><th>bound</th></tr>
{{range $.Filters}}<tr><td>{{.Label}}</td><td>{{.Before}}</td><td>{{.After}}</td><td>{{.ShareBefore}}</td><td>{{.ShareAfter}}</td><td>{{.Bound}}</td></tr>
{{end}}</table>{{else}}{{if .KeepConfident}}<p>The dataset keeps the most confident {{.KeepConfident}} of each label's rows, and that fraction of the sampled terms, spread over the kept queries (<code>lovbench export --keep-confident</code>; the same rule as the table's last row): the label shares stay, up to rounding. The lowest confidence each label kept:</p>
<table><tr><th>label</th><th>rows before</th><th>rows after</th><th>share before</th><th>share after</th><th>lowest kept confidence</th></tr>
{{range $.Filters}}<tr><td>{{.Label}}</td><td>{{.Before}}</td><td>{{.After}}</td><td>{{.ShareBefore}}</td><td>{{.ShareAfter}}</td><td>{{.Threshold}}</td></tr>
{{end}}</table>{{else}}<p>The dataset keeps the labels {{if .MinConfidence}}whose confidence is at least {{.MinConfidence}}{{end}}{{if and .MinConfidence .MinQueryAgreement}} and {{end}}{{if .MinQueryAgreement}}of the queries whose expected agreement is at least {{.MinQueryAgreement}}{{end}} (<code>lovbench export --min-confidence</code>, <code>--min-query-agreement</code>; the same rule as the table above). A minimum confidence favours the labels with wide bands, so the label distribution changes:</p>
<table><tr><th>label</th><th>rows before</th><th>rows after</th><th>share before</th><th>share after</th></tr>
{{range $.Filters}}<tr><td>{{.Label}}</td><td>{{.Before}}</td><td>{{.After}}</td><td>{{.ShareBefore}}</td><td>{{.ShareAfter}}</td></tr>
{{end}}</table>{{end}}{{end}}{{end}}
{{else}}<p class="note">The labels carry no confidence ({{.Pairs}} labelled pairs): the click model's fit gave no uncertainty, or the labels were written before confidences.</p>{{end}}
`))
