package export

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lovbench/lovbench/internal/pqfile"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/sampling"
)

// ConfidenceBins is the number of equal-width bins of a ConfidenceDist:
// bin k holds the confidences in [k/10, (k+1)/10), the last bin [0.9, 1].
const ConfidenceBins = 10

// ConfidenceDist is the distribution of the confidence of one label's rows
// (issue 26: the confidence is the probability, under the click model's
// uncertainty, that the pair's relevance lies in the band of its label).
type ConfidenceDist struct {
	Label int `json:"label"`
	Rows  int `json:"rows"`
	// Unknown counts the rows without a confidence (the sampled label-0
	// terms, and labels made without one).
	Unknown int `json:"unknown"`
	// Mean is the mean confidence of the other rows (0 when there are none).
	Mean float64 `json:"mean"`
	// Bins counts the rows with a confidence per ConfidenceBins bin.
	Bins []int `json:"bins"`
}

// CoarseConfidenceBins name the four bins of ConfidenceDist.Coarse, as the
// dataset card and the report print them.
var CoarseConfidenceBins = []string{"< 0.5", "0.5-0.8", "0.8-0.9", ">= 0.9"}

// Coarse sums Bins into the four bins of CoarseConfidenceBins: [0, 0.5),
// [0.5, 0.8), [0.8, 0.9) and [0.9, 1].
func (d ConfidenceDist) Coarse() []int {
	sum := func(lo, hi int) (n int) {
		for _, c := range d.Bins[lo:hi] {
			n += c
		}
		return n
	}
	return []int{sum(0, 5), sum(5, 8), sum(8, 9), sum(9, 10)}
}

// ConfidenceBin is the bin of ConfidenceDist.Bins that confidence c (in
// [0, 1]) falls in.
func ConfidenceBin(c float64) int {
	return min(int(math.Floor(c*ConfidenceBins)), ConfidenceBins-1)
}

// ConfidenceDistribution returns the confidence distribution per label, in
// the order of labels.AllLabels, of rows whose i-th label is grade[i] and
// whose confidence is conf[i] (labels.NoConfidence: not known). Every label
// has a row, with zero counts when it does not occur. The mean is summed in
// row order, so equal inputs give equal bytes.
func ConfidenceDistribution(grade []int, conf []float64) []ConfidenceDist {
	all := labels.AllLabels()
	out := make([]ConfidenceDist, len(all))
	at := map[int]int{}
	for i, l := range all {
		out[i] = ConfidenceDist{Label: l, Bins: make([]int, ConfidenceBins)}
		at[l] = i
	}
	sums := make([]float64, len(all))
	for i, g := range grade {
		d := &out[at[g]]
		d.Rows++
		if conf[i] == labels.NoConfidence {
			d.Unknown++
			continue
		}
		d.Bins[ConfidenceBin(conf[i])]++
		sums[at[g]] += conf[i]
	}
	for i := range out {
		if k := out[i].Rows - out[i].Unknown; k > 0 {
			out[i].Mean = sums[i] / float64(k)
		}
	}
	return out
}

// rowsConfidence is ConfidenceDistribution of the dataset's rows.
func rowsConfidence(rows []Row) []ConfidenceDist {
	g, c := make([]int, len(rows)), make([]float64, len(rows))
	for i, r := range rows {
		g[i], c[i] = r.Label, r.Confidence
	}
	return ConfidenceDistribution(g, c)
}

// nullableColumn is the Parquet column of a nullable float64 column (the
// confidence): optional, null where the Arrow column is null.
func nullableColumn(name string, a *array.Float64) pqfile.Column {
	null := make([]bool, a.Len())
	for i := range null {
		null[i] = a.IsNull(i)
	}
	return pqfile.Column{Name: name, Kind: pqfile.Float64, Float64s: a.Float64Values(), Null: null}
}

