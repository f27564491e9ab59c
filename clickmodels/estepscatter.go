package clickmodels

// cascadeScatter reports whether iterate may take record by record
// estepCascadeScatter instead of estep and scatter: exact DBN or SDBN once
// the pair denominators are final (dens false), without the empirical
// prior (whose numerators start at 0).
func (f *fitter) cascadeScatter(dens bool) bool {
	return f.exact && (f.kind == DBN || f.kind == SDBN) && len(f.sat) > 0 && !dens && !f.eb
}

// estepCascadeScatter is estepDBNExact (estepSDBNExact for SDBN) on record
// i followed by scatter of its numerators, made in one pass over the
// record's ranks: the same arithmetic in the same order, so the same bits
// (TestEStepCascadeScatter), without the per-rank counts in between and
// without the adds of w·0 those counts carry. Of the counts, above the
// last click l a rank's attractiveness counts 1 if clicked and 0 if not
// and its satisfaction 0; only l's satisfaction counts (s / Z); below l
// the attractiveness counts a (1 - q_r) and the satisfaction 0. Adding
// w·0 = +0 leaves a numerator as it was (they start at the prior's 1 and
// only grow, so none is -0), so skipping those adds keeps the bits. The
// arithmetic is estepCascadeExact's and cascadeTail's (their doc gives
// the formulas): a change to one is a change to both, which the test
// catches.
//
// With ll it also adds the record's log-likelihood under the values it
// reads to the worker's sum, as cascadeLLChunk does (its chain of the
// examination given the clicks above, folded by serpFold, the same
// arithmetic in the same order, so the same bits), rank by rank in the
// E-step's forward loops: the chain's division per unclicked rank then
// overlaps the E-step's work instead of waiting alone, and the values
// are read once for both.
func (f *fitter) estepCascadeScatter(sc *scratch, i int, ll bool) {
	d := f.d
	lo, hi := d.recOff[i], d.recOff[i+1]
	n := int(hi - lo)
	pairs := d.recPair[lo:hi]
	clicks := d.recClicks[i]
	w := d.recWeight[i]
	attr := f.attr
	a := sc.a[:n]
	for r, p := range pairs {
		a[r] = attr[p]
	}
	gamma := 1.0
	if f.kind == DBN {
		gamma = f.global[0]
	}
	aNum, sNum := f.aNum, f.sNum
	l := -1
	if clicks != 0 {
		l = lastClick(clicks, n)
	}
	car := cascadeCar(a, gamma, l, sc.c.tmp[0][:n+1])
	var contNum, contDen float64
	// The log-likelihood's chain (cascadeLLChunk): x the examination
	// given the clicks above, fold the SERP's terms.
	x, fold := 1.0, serpFold{prod: 1}
	for r := 0; r < l; r++ {
		if clicks&(1<<uint(r)) != 0 {
			p := pairs[r]
			aNum[p] += w // w·1
			if ll {
				fold.add(a[r] * x)
				x = gamma * (1 - f.sat[p])
			}
		} else if ll {
			pr := 1 - a[r]*x
			x *= gamma * (1 - a[r]) / pr
			fold.add(pr)
		}
		contNum += w
		contDen += w
	}
	e := 1.0
	if l >= 0 {
		p := pairs[l]
		s := f.sat[p]
		if ll {
			fold.add(a[l] * x)
			x = gamma * (1 - s)
		}
		z := 1 - (1-s)*gamma*car[l+1]
		aNum[p] += w // w·1
		sNum[p] += w * (s / z)
		if l+1 < n {
			contNum += w * (1 - s) * gamma * (1 - car[l+1]) / z
			contDen += w * (1 - s) * (1 - gamma*car[l+1]) / z
		}
		e = gamma * (1 - s)
	}
	// cascadeTail, its counts scattered as they come.
	if l+1 < n {
		norm := 1 / (1 - e*car[l+1])
		eps := e
		q := eps * (1 - car[l+1]) * norm
		for r := l + 1; r < n; r++ {
			ar := a[r]
			if ll {
				pr := 1 - ar*x
				x *= gamma * (1 - ar) / pr
				fold.add(pr)
			}
			aNum[pairs[r]] += w * (ar * (1 - q))
			eps *= (1 - ar) * gamma
			if r+1 < n {
				qn := eps * (1 - car[r+1]) * norm
				contNum += w * qn
				contDen += w * q
				q = qn
			}
		}
	}
	if ll {
		if v := w * fold.mean(n); !sc.ll.AddSmall(v) {
			sc.ll.addLarge(v)
		}
	}
	if f.kind == DBN {
		sc.c.gNum[0].addCount(contNum)
		sc.c.gDen[0].addCount(contDen)
	}
}
