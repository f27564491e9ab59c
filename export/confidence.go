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

// ConfidenceFilter says what FilterLabels (`export --min-confidence`,
// `--min-query-agreement`, `--keep-confident`, `--keep-agreeing-queries`)
// left out. Rows = Kept + Below + WithQuery + QueryBelowAgreement +
// BeyondShare + NotChosen, in total and per label.
type ConfidenceFilter struct {
	MinConfidence float64 `json:"min_confidence"`
	// MinQueryAgreement is --min-query-agreement (0: not applied).
	MinQueryAgreement float64 `json:"min_query_agreement,omitempty"`
	// KeepConfident is --keep-confident, the stratified filter's fraction
	// (0: not applied).
	KeepConfident float64 `json:"keep_confident,omitempty"`
	// KeepAgreeing is --keep-agreeing-queries, the agreeing filter's
	// fraction of the queries (0: not applied).
	KeepAgreeing float64 `json:"keep_agreeing_queries,omitempty"`
	Rows         int     `json:"input_rows"`
	Kept         int     `json:"kept_rows"`
	// KeptUnknown counts the kept rows without a confidence (the sampled
	// terms of kept queries).
	KeptUnknown int `json:"kept_rows_without_confidence"`
	// Below counts the rows left out because their confidence is below
	// MinConfidence.
	Below int `json:"below_min_confidence"`
	// WithQuery counts the rows left out with their query (a query none of
	// whose rows reaches MinConfidence).
	WithQuery int `json:"left_out_with_query"`
	// QueryBelowAgreement counts the rows left out with their query because
	// its expected agreement is below MinQueryAgreement (or it has none).
	QueryBelowAgreement int `json:"left_out_query_below_agreement,omitempty"`
	// BeyondShare counts the rows without a confidence of kept queries
	// that the stratified filter left out beyond their share
	// (labels.BeyondShare).
	BeyondShare int `json:"left_out_beyond_share,omitempty"`
	// NotChosen counts the rows left out with a query the agreeing filter
	// did not keep (labels.QueryNotChosen).
	NotChosen int `json:"left_out_query_not_chosen,omitempty"`
	Queries   int `json:"input_queries"`
	// KeptQueries and DroppedQueries count the queries that keep a row and
	// those that lose all their rows.
	KeptQueries    int `json:"kept_queries"`
	DroppedQueries int `json:"dropped_queries"`
	// DroppedExamples are the first (in byte order) dropped queries, at
	// most MaxDroppedExamples.
	DroppedExamples []string            `json:"dropped_query_examples,omitempty"`
	ByLabel         []ConfidenceFilterN `json:"by_label"`
	// Agreeing is what the agreeing filter chose (nil without it).
	Agreeing *AgreeingChoice `json:"agreeing,omitempty"`
}

// AgreeingChoice is what the agreeing filter (--keep-agreeing-queries;
// labels.Selection) aimed at and reached: of the EligibleQueries (those
// with an expected agreement) it aims at TargetQueries
// (labels.KeepCount), the most agreeing whose rows keep every label's
// share within its bound (ConfidenceFilterN.ShareTolerance:
// labels.LabelShareTolerance under ShareTolerance, the lesser of it and
// half the label's share before) of its input share, and reached
// ShareDeviation (labels.ShareDeviation of the by_label rows and kept
// rows) and ToleranceRatio (labels.ToleranceRatio: every label is within
// its bound when it is at most 1) with ConfidenceFilter.KeptQueries of
// them.
type AgreeingChoice struct {
	EligibleQueries int     `json:"queries_with_agreement"`
	TargetQueries   int     `json:"target_queries"`
	ShareTolerance  float64 `json:"share_tolerance"`
	ShareDeviation  float64 `json:"share_deviation"`
	ToleranceRatio  float64 `json:"tolerance_ratio"`
}

