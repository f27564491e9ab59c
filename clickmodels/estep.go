package clickmodels

import "math/bits"

// view is one SERP with the current values of its parameters gathered by
// rank: a[r] is the attractiveness (or CTR) of the pair shown at rank r, s[r]
// its satisfaction (DBN, SDBN); g holds the model's global parameters.
type view struct {
	n      int
	clicks uint64
	a, s   []float64
	g      []float64
	R      int
}

func (v *view) clicked(r int) bool { return v.clicks&(1<<uint(r)) != 0 }

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
// global parameters (already weighted, accumulated).
type counts struct {
	aNum, aDen, sNum, sDen []float64 // len n
	gNum, gDen             []float64
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// estep adds the expected counts of SERP v with weight w to c. For the
// counting models these are the maximum-likelihood counts and do not depend
// on the current values. The formulas are PyClick's update rules (see the
// package documentation) written per model.
func estep(k Kind, v *view, w float64, c *counts) {
	n := v.n
	switch k {
	case GCTR:
		// CTRParamMLE: numerator += click, denominator += 1 for every rank.
		for r := 0; r < n; r++ {
			c.gNum[0] += w * b2f(v.clicked(r))
			c.gDen[0] += w
		}
	case RCTR:
		for r := 0; r < n; r++ {
			c.gNum[r] += w * b2f(v.clicked(r))
			c.gDen[r] += w
		}
	case DCTR:
		for r := 0; r < n; r++ {
			c.aNum[r] = b2f(v.clicked(r))
			c.aDen[r] = 1
		}
	case CM:
		// CMAttrMLE: counted only at ranks up to and including the first
		// click (Craswell et al. 2008; Chuklin et al. 2015, eq. 4.3).
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
		// (Chuklin et al. 2015, eq. 4.6); satisfaction (SDBN) is the share
		// of clicks that are the last one; DCM's continuation lambda_r is
		// the share of clicks at rank r that are not the last (eq. 4.7).
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
				c.gNum[r] += w * b2f(r != l)
				c.gDen[r] += w
			}
		}
	case PBM, UBM:
		// P(A=1 | C=0) = (1-e)a / (1-ea) and P(E=1 | C=0) = (1-a)e / (1-ea)
		// (Chuklin et al. 2015, eqs. 4.13-4.14; UBM eqs. 4.18-4.19).
		prev := v.R - 1
		for r := 0; r < n; r++ {
			ei := r
			if k == UBM {
				ei = r*v.R + prev
			}
			a, e := v.a[r], v.g[ei]
			if v.clicked(r) {
				c.aNum[r] = 1
				c.gNum[ei] += w
				prev = r
			} else {
				inv := 1 / (1 - e*a)
				c.aNum[r] = (1 - e) * a * inv
				c.gNum[ei] += w * (1 - a) * e * inv
			}
			c.aDen[r] = 1
			c.gDen[ei] += w
		}
	case DBN:
		estepDBN(v, w, c)
	case CCM:
		estepCCM(v, w, c)
	}
}

// estepDBN is PyClick's DBN E-step (DBNAttrEM, DBNSatEM, DBNContEM).
func estepDBN(v *view, w float64, c *counts) {
	n := v.n
	gamma := v.g[0]
	l := lastClick(v.clicks, n)
	var exam, car, x [MaxSERP + 1]float64
	// exam[r] = P(E_r = 1): exam[r+1] = exam[r] * gamma * ((1-s)a + (1-a)).
	exam[0] = 1
	for r := 0; r < n; r++ {
		exam[r+1] = exam[r] * (gamma * ((1-v.s[r])*v.a[r] + (1 - v.a[r])))
	}
	// car[r] = P(C_>=r has a click | E_r = 1) = a + (1-a) gamma car[r+1].
	car[n] = 0
	for r := n - 1; r >= 0; r-- {
		car[r] = v.a[r] + (1-v.a[r])*gamma*car[r+1]
	}
	// x[r] = P(E_r = 1 | C_<r), PyClick's _get_tail_clicks from rank 0.
	x[0] = 1
	for r := 0; r < n; r++ {
		a := v.a[r]
		if v.clicked(r) {
			x[r+1] = gamma * (1 - v.s[r])
		} else {
			x[r+1] = x[r] * (gamma * (1 - a) / (1 - a*x[r]))
		}
	}
	for r := 0; r < n; r++ {
		a, s := v.a[r], v.s[r]
		ck := v.clicked(r)
		// Attractiveness: a click means attracted; after the last click,
		// P(A=1 | C=0) = (1 - exam) a / (1 - exam car).
		switch {
		case ck:
			c.aNum[r] = 1
		case r >= l:
			c.aNum[r] = (1 - exam[r]) * a / (1 - exam[r]*car[r])
		default:
			c.aNum[r] = 0
		}
		c.aDen[r] = 1
		// Satisfaction: only the last click can be satisfied,
		// P(S=1 | last click) = s / (1 - (1-s) gamma car[r+1]).
		if ck {
			if r == l {
				c.sNum[r] = s / (1 - (1-s)*gamma*car[r+1])
			} else {
				c.sNum[r] = 0
			}
			c.sDen[r] = 1
		} else {
			c.sNum[r], c.sDen[r] = 0, 0
		}
		// Continuation: P(E_r=1, S_r=0, E_r+1=z | C) from the factors
		// f(x, y, z) of PyClick's _get_continuation_factor (see dbnFactors).
		f100, f101, rest := dbnFactors(v, r, l, gamma, x[r], ck, a, s)
		sum := f100 + f101 + rest
		c.gNum[0] += w * (f101 / sum)
		c.gDen[0] += w * ((f100 + f101) / sum)
	}
}

