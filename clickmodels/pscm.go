package clickmodels

import "math/bits"

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

// pscmStep is the step from the click m to the click next (R: the start,
// resp. the end) of a SERP of n results, as mode takes it (see above): it
// examines the ranks lo, lo+dir, ..., hi (dir 1 down the page, -1 up it;
// lo = hi+1: none) under gamma_i,m,next, and rank i is clicked in it iff
// i = next.
func pscmStep(m, next, n, R int, mode pscmMode) (lo, hi, dir int) {
	switch {
	case m == R && next == R:
		return 0, n - 1, 1
	case m == R:
		return 0, next, 1
	case next == R:
		return m + 1, n - 1, 1
	case m < next:
		return m + 1, next, 1
	case mode == pscmAuthorsFit:
		return next + 1, m, 1
	}
	return m - 1, next, -1
}

// pscmSteps calls fn for every observation of a SERP of n results clicked
// in order (distinct ranks below n): the rank i, the index e of its gamma
// and whether it was clicked, step by step in time order (pscmSpans), the
// ranks of a step in ascending order. Every caller's sums are per rank or
// order-free, and a step crosses each rank once, so the order within a
// step changes none of them.
func pscmSteps(order []uint8, n, R int, mode pscmMode, fn func(i, e int, clicked bool)) {
	var buf [MaxSERP + 1]pscmSpan
	stride := (R + 1) * (R + 1) // pscmIndex's step in i
	for _, sp := range pscmSpans(order, n, R, mode, buf[:0]) {
		next := int(sp.base) % (R + 1) // the step's click (R: none)
		lo := int(sp.lo)
		for i := lo; i < lo+int(sp.cnt); i++ {
			fn(i, int(sp.base)+i*stride, i == next)
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

// pscmSpan is the ranks of one step in ascending order, lo to lo+cnt-1,
// and its gamma: gamma_i,m,next has the index base + i (R+1)^2, base =
// pscmIndex(R, 0, m, next) (below (R+1)^2 <= 65^2).
type pscmSpan struct {
	base    uint16
	lo, cnt uint8
}

// pscmSpans appends the steps of a SERP of n results clicked in order, as
// mode takes them (pscmStep), to dst as spans, in time order (len(order)+1
// of them): the one walk along a click sequence.
func pscmSpans(order []uint8, n, R int, mode pscmMode, dst []pscmSpan) []pscmSpan {
	m := R
	for t := 0; t <= len(order); t++ {
		next := R
		if t < len(order) {
			next = int(order[t])
		}
		lo, hi, dir := pscmStep(m, next, n, R, mode)
		if dir < 0 {
			lo, hi = hi, lo
		}
		dst = append(dst, pscmSpan{base: uint16(pscmIndex(R, 0, m, next)), lo: uint8(lo), cnt: uint8(hi + 1 - lo)})
		if mode != pscmAuthorsPredict {
			m = next
		}
	}
	return dst
}

// pscmProbs fills full[r] = P(C_r = 1 | the click sequence's steps) and
// cond[r] the probability of the outcome observed at r (see above). It is
// the inner loop of evaluation and of the per-SERP training
// log-likelihood (the factorised fit takes pscmll.go's items), so it
// takes the steps a span at a time (pscmSpans), without
// pscmSteps' call per observation, and clicks in rank order without the
// steps: there every rank is crossed by exactly one step, between the
// last click above it and the first at or below it, and its product is
// that step's one factor (the same bits: 1 times x is x).
func pscmProbs(v *view, cond, full []float64) {
	n, R := v.n, v.R
	a, g := v.a[:n], v.g
	// noClick[r]: the product over the steps crossing r of (1 - a g), in
	// cond's (or else full's) storage.
	noClick := cond
	if noClick == nil {
		noClick = full
	}
	if noClick == nil {
		return
	}
	noClick = noClick[:n]
	if v.order == nil && !v.pscmAuthors {
		m, rest := R, v.clicks // the last click above i (R: none); the clicks from i on
		for i := range n {
			next := R
			if rest != 0 {
				next = bits.TrailingZeros64(rest)
			}
			noClick[i] = 1 - a[i]*g[pscmIndex(R, i, m, next)]
			if i == next {
				m, rest = i, rest&(rest-1)
			}
		}
	} else {
		var buf [MaxSERP + 1]pscmSpan
		spans := pscmSpans(v.clickOrder(), n, R, v.pscmMode(true), buf[:0])
		for r := range n {
			noClick[r] = 1
		}
		stride := (R + 1) * (R + 1) // pscmIndex's step in i
		for _, sp := range spans {
			lo := int(sp.lo)
			e := int(sp.base) + lo*stride
			for i := lo; i < lo+int(sp.cnt); i++ {
				noClick[i] *= 1 - a[i]*g[e]
				e += stride
			}
		}
	}
	// P(C_r = 1) = 1 - noClick[r]; the outcome's probability is that at a
	// click, noClick[r] elsewhere.
	if full != nil {
		for r := range n {
			full[r] = 1 - noClick[r]
		}
	}
	if cond != nil {
		for rest := v.clicks; rest != 0; rest &= rest - 1 {
			r := bits.TrailingZeros64(rest)
			cond[r] = 1 - cond[r]
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