// ConfidenceFilterN is one label's line of a ConfidenceFilter, with its
// share of the rows before and after the filter: a filter that keeps one
// label more than another changes the label distribution, and the
// benchmark with it (issue 36).
type ConfidenceFilterN struct {
	Label               int     `json:"label"`
	Rows                int     `json:"input_rows"`
	Kept                int     `json:"kept_rows"`
	Below               int     `json:"below_min_confidence"`
	WithQuery           int     `json:"left_out_with_query"`
	QueryBelowAgreement int     `json:"left_out_query_below_agreement,omitempty"`
	BeyondShare         int     `json:"left_out_beyond_share,omitempty"`
	NotChosen           int     `json:"left_out_query_not_chosen,omitempty"`
	ShareBefore         float64 `json:"share_before"`
	ShareAfter          float64 `json:"share_after"`
	// ShareTolerance (the agreeing filter only) is the bound on the
	// label's share difference, labels.LabelShareTolerance (0 for a label
	// without input rows).
	ShareTolerance float64 `json:"share_tolerance,omitempty"`
	// The stratified filter only (--keep-confident): the label's input
	// rows with a confidence and those it kept (labels.KeepCount of
	// them), and the lowest confidence it kept, the threshold the label
	// ended at (nil when it kept none).
	WithConfidence     int      `json:"input_rows_with_confidence,omitempty"`
	KeptWithConfidence int      `json:"kept_rows_with_confidence,omitempty"`
	KeptMinConfidence  *float64 `json:"kept_min_confidence,omitempty"`
}

// MaxDroppedExamples bounds ConfidenceFilter.DroppedExamples.
const MaxDroppedExamples = 10

// FilterConfidence is FilterLabels with a minimum confidence alone.
func FilterConfidence(gt []sampling.Row, minConf float64) ([]sampling.Row, *ConfidenceFilter, error) {
	if math.IsNaN(minConf) || minConf <= 0 || minConf > 1 {
		return nil, nil, fmt.Errorf("minimum confidence %v is not in (0, 1]", minConf)
	}
	return FilterLabels(gt, labels.Selection{MinConfidence: minConf})
}

// FilterLabels keeps the ground-truth rows that sel keeps (labels.Selection,
// the one rule of which labels are confident): in the plain mode a row with
// a confidence below the minimum is left out, a query none of whose rows
// reaches it, or whose expected agreement is below the minimum, is left out
// whole, and a row without a confidence (sampling.Row.Confidence is
// labels.NoConfidence: a sampled term) is kept with its query; in the
// stratified mode (sel.KeepConfident) each label keeps that fraction of its
// rows, the most confident, and the sampled terms their share among the
// kept queries; in the agreeing mode (sel.KeepAgreeing) the most agreeing
// queries whose rows keep every label's share within its bound
// (labels.LabelShareTolerance under sel.Tolerance) are kept whole. Rows
// keep their order. The returned counts say what was
// left out, per label, with the label shares before and after (and, in the
// stratified mode, the confidence each label ended at).
//
// A minimum confidence or a stratified filter on a ground truth in which no
// row has a confidence (labels made without one, or a file written before
// confidences) is an error: the filter cannot tell what the log supports.
func FilterLabels(gt []sampling.Row, sel labels.Selection) ([]sampling.Row, *ConfidenceFilter, error) {
	if err := sel.Check(); err != nil {
		return nil, nil, err
	}
	if (sel.MinConfidence > 0 || sel.KeepConfident > 0) && !slices.ContainsFunc(gt, func(r sampling.Row) bool { return r.Confidence != labels.NoConfidence }) {
		return nil, nil, fmt.Errorf("no label has a confidence (labels made without one, or a ground truth written before confidences): a minimum confidence cannot be applied")
	}
	verdict := sel.Select(len(gt), func(i int) labels.Candidate {
		return labels.Candidate{Query: gt[i].Query, Term: gt[i].Term, Label: gt[i].Label, Confidence: gt[i].Confidence}
	})
	f := &ConfidenceFilter{MinConfidence: sel.MinConfidence, MinQueryAgreement: sel.MinQueryAgreement, KeepConfident: sel.KeepConfident, KeepAgreeing: sel.KeepAgreeing, Rows: len(gt)}
	at := map[int]int{}
	for i, l := range labels.AllLabels() {
		f.ByLabel = append(f.ByLabel, ConfidenceFilterN{Label: l})
		at[l] = i
	}
	queries, keptQ := map[string]bool{}, map[string]bool{}
	kept := make([]sampling.Row, 0, len(gt))
	for i, r := range gt {
		queries[r.Query] = true
		n := &f.ByLabel[at[r.Label]]
		n.Rows++
		known := r.Confidence != labels.NoConfidence
		if sel.KeepConfident > 0 && known {
			n.WithConfidence++
		}
		switch verdict[i] {
		case labels.BelowConfidence:
			n.Below++
			f.Below++
		case labels.WithQuery:
			n.WithQuery++
			f.WithQuery++
		case labels.QueryDisagrees:
			n.QueryBelowAgreement++
			f.QueryBelowAgreement++
		case labels.BeyondShare:
			n.BeyondShare++
			f.BeyondShare++
		case labels.QueryNotChosen:
			n.NotChosen++
			f.NotChosen++
		default:
			n.Kept++
			f.Kept++
			switch {
			case !known:
				f.KeptUnknown++
			case sel.KeepConfident > 0:
				n.KeptWithConfidence++
				if n.KeptMinConfidence == nil || r.Confidence < *n.KeptMinConfidence {
					c := r.Confidence
					n.KeptMinConfidence = &c
				}
			}
			keptQ[r.Query] = true
			kept = append(kept, r)
		}
	}
	for i := range f.ByLabel {
		n := &f.ByLabel[i]
		if f.Rows > 0 {
			n.ShareBefore = float64(n.Rows) / float64(f.Rows)
		}
		if f.Kept > 0 {
			n.ShareAfter = float64(n.Kept) / float64(f.Kept)
		}
	}
	f.Queries, f.KeptQueries = len(queries), len(keptQ)
	f.DroppedQueries = f.Queries - f.KeptQueries
	var dropped []string
	for q := range queries {
		if !keptQ[q] {
			dropped = append(dropped, q)
		}
	}
	slices.Sort(dropped)
	f.DroppedExamples = dropped[:min(len(dropped), MaxDroppedExamples)]
	if sel.KeepAgreeing > 0 {
		f.Agreeing = agreeingChoice(f, sel, queries)
	}
	return kept, f, nil
}

