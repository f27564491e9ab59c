package clickmodels

// The empirical-Bayes prior of the exact estimator's point estimates
// (Options.EmpiricalPrior).
//
// PyClick's M-step adds the pseudo-counts 1 / 2 to every pair parameter:
// a Beta(1, 1) prior, whose mean 0.5 a pair keeps where the log says
// little about it. Under the exact E-step a result below a SERP's last
// click was examined with a low posterior probability and so adds little
// evidence either way; on sparse real logs (a judged pair shown a median
// of one to three times) such results keep attractiveness near 0.5, above
// the clicked results', and the fit reverses the engine's order
// (docs/method.md, "Exact against PyClick's estimator on real logs").
//
// The empirical prior keeps the total weight 2 but centres the
// attractiveness's on a mean estimated from the log itself, per rank: the
// attractiveness of DBN, SDBN, DCM and CCM has at rank r the prior mean
//
//	m_r = (1 + sum of the E-step's attractiveness numerators at rank r) /
//	      (2 + sum of their denominators at rank r)
//
// over every SERP of the log (weighted by SERP), the pooled estimate of
// the attractiveness of a result shown at r whatever it is, itself
// smoothed by Beta(1, 1); a pair's prior mean mu is the mean of m_r over
// its impressions (weighted by SERP), and its M-step is
// (numerator + 2 mu) / (denominator + 2).
//
// Satisfaction (DBN, SDBN) keeps PyClick's 1 / 2: it is observed only at
// clicks, so a per-rank pooled mean of it describes the clicked, mostly
// attractive results, and it would be applied most where a pair has no
// click. Measured on 100,000 SERPs of the second simulator's DBN over
// 20,000 queries, a per-rank satisfaction prior raised the fitted
// relevance to 1.13-1.30 times the truth by fifth of pairs (the flat
// prior: 1.10-1.25; attractiveness alone: 1.04-1.19).
// This is parametric empirical Bayes shrinkage (Efron and Morris 1973,
// "Stein's estimation rule and its competitors: an empirical Bayes
// approach", JASA 68; 1975, "Data analysis using Stein's estimator and
// its generalizations", JASA 70): each pair is shrunk toward the mean of
// the pairs like it, here those shown at the same ranks, estimated from
// the data, instead of toward a fixed 0.5. The means are EM parameters
// of the hierarchical model like the globals: m_k,r are computed from the
// same pass's exact sums as the global parameters (they ride in Stats
// after the model's globals, MStepGlobals computes them, SQUAREM
// extrapolates them with the rest) and the next iteration's pair M-step
// reads them, so every engine that carries the globals carries them
// alike. The weight stays 2, so the prior's pull on a pair falls as 2 /
// (2 + its evidence) and the estimator stays consistent as a pair's
// evidence grows (TestConsistency's argument is unchanged); a rank without
// data keeps 0.5, PyClick's prior. (Ranks, not rank buckets: every rank
// of a log with a few hundred SERPs has hundreds of impressions, and a
// rank with few keeps m_r near 0.5 by its own Beta(1, 1).) EstimatorPyClick never uses it: its
// pseudo-counts stay PyClick's 1 / 2.

// priorSlots is the number of empirical prior means that follow the
// model's global parameters in the globals of a fit with options opt: one
// per rank (the attractiveness's) when opt.EmpiricalPrior applies (the
// exact E-step of DBN, SDBN, DCM, CCM), else 0.
func (k Kind) priorSlots(R int, opt Options) int {
	if opt.EmpiricalPrior && opt.Exact && k.ExactEStep() {
		return R
	}
	return 0
}

// GlobalSlots is the length of the global values a fit of kind with R
// ranks and options opt carries from one EM iteration to the next: the
// model's global parameters (Kind.GlobalParams, the layout of
// Model.Global), then, under Options.EmpiricalPrior, the attractiveness's
// prior means at ranks 0..R-1. Engines that hold the globals themselves (the Beam
// pipeline, out of core) size them so, and NewStatsFor their statistics.
func GlobalSlots(kind Kind, R int, opt Options) int {
	return kind.GlobalParams(R) + kind.priorSlots(R, opt)
}

// InitialGlobals are the global values of a fit before its first
// iteration: every one Unseen (the prior means too: the first iteration's
// prior is PyClick's).
func InitialGlobals(kind Kind, R int, opt Options) []float64 {
	return filled(GlobalSlots(kind, R, opt), Unseen)
}

// NewStatsFor returns empty statistics for a fit of kind with R ranks and
// options opt (GlobalSlots values).
func NewStatsFor(kind Kind, R int, opt Options) *Stats {
	n := GlobalSlots(kind, R, opt)
	return &Stats{Num: make([]ExactSum, n), Den: make([]ExactSum, n)}
}

// priorCounts adds the attractiveness counts c of one SERP of weight w,
// showing pairs, to the prior means' exact sums (slots ngModel + rank)
// and the current prior means of the ranks to the pairs' prior sums pA
// (their impression weights to nImp while dens).
func (f *fitter) priorCounts(c *counts, sc *scratch, pairs []int32, w float64, dens bool) {
	ng := f.ngModel
	xNum, xDen := sc.xNum[ng:], sc.xDen[ng:]
	m := f.global[ng:]
	for r, p := range pairs {
		xNum[r].Add(w * c.aNum[r])
		xDen[r].Add(w * c.aDen[r])
		f.pA[p] += w * m[r]
	}
	if dens {
		for _, p := range pairs {
			f.nImp[p] += w
		}
	}
}

// priorNum is the prior's numerator of a pair whose prior sum is s over
// impressions of weight n: 2 times the mean prior mean of its ranks
// (PyClick's 1 for a pair without weight).
func priorNum(s, n float64) float64 {
	if !(n > 0) {
		return 1
	}
	return 2 * s / n
}