// ConfidenceFilter says what FilterConfidence (`export --min-confidence`)
// left out. Rows = Kept + Below + WithQuery, in total and per label.
type ConfidenceFilter struct {
	MinConfidence float64 `json:"min_confidence"`
	Rows          int     `json:"input_rows"`
	Kept          int     `json:"kept_rows"`
	// KeptUnknown counts the kept rows without a confidence (the sampled
	// terms of kept queries).
	KeptUnknown int `json:"kept_rows_without_confidence"`
	// Below counts the rows left out because their confidence is below
	// MinConfidence.
	Below int `json:"below_min_confidence"`
	// WithQuery counts the rows without a confidence left out with their
	// query (a query none of whose rows reaches MinConfidence).
	WithQuery int `json:"left_out_with_query"`
	Queries   int `json:"input_queries"`
	// KeptQueries and DroppedQueries count the queries that keep a row and
	// those that lose all their rows.
	KeptQueries    int `json:"kept_queries"`
	DroppedQueries int `json:"dropped_queries"`
	// DroppedExamples are the first (in byte order) dropped queries, at
	// most MaxDroppedExamples.
	DroppedExamples []string            `json:"dropped_query_examples,omitempty"`
	ByLabel         []ConfidenceFilterN `json:"by_label"`
}

// ConfidenceFilterN is one label's line of a ConfidenceFilter.
type ConfidenceFilterN struct {
	Label     int `json:"label"`
	Rows      int `json:"input_rows"`
	Kept      int `json:"kept_rows"`
	Below     int `json:"below_min_confidence"`
	WithQuery int `json:"left_out_with_query"`
}

// MaxDroppedExamples bounds ConfidenceFilter.DroppedExamples.
const MaxDroppedExamples = 10

// FilterConfidence keeps the ground-truth rows whose label the log
// supports: a row with a confidence is kept when its confidence is at least
// minConf; a row without one (sampling.Row.Confidence is labels.NoConfidence:
// a sampled term, whose label 0 is the LETOR sampling convention and not a
// click-model estimate) is kept with its query. A query none of whose rows
// has a confidence of at least minConf is left out whole: its sampled rows alone
// would make a query without a judged result. Rows keep their order.
//
// minConf must be in (0, 1]. A ground truth in which no row has a confidence
// (labels made without one, or a file written before confidences) is an
// error: the filter cannot tell what the log supports.
func FilterConfidence(gt []sampling.Row, minConf float64) ([]sampling.Row, *ConfidenceFilter, error) {
	if math.IsNaN(minConf) || minConf <= 0 || minConf > 1 {
		return nil, nil, fmt.Errorf("minimum confidence %v is not in (0, 1]", minConf)
	}
	if !slices.ContainsFunc(gt, func(r sampling.Row) bool { return r.Confidence != labels.NoConfidence }) {
		return nil, nil, fmt.Errorf("no label has a confidence (labels made without one, or a ground truth written before confidences): a minimum confidence cannot be applied")
	}
	supported := map[string]bool{}
	queries := map[string]bool{}
	for _, r := range gt {
		queries[r.Query] = true
		if r.Confidence != labels.NoConfidence && r.Confidence >= minConf {
			supported[r.Query] = true
		}
	}
	f := &ConfidenceFilter{MinConfidence: minConf, Rows: len(gt), Queries: len(queries), KeptQueries: len(supported)}
	f.DroppedQueries = f.Queries - f.KeptQueries
	at := map[int]int{}
	for i, l := range labels.AllLabels() {
		f.ByLabel = append(f.ByLabel, ConfidenceFilterN{Label: l})
		at[l] = i
	}
	var dropped []string
	for q := range queries {
		if !supported[q] {
			dropped = append(dropped, q)
		}
	}
	slices.Sort(dropped)
	f.DroppedExamples = dropped[:min(len(dropped), MaxDroppedExamples)]
	kept := make([]sampling.Row, 0, len(gt))
	for _, r := range gt {
		n := &f.ByLabel[at[r.Label]]
		n.Rows++
		known := r.Confidence != labels.NoConfidence
		switch {
		case known && r.Confidence < minConf:
			n.Below++
			f.Below++
		case !supported[r.Query]:
			n.WithQuery++
			f.WithQuery++
		default:
			n.Kept++
			f.Kept++
			if !known {
				f.KeptUnknown++
			}
			kept = append(kept, r)
		}
	}
	return kept, f, nil
}

