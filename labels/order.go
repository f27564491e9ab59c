package labels

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mathext"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/internal/textio"
)

// Order confidence: what learning to rank uses of the labels is their
// order within a query, so beside each label's confidence (the probability
// that its relevance lies in its band) lovbench gives, for two labelled
// terms of a query with different labels, the probability that their
// relevances are in the labels' order, and per query the expected
// agreement of the labels' order with the true order (docs/method.md
// section 4, docs/dataset.md "Order confidence").

// orderNodes is the number of Gauss-Legendre nodes of OrderConfidence.
const orderNodes = 48

// orderRule holds the Gauss-Legendre nodes and weights on [0, 1] that
// OrderConfidence integrates with, a memo of the quantiles of the
// posteriors it met, and a memo of the integrals it computed (by the
// pair of posteriors, the integration variable's first): on a sparse
// log many pairs share a posterior (the same evidence in the same prior
// cell; 740 distinct among the demo's 1,760 pairs), and many pairs of
// labels share their pair of posteriors (about half of the pairs of
// pipeline/calibration's sparse UBM runs). Both memos are a pure
// function's and change no output.
type orderRule struct {
	u, w  []float64
	memo  map[Posterior][]float64
	pairs map[[2]Posterior]float64
}

// maxOrderMemo bounds orderRule.memo and orderRule.pairs (each is
// emptied when full).
const maxOrderMemo = 1 << 14

func newOrderRule() *orderRule {
	r := &orderRule{u: make([]float64, orderNodes), w: make([]float64, orderNodes), memo: map[Posterior][]float64{}, pairs: map[[2]Posterior]float64{}}
	quad.Legendre{}.FixedLocations(r.u, r.w, 0, 1)
	return r
}

// OrderConfidence is P(X > Y) for independent X ~ Beta(x.Alpha, x.Beta)
// and Y ~ Beta(y.Alpha, y.Beta): the probability that a pair whose
// relevance has posterior x is more relevant than one with posterior y.
// NaN when either posterior is missing (the zero Posterior).
//
// It is computed by numerical integration in probability space: with Q_X
// the quantile function of X and F_Y the distribution function of Y,
// P(X > Y) = integral over u in [0, 1] of F_Y(Q_X(u)), by 48-node
// Gauss-Legendre quadrature (gonum's integrate/quad), the variable taken
// on the narrower of the two Betas (smaller variance) so that the other's
// distribution function is smooth over its nodes; when Y is the narrower,
// 1 - the same integral with X and Y swapped. The integrand is monotone
// and bounded, so the error is far below the third decimal
// (TestOrderConfidence checks closed forms: errors at most 4e-6).
func OrderConfidence(x, y Posterior) float64 {
	return newOrderRule().order(x, y)
}

// order is OrderConfidence with r's nodes and memos.
func (r *orderRule) order(x, y Posterior) float64 {
	if x == (Posterior{}) || y == (Posterior{}) {
		return math.NaN()
	}
	if betaVar(y) < betaVar(x) {
		return 1 - r.order(y, x)
	}
	key := [2]Posterior{x, y}
	if s, ok := r.pairs[key]; ok {
		return s
	}
	s := 0.0
	for i, q := range r.quantiles(x) {
		s += r.w[i] * betaCDF(y, q)
	}
	s = min(max(s, 0), 1)
	if len(r.pairs) >= maxOrderMemo {
		clear(r.pairs)
	}
	r.pairs[key] = s
	return s
}

// quantiles returns Q_p at the rule's nodes.
func (r *orderRule) quantiles(p Posterior) []float64 {
	if q, ok := r.memo[p]; ok {
		return q
	}
	q := make([]float64, len(r.u))
	for i, u := range r.u {
		q[i] = clickmodels.BetaQuantile(p.Alpha, p.Beta, u)
	}
	if len(r.memo) >= maxOrderMemo {
		clear(r.memo)
	}
	r.memo[p] = q
	return q
}

func betaVar(p Posterior) float64 {
	n := p.Alpha + p.Beta
	return p.Alpha * p.Beta / (n * n * (n + 1))
}

func betaCDF(p Posterior, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	return mathext.RegIncBeta(p.Alpha, p.Beta, x)
}

