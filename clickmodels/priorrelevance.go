package clickmodels

// PriorRelevance returns the Beta(alpha, beta) that describes the relevance
// of a pair the log holds no evidence about, under the priors u reports for
// a model of kind: relevanceBeta with no effective successes or trials
// (docs/clickmodels.md, "Uncertainty"). A label whose confidence is no
// higher than this Beta's probability of the label's band is one the log
// cannot tell from the prior (the report's "How sure are the labels").
func PriorRelevance(kind Kind, u UncertaintyReport) (alpha, beta float64) {
	var ps BetaPrior
	if u.SatPrior != nil {
		ps = *u.SatPrior
	}
	return relevanceBeta(kind, u.AttrPrior, ps, &pairVal{})
}
