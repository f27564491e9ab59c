package ltr

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// CAParams are Coordinate Ascent's hyper-parameters (RankLib's CoorAscent
// defaults, except Restarts).
type CAParams struct {
	// Restarts is the number of restarts (RankLib -r defaults to 5; we
	// default to 2 so that a LOVBench-sized 5-fold run stays within the
	// time budget, see docs/ltr.md). Restart 0 starts
	// from uniform weights as RankLib does; later restarts start from
	// random non-negative weights (Metzler & Croft 2007, section 4.2:
	// restarts from random points avoid local maxima).
	Restarts int
	// MaxIter is the number of steps tried in each direction (RankLib -i 25).
	MaxIter int
	// StepBase and StepScale: the first step is 0.001, or StepBase*|w| when
	// that is larger than half the weight; each next step is StepScale
	// times the previous (RankLib 0.05 and 2).
	StepBase, StepScale float64
	// Tolerance ends a restart when a full pass over the features improves
	// the training metric by less than it (RankLib -tolerance 0.001).
	Tolerance float64
}

// DefaultCAParams returns RankLib's defaults except Restarts (2, not 5).
func DefaultCAParams() CAParams {
	return CAParams{Restarts: 2, MaxIter: 25, StepBase: 0.05, StepScale: 2, Tolerance: 0.001}
}

// caState caches the model scores and each query's metric so that a trial
// weight for one feature only re-ranks the queries in which that feature
// varies (a feature constant within a query shifts all its scores equally
// and cannot change its ranking).
type caState struct {
	t      *table
	sc     *scorer
	active [][]int // [column] queries where the column is not constant
	qoff   []int   // first row of each query
	scores []float64
	perQ   []float64
	total  float64
	trial  []float64
	perm   [][]int // current ranking of each query
	tidx   []int
	// Saturation: once |dw| * minGap[j][k] > 2 * spread of query
	// active[j][k], the query's trial ranking is fixed by column j (and the
	// current order among equal values) for every larger step of the same
	// sign, so its metric is computed once per (feature, direction) visit.
	minGap   [][]float64
	cols     [][]float64 // column-major copy: cols[j][row], for contiguous trials
	topK     int         // trials only need the top topK of each ranking (0: all)
	spread   []float64
	cacheGen []int
	cacheVal []float64
	gen      int
}

func newCAState(t *table, m Metric) *caState {
	s := &caState{t: t, sc: newScorer(m, t), active: make([][]int, t.d), qoff: make([]int, len(t.blocks)),
		scores: make([]float64, t.rows), perQ: make([]float64, len(t.blocks))}
	maxN, off := 0, 0
	for qi := range t.blocks {
		b := &t.blocks[qi]
		s.qoff[qi] = off
		off += b.n
		maxN = max(maxN, b.n)
		for j := 0; j < t.d; j++ {
			for i := 1; i < b.n; i++ {
				if b.x[i*t.d+j] != b.x[j] {
					s.active[j] = append(s.active[j], qi)
					break
				}
			}
		}
	}
	s.minGap = make([][]float64, t.d)
	col := make([]float64, maxN)
	for j := 0; j < t.d; j++ {
		s.minGap[j] = make([]float64, len(s.active[j]))
		for k, qi := range s.active[j] {
			b := &t.blocks[qi]
			c := col[:b.n]
			for i := range c {
				c[i] = b.x[i*t.d+j]
			}
			slices.Sort(c)
			g := math.Inf(1)
			for i := 1; i < len(c); i++ {
				if d := c[i] - c[i-1]; d > 0 && d < g {
					g = d
				}
			}
			s.minGap[j][k] = g
		}
	}
	s.cols = make([][]float64, t.d)
	for j := range s.cols {
		s.cols[j] = make([]float64, t.rows)
		for qi := range t.blocks {
			b := &t.blocks[qi]
			for i := 0; i < b.n; i++ {
				s.cols[j][s.qoff[qi]+i] = b.x[i*t.d+j]
			}
		}
	}
	if m.Kind != MetricMAP {
		s.topK = m.K
	}
	s.spread = make([]float64, len(t.blocks))
	s.cacheGen = make([]int, len(t.blocks))
	s.cacheVal = make([]float64, len(t.blocks))
	s.trial = make([]float64, maxN)
	s.tidx = make([]int, maxN)
	s.perm = make([][]int, len(t.blocks))
	for qi := range t.blocks {
		s.perm[qi] = make([]int, t.blocks[qi].n)
		for i := range s.perm[qi] {
			s.perm[qi][i] = i
		}
	}
	return s
}

// reset computes the scores and metric of weights w from scratch.
func (s *caState) reset(w []float64) {
	t := s.t
	s.total = 0
	for qi := range t.blocks {
		b := &t.blocks[qi]
		sc := s.scores[s.qoff[qi] : s.qoff[qi]+b.n]
		for i := 0; i < b.n; i++ {
			v := 0.0
			for j, wj := range w {
				v += wj * b.x[i*t.d+j]
			}
			sc[i] = v
		}
		insertionByKey(s.perm[qi], sc) // from the previous order: cheap
		s.perQ[qi] = s.sc.ordered(t, qi, s.perm[qi])
		s.total += s.perQ[qi]
		if b.n > 0 {
			s.spread[qi] = sc[s.perm[qi][0]] - sc[s.perm[qi][b.n-1]]
		}
	}
}