// PairOrder is the order confidence of two labelled terms of one query
// with different labels: High has the higher label, and Confidence is the
// probability that its relevance is above Low's (OrderConfidence).
type PairOrder struct {
	Query      string
	High, Low  string // terms
	HighLabel  int
	LowLabel   int
	Confidence float64
}

// QueryOrder is the expected agreement of one query's label order with
// the true order: the mean, over the pairs of its labelled terms with
// different labels, of the probability that the pair is in the labels'
// order (PairOrder.Confidence). Pairs counts those pairs; a query whose
// labels are all equal, or that has no posterior, has none and its
// Expected is NaN (written empty).
type QueryOrder struct {
	Query    string
	Labels   int // labels with a posterior
	Pairs    int
	Expected float64
}

// OrderAgreement computes, for the labels of one query (every label's
// Query the same), the order confidence of each pair of labels with
// different grades (in the labels' order: the i-th label against every
// later one) and the query's expected agreement. Labels without a
// posterior take no part.
func OrderAgreement(ls []Label) (QueryOrder, []PairOrder) {
	return newOrderRule().agreement(ls)
}

// agreement is OrderAgreement with r's nodes and memo.
func (r *orderRule) agreement(ls []Label) (QueryOrder, []PairOrder) {
	qa := QueryOrder{Expected: math.NaN()}
	if len(ls) == 0 {
		return qa, nil
	}
	qa.Query = ls[0].Query
	var with []Label
	for _, l := range ls {
		if l.Post != (Posterior{}) {
			with = append(with, l)
		}
	}
	qa.Labels = len(with)
	var pairs []PairOrder
	sum := 0.0
	for i, a := range with {
		for j := i + 1; j < len(with); j++ {
			b := with[j]
			if a.Grade == b.Grade {
				continue
			}
			hi, lo := a, b
			if b.Grade > a.Grade {
				hi, lo = b, a
			}
			c := r.order(hi.Post, lo.Post) // order takes the narrower posterior's quantiles
			pairs = append(pairs, PairOrder{Query: qa.Query, High: hi.Term, Low: lo.Term, HighLabel: hi.Grade, LowLabel: lo.Grade, Confidence: c})
			sum += c
		}
	}
	qa.Pairs = len(pairs)
	if qa.Pairs > 0 {
		qa.Expected = sum / float64(qa.Pairs)
	}
	return qa, pairs
}

// OrderAgreements is OrderAgreement of every query of ls (whose labels
// come query by query, as Assign returns them), in their order.
func OrderAgreements(ls []Label) ([]QueryOrder, []PairOrder) {
	r := newOrderRule()
	var qas []QueryOrder
	var all []PairOrder
	for i := 0; i < len(ls); {
		j := i + 1
		for j < len(ls) && ls[j].Query == ls[i].Query {
			j++
		}
		qa, ps := r.agreement(ls[i:j])
		qas, all = append(qas, qa), append(all, ps...)
		i = j
	}
	return qas, slices.Clip(all)
}

// QueryOrderHeader and PairOrderHeader are the headers of the order files
// `lovbench label` writes beside the labels (QueryOrderPath,
// PairOrderPath; docs/dataset.md, "Order confidence").
const (
	QueryOrderHeader = "query,labels,pairs,expected_agreement"
	PairOrderHeader  = "query,high_term,low_term,high_label,low_label,order_confidence"
)

// QueryOrderPath and PairOrderPath are the order files of the labels file
// out: out without its .csv, then .query_order.csv (one row per labelled
// query) and .pair_order.csv (one row per pair of labelled terms of a
// query with different labels).
func QueryOrderPath(out string) string { return strings.TrimSuffix(out, ".csv") + ".query_order.csv" }

// PairOrderPath: see QueryOrderPath.
func PairOrderPath(out string) string { return strings.TrimSuffix(out, ".csv") + ".pair_order.csv" }

// OrderSummary sums up the order files in the label report.
type OrderSummary struct {
	// QueryFile and PairFile name the files (beside the labels).
	QueryFile string `json:"query_order_file"`
	PairFile  string `json:"pair_order_file"`
	// Queries counts the labelled queries, WithPairs those with a pair of
	// different labels (the others have no expected agreement).
	Queries   int `json:"queries"`
	WithPairs int `json:"queries_with_pairs"`
	Pairs     int `json:"pairs"`
	// MeanAgreement is the mean expected agreement of the queries with
	// pairs, MeanPair the mean order confidence of all pairs (0 without
	// any).
	MeanAgreement float64 `json:"mean_expected_agreement"`
	MeanPair      float64 `json:"mean_pair_order_confidence"`
}

