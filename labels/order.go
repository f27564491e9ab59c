package labels

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mathext"
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
// OrderConfidence integrates with.
type orderRule struct{ u, w []float64 }

func newOrderRule() *orderRule {
	r := &orderRule{u: make([]float64, orderNodes), w: make([]float64, orderNodes)}
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
// (TestOrderConfidence checks closed forms).
func OrderConfidence(x, y Posterior) float64 {
	return newOrderRule().order(x, y, nil, nil)
}

// order is OrderConfidence with the quantiles of x and y at the rule's
// nodes, qx and qy, when known (nil: computed).
func (r *orderRule) order(x, y Posterior, qx, qy []float64) float64 {
	if x == (Posterior{}) || y == (Posterior{}) {
		return math.NaN()
	}
	if betaVar(y) < betaVar(x) {
		return 1 - r.order(y, x, qy, qx)
	}
	if qx == nil {
		qx = r.quantiles(x)
	}
	s := 0.0
	for i, q := range qx {
		s += r.w[i] * betaCDF(y, q)
	}
	return min(max(s, 0), 1)
}

// quantiles returns Q_p at the rule's nodes.
func (r *orderRule) quantiles(p Posterior) []float64 {
	q := make([]float64, len(r.u))
	for i, u := range r.u {
		q[i] = mathext.InvRegIncBeta(p.Alpha, p.Beta, u)
	}
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
	r := newOrderRule()
	qs := make([][]float64, len(with))
	quant := func(i int) []float64 {
		if qs[i] == nil {
			qs[i] = r.quantiles(with[i].Post)
		}
		return qs[i]
	}
	var pairs []PairOrder
	sum := 0.0
	for i, a := range with {
		for j := i + 1; j < len(with); j++ {
			b := with[j]
			if a.Grade == b.Grade {
				continue
			}
			hi, lo, ih, il := a, b, i, j
			if b.Grade > a.Grade {
				hi, lo, ih, il = b, a, j, i
			}
			var c float64
			if betaVar(lo.Post) < betaVar(hi.Post) {
				c = 1 - r.order(lo.Post, hi.Post, quant(il), nil)
			} else {
				c = r.order(hi.Post, lo.Post, quant(ih), nil)
			}
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
	var qas []QueryOrder
	var all []PairOrder
	for i := 0; i < len(ls); {
		j := i + 1
		for j < len(ls) && ls[j].Query == ls[i].Query {
			j++
		}
		qa, ps := OrderAgreement(ls[i:j])
		qas, all = append(qas, qa), append(all, ps...)
		i = j
	}
	return qas, slices.Clip(all)
}
