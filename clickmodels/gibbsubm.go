package clickmodels

import (
	"context"
	"math"
	"slices"

	"github.com/lovbench/lovbench/internal/hashes"
)

// A Gibbs sampler (data augmentation; Tanner and Wong 1987) of the
// hierarchical UBM, for UBM's relevance intervals: a measurement behind
// Options.Gibbs (the measurement setting only), off by default
// (docs/clickmodels.md, "A Gibbs sampler of the hierarchical UBM,
// measured").
//
// The model is UBM's (Dupret and Piwowarski 2008; Chuklin, Markov and de
// Rijke 2015, section 3.5): the result at rank r is examined with
// probability gamma(r, d), d the distance to the previous click (PyClick's
// index r R + the previous click's rank, R - 1 without one), and clicked
// iff examined and attracted (A ~ Bernoulli(alpha), alpha per pair). Above
// it, every pair's alpha is drawn from the Beta prior of its prior cell
// (rank bucket x exposure class, priorCellOf; the rank buckets alone with
// GibbsSetting.RankOnly), whose hyperparameters are fitted to the log.
//
// Given the clicks, the examinations of a SERP's ranks are independent:
// at a click E = 1, and at a rank without one
//
//	P(E = 1 | C = 0) = gamma (1 - alpha) / (1 - gamma alpha)
//
// (ubmExamined; the E-step's own posterior, estep). An examined rank is a
// whole trial of its pair's alpha, a success iff clicked; the attraction
// of a rank not examined says nothing of alpha given E and is integrated
// out. One sweep:
//
//  1. Per training SERP of weight w, at every rank without a click, how
//     many of its w users examined it, Binomial(w, P(E = 1 | C = 0)), from
//     the pairs' current alpha (drawer.binomial): the complete-data counts
//     per pair, trials the examined ranks and successes the clicks.
//  2. Each cell's Beta is refitted to the sweep's complete-data counts, the
//     pairs' values integrated out (cellPriors, the intervals' own fit, as
//     the DBN sampler's: gibbs.go), every GibbsSetting.RefitEvery sweeps;
//     with GibbsSetting.FromDraws after step 3 instead, to the drawn
//     values (drawPriors).
//  3. Each pair's alpha is drawn from Beta(cell prior + counts) (drawBeta).
//  4. After the burn-in, E[alpha] and E[ln alpha] given the sweep's counts
//     and priors are summed (Rao-Blackwell); the Beta with their means
//     over the kept sweeps (betaFromMeanLogMoment) is the relevance's
//     Beta at the fitted scale (Evidence.RelAlpha, RelBeta), and with
//     GibbsSetting.Mean its mean the relevance column (Evidence.RelMean).
//
// The scale ridge. (alpha c, gamma / c) give every SERP the same
// probability (identify.go), so a sampler that also drew the gammas would
// random-walk along the ridge, bounded only by every probability being at
// most 1, and its draws would mix the scale into the pairs' spread at a
// rate set by the chain, not by the log. The sampler holds every gamma at
// the EM fit instead: its draws are the pairs' posterior at the fitted
// scale, the convention of the point estimates, and the relevance file
// then covers the identified set exactly as the default intervals do
// (relevanceDist: the interval over [c_min, c_max], the Beta beside it
// spread over [c_min, c_point]; the upper end c_max from the sampler's
// Beta, boundAttractiveness).
//
// Determinism: as the DBN sampler's (gibbs.go), record i's draws in sweep
// t come from a stream seeded by (Mix(t), i), pair p's from (Mix(t) ^
// gibbsPairSeed, p), and the cells' sums are taken in pair order, so the
// draws do not depend on the workers.

// ubmExamined sets q[r], for a SERP of UBM with attractiveness a (by
// rank) whose clicked ranks are clicks, to the probability that rank r was
// examined given the clicks: 1 at a click; at a rank without one
// gamma (1 - a) / (1 - gamma a), gamma = global[r R + prev], prev the rank
// of the previous click (R - 1 without one), as estep's UBM posterior
// (Chuklin et al. 2015, section 4.2).
func ubmExamined(a, global []float64, R int, clicks uint64, q []float64) {
	prev := R - 1
	for r := range a {
		if clicks&(1<<uint(r)) != 0 {
			q[r] = 1
			prev = r
			continue
		}
		e := global[r*R+prev]
		q[r] = (1 - a[r]) * e / (1 - e*a[r])
	}
}