// orderWriter writes the order files from labels that come query by
// query (add), computing each query's OrderAgreement when it ends.
type orderWriter struct {
	rule   *orderRule
	qw, pw *csv.Writer
	cur    []Label
	sum    OrderSummary
	sumA   float64
	sumP   float64
}

func newOrderWriter(qf, pf io.Writer) (*orderWriter, error) {
	o := &orderWriter{rule: newOrderRule(), qw: csv.NewWriter(qf), pw: csv.NewWriter(pf)}
	if err := o.qw.Write(strings.Split(QueryOrderHeader, ",")); err != nil {
		return nil, err
	}
	return o, o.pw.Write(strings.Split(PairOrderHeader, ","))
}

// add takes the next label.
func (o *orderWriter) add(l Label) error {
	if len(o.cur) > 0 && o.cur[0].Query != l.Query {
		if err := o.endQuery(); err != nil {
			return err
		}
	}
	o.cur = append(o.cur, l)
	return nil
}

func (o *orderWriter) endQuery() error {
	if len(o.cur) == 0 {
		return nil
	}
	qa, ps := o.rule.agreement(o.cur)
	o.cur = o.cur[:0]
	o.sum.Queries++
	exp := ""
	if qa.Pairs > 0 {
		o.sum.WithPairs++
		o.sumA += qa.Expected
		exp = strconv.FormatFloat(qa.Expected, 'g', -1, 64)
	}
	if err := o.qw.Write([]string{qa.Query, strconv.Itoa(qa.Labels), strconv.Itoa(qa.Pairs), exp}); err != nil {
		return err
	}
	for _, p := range ps {
		o.sum.Pairs++
		o.sumP += p.Confidence
		if err := o.pw.Write([]string{p.Query, p.High, p.Low, strconv.Itoa(p.HighLabel), strconv.Itoa(p.LowLabel), strconv.FormatFloat(p.Confidence, 'g', -1, 64)}); err != nil {
			return err
		}
	}
	return nil
}

// finish ends the last query, flushes and returns the summary.
func (o *orderWriter) finish() (OrderSummary, error) {
	if err := o.endQuery(); err != nil {
		return o.sum, err
	}
	if o.sum.WithPairs > 0 {
		o.sum.MeanAgreement = o.sumA / float64(o.sum.WithPairs)
	}
	if o.sum.Pairs > 0 {
		o.sum.MeanPair = o.sumP / float64(o.sum.Pairs)
	}
	o.qw.Flush()
	o.pw.Flush()
	if err := o.qw.Error(); err != nil {
		return o.sum, err
	}
	return o.sum, o.pw.Error()
}

// ReadQueryOrderFile is ReadQueryOrder of the file at path (gzip or
// plain text, textio.Open).
func ReadQueryOrderFile(path string) (map[string]float64, error) {
	f, err := textio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadQueryOrder(f, path)
}

// ReadQueryOrder reads a per-query order file (QueryOrderHeader) into a
// map from query to its expected agreement (NaN for a query without
// pairs). A BOM and CR line ends are accepted; a bad row is an error
// naming the file, line and field.
func ReadQueryOrder(r io.Reader, name string) (map[string]float64, error) {
	cr := csv.NewReader(textio.NewLineReader(r))
	cr.FieldsPerRecord = 4
	head, err := cr.Read()
	if err != nil || strings.TrimPrefix(strings.Join(head, ","), "\ufeff") != QueryOrderHeader {
		return nil, fmt.Errorf("%s:1: header %s, want %s", name, textio.Quote(strings.Join(head, ",")), textio.Quote(QueryOrderHeader))
	}
	out := map[string]float64{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if _, dup := out[rec[0]]; dup {
			return nil, fmt.Errorf("%s:%d: field query: %s repeats", name, line, textio.Quote(rec[0]))
		}
		a := math.NaN()
		if rec[3] != "" {
			a, err = strconv.ParseFloat(rec[3], 64)
			if err != nil || !(a >= 0 && a <= 1) {
				return nil, fmt.Errorf("%s:%d: field expected_agreement: %s is not empty or a probability", name, line, textio.Quote(rec[3]))
			}
		}
		out[rec[0]] = a
	}
}
