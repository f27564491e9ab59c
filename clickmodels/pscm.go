package clickmodels

// The partially sequential click model, PSCM (Wang, Liu, Wang, Zhou, Nie
// and Ma, "Incorporating Non-sequential Behavior into Click Models",
// SIGIR 2015, section 4). It reads a SERP's clicks in time order,
// c_1, ..., c_T (distinct ranks, sessions.ClickOrder), with c_0 = start
// and c_T+1 = end, and rests on two hypotheses:
//
//   - first-order click hypothesis: the clicks of the t-th step depend on
//     the previous click c_t-1 only;
//   - locally unidirectional examination: between two
//     adjacent clicks m = c_t-1 and n = c_t the user examines the results
//     in one direction, from m towards n, and may skip some.
//
// Step t (m -> n) examines the ranks
//
//	m = start:      0, 1, ..., n            (n = end: every rank)
//	n = end:        m+1, ..., len-1         (on down the page after the last click)
//	m < n:          m+1, ..., n             (down)
//	m > n:          m-1, ..., n             (up: a return)
//
// and in it rank i is clicked iff i = n. With the examination and
// attractiveness hypotheses of their section 4
//
//	P(E_t,i = 1 | c_t-1 = m, c_t = n) = gamma_imn
//	P(A_i = 1) = alpha_qd (the document d shown at rank i for query q)
//	C_t,i = 1  <=>  E_t,i = 1 and A_i = 1
//
// every (step, rank) is one observation with P(C = 1) = alpha gamma,
// independent of the others given the click sequence, so the likelihood of
// a SERP is the product over its observations and EM (their parameter
// estimation, section 4) treats each as UBM treats a rank: a click gives
// E = A = 1; no click gives the posteriors (Bayes' rule on
// P(E, A | C = 0) = P(E) P(A) [not both 1] / (1 - alpha gamma))
//
//	P(A = 1 | C = 0) = alpha (1 - gamma) / (1 - alpha gamma)
//	P(E = 1 | C = 0) = gamma (1 - alpha) / (1 - alpha gamma)
//
// and the M-step divides the expected counts by the observations, with the
// family's prior counts 1 and 2. A rank crossed by several steps (a return
// up the page crosses ranks seen on the way down) is observed several
// times: its pair's attractiveness counts each.
//
// Prediction (their experiments' perplexity and their published code): the
// probability that rank i is clicked given the SERP's click sequence is
// 1 - prod over the steps that cross i of (1 - alpha_i gamma_imn). It
// conditions on the order and ranks of the SERP's clicks, which decide
// which gamma applies: PSCM's perplexity is that of a model told the click
// sequence's steps, not a prediction from the clicks above alone as the
// other models' (docs/clickmodels.md, "PSCM").
//
// The authors' code (THUIR/PSCMModel) differs in three places, listed in
// docs/clickmodels.md: in training, on a return (m > n) it takes ranks
// n+1, ..., m (the previous click m is observed again, unclicked, and the
// new click n is not observed), and it never re-estimates gamma_im,end
// (kept at 1/2); in prediction, every step starts from the start (m is
// never moved on), so step t crosses ranks 0 to c_t under gamma_i,start,c_t
// and the order of the clicks plays no part. Options.PSCMAuthors follows
// it (pscmSteps' modes pscmAuthorsFit and pscmAuthorsPredict; no expected
// counts for gamma_im,end, so that the M-step leaves it at its prior
// value 1/2).

// pscmIndex is the index of gamma_imn in Model.Global for R ranks; m = R
// is the start, n = R the end.
func pscmIndex(R, i, m, n int) int { return (i*(R+1)+m)*(R+1) + n }

// pscmMode selects the steps pscmSteps takes: the model's (pscmModel) or
// the authors' code's, which differ between fitting and prediction.
type pscmMode int

const (
	pscmModel pscmMode = iota
	pscmAuthorsFit
	pscmAuthorsPredict
)

// pscmMode is the mode of v's PSCM steps when fitting (predict false) or
// predicting.
func (v *view) pscmMode(predict bool) pscmMode {
	switch {
	case !v.pscmAuthors:
		return pscmModel
	case predict:
		return pscmAuthorsPredict
	}
	return pscmAuthorsFit
}