// agreeingChoice is the AgreeingChoice of the agreeing filter sel that
// left f, over the input's queries; it sets each label's bound in f.
func agreeingChoice(f *ConfidenceFilter, sel labels.Selection, queries map[string]bool) *AgreeingChoice {
	eligible := 0
	for q := range queries {
		if sel.Eligible(q) {
			eligible++
		}
	}
	before, after := filterCounts(f)
	for i, b := range labels.ShareTolerances(before, sel.Tolerance()) {
		f.ByLabel[i].ShareTolerance = b
	}
	return &AgreeingChoice{EligibleQueries: eligible, TargetQueries: labels.KeepCount(sel.KeepAgreeing, eligible), ShareTolerance: sel.Tolerance(),
		ShareDeviation: labels.ShareDeviation(before, after), ToleranceRatio: labels.ToleranceRatio(before, after, sel.Tolerance())}
}

// filterCounts are the input and kept rows of f's labels, in by_label
// order.
func filterCounts(f *ConfidenceFilter) (before, after []int) {
	for _, n := range f.ByLabel {
		before, after = append(before, n.Rows), append(after, n.Kept)
	}
	return before, after
}

// OrderAgreement is the expected agreement of the dataset's queries' label
// order with the true order (labels.OrderAgreement; docs/dataset.md,
// "Order confidence").
type OrderAgreement struct {
	// Queries counts the dataset's queries, WithPairs those with an
	// expected agreement (a pair of different labels); Missing those the
	// order file does not list.
	Queries   int `json:"queries"`
	WithPairs int `json:"queries_with_agreement"`
	Missing   int `json:"queries_not_in_order_file"`
	// Mean is the mean expected agreement of WithPairs (0 without any),
	// summed in the dataset's query order; Min the lowest.
	Mean float64 `json:"mean_expected_agreement"`
	Min  float64 `json:"min_expected_agreement"`
}

