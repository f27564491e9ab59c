package ltr

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/lovbench/lovbench/ltr/measures"
)

// AdaRankParams are AdaRank's hyper-parameters (RankLib's defaults).
type AdaRankParams struct {
	// Rounds is the maximum number of boosting rounds (RankLib -round 500).
	Rounds int
	// Tolerance stops training when a round improves the mean training
	// metric by less than it (RankLib -tolerance 0.002).
	Tolerance float64
	// Enqueue enables RankLib's trick: a feature chosen twice in a row is
	// set aside and the earlier round rolled back; set-aside features are
	// brought back one by one after the main loop. RankLib enables it by
	// default (-noeq disables); lovbench does not: once ties are valued
	// without the file order's help (see trainAdaRank), a dominant
	// feature is chosen twice in a row at once and set aside, and the
	// model is built from weak features (demo folds NDCG@10 0.8211 with
	// it, 0.8278 without; bench folds 0.5569 and 0.7373; docs/ltr.md).
	Enqueue bool
	// MaxSelCount is the number of consecutive selections without a change
	// of the training metric after which a feature is removed from the
	// pool (RankLib -max 5).
	MaxSelCount int
}

// DefaultAdaRankParams returns RankLib's defaults, except Enqueue (off).
func DefaultAdaRankParams() AdaRankParams {
	return AdaRankParams{Rounds: 500, Tolerance: 0.002, Enqueue: false, MaxSelCount: 5}
}

// adaState is AdaRank's training state (Xu & Li 2007, Algorithm 1, with
// RankLib's control flow).
type adaState struct {
	tr, va   *table
	opt      Options
	sc, vsc  *scorer
	weakPerf [][]float64 // [column][query] metric of ranking by that column alone
	pw       []float64   // query weights P_t(q)
	backupPW []float64
	terms    []LinearTerm
	scores   []float64 // current model score per training document
	vscores  []float64
	queue    []int
	removed  map[int]bool

	lastFeature, lastCount     int
	lastTrained, backupTrained float64
	bestValid                  float64
	bestTerms                  []LinearTerm
	noIDs                      []string
}

func trainAdaRank(ctx context.Context, m *Model, tr, va *table, opt Options) error {
	p := opt.AdaRank
	if p.Rounds < 1 || p.MaxSelCount < 1 {
		return fmt.Errorf("adarank: rounds and max selection count must be positive")
	}
	s := &adaState{tr: tr, va: va, opt: opt, sc: newScorer(opt.Metric, tr), removed: map[int]bool{},
		lastFeature: -1, lastTrained: -1}
	nq := len(tr.blocks)
	// The weak rankers are the single features; their per-query metric does
	// not change between rounds, so it is computed once. A weak ranker
	// ties every document with the same value (sparse features: most of
	// them), so its metric, and the combined ranker's in each round, is
	// the exact expected value over random orders of the tied documents
	// (measures.ExpectedNDCG...): RankLib keeps the file order, which in
	// LOVBench's files lists the clicked terms first and so rewards ties
	// with label information, and the docid order would make the choice
	// depend on the docids.
	s.weakPerf = make([][]float64, tr.d)
	col := []float64{}
	maxN := 0
	for _, b := range tr.blocks {
		maxN = max(maxN, b.n)
	}
	noIDs := make([]string, maxN)
	s.noIDs = noIDs
	for j := 0; j < tr.d; j++ {
		s.weakPerf[j] = make([]float64, nq)
		for qi := range tr.blocks {
			b := &tr.blocks[qi]
			col = col[:0]
			for i := 0; i < b.n; i++ {
				col = append(col, b.x[i*tr.d+j])
			}
			s.weakPerf[j][qi] = opt.Metric.ScoreTies(b.labels, col, noIDs[:b.n], measures.TiesAverage)
		}
	}
	s.pw = make([]float64, nq)
	for i := range s.pw {
		s.pw[i] = 1 / float64(nq)
	}
	s.backupPW = slices.Clone(s.pw)
	s.scores = make([]float64, tr.rows)
	if va != nil {
		s.vsc = newScorer(opt.Metric, va)
		s.vscores = make([]float64, va.rows)
	}
	var err error
	t := 1
	if p.Enqueue {
		if t, err = s.learn(ctx, 1, true); err != nil {
			return err
		}
		for len(s.queue) > 0 {
			s.queue = s.queue[:len(s.queue)-1]
			if t, err = s.learn(ctx, t, false); err != nil {
				return err
			}
		}
	} else if t, err = s.learn(ctx, 1, false); err != nil {
		return err
	}
	terms := s.terms
	if va != nil && len(s.bestTerms) > 0 {
		terms = s.bestTerms
	}
	if len(terms) == 0 {
		// No round was kept (the first round already failed the tolerance
		// test): fall back to the best single feature, AdaRank's first
		// weak ranker.
		terms = []LinearTerm{{Column: s.bestWeak(), Weight: 1}}
	}
	m.Linear = slices.Clone(terms)
	m.Iterations = len(terms)
	return nil
}

