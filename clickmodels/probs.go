package clickmodels

import "github.com/lovbench/lovbench/sessions"

// MaxSERP is the longest SERP a model handles (the sessions.Log limit).
const MaxSERP = sessions.MaxRanks

// clickProbs fills cond[r] = P(C_r = c_r | C_<r) (the observed outcome at r
// given the clicks above) and full[r] = P(C_r = 1) (unconditional) for the
// SERP v, as PyClick's get_conditional_click_probs and get_full_click_probs
// compute them. Either slice may be nil.
func clickProbs(k Kind, v *view, cond, full []float64) {
	n := v.n
	outcome := func(r int, p float64) float64 {
		if v.clicked(r) {
			return p
		}
		return 1 - p
	}
	switch k {
	case GCTR, RCTR, DCTR, PBM:
		for r := 0; r < n; r++ {
			var p float64
			switch k {
			case GCTR:
				p = v.g[0]
			case RCTR:
				p = v.g[r]
			case DCTR:
				p = v.a[r]
			case PBM:
				p = v.a[r] * v.g[r]
			}
			if full != nil {
				full[r] = p
			}
			if cond != nil {
				cond[r] = outcome(r, p)
			}
		}
	case CM:
		// P(C_r=1) = a_r prod_{k<r} (1-a_k); after the first click the
		// cascade model cannot explain clicks: PyClick gives them 1e-6.
		f := firstClick(v.clicks, n)
		exam := 1.0
		for r := 0; r < n; r++ {
			p := v.a[r] * exam
			exam *= 1 - v.a[r]
			if full != nil {
				full[r] = p
			}
			if cond != nil {
				if r <= f {
					cond[r] = outcome(r, p)
				} else {
					cond[r] = cmMinProb
				}
			}
		}
	case PSCM:
		pscmProbs(v, cond, full)
	case UBM:
		R := v.R
		if cond != nil {
			prev := R - 1
			for r := 0; r < n; r++ {
				cond[r] = outcome(r, v.a[r]*v.g[r*R+prev])
				if v.clicked(r) {
					prev = r
				}
			}
		}
		if full != nil {
			ubmFull(v, full)
		}
	case SDBN, DCM, DBN, CCM:
		if cond != nil {
			// P(C_r | C_<r) along the chain of examination given the clicks
			// above (PyClick's _get_tail_clicks from rank 0).
			x := 1.0
			for r := 0; r < n; r++ {
				a := v.a[r]
				if v.clicked(r) {
					cond[r] = a * x
					switch k {
					case SDBN:
						x = 1 - v.s[r]
					case DCM:
						x = v.g[r]
					case DBN:
						x = v.g[0] * (1 - v.s[r])
					case CCM:
						x = v.g[1]*(1-a) + v.g[2]*a
					}
				} else {
					p := 1 - a*x
					cond[r] = p
					switch k {
					case SDBN:
						x *= (1 - a) / p
					case DCM:
						x *= (1 - a) / p
					case DBN:
						x *= v.g[0] * (1 - a) / p
					case CCM:
						x *= v.g[0] * (1 - a) / p
					}
				}
			}
		}
		if full != nil {
			// P(C_r = 1) = a_r P(E_r = 1), P(E_r+1 = 1) = P(E_r = 1) times
			// the probability of going on after rank r.
			exam := 1.0
			for r := 0; r < n; r++ {
				a := v.a[r]
				full[r] = a * exam
				switch k {
				case SDBN:
					exam *= (1-v.s[r])*a + (1 - a)
				case DCM:
					exam *= v.g[r]*a + (1 - a)
				case DBN:
					exam *= v.g[0] * ((1-v.s[r])*a + (1 - a))
				case CCM:
					exam *= (1-a)*v.g[0] + a*((1-a)*v.g[1]+a*v.g[2])
				}
			}
		}
	}
}