// cardConfidence writes the dataset card's confidence paragraphs: the
// confidence distribution per label, and what --min-confidence left out.
// A manifest written before confidences has no distribution and gets
// nothing, so its card renders as it was written (Validate compares them).
func cardConfidence(b *bytes.Buffer, m *Manifest) {
	if m.Confidence == nil {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("- Label confidence (the probability, under the click model's uncertainty, that the pair's relevance lies in the band of its label; column `%s`, empty or null where not known: the sampled terms, and labels made without a confidence):\n\n", ConfidenceColumn)
	p("| label | rows | no confidence | mean |")
	for _, name := range CoarseConfidenceBins {
		p(" %s |", name)
	}
	p("\n|---|---|---|---|%s\n", strings.Repeat("---|", len(CoarseConfidenceBins)))
	for _, d := range m.Confidence {
		mean := "-"
		if d.Rows > d.Unknown {
			mean = fmt.Sprintf("%.3f", d.Mean)
		}
		p("| %d | %d | %d | %s |", d.Label, d.Rows, d.Unknown, mean)
		for _, n := range d.Coarse() {
			p(" %d |", n)
		}
		p("\n")
	}
	p("\n")
	unknown, unknown0 := 0, 0
	for _, d := range m.Confidence {
		unknown += d.Unknown
		if d.Label == 0 {
			unknown0 = d.Unknown
		}
	}
	p("- **`%s` is not a feature: leave it out of training and evaluation.** A null `%s` marks a term that sampling added as a non-relevant match, whose label is always 0 (or a label made without a confidence): here %d rows have none, %d of them label 0. A model given the column, or only whether it is null, learns the label from it: it leaks the label. The fold files leave it out.\n\n",
		ConfidenceColumn, ConfidenceColumn, unknown, unknown0)
	f := m.ConfidenceFilter
	if f == nil {
		return
	}
	p("- Built from the labels with a confidence of at least %v (`--min-confidence`): %d of %d ground-truth rows kept (%d of them sampled terms without a confidence), %d left out below the minimum, %d left out with their query; %d of %d queries lost all their rows",
		f.MinConfidence, f.Kept, f.Rows, f.KeptUnknown, f.Below, f.WithQuery, f.DroppedQueries, f.Queries)
	if len(f.DroppedExamples) > 0 {
		p(" (e.g. %s)", quotedList(f.DroppedExamples))
	}
	p(":\n\n| label | input rows | kept | below the minimum | left out with their query |\n|---|---|---|---|---|\n")
	for _, n := range f.ByLabel {
		p("| %d | %d | %d | %d | %d |\n", n.Label, n.Rows, n.Kept, n.Below, n.WithQuery)
	}
	p("\n")
}

// quotedList formats strings as a comma-separated list of quoted strings
// (textio.Quote), each kept on one line.
func quotedList(ss []string) string {
	var b bytes.Buffer
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(mdCell(textio.Quote(s)))
	}
	return b.String()
}

// checkConfidenceColumn checks the confidence column of one columnar file
// against the ground truth: present when the ground truth has confidences,
// every value a probability or null, equal to the ground truth's row by row.
// A dataset written before confidences has neither.
func checkConfidenceColumn(v *Validation, name string, conf []float64, gt []sampling.Row) {
	if conf == nil {
		if slices.ContainsFunc(gt, func(r sampling.Row) bool { return r.Confidence != labels.NoConfidence }) {
			v.addf("%s: no %s column, but %s has confidences", name, ConfidenceColumn, GroundTruthFile)
		}
		return
	}
	bad := 0
	for i, r := range gt {
		c := conf[i]
		switch {
		case c != labels.NoConfidence && !(c >= 0 && c <= 1):
			v.addf("%s: row %d: %s %v is not a probability", name, i+1, ConfidenceColumn, c)
		case c != r.Confidence:
			if bad++; bad <= 5 {
				v.addf("%s: row %d: %s %s, %s row %d says %s", name, i+1, ConfidenceColumn, confText(c), GroundTruthFile, i+2, confText(r.Confidence))
			}
		}
	}
	if bad > 5 {
		v.addf("%s: %d more rows differ from %s in %s", name, bad-5, GroundTruthFile, ConfidenceColumn)
	}
}