// bestWeakExcluding returns the column whose ranking has the highest
// P-weighted metric among the features still in the pool, or -1.
func (s *adaState) bestWeakExcluding() int {
	best, bestScore := -1, -1.0
	for j := 0; j < s.tr.d; j++ {
		if slices.Contains(s.queue, j) || s.removed[j] {
			continue
		}
		v := 0.0
		for qi, e := range s.weakPerf[j] {
			v += s.pw[qi] * e
		}
		if v > bestScore {
			best, bestScore = j, v
		}
	}
	return best
}

// bestWeak returns the column with the highest P-weighted metric.
func (s *adaState) bestWeak() int {
	best, bestScore := 0, -1.0
	for j := 0; j < s.tr.d; j++ {
		v := 0.0
		for qi, e := range s.weakPerf[j] {
			v += s.pw[qi] * e
		}
		if v > bestScore {
			best, bestScore = j, v
		}
	}
	return best
}

// addScores adds w times column j to the model scores of table t.
func addScores(t *table, scores []float64, j int, w float64) {
	off := 0
	for qi := range t.blocks {
		b := &t.blocks[qi]
		for i := 0; i < b.n; i++ {
			scores[off+i] += w * b.x[i*t.d+j]
		}
		off += b.n
	}
}

// learn runs rounds startRound..Rounds and returns the next round number.
func (s *adaState) learn(ctx context.Context, start int, withEnqueue bool) (int, error) {
	p := s.opt.AdaRank
	t := start
	nq := len(s.tr.blocks)
	perQ := make([]float64, nq)
	for ; t <= p.Rounds; t++ {
		if err := ctx.Err(); err != nil {
			return t, err
		}
		j := s.bestWeakExcluding()
		if j < 0 {
			break
		}
		if withEnqueue {
			if j == s.lastFeature && len(s.terms) > 0 {
				// Chosen twice in a row: set the feature aside and roll
				// back the previous round, which relied on it.
				s.queue = append(s.queue, j)
				last := s.terms[len(s.terms)-1]
				s.terms = s.terms[:len(s.terms)-1]
				addScores(s.tr, s.scores, last.Column, -last.Weight)
				if s.va != nil {
					addScores(s.va, s.vscores, last.Column, -last.Weight)
				}
				copy(s.pw, s.backupPW)
				s.bestValid = 0
				s.lastTrained = s.backupTrained
				continue
			}
			s.lastFeature = j
			copy(s.backupPW, s.pw)
			s.backupTrained = s.lastTrained
		}
		// alpha_t = 1/2 ln( sum P(q)(1+E(h_t,q)) / sum P(q)(1-E(h_t,q)) )
		// (Xu & Li 2007, Algorithm 1).
		num, den := 0.0, 0.0
		for qi, e := range s.weakPerf[j] {
			num += s.pw[qi] * (1 + e)
			den += s.pw[qi] * (1 - e)
		}
		alpha := 0.5 * math.Log(num/math.Max(den, 1e-300))
		s.terms = append(s.terms, LinearTerm{Column: j, Weight: alpha})
		addScores(s.tr, s.scores, j, alpha)
		if s.va != nil {
			addScores(s.va, s.vscores, j, alpha)
		}
		trained, total := 0.0, 0.0
		off := 0
		for qi := range s.tr.blocks {
			n := s.tr.blocks[qi].n
			e := s.opt.Metric.ScoreTies(s.tr.blocks[qi].labels, s.scores[off:off+n], s.noIDs[:n], measures.TiesAverage)
			off += n
			perQ[qi] = e
			total += math.Exp(-alpha * e)
			trained += e
		}
		trained /= float64(nq)
		delta := trained + p.Tolerance - s.lastTrained
		if !withEnqueue {
			if trained != s.lastTrained {
				s.lastCount = 0
				clear(s.removed)
			} else if s.lastFeature == j {
				s.lastCount++
				if s.lastCount == p.MaxSelCount {
					s.lastCount = 0
					s.removed[j] = true
				}
			} else {
				s.lastCount = 0
				clear(s.removed)
			}
			s.lastFeature = j
		}
		if s.va != nil {
			if v := s.vsc.mean(s.va, s.vscores); v > s.bestValid {
				s.bestValid = v
				s.bestTerms = slices.Clone(s.terms)
			}
		}
		if delta <= 0 {
			// Stop: the round did not improve the training metric by the
			// tolerance; drop it.
			s.terms = s.terms[:len(s.terms)-1]
			addScores(s.tr, s.scores, j, -alpha)
			if s.va != nil {
				addScores(s.va, s.vscores, j, -alpha)
			}
			break
		}
		s.lastTrained = trained
		// RankLib's weight update P_{t+1}(q) = P_t(q) exp(-alpha_t E(f_t,q)) / Z
		// (the paper's P_{t+1}(q) is exp(-E(f_t,q)) / Z); renormalised.
		sum := 0.0
		for qi := range s.pw {
			s.pw[qi] *= math.Exp(-alpha*perQ[qi]) / total
			sum += s.pw[qi]
		}
		if sum > 0 {
			for qi := range s.pw {
				s.pw[qi] /= sum
			}
		}
	}
	return t, nil
}