// orderAgreementOf sums up ag over the queries of ds.
func orderAgreementOf(ds *Dataset, ag map[string]float64) *OrderAgreement {
	o := &OrderAgreement{Queries: len(ds.Queries)}
	sum := 0.0
	for _, q := range ds.Queries {
		a, ok := ag[q]
		switch {
		case !ok:
			o.Missing++
		case !math.IsNaN(a):
			if o.WithPairs == 0 || a < o.Min {
				o.Min = a
			}
			o.WithPairs++
			sum += a
		}
	}
	if o.WithPairs > 0 {
		o.Mean = sum / float64(o.WithPairs)
	}
	return o
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
	if o := m.OrderAgreement; o != nil {
		p("- Order confidence (docs/dataset.md, \"Order confidence\"): the expected agreement of a query's label order with the true order, the mean over its pairs of labelled terms with different labels of the probability that the pair is in the labels' order. %d of the %d queries have one (the others' labels are all equal, or the order file does not list them: %d); mean %.3f, lowest %.3f.\n\n",
			o.WithPairs, o.Queries, o.Missing, o.Mean, o.Min)
	}
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
	if f.KeepConfident > 0 {
		cardStratified(p, f)
		return
	}
	if f.Agreeing != nil {
		cardAgreeing(p, f)
		return
	}
	p("- Built from %s: %d of %d ground-truth rows kept (%d of them sampled terms without a confidence), %d left out below the minimum confidence, %d left out with their query",
		filterWords(f), f.Kept, f.Rows, f.KeptUnknown, f.Below, f.WithQuery)
	if f.MinQueryAgreement > 0 {
		p(", %d left out with a query whose expected agreement is below the minimum", f.QueryBelowAgreement)
	}
	p("; %d of %d queries lost all their rows", f.DroppedQueries, f.Queries)
	if len(f.DroppedExamples) > 0 {
		p(" (e.g. %s)", quotedList(f.DroppedExamples))
	}
	p(". The filter changes the label distribution; the shares before and after are side by side:\n\n| label | input rows | kept | below the minimum | left out with their query | query below the agreement | share before | share after |\n|---|---|---|---|---|---|---|---|\n")
	for _, n := range f.ByLabel {
		p("| %d | %d | %d | %d | %d | %d | %.2f%% | %.2f%% |\n", n.Label, n.Rows, n.Kept, n.Below, n.WithQuery, n.QueryBelowAgreement, 100*n.ShareBefore, 100*n.ShareAfter)
	}
	p("\n")
}

// cardStratified writes the card's paragraph of the stratified filter
// (--keep-confident; labels.Selection).
func cardStratified(p func(string, ...any), f *ConfidenceFilter) {
	p("- Built from the most confident %v of each label's rows (`--keep-confident`, docs/dataset.md, \"A filter that keeps the label shares\"): each label keeps that fraction of its rows with a confidence, rounded half up, its most confident, and the sampled terms without a confidence keep that fraction too, spread evenly over the kept queries. %d of %d ground-truth rows kept (%d of them sampled terms), %d left out below their label's threshold, %d left out with their query, %d sampled terms left out beyond their share; %d of %d queries lost all their rows",
		f.KeepConfident, f.Kept, f.Rows, f.KeptUnknown, f.Below, f.WithQuery, f.BeyondShare, f.DroppedQueries, f.Queries)
	if len(f.DroppedExamples) > 0 {
		p(" (e.g. %s)", quotedList(f.DroppedExamples))
	}
	p(". The label shares before and after, and the lowest confidence each label kept:\n\n| label | input rows | with a confidence | kept | kept with a confidence | lowest kept confidence | below the threshold | left out with their query | beyond the share | share before | share after |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, n := range f.ByLabel {
		low := "-"
		if n.KeptMinConfidence != nil {
			low = fmt.Sprintf("%.4f", *n.KeptMinConfidence)
		}
		p("| %d | %d | %d | %d | %d | %s | %d | %d | %d | %.2f%% | %.2f%% |\n", n.Label, n.Rows, n.WithConfidence, n.Kept, n.KeptWithConfidence, low, n.Below, n.WithQuery, n.BeyondShare, 100*n.ShareBefore, 100*n.ShareAfter)
	}
	p("\n")
}

