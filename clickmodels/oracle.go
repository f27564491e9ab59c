package clickmodels

import "fmt"

// OracleRelevanceDists is RelevanceDists with the fitted priors replaced
// by an oracle prior: per prior cell (the (rank bucket, exposure class)
// cells of the fitted priors, priorCell), the Beta with the mean and
// variance of the true values of the cell's pairs; a cell with fewer than
// two pairs or no spread takes its rank bucket's oracle prior, a rank
// bucket likewise the oracle prior of all pairs, as the fitted priors
// fall back. Unlike the fitted cell priors, a cell's concentration is not
// capped at its rank bucket's: the oracle knows the spread. trueAttr and
// trueSat hold, per pair of m in pair order, the true attractiveness and
// (DBN, SDBN) satisfaction of the model that simulated the log; trueSat
// is nil for other kinds. DBN's and SDBN's second prior is, like the
// fitted one, on the relevance a·s: its oracle is that of the true
// trueAttr·trueSat. The evidence and the posterior are those of
// RelevanceDists. It measures what a perfect prior of the fitted family
// could do (docs/clickmodels.md, "Calibration against known truth"); a
// user's log has no truth to give.
func (m *Model) OracleRelevanceDists(trueAttr, trueSat []float64) ([]RelevanceDist, error) {
	if m.Evidence == nil {
		return nil, fmt.Errorf("click models: the %v model has no evidence for intervals", m.Kind)
	}
	pw := m.pairWriter()
	if len(trueAttr) != m.NumPairs() || pw.hasSat != (trueSat != nil) || (pw.hasSat && len(trueSat) != m.NumPairs()) {
		return nil, fmt.Errorf("click models: oracle prior of %v: %d true attractivenesses and %d satisfactions for %d pairs", m.Kind, len(trueAttr), len(trueSat), m.NumPairs())
	}
	a := oraclePriors(pw, trueAttr)
	var s *priorTable
	if pw.hasSat {
		// DBN's and SDBN's second prior is that of the relevance a·s
		// (relevanceBeta), so its oracle is the Beta of the true a·s.
		rel := make([]float64, len(trueSat))
		for p := range rel {
			rel[p] = trueAttr[p] * trueSat[p]
		}
		s = oraclePriors(pw, rel)
	}
	pw.usePriors(a, s)
	return pw.relevanceDists(m.NumPairs()), nil
}

// oraclePriors is the table of oracle priors of the true values truth
// (per pair of pw, in pair order) over pw's prior cells.
func oraclePriors(pw *pairWriter, truth []float64) *priorTable {
	by := make([][exposureClasses]momentSums, rankBuckets)
	p := 0
	pw.pairs(func(_, _ string, v *pairVal) bool {
		b, e := priorCell(v)
		by[b][e].add(truth[p])
		p++
		return true
	})
	byRank, all := sumCells(by)
	pooled := all.prior(BetaPrior{Alpha: 1, Beta: 1})
	t := &priorTable{byRank: make([]BetaPrior, rankBuckets), byCell: make([][]BetaPrior, rankBuckets)}
	for b := range by {
		t.byRank[b] = byRank[b].prior(pooled)
		t.byCell[b] = make([]BetaPrior, exposureClasses)
		for e := range by[b] {
			t.byCell[b][e] = by[b][e].prior(t.byRank[b])
		}
	}
	return t
}

// momentSums collects the first two moments of values in (0, 1).
type momentSums struct{ n, s, s2 float64 }

func (m *momentSums) add(x float64) { m.n++; m.s += x; m.s2 += x * x }

func (m *momentSums) merge(o *momentSums) { m.n += o.n; m.s += o.s; m.s2 += o.s2 }

// prior is the Beta with m's mean and variance (betaFromMoments), or
// fallback when m has fewer than two values or none spread (a variance
// of at most 1e-12, rounding); Pairs is m's
// count either way.
func (m *momentSums) prior(fallback BetaPrior) BetaPrior {
	bp := fallback
	if mean := m.s / m.n; m.n >= 2 && m.s2/m.n-mean*mean > 1e-12 {
		bp.Alpha, bp.Beta = betaFromMoments(mean, m.s2/m.n)
	}
	bp.Pairs = int64(m.n)
	return bp
}