// ubmFull computes UBM's unconditional click probabilities by summing over
// the rank j of the previous click (j = -1: none):
//
//	P(C_r=1) = sum_{j=-1}^{r-1} P(C_j=1) prod_{k=j+1}^{r-1} (1 - a_k g[k][j]) a_r g[r][j]
//
// with P(C_-1=1) = 1 and g[.][-1] the "no previous click" column R-1, in
// PyClick's summation order (UBM.get_full_click_probs), in O(n^2).
func ubmFull(v *view, full []float64) {
	R := v.R
	var noClick [MaxSERP + 1]float64 // noClick[j+1] = prod_{k=j+1}^{r-1} (1 - a_k g[k][j])
	col := func(j int) int {
		if j < 0 {
			return R - 1
		}
		return j
	}
	for r := 0; r < v.n; r++ {
		noClick[r] = 1 // j = r-1: empty product
		p := 0.0
		for j := -1; j < r; j++ {
			pj := 1.0
			if j >= 0 {
				pj = full[j]
			}
			p += pj * noClick[j+1] * (v.a[r] * v.g[r*R+col(j)])
		}
		full[r] = p
		for j := -1; j < r; j++ {
			noClick[j+1] *= 1 - v.a[r]*v.g[r*R+col(j)]
		}
	}
}

// cascadeLLLanes is the number of SERPs whose log-likelihood
// cascadeLLChunk computes side by side.
const cascadeLLLanes = 4

// cascadeLLChunk adds to the worker's sum, for each record of chunk ch of
// a DBN or SDBN fit, w times serpLL of its conditional click
// probabilities (what addLL adds for it): clickProbs' chain of the
// examination given the clicks above,
//
//	clicked:   P = a x,     x' = γ (1 - s)
//	unclicked: P = 1 - a x, x' = x γ (1 - a) / P
//
// (γ = 1 for SDBN: 1·y is y, the same bits as clickProbs' SDBN arm),
// folded by serpLL's serpFold as each P comes, in the same order with the
// same arithmetic, so each record's value is the same bits.
// Each chain waits on a division per unclicked rank; cascadeLLLanes
// records are taken side by side so that their chains overlap, which
// one record at a time cannot (docs/clickmodels.md, "Accelerated EM").
// The sum is exact (ExactSum), so its order does not matter.
func (f *fitter) cascadeLLChunk(ch chunk, sc *scratch) {
	d := f.d
	gamma := 1.0
	if f.kind == DBN {
		gamma = f.global[0]
	}
	attr := f.attr
	sat := f.sat[:len(attr)]
	var (
		pairs       [cascadeLLLanes][]int32
		clicks      [cascadeLLLanes]uint64
		x           [cascadeLLLanes]float64
		fold        [cascadeLLLanes]serpFold
		lanes, most int
	)
	for i := ch.recLo; i < ch.recHi; i += lanes {
		lanes, most = min(cascadeLLLanes, ch.recHi-i), 0
		for j := range lanes {
			pairs[j] = d.recPair[d.recOff[i+j]:d.recOff[i+j+1]]
			clicks[j] = d.recClicks[i+j]
			x[j], fold[j] = 1, serpFold{prod: 1}
			most = max(most, len(pairs[j]))
		}
		for r := range most {
			for j := range lanes {
				if r >= len(pairs[j]) {
					continue
				}
				pr := pairs[j][r]
				a := attr[pr]
				var p float64
				if clicks[j]&(1<<uint(r)) != 0 {
					p = a * x[j]
					x[j] = gamma * (1 - sat[pr])
				} else {
					p = 1 - a*x[j]
					x[j] *= gamma * (1 - a) / p
				}
				fold[j].add(p)
			}
		}
		for j := range lanes {
			if v := d.recWeight[i+j] * fold[j].mean(len(pairs[j])); !sc.ll.AddSmall(v) {
				sc.ll.addLarge(v)
			}
		}
	}
}

// cascadeLL reports whether f's log-likelihood is cascadeLLChunk's.
func (f *fitter) cascadeLL() bool {
	return (f.kind == DBN || f.kind == SDBN) && len(f.sat) > 0
}