// cardAgreeing writes the card's paragraph of the agreeing filter
// (--keep-agreeing-queries; labels.Selection).
func cardAgreeing(p func(string, ...any), f *ConfidenceFilter) {
	a := f.Agreeing
	p("- Built from whole queries, the most agreeing that keep the label shares (`--keep-agreeing-queries %v`, docs/dataset.md, \"Whole queries that keep the label shares\"): of the %d queries with an expected agreement, %d aimed at, walking them from the most agreeing and keeping each whose rows leave every label's share within its bound of its input share (the share tolerance %v, `--agreeing-share-tolerance`, or half the label's input share when that is less, so that a rare label neither vanishes nor grows past 1.5 times its share), or the largest difference over its bound no higher than before, then exchanging a kept query for another while that lowers it. %d queries kept, with all their %d rows (%d of them sampled terms); %d rows left out with the other queries; %d of %d queries lost all their rows",
		f.KeepAgreeing, a.EligibleQueries, a.TargetQueries, a.ShareTolerance, f.KeptQueries, f.Kept, f.KeptUnknown, f.NotChosen, f.DroppedQueries, f.Queries)
	if len(f.DroppedExamples) > 0 {
		p(" (e.g. %s)", quotedList(f.DroppedExamples))
	}
	p(". The largest difference between a label's share before and after is %.2f points, and the largest over the label's bound %.2f (every label is within its bound when it is at most 1):\n\n| label | input rows | kept | left out with their query | share before | share after | bound |\n|---|---|---|---|---|---|---|\n", 100*a.ShareDeviation, a.ToleranceRatio)
	for _, n := range f.ByLabel {
		p("| %d | %d | %d | %d | %.2f%% | %.2f%% | %.2f points |\n", n.Label, n.Rows, n.Kept, n.NotChosen, 100*n.ShareBefore, 100*n.ShareAfter, 100*n.ShareTolerance)
	}
	p("\n")
}

// filterWords says in words which minimums f applied.
func filterWords(f *ConfidenceFilter) string {
	var parts []string
	if f.MinConfidence > 0 {
		parts = append(parts, fmt.Sprintf("the labels with a confidence of at least %v (`--min-confidence`)", f.MinConfidence))
	}
	if f.MinQueryAgreement > 0 {
		parts = append(parts, fmt.Sprintf("the queries whose labels' order has an expected agreement with the true order of at least %v (`--min-query-agreement`)", f.MinQueryAgreement))
	}
	return strings.Join(parts, " and ")
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
	if o := m.OrderAgreement; o != nil && (o.Queries != m.Queries || o.WithPairs+o.Missing > o.Queries || o.Mean < o.Min || o.Mean > 1 || o.Min < 0) {
		v.addf("%s: order_agreement %+v does not fit the dataset's %d queries", ManifestFile, *o, m.Queries)
	}
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
	case f == nil && (m.Parameters.MinConfidence != 0 || m.Parameters.MinQueryAgreement != 0 || m.Parameters.KeepConfident != 0 || m.Parameters.KeepAgreeing != 0):
		v.addf("%s: parameters.min_confidence %v, min_query_agreement %v, keep_confident %v, keep_agreeing_queries %v but no confidence_filter counts", ManifestFile, m.Parameters.MinConfidence, m.Parameters.MinQueryAgreement, m.Parameters.KeepConfident, m.Parameters.KeepAgreeing)
		return
	case f == nil:
		return
	case f.MinConfidence != m.Parameters.MinConfidence || f.MinQueryAgreement != m.Parameters.MinQueryAgreement || f.KeepConfident != m.Parameters.KeepConfident || f.KeepAgreeing != m.Parameters.KeepAgreeing:
		v.addf("%s: confidence_filter minimums %v, %v, fractions %v, %v; parameters.min_confidence %v, min_query_agreement %v, keep_confident %v, keep_agreeing_queries %v", ManifestFile, f.MinConfidence, f.MinQueryAgreement, f.KeepConfident, f.KeepAgreeing, m.Parameters.MinConfidence, m.Parameters.MinQueryAgreement, m.Parameters.KeepConfident, m.Parameters.KeepAgreeing)
	}
	if f.Kept != m.Rows || f.KeptQueries != m.Queries || f.Rows != f.Kept+f.Below+f.WithQuery+f.QueryBelowAgreement+f.BeyondShare+f.NotChosen || f.Queries != f.KeptQueries+f.DroppedQueries {
		v.addf("%s: confidence_filter counts do not add up (input %d = kept %d + below %d + with query %d + query below agreement %d + beyond share %d + query not chosen %d; dataset %d rows, %d queries; input queries %d = kept %d + dropped %d)",
			ManifestFile, f.Rows, f.Kept, f.Below, f.WithQuery, f.QueryBelowAgreement, f.BeyondShare, f.NotChosen, m.Rows, m.Queries, f.Queries, f.KeptQueries, f.DroppedQueries)
	}
	var sum ConfidenceFilterN
	for _, n := range f.ByLabel {
		if n.Rows != n.Kept+n.Below+n.WithQuery+n.QueryBelowAgreement+n.BeyondShare+n.NotChosen {
			v.addf("%s: confidence_filter label %d: %d input rows, %d + %d + %d + %d + %d + %d accounted", ManifestFile, n.Label, n.Rows, n.Kept, n.Below, n.WithQuery, n.QueryBelowAgreement, n.BeyondShare, n.NotChosen)
		}
		if (f.Kept > 0 && n.ShareAfter != float64(n.Kept)/float64(f.Kept)) || (f.Rows > 0 && n.ShareBefore != float64(n.Rows)/float64(f.Rows)) {
			v.addf("%s: confidence_filter label %d: shares %v before, %v after do not match its rows", ManifestFile, n.Label, n.ShareBefore, n.ShareAfter)
		}
		sum.Rows, sum.Kept, sum.Below, sum.WithQuery, sum.QueryBelowAgreement, sum.BeyondShare, sum.NotChosen = sum.Rows+n.Rows, sum.Kept+n.Kept, sum.Below+n.Below, sum.WithQuery+n.WithQuery, sum.QueryBelowAgreement+n.QueryBelowAgreement, sum.BeyondShare+n.BeyondShare, sum.NotChosen+n.NotChosen
	}
	if sum.Rows != f.Rows || sum.Kept != f.Kept || sum.Below != f.Below || sum.WithQuery != f.WithQuery || sum.QueryBelowAgreement != f.QueryBelowAgreement || sum.BeyondShare != f.BeyondShare || sum.NotChosen != f.NotChosen {
		v.addf("%s: confidence_filter by_label does not add up to its totals", ManifestFile)
	}
	if f.KeepConfident > 0 {
		checkStratified(v, f, gt, m.Queries)
		return
	}
	if f.KeepAgreeing > 0 || f.Agreeing != nil {
		checkAgreeing(v, f, m)
		return
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
	if f.MinConfidence == 0 {
		return // only the query agreement, which the dataset does not hold
	}
	if below > 0 {
		v.addf("%s: %d rows have a confidence below min_confidence %v", GroundTruthFile, below, f.MinConfidence)
	}
	if len(supported) != m.Queries {
		v.addf("%s: %d of %d queries have a row with a confidence of at least %v; all should", GroundTruthFile, len(supported), m.Queries, f.MinConfidence)
	}
}