// newVisit starts a (feature, direction) search: saturated results of the
// previous one are no longer valid.
func (s *caState) newVisit() { s.gen++ }

// try returns the total metric if the weight of column j changed by dw.
func (s *caState) try(j int, dw float64) float64 {
	t := s.t
	total := s.total
	adw := math.Abs(dw)
	for k, qi := range s.active[j] {
		saturated := adw*s.minGap[j][k] > 2*s.spread[qi]
		if saturated && s.cacheGen[qi] == s.gen {
			total += s.cacheVal[qi] - s.perQ[qi]
			continue
		}
		b := &t.blocks[qi]
		sc := s.scores[s.qoff[qi] : s.qoff[qi]+b.n]
		xj := s.cols[j][s.qoff[qi] : s.qoff[qi]+b.n]
		tr := s.trial[:b.n]
		for i := range tr {
			tr[i] = sc[i] + dw*xj[i]
		}
		idx := s.tidx[:b.n]
		copy(idx, s.perm[qi])
		topKByKey(idx, tr, s.topK)
		v := s.sc.ordered(t, qi, idx)
		if saturated {
			s.cacheGen[qi], s.cacheVal[qi] = s.gen, v
		}
		total += v - s.perQ[qi]
	}
	return total
}

// normalizeL1 scales w to sum |w_j| = 1 (RankLib's CoorAscent.normalize);
// the ranking is unchanged.
func normalizeL1(w []float64) {
	s := 0.0
	for _, v := range w {
		s += math.Abs(v)
	}
	if s > 0 {
		for j := range w {
			w[j] /= s
		}
	}
}

// trainCA is Coordinate Ascent (Metzler & Croft 2007): optimise the metric
// directly over a linear model, one weight at a time. For each feature in a
// seeded random order it tries steps of growing size in the positive
// direction, then the negative, then removing the feature (weight 0), and
// keeps the best value if it beats the current metric; a restart ends when
// a pass gains less than Tolerance or every other feature failed in a row.
// The restart with the best validation metric (training metric without
// validation data) is kept.
func trainCA(ctx context.Context, m *Model, tr, va *table, opt Options, rng *rand.Rand) error {
	p := opt.CA
	if p.Restarts < 1 || p.MaxIter < 1 || !(p.StepBase > 0) || !(p.StepScale > 0) {
		return fmt.Errorf("ca: restarts, iterations, step base and step scale must be positive")
	}
	d := tr.d
	s := newCAState(tr, opt.Metric)
	var vsc *scorer
	if va != nil {
		vsc = newScorer(opt.Metric, va)
	}
	nq := float64(len(tr.blocks))
	var bestW []float64
	bestScore, bestPasses := math.Inf(-1), 0
	w := make([]float64, d)
	order := make([]int, d)
	for r := 0; r < p.Restarts; r++ {
		for j := range w {
			if r == 0 {
				w[j] = 1 / float64(d)
			} else {
				w[j] = rng.Float64()
			}
		}
		normalizeL1(w)
		s.reset(w)
		fails, passes := 0, 0
		for (d > 1 && fails < d-1) || (d == 1 && fails == 0) {
			if err := ctx.Err(); err != nil {
				return err
			}
			passes++
			start := s.total
			for i := range order {
				order[i] = i
			}
			rng.Shuffle(d, func(a, b int) { order[a], order[b] = order[b], order[a] })
			for _, j := range order {
				orig := w[j]
				bestTotal, bestStep, ok := s.total, 0.0, false
				for _, dir := range []float64{1, -1, 0} {
					s.newVisit()
					step := 0.001 * dir
					if orig != 0 && math.Abs(step) > 0.5*math.Abs(orig) {
						step = dir * p.StepBase * math.Abs(orig)
					}
					total, iters := step, p.MaxIter
					if dir == 0 {
						total, iters = -orig, 1
					}
					for it := 0; it < iters; it++ {
						if v := s.try(j, total); v > bestTotal+1e-12 {
							bestTotal, bestStep, ok = v, total, true
						}
						step *= p.StepScale
						total += step
					}
					if ok {
						break
					}
				}
				if ok {
					w[j] = orig + bestStep
					fails = 0
					normalizeL1(w)
					s.reset(w)
				} else {
					fails++
				}
			}
			if (s.total-start)/nq < p.Tolerance {
				break
			}
		}
		score := s.total / nq
		if va != nil {
			vm := &Model{Features: m.Features, Linear: linearTerms(w)}
			score = vsc.mean(va, vm.scoreTable(va))
		}
		if bestW == nil || score > bestScore {
			bestScore, bestW, bestPasses = score, slices.Clone(w), passes
		}
	}
	m.Linear = linearTerms(bestW)
	m.Iterations = bestPasses
	return nil
}

func linearTerms(w []float64) []LinearTerm {
	terms := make([]LinearTerm, len(w))
	for j, v := range w {
		terms[j] = LinearTerm{Column: j, Weight: v}
	}
	return terms
}