// pscmSteps calls fn for every observation of a SERP of n results clicked
// in order (distinct ranks below n): the rank i, the index e of its gamma
// and whether it was clicked, step by step in time order; mode selects
// the model's steps or the authors' code's (see above).
func pscmSteps(order []uint8, n, R int, mode pscmMode, fn func(i, e int, clicked bool)) {
	authors := mode == pscmAuthorsFit
	m := R
	for t := 0; t <= len(order); t++ {
		next := R
		if t < len(order) {
			next = int(order[t])
		}
		switch {
		case m == R:
			last := next
			if next == R {
				last = n - 1
			}
			for i := 0; i <= last; i++ {
				fn(i, pscmIndex(R, i, m, next), i == next)
			}
		case next == R:
			for i := m + 1; i < n; i++ {
				fn(i, pscmIndex(R, i, m, next), false)
			}
		case m < next:
			for i := m + 1; i <= next; i++ {
				fn(i, pscmIndex(R, i, m, next), i == next)
			}
		case authors:
			for i := next + 1; i <= m; i++ {
				fn(i, pscmIndex(R, i, m, next), false)
			}
		default:
			for i := m - 1; i >= next; i-- {
				fn(i, pscmIndex(R, i, m, next), i == next)
			}
		}
		if mode != pscmAuthorsPredict {
			m = next
		}
	}
}

// estepPSCM adds the expected counts of SERP v (clicked in the order
// v.clickOrder()) with weight w to c (see above).
func estepPSCM(v *view, w float64, c *counts) {
	for r := 0; r < v.n; r++ {
		c.aNum[r], c.aDen[r] = 0, 0
	}
	end := v.R // the next-click index of the step after the last click
	pscmSteps(v.clickOrder(), v.n, v.R, v.pscmMode(false), func(i, e int, clicked bool) {
		counted := !v.pscmAuthors || e%(v.R+1) != end
		c.aDen[i]++
		if counted {
			c.gDen[e].Add(w)
		}
		if clicked {
			c.aNum[i]++
			if counted {
				c.gNum[e].Add(w)
			}
			return
		}
		a, g := v.a[i], v.g[e]
		inv := 1 / (1 - a*g)
		c.aNum[i] += a * (1 - g) * inv
		if counted {
			c.gNum[e].Add(w * g * (1 - a) * inv)
		}
	})
}

// pscmProbs fills full[r] = P(C_r = 1 | the click sequence's steps) and
// cond[r] the probability of the outcome observed at r (see above).
func pscmProbs(v *view, cond, full []float64) {
	var noClick [MaxSERP]float64
	for r := 0; r < v.n; r++ {
		noClick[r] = 1
	}
	pscmSteps(v.clickOrder(), v.n, v.R, v.pscmMode(true), func(i, e int, _ bool) {
		noClick[i] *= 1 - v.a[i]*v.g[e]
	})
	for r := 0; r < v.n; r++ {
		p := 1 - noClick[r]
		if full != nil {
			full[r] = p
		}
		if cond != nil {
			if v.clicked(r) {
				cond[r] = p
			} else {
				cond[r] = noClick[r]
			}
		}
	}
}

// pscmEvidence adds the evidence of SERP v (weight w, showing pairs) to
// ev: every observation of a rank is one Bernoulli latent of its pair's
// attractiveness (see addEvidence), with posterior 1 after a click and
// P(A = 1 | C = 0) otherwise.
func pscmEvidence(v *view, w float64, pairs []int32, ev *Evidence) {
	for r, p := range pairs {
		ev.Rank[p] += w * float64(r)
		ev.Shown[p] += w
	}
	pscmSteps(v.clickOrder(), v.n, v.R, v.pscmMode(false), func(i, e int, clicked bool) {
		p, a := pairs[i], v.a[i]
		q := 1.0
		if !clicked {
			g := v.g[e]
			q = a * (1 - g) / (1 - a*g)
		}
		addEvidence(&ev.AttrK[p], &ev.AttrN[p], q, a, w)
		addInfo(&ev.AttrInfo[p], q, a, w)
	})
}