// checkStratified checks the counts of the stratified filter
// (--keep-confident) against the dataset's rows: each label kept
// labels.KeepCount of its rows with a confidence, the dataset holds that
// many, none below the lowest kept confidence recorded and one at it, and
// every query has a row with a confidence.
func checkStratified(v *Validation, f *ConfidenceFilter, gt []sampling.Row, queries int) {
	type seen struct {
		n   int
		low float64
	}
	got := map[int]*seen{}
	withConf := map[string]bool{}
	for _, r := range gt {
		if r.Confidence == labels.NoConfidence {
			continue
		}
		withConf[r.Query] = true
		s := got[r.Label]
		if s == nil {
			s = &seen{low: r.Confidence}
			got[r.Label] = s
		}
		s.n++
		s.low = min(s.low, r.Confidence)
	}
	for _, n := range f.ByLabel {
		if want := labels.KeepCount(f.KeepConfident, n.WithConfidence); n.KeptWithConfidence != want {
			v.addf("%s: confidence_filter label %d: %d of its %d rows with a confidence kept, keep_confident %v keeps %d", ManifestFile, n.Label, n.KeptWithConfidence, n.WithConfidence, f.KeepConfident, want)
		}
		s := got[n.Label]
		switch {
		case s == nil && (n.KeptWithConfidence != 0 || n.KeptMinConfidence != nil):
			v.addf("%s: confidence_filter label %d: %d rows with a confidence kept, %s has none", ManifestFile, n.Label, n.KeptWithConfidence, GroundTruthFile)
		case s == nil:
		case s.n != n.KeptWithConfidence || n.KeptMinConfidence == nil || s.low != *n.KeptMinConfidence:
			v.addf("%s: label %d: %d rows with a confidence, the lowest %v; confidence_filter says %d, kept_min_confidence %s", GroundTruthFile, n.Label, s.n, s.low, n.KeptWithConfidence, confPtrText(n.KeptMinConfidence))
		}
	}
	if len(withConf) != queries {
		v.addf("%s: %d of %d queries have a row with a confidence; all should", GroundTruthFile, len(withConf), queries)
	}
}