// confText prints a confidence, "null" when it is not known.
func confText(c float64) string {
	if c == labels.NoConfidence {
		return "null"
	}
	return fmt.Sprint(c)
}

// checkConfidenceManifest checks the manifest's confidence distribution and
// --min-confidence counts against the ground truth's rows (manifests
// written before confidences have neither and are not checked).
func checkConfidenceManifest(v *Validation, m *Manifest, gt []sampling.Row) {
	if m.Confidence != nil {
		g, c := make([]int, len(gt)), make([]float64, len(gt))
		for i, r := range gt {
			g[i], c[i] = r.Label, r.Confidence
		}
		if got := ConfidenceDistribution(g, c); !slices.EqualFunc(got, m.Confidence, func(a, b ConfidenceDist) bool {
			return a.Label == b.Label && a.Rows == b.Rows && a.Unknown == b.Unknown && a.Mean == b.Mean && slices.Equal(a.Bins, b.Bins)
		}) {
			v.addf("%s: confidence_distribution does not agree with %s", ManifestFile, GroundTruthFile)
		}
	}
	f := m.ConfidenceFilter
	switch {
	case f == nil && m.Parameters.MinConfidence != 0:
		v.addf("%s: parameters.min_confidence %v but no confidence_filter counts", ManifestFile, m.Parameters.MinConfidence)
		return
	case f == nil:
		return
	case f.MinConfidence != m.Parameters.MinConfidence:
		v.addf("%s: confidence_filter.min_confidence %v, parameters.min_confidence %v", ManifestFile, f.MinConfidence, m.Parameters.MinConfidence)
	}
	if f.Kept != m.Rows || f.KeptQueries != m.Queries || f.Rows != f.Kept+f.Below+f.WithQuery || f.Queries != f.KeptQueries+f.DroppedQueries {
		v.addf("%s: confidence_filter counts do not add up (input %d = kept %d + below %d + with query %d; dataset %d rows, %d queries; input queries %d = kept %d + dropped %d)",
			ManifestFile, f.Rows, f.Kept, f.Below, f.WithQuery, m.Rows, m.Queries, f.Queries, f.KeptQueries, f.DroppedQueries)
	}
	var sum ConfidenceFilterN
	for _, n := range f.ByLabel {
		if n.Rows != n.Kept+n.Below+n.WithQuery {
			v.addf("%s: confidence_filter label %d: %d input rows, %d + %d + %d accounted", ManifestFile, n.Label, n.Rows, n.Kept, n.Below, n.WithQuery)
		}
		sum.Rows, sum.Kept, sum.Below, sum.WithQuery = sum.Rows+n.Rows, sum.Kept+n.Kept, sum.Below+n.Below, sum.WithQuery+n.WithQuery
	}
	if sum.Rows != f.Rows || sum.Kept != f.Kept || sum.Below != f.Below || sum.WithQuery != f.WithQuery {
		v.addf("%s: confidence_filter by_label does not add up to its totals", ManifestFile)
	}
	supported := map[string]bool{}
	below := 0
	for _, r := range gt {
		if r.Confidence == labels.NoConfidence {
			continue
		}
		if r.Confidence < f.MinConfidence {
			below++
		} else {
			supported[r.Query] = true
		}
	}
	if below > 0 {
		v.addf("%s: %d rows have a confidence below min_confidence %v", GroundTruthFile, below, f.MinConfidence)
	}
	if len(supported) != m.Queries {
		v.addf("%s: %d of %d queries have a row with a confidence of at least %v; all should", GroundTruthFile, len(supported), m.Queries, f.MinConfidence)
	}
}
