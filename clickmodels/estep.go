package clickmodels

import (
	"math/bits"

	"github.com/lovbench/lovbench/sessions"
)

// view is one SERP with the current values of its parameters gathered by
// rank: a[r] is the attractiveness (or CTR) of the pair shown at rank r, s[r]
// its satisfaction (DBN, SDBN); g holds the model's global parameters.
type view struct {
	n      int
	clicks uint64
	a, s   []float64
	g      []float64
	R      int
	exact  bool // DBN, SDBN, DCM, CCM: exact posteriors instead of PyClick's E-step (Kind.ExactEStep)
	// order is the click order (PSCM), nil for rank order; obuf backs
	// clickOrder's rank order.
	order []uint8
	obuf  [MaxSERP]uint8
	// pscmAuthors: PSCM's steps as the authors' code takes them.
	pscmAuthors bool
}

func (v *view) clicked(r int) bool { return v.clicks&(1<<uint(r)) != 0 }

// clickOrder is the SERP's clicked ranks in click order.
func (v *view) clickOrder() []uint8 {
	if v.order != nil {
		return v.order
	}
	return sessions.RankOrder(v.obuf[:0], v.clicks)
}

// lastClick returns the rank of the last click, or n when there is none
// (PyClick: SearchSession.get_last_click_rank).
func lastClick(clicks uint64, n int) int {
	if clicks == 0 {
		return n
	}
	return 63 - bits.LeadingZeros64(clicks)
}

// firstClick returns the rank of the first click, or n when there is none.
func firstClick(clicks uint64, n int) int {
	if clicks == 0 {
		return n
	}
	return bits.TrailingZeros64(clicks)
}

