package clickmodels

// PriorRelevance returns the Beta(alpha, beta) that describes the relevance
// of a pair the log holds no evidence about, shown at mean rank meanRank
// (0-based), under the priors u reports for a model of kind: relevanceBeta
// with no effective successes or trials and the priors of meanRank's rank
// bucket, fitted to all its pairs whatever their exposure (a pair without
// evidence gets the prior of its rank bucket and exposure class, which
// differs by what the exposure tells; docs/clickmodels.md, "Uncertainty
// of the relevance"). A label whose confidence is
// no higher than this Beta's probability of the label's band is one the log
// cannot tell from the prior (the report's "How sure are the labels").
// Without priors (u from a fit without pairs) it is PyClick's Beta(1, 1),
// the prior a fit without pairs falls back to.
func PriorRelevance(kind Kind, u UncertaintyReport, meanRank float64) (alpha, beta float64) {
	if len(u.AttrPriors) == 0 {
		return 1, 1
	}
	b := min(rankBucket(meanRank), len(u.AttrPriors)-1)
	var ps BetaPrior
	if len(u.SatPriors) > 0 {
		ps = u.SatPriors[min(b, len(u.SatPriors)-1)]
	}
	return relevanceBeta(kind, u.AttrPriors[b], ps, &pairVal{})
}