// gibbsCells is the prior cell of every pair of ev (rank bucket, exposure
// class; with rankOnly the rank bucket alone, every pair in exposure class
// 0's).
func gibbsCells(ev *Evidence, rankOnly bool) [][2]int {
	cell := make([][2]int, len(ev.Rank))
	for p := range cell {
		b, e := priorCellOf(ev.Rank[p], ev.Shown[p])
		if rankOnly {
			e = 0
		}
		cell[p] = [2]int{b, e}
	}
	return cell
}

// cellHistPriors is cellPriors of the pairs' counts (k, n) in their cells:
// the histograms of one whole log in memory.
func cellHistPriors(cell [][2]int, k, n []float64, warm *priorWarm) [][exposureClasses]BetaPrior {
	by, used := make([][exposureClasses]priorHist, rankBuckets), make([][exposureClasses]bool, rankBuckets)
	for p, c := range cell {
		by[c[0]][c[1]].add(k[p], n[p])
		used[c[0]][c[1]] = true
	}
	return cellPriors(by, used, warm)
}

// gibbsUBM runs burnIn + sweeps sweeps of the sampler (see above) on f's
// records, from f's fitted values (which it does not change) and the
// cells of ev, and sets ev.RelAlpha and ev.RelBeta (UBM).
func (f *fitter) gibbsUBM(ctx context.Context, ev *Evidence, g GibbsSetting) {
	ev.Gibbs = &g
	d := f.d
	np := d.Pairs()
	cell := gibbsCells(ev, g.RankOnly)
	pa := cellHistPriors(cell, ev.AttrK, ev.AttrN, nil)
	var warm priorWarm
	a := make([]float64, np)
	for p := range a {
		a[p] = min(max(f.attr[p], 1e-9), 1-1e-9)
	}
	k, n := make([]float64, np), make([]float64, np)
	m1, l1 := make([]float64, np), make([]float64, np)
	// The examination parameters (GibbsSetting.DrawExam: drawn, their
	// complete-data counts per chunk, summed in chunk order).
	gam := slices.Clone(f.global)
	var gk, gn [][]float64
	if g.DrawExam {
		gk, gn = make([][]float64, len(d.chunks)), make([][]float64, len(d.chunks))
		for ci := range gk {
			gk[ci], gn[ci] = make([]float64, len(gam)), make([]float64, len(gam))
		}
	}
	for t := range g.BurnIn + g.Sweeps {
		if ctx.Err() != nil {
			return
		}
		seed := hashes.Mix(uint64(t))
		keep := t >= g.BurnIn
		// (1) The examinations given the pairs' values.
		f.parallel(ctx, f.workers, func(ci int, sc *scratch) {
			ch := d.chunks[ci]
			for p := ch.pairLo; p < ch.pairHi; p++ {
				k[p], n[p] = 0, 0
			}
			dr := newDrawer()
			q := sc.c.tmp[0][:]
			for i := ch.recLo; i < ch.recHi; i++ {
				pairs := d.recPair[d.recOff[i]:d.recOff[i+1]]
				ra := sc.a[:len(pairs)]
				for r, p := range pairs {
					ra[r] = a[p]
				}
				clicks := d.recClicks[i]
				ubmExamined(ra, gam, f.R, clicks, q[:len(pairs)])
				w := d.recWeight[i]
				dr.seed(seed, uint64(i))
				prev := f.R - 1
				for r, p := range pairs {
					if clicks&(1<<uint(r)) != 0 {
						k[p] += w
						n[p] += w
						if gk != nil {
							gk[ci][r*f.R+prev] += w
							gn[ci][r*f.R+prev] += w
						}
						prev = r
						continue
					}
					e := float64(dr.binomial(int(w), q[r]))
					n[p] += e
					if gk != nil {
						gk[ci][r*f.R+prev] += e
						gn[ci][r*f.R+prev] += w
					}
				}
			}
		})
		scale := 1.0
		if g.DrawExam {
			scale = f.drawExam(gam, gk, gn, seed)
		}
		if !g.FromDraws && t%max(g.RefitEvery, 1) == 0 {
			// (2) The cells' priors given the complete data.
			pa = cellHistPriors(cell, k, n, &warm)
		}
		// (3) The pairs' values given the examinations and the priors.
		f.parallel(ctx, f.workers, func(ci int, sc *scratch) {
			ch := d.chunks[ci]
			dr := newDrawer()
			for p := ch.pairLo; p < ch.pairHi; p++ {
				dr.seed(seed^gibbsPairSeed, uint64(p))
				c := cell[p]
				qa := pa[c[0]][c[1]]
				aa, ab := qa.Alpha+k[p], qa.Beta+n[p]-k[p]
				if keep {
					// (4) Rao-Blackwell: E[alpha] and E[ln alpha], at the
					// fitted scale.
					m1[p] += scale * aa / (aa + ab)
					dg := &sc.digamma
					l1[p] += dg.of(aa) - dg.of(aa+ab)
					if scale != 1 {
						l1[p] += math.Log(scale)
					}
				}
				a[p] = drawBeta(aa, ab, dr)
				if scale != 1 {
					a[p] = min(a[p]*scale, 1-1e-9)
				}
			}
		})
		if g.FromDraws {
			// (2) The cells' priors fitted to the drawn values.
			by := make([][exposureClasses]drawMoments, rankBuckets)
			for p, c := range cell {
				by[c[0]][c[1]].add(a[p])
			}
			pa = drawPriors(by)
		}
	}
	ev.RelAlpha, ev.RelBeta, ev.RelMean = relevanceBetas(m1, l1, g.Sweeps, g.Mean, nil)
}