// checkAgreeing checks the counts of the agreeing filter
// (--keep-agreeing-queries): it left out whole queries only, kept at most
// its target of the queries with an agreement (labels.KeepCount of them),
// each of them with an agreement, its share tolerance is in (0, 1), and
// the recorded share deviation, tolerance ratio and label bounds are
// those of the by_label counts.
func checkAgreeing(v *Validation, f *ConfidenceFilter, m *Manifest) {
	a := f.Agreeing
	if a == nil || f.KeepAgreeing == 0 {
		v.addf("%s: confidence_filter keep_agreeing_queries %v with agreeing %v: one without the other", ManifestFile, f.KeepAgreeing, a)
		return
	}
	if f.Below+f.WithQuery+f.QueryBelowAgreement+f.BeyondShare != 0 {
		v.addf("%s: confidence_filter keep_agreeing_queries left out rows other than whole queries not chosen", ManifestFile)
	}
	if want := labels.KeepCount(f.KeepAgreeing, a.EligibleQueries); a.TargetQueries != want || a.EligibleQueries > f.Queries || f.KeptQueries > a.TargetQueries {
		v.addf("%s: confidence_filter agreeing: %d kept of a target of %d (keep_agreeing_queries %v of %d queries with an agreement: %d), %d input queries", ManifestFile, f.KeptQueries, a.TargetQueries, f.KeepAgreeing, a.EligibleQueries, want, f.Queries)
	}
	if o := m.OrderAgreement; o == nil || o.WithPairs != m.Queries {
		v.addf("%s: keep_agreeing_queries keeps queries with an agreement only; order_agreement says %+v of %d", ManifestFile, o, m.Queries)
	}
	if err := labels.CheckShareTolerance(a.ShareTolerance); err != nil {
		v.addf("%s: confidence_filter agreeing: %v", ManifestFile, err)
		return
	}
	before, after := filterCounts(f)
	if legacyAgreeing(f) {
		// Written before the bounds per label (lovbench d5ceeeb and
		// earlier): neither tolerance_ratio nor a label's share_tolerance
		// is there to check; the deviation is.
		if d := labels.ShareDeviation(before, after); a.ShareDeviation != d {
			v.addf("%s: confidence_filter agreeing share_deviation %v; the by_label counts give %v", ManifestFile, a.ShareDeviation, d)
		}
		return
	}
	if d, r := labels.ShareDeviation(before, after), labels.ToleranceRatio(before, after, a.ShareTolerance); a.ShareDeviation != d || a.ToleranceRatio != r {
		v.addf("%s: confidence_filter agreeing share_deviation %v, tolerance_ratio %v; the by_label counts give %v, %v (tolerance %v)", ManifestFile, a.ShareDeviation, a.ToleranceRatio, d, r, a.ShareTolerance)
	}
	for i, b := range labels.ShareTolerances(before, a.ShareTolerance) {
		if n := f.ByLabel[i]; n.ShareTolerance != b {
			v.addf("%s: confidence_filter label %d: share_tolerance %v, the tolerance %v and its share before give %v", ManifestFile, n.Label, n.ShareTolerance, a.ShareTolerance, b)
		}
	}
}

// legacyAgreeing reports whether an agreeing filter's manifest predates
// the bounds per label: no tolerance_ratio and no label's
// share_tolerance. A manifest written since has a label with a bound
// above 0 (every label present before has one), so the two never meet.
func legacyAgreeing(f *ConfidenceFilter) bool {
	if f.Agreeing.ToleranceRatio != 0 {
		return false
	}
	for _, n := range f.ByLabel {
		if n.ShareTolerance != 0 {
			return false
		}
	}
	return true
}

// confPtrText prints an optional confidence, "none" when absent.
func confPtrText(c *float64) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprint(*c)
}