// counts receives the expected counts of one SERP: per rank (unweighted,
// the caller scatters them to the pairs with the SERP's weight) and for the
// global parameters (already weighted, added to the order-free sums: a
// SERP's counts of one parameter are summed in float64 within the SERP,
// which is the same in every layout, and then added exactly).
type counts struct {
	aNum, aDen, sNum, sDen []float64 // len n
	gNum, gDen             []ExactSum
	tmp                    [6][MaxSERP + 1]float64 // work space of the DBN and CCM E-steps
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// exactESteps are the exact E-steps that Options.Exact puts in place of
// PyClick's, by model (Kind.ExactEStep).
var exactESteps = [numKinds]func(v *view, w float64, c *counts){
	DBN: estepDBNExact, SDBN: estepSDBNExact, DCM: estepDCMExact, CCM: estepCCMExact,
}

// estep adds the expected counts of SERP v with weight w to c. For the
// counting models these are the maximum-likelihood counts and do not depend
// on the current values. The formulas are PyClick's update rules (see the
// package documentation) written per model.
func estep(k Kind, v *view, w float64, c *counts) {
	n := v.n
	if x := exactESteps[k]; v.exact && x != nil {
		x(v, w, c)
		return
	}
	switch k {
	case GCTR:
		// CTRParamMLE: numerator += click, denominator += 1 for every rank.
		c.gNum[0].Add(w * float64(bits.OnesCount64(v.clicks)))
		c.gDen[0].Add(w * float64(n))
	case RCTR:
		for r := 0; r < n; r++ {
			c.gNum[r].Add(w * b2f(v.clicked(r)))
			c.gDen[r].Add(w)
		}
	case DCTR:
		for r := 0; r < n; r++ {
			c.aNum[r] = b2f(v.clicked(r))
			c.aDen[r] = 1
		}
	case CM:
		// Attractiveness counted only at ranks up to and including the first
		// click (Craswell et al. 2008; PyClick's CMAttrMLE).
		f := firstClick(v.clicks, n)
		for r := 0; r < n; r++ {
			if r <= f {
				c.aNum[r] = b2f(v.clicked(r))
				c.aDen[r] = 1
			} else {
				c.aNum[r], c.aDen[r] = 0, 0
			}
		}
	case SDBN, DCM:
		// Attractiveness: ranks up to the last click are examined
		// (Chapelle and Zhang 2009; Guo, Liu and Wang 2009; PyClick's
		// SDBNAttrMLE, DCMAttrMLE); satisfaction (SDBN) is the share
		// of clicks that are the last one; DCM's continuation lambda_r is
		// the share of clicks at rank r that are not the last.
		l := lastClick(v.clicks, n)
		for r := 0; r < n; r++ {
			ck := v.clicked(r)
			if r <= l {
				c.aNum[r] = b2f(ck)
				c.aDen[r] = 1
			} else {
				c.aNum[r], c.aDen[r] = 0, 0
			}
			if k == SDBN {
				c.sNum[r] = b2f(ck && r == l)
				c.sDen[r] = b2f(ck)
			} else if ck {
				c.gNum[r].Add(w * b2f(r != l))
				c.gDen[r].Add(w)
			}
		}
	case PBM, UBM:
		// P(A=1 | C=0) = (1-e)a / (1-ea) and P(E=1 | C=0) = (1-a)e / (1-ea)
		// (Chuklin et al. 2015, section 4.2 on EM; PyClick's PBMAttrEM,
		// PBMExamEM, UBMAttrEM, UBMExamEM).
		prev := v.R - 1
		for r := 0; r < n; r++ {
			ei := r
			if k == UBM {
				ei = r*v.R + prev
			}
			a, e := v.a[r], v.g[ei]
			if v.clicked(r) {
				c.aNum[r] = 1
				c.gNum[ei].Add(w)
				prev = r
			} else {
				inv := 1 / (1 - e*a)
				c.aNum[r] = (1 - e) * a * inv
				c.gNum[ei].Add(w * (1 - a) * e * inv)
			}
			c.aDen[r] = 1
			c.gDen[ei].Add(w)
		}
	case DBN:
		estepDBN(v, w, c)
	case CCM:
		estepCCM(v, w, c)
	case PSCM:
		estepPSCM(v, w, c)
	}
}

// The continuation updates of DBN and CCM (PyClick's DBNContEM and
// CCMCont*EM) weigh, at every rank r, the joint probabilities
// f(x, y, z) = P(E_r = x, S_r = y, E_r+1 = z, C) (PyClick's
// _get_continuation_factor). With x_r = P(E_r = 1 | C_<r), the tail
// Z(1) = P(C_>r | E_r+1 = 1) and Z(0) = I = [no click below r] (a SERP
// without clicks counts as having one: PyClick's last-click rank is n):
//
//	DBN, click:    f(1,0,z) = a (1-s) gamma^z (1-gamma)^(1-z) Z(z) x_r
//	               f(1,1,0) = a s I x_r;  f(0,.,.) = f(1,1,1) = 0
//	DBN, no click: f(1,0,z) = (1-a) gamma^z (1-gamma)^(1-z) Z(z) x_r
//	               f(0,0,0) = (1-a) I (1-x_r);  others 0
//	CCM, click:    f(1,0,z) = a (1-a) tau2^z (1-tau2)^(1-z) Z(z) x_r
//	               f(1,1,z) = a a tau3^z (1-tau3)^(1-z) Z(z) x_r
//	CCM, no click: f(1,0,z) = (1-a) tau1^z (1-tau1)^(1-z) Z(z) x_r
//	               f(0,0,0) = (1-a) I (1-x_r);  others 0
//
// Above the last click l (r < l), I = 0 and every non-zero factor has z = 1,
// so the tail cancels: DBN adds exactly 1 to the numerator and denominator,
// CCM adds 1 and 1 to tau1 after no click, and after a click splits 1
// between tau2 and tau3 in the ratio (1-a) tau2 : a tau3. From the last click
// on, the tail has no clicks, and PyClick evaluates it with the parameters
// of ranks 0, 1, ... (it indexes the session parameters by the offset from
// the start rank), so
//
//	Z(1) at rank r = prod_{k=0}^{n-r-2} (1 - a_k e_k) = 1 - sum_{k=0}^{n-r-2} a_k e_k
//
// where e_0 = 1, e_k+1 = e_k g_k is the examination probability along
// ranks without clicks (g_k = gamma (1-a_k), resp. tau1 (1-a_k)): one prefix
// sum, so the E-step is O(n) instead of PyClick's O(n^2) per SERP.

// noClickTail sets T[r] = Z(1) at rank r for r >= from (see above); P is
// work space of at least n-from entries (not zeroed: every entry read is
// written first).
func noClickTail(a, goOn []float64, n, from int, T, P []float64) {
	// P[k] = 1 - sum_{i<k} a_i e_i.
	P[0] = 1
	e := 1.0
	for k := 0; k < n-1-from; k++ {
		P[k+1] = P[k] - a[k]*e
		e *= goOn[k]
	}
	for r := from; r < n; r++ {
		T[r] = P[n-1-r]
	}
}

// estepDBN is PyClick's DBN E-step (DBNAttrEM, DBNSatEM, DBNContEM).
func estepDBN(v *view, w float64, c *counts) {
	n := v.n
	gamma := v.g[0]
	l := lastClick(v.clicks, n)
	a, sat := v.a[:n], v.s[:n]
	// Work space, not zeroed: every entry read is written first.
	exam, car, x, T, goOn := c.tmp[0][:n+1], c.tmp[1][:n+1], c.tmp[2][:n+1], c.tmp[3][:n], c.tmp[4][:n]
	// exam[r] = P(E_r = 1): exam[r+1] = exam[r] * gamma * ((1-s)a + (1-a));
	// x[r] = P(E_r = 1 | C_<r), needed from the last click on (PyClick's
	// _get_tail_clicks from rank 0: after a click x = gamma (1-s), after no
	// click x' = x gamma (1-a) / (1 - a x)). It is kept as the ratio xj / j
	// of the joint probabilities since the last click (see noClickTail),
	// which takes the division out of the loop-carried chain, and updated
	// without branching on the click (m = 1 for a click, 0 otherwise; the
	// products with 0 and 1 are exact).
	exam[0] = 1
	j, xj := 1.0, 1.0
	for r := 0; r < n; r++ {
		ar := a[r]
		goOn[r] = gamma * (1 - ar)
		exam[r+1] = exam[r] * (gamma * ((1-sat[r])*ar + (1 - ar)))
		if r >= l {
			x[r] = xj / j
		}
		m := float64((v.clicks >> uint(r)) & 1)
		j, xj = (1-m)*(j-ar*xj)+m, (1-m)*(xj*goOn[r])+m*(gamma*(1-sat[r]))
		if j < 1e-200 { // keep the ratio, avoid underflow on long SERPs
			j, xj = j*1e200, xj*1e200
		}
	}
	// car[r] = P(a click at r or below | E_r = 1) = a + (1-a) gamma car[r+1],
	// needed from the last click on.
	car[n] = 0
	for r := n - 1; r >= l && r >= 0; r-- {
		car[r] = a[r] + (1-a[r])*gamma*car[r+1]
	}
	contNum, contDen := 0.0, 0.0
	for r := 0; r < min(l, n); r++ {
		// Above the last click: clicked ranks are attracted, unclicked ones
		// were examined (so not attracted); continuation count 1.
		if v.clicks&(1<<uint(r)) != 0 {
			c.aNum[r] = 1
			c.sNum[r], c.sDen[r] = 0, 1
		} else {
			c.aNum[r] = 0
			c.sNum[r], c.sDen[r] = 0, 0
		}
		c.aDen[r] = 1
		contNum += w
		contDen += w
	}
	if l < n {
		noClickTail(a, goOn, n, l, T, c.tmp[5][:])
		for r := l; r < n; r++ {
			ar, sr, xr := a[r], sat[r], x[r]
			var f100, f101, rest float64
			if r == l {
				// The last click: attracted; satisfied with probability
				// s / (1 - (1-s) gamma car[r+1]).
				c.aNum[r] = 1
				c.sNum[r], c.sDen[r] = sr/(1-(1-sr)*gamma*car[r+1]), 1
				f101 = ar * (1 - sr) * gamma * T[r] * xr
				f100 = ar * (1 - sr) * (1 - gamma) * xr
				rest = ar * sr * xr
			} else {
				// After the last click: P(A=1 | C=0) = (1-exam) a / (1 - exam car).
				c.aNum[r] = (1 - exam[r]) * ar / (1 - exam[r]*car[r])
				c.sNum[r], c.sDen[r] = 0, 0
				f101 = (1 - ar) * gamma * T[r] * xr
				f100 = (1 - ar) * (1 - gamma) * xr
				rest = (1 - ar) * (1 - xr)
			}
			c.aDen[r] = 1
			inv := w / (f100 + f101 + rest)
			contNum += f101 * inv
			contDen += (f100 + f101) * inv
		}
	}
	c.gNum[0].addCount(contNum)
	c.gDen[0].addCount(contDen)
}

// estepCCM is PyClick's CCM E-step (CCMAttrEM, CCMContNoclickEM,
// CCMContClickNonrelEM, CCMContClickRelEM); Guo et al. 2009.
func estepCCM(v *view, w float64, c *counts) {
	n := v.n
	t1, t2, t3 := v.g[0], v.g[1], v.g[2]
	l := lastClick(v.clicks, n)
	a := v.a[:n]
	exam, car, x, T, goOn := c.tmp[0][:n+1], c.tmp[1][:n+1], c.tmp[2][:n+1], c.tmp[3][:n], c.tmp[4][:n]
	// exam and x as in estepDBN; after a click x = tau2 (1-a) + tau3 a.
	exam[0] = 1
	j, xj := 1.0, 1.0
	for r := 0; r < n; r++ {
		ar := a[r]
		goOn[r] = t1 * (1 - ar)
		exam[r+1] = exam[r] * ((1-ar)*t1 + ar*((1-ar)*t2+ar*t3))
		if r >= l {
			x[r] = xj / j
		}
		m := float64((v.clicks >> uint(r)) & 1)
		j, xj = (1-m)*(j-ar*xj)+m, (1-m)*(xj*goOn[r])+m*(t2*(1-ar)+t3*ar)
		if j < 1e-200 { // keep the ratio, avoid underflow on long SERPs
			j, xj = j*1e200, xj*1e200
		}
	}
	car[n] = 0
	for r := n - 1; r >= l && r >= 0; r-- {
		car[r] = a[r] + (1-a[r])*t1*car[r+1]
	}
	var g [6]float64 // numerators and denominators of tau1, tau2, tau3
	// Attractiveness at a click: the click, plus nothing for satisfaction
	// (not the last click).
	ccmAboveLast(v, min(l, n), w, c, &g, false)
	if l < n {
		noClickTail(a, goOn, n, l, T, c.tmp[5][:])
		for r := l; r < n; r++ {
			ar, xr := a[r], x[r]
			if r == l {
				// The last click: attracted, and relevant (satisfied)
				// with probability a / (1 - (tau2 (1-a) + tau3 a) car[r+1]).
				c.aNum[r] = 1 + ar/(1-(t2*(1-ar)+t3*ar)*car[r+1])
				c.aDen[r] = 2
				f100 := ar * (1 - ar) * (1 - t2) * xr
				f101 := ar * (1 - ar) * t2 * T[r] * xr
				f110 := ar * ar * (1 - t3) * xr
				f111 := ar * ar * t3 * T[r] * xr
				inv := w / (f100 + f101 + f110 + f111)
				g[2] += f101 * inv
				g[3] += (f100 + f101) * inv
				g[4] += f111 * inv
				g[5] += (f110 + f111) * inv
			} else {
				c.aNum[r] = (1 - exam[r]) * ar / (1 - exam[r]*car[r])
				c.aDen[r] = 1
				f100 := (1 - ar) * (1 - t1) * xr
				f101 := (1 - ar) * t1 * T[r] * xr
				f000 := (1 - ar) * (1 - xr)
				inv := w / (f100 + f101 + f000)
				g[0] += f101 * inv
				g[1] += (f100 + f101) * inv
			}
		}
	}
	for j := 0; j < 3; j++ {
		c.gNum[j].addCount(g[2*j])
		c.gDen[j].addCount(g[2*j+1])
	}
}

// estepDBNExact is the exact E-step of DBN (Chapelle and Zhang 2009;
// Chuklin et al. 2015, section 4.2) rather than PyClick's: posteriors are
// conditioned on all clicks of the SERP (estepCascadeExact).
func estepDBNExact(v *view, w float64, c *counts) {
	contNum, contDen := estepCascadeExact(v, v.s, v.g[0], w, c)
	c.gNum[0].addCount(contNum)
	c.gDen[0].addCount(contDen)
}

// estepSDBNExact is the exact E-step of SDBN: DBN's with the continuation
// held at 1 (Chapelle and Zhang 2009, section 5: the simplified model sets
// gamma = 1), so a user who is not satisfied examines the next rank. Unlike
// PyClick's counting pass (SDBNAttrMLE, SDBNSatMLE), which takes the
// last click as satisfying and the ranks below it as unexamined, the ranks
// below the last click were examined unless the user was satisfied there,
// and a SERP without a click was examined whole.
func estepSDBNExact(v *view, w float64, c *counts) {
	estepCascadeExact(v, v.s, 1, w, c)
}

// estepDCMExact is the exact E-step of DCM (Guo, Liu and Wang 2009):
// DCM is SDBN with the satisfaction of the pair at rank r replaced by
// 1 - lambda_r, the rank's probability of stopping after a click
// (the continuation after no click is 1). Its continuation lambda_r
// counts, per click at r, the posterior probability that the user went on:
// 1 above the last click, P(S=0 | C) = 1 - sNum at the last click, where
// PyClick's counting pass (DCMAttrMLE, DCMLambdaMLE, Guo et al.'s closed
// form) counts 0, and its attractiveness every rank, where PyClick's
// counts the ranks up to the last click only. A click at the SERP's last
// rank says nothing about going on and is not counted (its lambda keeps
// the prior where no list is longer).
func estepDCMExact(v *view, w float64, c *counts) {
	n := v.n
	stop := c.tmp[1][:n]
	for r := range stop {
		stop[r] = 1 - v.g[r]
	}
	estepCascadeExact(v, stop, 1, w, c)
	for r := 0; r < n-1; r++ { // after the last rank going on is unobserved
		if v.clicked(r) {
			c.gNum[r].Add(w * (1 - c.sNum[r]))
			c.gDen[r].Add(w)
		}
	}
}

// estepCascadeExact sets the per-rank counts of the exact E-step of the
// cascade models with attractiveness a (v.a), satisfaction s after a click
// and continuation gamma (DBN; 1 for SDBN and DCM), and returns the
// continuation's expected counts weighted by w (Chapelle and Zhang 2009;
// Chuklin et al. 2015, section 4.2): posteriors are conditioned on all
// clicks of the SERP. With l the last click (-1 if none),
// e = P(E_l+1 = 1 | C_<=l) (gamma (1-s_l), or 1 without clicks), car as in
// estepDBN and the prior examination along unclicked ranks
// eps_l+1 = e, eps_r+1 = eps_r (1-a_r) gamma:
//
//	r < l:  examined; attracted iff clicked; a click is not satisfied;
//	        the user went on: continuation counts 1 / 1
//	r = l:  attracted; with Z = 1 - (1-s) gamma car_l+1
//	        P(S=1 | C) = s / Z,
//	        continuation: P(S=0, E_l+1=1 | C) = (1-s) gamma (1-car_l+1) / Z
//	        out of P(S=0 | C) = (1-s) (1 - gamma car_l+1) / Z
//	r > l:  q_r = P(E_r = 1 | C) = eps_r (1 - car_r) / (1 - e car_l+1),
//	        P(A=1 | C) = a (1 - q_r), continuation q_r+1 out of q_r
//
// The transition after the last rank is unobserved and not counted.
func estepCascadeExact(v *view, sat []float64, gamma, w float64, c *counts) (contNum, contDen float64) {
	n := v.n
	a := v.a[:n]
	l := -1
	if v.clicks != 0 {
		l = lastClick(v.clicks, n)
	}
	car := cascadeCar(a, gamma, l, c.tmp[0][:n+1])
	for r := 0; r < l; r++ {
		if v.clicks&(1<<uint(r)) != 0 {
			c.aNum[r] = 1
			c.sNum[r], c.sDen[r] = 0, 1
		} else {
			c.aNum[r] = 0
			c.sNum[r], c.sDen[r] = 0, 0
		}
		c.aDen[r] = 1
		contNum += w
		contDen += w
	}
	e := 1.0
	if l >= 0 {
		s := sat[l]
		z := 1 - (1-s)*gamma*car[l+1]
		c.aNum[l], c.aDen[l] = 1, 1
		c.sNum[l], c.sDen[l] = s/z, 1
		if l+1 < n {
			contNum += w * (1 - s) * gamma * (1 - car[l+1]) / z
			contDen += w * (1 - s) * (1 - gamma*car[l+1]) / z
		}
		e = gamma * (1 - s)
	}
	return cascadeTail(a, gamma, e, l, car, w, c, contNum, contDen)
}

// cascadeCar sets car[r] = P(a click at r or below | E_r = 1) =
// a_r + (1-a_r) gamma car_r+1 for the ranks below l (car[n] = 0), gamma
// being the continuation after a rank without a click, and returns car
// (len(a)+1 entries).
func cascadeCar(a []float64, gamma float64, l int, car []float64) []float64 {
	n := len(a)
	car[n] = 0
	for r := n - 1; r > l; r-- {
		car[r] = a[r] + (1-a[r])*gamma*car[r+1]
	}
	return car
}

// cascadeTail sets the counts of the ranks below the last click l (-1: a
// SERP without clicks) of a cascade model whose user goes on with
// probability e after rank l (1 without clicks) and gamma after a rank
// without a click, car being cascadeCar's, and returns contNum and contDen
// with the expected counts of gamma weighted by w added (estepCascadeExact's
// r > l; added in rank order onto the counts of the ranks above).
func cascadeTail(a []float64, gamma, e float64, l int, car []float64, w float64, c *counts, contNum, contDen float64) (float64, float64) {
	n := len(a)
	if l+1 >= n {
		return contNum, contDen
	}
	norm := 1 / (1 - e*car[l+1])
	eps := e
	q := eps * (1 - car[l+1]) * norm
	for r := l + 1; r < n; r++ {
		c.aNum[r] = a[r] * (1 - q)
		c.aDen[r] = 1
		c.sNum[r], c.sDen[r] = 0, 0
		eps *= (1 - a[r]) * gamma
		if r+1 < n {
			qn := eps * (1 - car[r+1]) * norm
			contNum += w * qn
			contDen += w * q
			q = qn
		}
	}
	return contNum, contDen
}

// ccmAboveLast sets CCM's counts of the ranks above the last click l, where
// the user went on: an unclicked rank was examined and not attracted
// (tau1 counts 1 / 1); after a click, tau2 : tau3 = (1-a) tau2 : a tau3,
// the posterior of the click's relevance S, which the attractiveness
// counts (1 + P(S=1 | C) of 2) when relevance is set (the exact E-step) and
// PyClick's E-step does not (1 of 2). g holds the numerators and
// denominators of tau1, tau2 and tau3.
func ccmAboveLast(v *view, l int, w float64, c *counts, g *[6]float64, relevance bool) {
	t2, t3 := v.g[1], v.g[2]
	for r := 0; r < l; r++ {
		ar := v.a[r]
		if v.clicked(r) {
			p2, p3 := (1-ar)*t2, ar*t3
			inv := w / (p2 + p3)
			c.aNum[r], c.aDen[r] = 1, 2
			if relevance {
				c.aNum[r] = 1 + p3/(p2+p3)
			}
			g[2] += p2 * inv
			g[3] += p2 * inv
			g[4] += p3 * inv
			g[5] += p3 * inv
		} else {
			c.aNum[r], c.aDen[r] = 0, 1
			g[0] += w
			g[1] += w
		}
	}
}

// estepCCMExact is the exact E-step of CCM (Guo et al. 2009; the latent
// relevance S ~ Bernoulli(a) of a click decides the continuation, tau2
// without and tau3 with): every posterior conditioned on all clicks of the
// SERP. The attractiveness a counts the attraction of every rank (latent
// below the last click) and, at a click, the relevance S (aDen 2, as
// PyClick's). With l the last click and T = car_l+1 (cascadeCar with
// gamma = tau1):
//
//	r < l, no click:  examined, not attracted; tau1 counts 1 / 1
//	r < l, click:     the user went on: P(S=1 | C) = p = a tau3 / (a tau3 + (1-a) tau2);
//	                  attractiveness 1 + p out of 2; tau3 counts p / p, tau2 1-p / 1-p
//	r = l:            j1 = a (1 - tau3 T), j0 = (1-a) (1 - tau2 T), Z = j0 + j1:
//	                  P(S=1 | C) = j1 / Z; attractiveness 1 + j1/Z out of 2;
//	                  tau3 counts a tau3 (1-T) / Z out of j1 / Z, tau2
//	                  (1-a) tau2 (1-T) / Z out of j0 / Z (not at the last rank)
//	r > l:            cascadeTail with e = (1-a_l) tau2 + a_l tau3, gamma = tau1
//
// PyClick's E-step (estepCCM) takes a click above the last as not
// relevant (p = 0), the last click's relevance as a / (1 - e T), and the
// ranks below the last click as estepDBN does (unconditional examination,
// tail read from rank 0).
func estepCCMExact(v *view, w float64, c *counts) {
	n := v.n
	t1, t2, t3 := v.g[0], v.g[1], v.g[2]
	a := v.a[:n]
	l := -1
	if v.clicks != 0 {
		l = lastClick(v.clicks, n)
	}
	car := cascadeCar(a, t1, l, c.tmp[0][:n+1])
	var g [6]float64 // numerators and denominators of tau1, tau2, tau3
	ccmAboveLast(v, l, w, c, &g, true)
	e := 1.0
	if l >= 0 {
		al, T := a[l], car[l+1]
		j1, j0 := al*(1-t3*T), (1-al)*(1-t2*T)
		inv := 1 / (j0 + j1)
		c.aNum[l], c.aDen[l] = 1+j1*inv, 2
		if l+1 < n {
			g[2] += w * (1 - al) * t2 * (1 - T) * inv
			g[3] += w * j0 * inv
			g[4] += w * al * t3 * (1 - T) * inv
			g[5] += w * j1 * inv
		}
		e = (1-al)*t2 + al*t3
	}
	g[0], g[1] = cascadeTail(a, t1, e, l, car, w, c, g[0], g[1])
	for j := 0; j < 3; j++ {
		c.gNum[j].Add(g[2*j])
		c.gDen[j].Add(g[2*j+1])
	}
}