// gibbsExamSeed separates the examination parameters' streams (DrawExam)
// from the records' and the pairs'.
const gibbsExamSeed = 0x67696262735f6578

// drawExam draws every examination parameter of UBM that the sweep's
// complete-data counts reach (gk, gn per chunk: trials the SERPs that
// reached its rank with its previous click, successes those examined)
// from Beta(1 + K, 1 + N - K), PyClick's prior, into gam, and moves it
// back to the fitted scale: it returns c, the largest drawn parameter
// over the largest fitted one (f.global) among those counted, and
// divides gam by c; the pairs' alpha are multiplied by c (the scale
// ridge, identify.go: (alpha c, gamma / c) fit the clicks alike).
func (f *fitter) drawExam(gam []float64, gk, gn [][]float64, seed uint64) float64 {
	dr := newDrawer()
	maxDrawn, maxFit := 0.0, 0.0
	for x := range gam {
		var kx, nx float64
		for ci := range gk {
			kx += gk[ci][x]
			nx += gn[ci][x]
			gk[ci][x], gn[ci][x] = 0, 0
		}
		if nx == 0 {
			continue
		}
		dr.seed(seed^gibbsExamSeed, uint64(x))
		gam[x] = drawBeta(1+kx, 1+nx-kx, dr)
		maxDrawn, maxFit = max(maxDrawn, gam[x]), max(maxFit, f.global[x])
	}
	if maxDrawn == 0 || maxFit == 0 {
		return 1
	}
	c := maxDrawn / maxFit
	for x := range gam {
		gam[x] /= c
	}
	return c
}

// GibbsUBMUncertaintyMethod names UBM's sampler's intervals in
// metrics.json (UncertaintyReport.Method), where GibbsUncertaintyMethod
// names the cascade models'.
const GibbsUBMUncertaintyMethod = "gibbs-hierarchical-ubm"

// gibbsMethod is the UncertaintyReport.Method of kind's sampler.
func gibbsMethod(kind Kind) string {
	if kind == UBM {
		return GibbsUBMUncertaintyMethod
	}
	return GibbsUncertaintyMethod
}