// tail returns P(C_from, ..., C_n-1 | E_from = 1) as PyClick's
// _get_tail_clicks computes it: the clicks of ranks from..n-1, but the
// parameters of ranks 0, 1, ... (PyClick indexes the session parameters by
// the offset from the start rank). next(a, s, x) is the examination
// probability of the next rank after a click given attractiveness a and
// satisfaction s; cont(a) the continuation after no click. It keeps the
// joint probability j and j times the examination probability, which needs
// no division: no click: j' = j - a*jx, jx' = cont*(1-a)*jx; click:
// j' = a*jx, jx' = after*j'.
func tail(v *view, from int, afterClick func(a, s float64) float64, cont func(a float64) float64) float64 {
	j, jx := 1.0, 1.0
	for k := 0; from+k < v.n; k++ {
		a := v.a[k]
		if v.clicked(from + k) {
			j = a * jx
			var s float64
			if v.s != nil {
				s = v.s[k]
			}
			jx = afterClick(a, s) * j
		} else {
			j -= a * jx
			jx *= cont(a)
		}
	}
	return j
}

// dbnFactors returns, up to a common constant, P(E_r=1, S_r=0, E_r+1=0, C),
// P(E_r=1, S_r=0, E_r+1=1, C) and the sum of the other six combinations, for
// rank r with last click l, examination x = P(E_r=1 | C_<r):
//
//	click:    f(1,0,z) = a (1-s) gamma^z (1-gamma)^(1-z) Z(z) x
//	          f(1,1,0) = a s I x;  f(0,.,.) = f(1,1,1) = 0
//	no click: f(1,0,z) = (1-a) gamma^z (1-gamma)^(1-z) Z(z) x
//	          f(0,0,0) = (1-a) I (1-x);  others 0
//
// with Z(1) = P(C_>r | E_r+1 = 1) (the tail, 1 at the last rank),
// Z(0) = I = [no click below r] where a SERP without clicks counts as having
// one (PyClick's last-click rank n).
func dbnFactors(v *view, r, l int, gamma, x float64, ck bool, a, s float64) (f100, f101, rest float64) {
	T := 1.0
	if r+1 < v.n {
		T = tail(v, r+1,
			func(_, s float64) float64 { return gamma * (1 - s) },
			func(a float64) float64 { return gamma * (1 - a) })
	}
	I := b2f(l <= r)
	if ck {
		f101 = a * (1 - s) * gamma * T * x
		f100 = a * (1 - s) * (1 - gamma) * I * x
		rest = a * s * I * x
	} else {
		f101 = (1 - a) * gamma * T * x
		f100 = (1 - a) * (1 - gamma) * I * x
		rest = (1 - a) * I * (1 - x)
	}
	return
}

// estepCCM is PyClick's CCM E-step (CCMAttrEM, CCMContNoclickEM,
// CCMContClickNonrelEM, CCMContClickRelEM); Guo et al. 2009.
func estepCCM(v *view, w float64, c *counts) {
	n := v.n
	t1, t2, t3 := v.g[0], v.g[1], v.g[2]
	l := lastClick(v.clicks, n)
	var exam, car, x [MaxSERP + 1]float64
	exam[0] = 1
	for r := 0; r < n; r++ {
		a := v.a[r]
		exam[r+1] = exam[r] * ((1-a)*t1 + a*((1-a)*t2+a*t3))
	}
	car[n] = 0
	for r := n - 1; r >= 0; r-- {
		car[r] = v.a[r] + (1-v.a[r])*t1*car[r+1]
	}
	x[0] = 1
	for r := 0; r < n; r++ {
		a := v.a[r]
		if v.clicked(r) {
			x[r+1] = t2*(1-a) + t3*a
		} else {
			x[r+1] = x[r] * (t1 * (1 - a) / (1 - a*x[r]))
		}
	}
	afterClick := func(a, _ float64) float64 { return t2*(1-a) + t3*a }
	noClick := func(a float64) float64 { return t1 * (1 - a) }
	for r := 0; r < n; r++ {
		a := v.a[r]
		ck := v.clicked(r)
		num := 0.0
		switch {
		case ck:
			num = 1
		case r >= l:
			num = (1 - exam[r]) * a / (1 - exam[r]*car[r])
		}
		if ck && r == l {
			num += a / (1 - (t2*(1-a)+t3*a)*car[r+1])
		}
		c.aNum[r] = num
		c.aDen[r] = 1 + b2f(ck)

		T := 1.0
		if r+1 < n {
			T = tail(v, r+1, afterClick, noClick)
		}
		I := b2f(l <= r)
		xr := x[r]
		if ck {
			f100 := a * (1 - a) * (1 - t2) * I * xr
			f101 := a * (1 - a) * t2 * T * xr
			f110 := a * a * (1 - t3) * I * xr
			f111 := a * a * t3 * T * xr
			sum := f100 + f101 + f110 + f111
			c.gNum[1] += w * (f101 / sum)
			c.gDen[1] += w * ((f100 + f101) / sum)
			c.gNum[2] += w * (f111 / sum)
			c.gDen[2] += w * ((f110 + f111) / sum)
		} else {
			f100 := (1 - a) * (1 - t1) * I * xr
			f101 := (1 - a) * t1 * T * xr
			f000 := (1 - a) * I * (1 - xr)
			sum := f100 + f101 + f000
			c.gNum[0] += w * (f101 / sum)
			c.gDen[0] += w * ((f100 + f101) / sum)
		}
	}
}
