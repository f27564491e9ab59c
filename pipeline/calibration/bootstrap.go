package calibration

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/hashes"
	"github.com/lovbench/lovbench/sessions"
)

// A parametric, posterior-predictive bootstrap of the intervals
// (docs/clickmodels.md, "A parametric bootstrap of the intervals, measured
// and not adopted"): in the spirit of Beran's prepivoting (1987), the
// fitted model is taken as the world, a log is drawn from it on the user's
// own SERPs, the same fit is run on it, and the coverage of its intervals
// of the drawn truth says, per level of evidence, how much wider or
// narrower the intervals must be to hold their level. One replicate on a
// subsample of whole queries: the pairs are the samples. It is a
// measurement (Options.Recalibrate, bench/calibration -recalibrate), not
// part of lovbench fit: its world is calibrated by construction where the
// prior decides, and the correction passed none of issue 36's failing
// targets.

// BootstrapConfig configures Bootstrap.
type BootstrapConfig struct {
	// MaxSERPs bounds the subsample: whole queries, taken in the order of
	// a hash of their name and Seed, while their SERPs fit.
	MaxSERPs int
	Seed     uint64
	// MinPairs is the fewest pairs of an evidence bin; smaller bins are
	// merged with their neighbour.
	MinPairs int
	// Replicates is the number of worlds drawn (0 or 1: one); their pairs
	// are pooled in the bins, each world drawn and simulated with the seed
	// Seed + its number (the subsample is the same).
	Replicates int
	// PlugIn draws no value: each pair's values are its point estimates
	// (the classical parametric bootstrap at the fitted values) instead of
	// a draw from its posterior.
	PlugIn bool
}

// DefaultBootstrap is the configuration of the measurements.
func DefaultBootstrap() BootstrapConfig {
	return BootstrapConfig{MaxSERPs: 50000, Seed: 1, MinPairs: 200}
}

// Recalibration is the outcome of Bootstrap: per bin of evidence (alpha +
// beta of the refit's posterior), the factor on the posterior's
// concentration that makes its intervals cover the drawn truth at their
// level.
type Recalibration struct {
	SERPs, Pairs int
	Bins         []RecalBin
	// Seconds is the wall time of the bootstrap (Run's, with
	// Options.Recalibrate; 0 from Bootstrap itself).
	Seconds float64
}

// RecalBin is one evidence bin.
type RecalBin struct {
	// From and To bound alpha + beta; Center is their pairs' geometric
	// mean.
	From, To, Center float64
	Pairs            int
	// Coverage is the share of the refit's intervals (as written) holding
	// the drawn truth; BetaCoverage that of its Beta's equal-tailed
	// interval, Factor the factor on the concentration that brings the
	// latter to the level.
	Coverage, BetaCoverage, Factor float64
	// Ratio is the mean refit relevance over the mean drawn one.
	Ratio float64
}

// Factor bounds.
const (
	minRecalFactor = 1.0 / 20
	maxRecalFactor = 20
)

// FactorAt is the factor for a posterior of evidence ev: log-linear
// interpolation of the bins' factors between their centres, the end
// bins' beyond.
func (r *Recalibration) FactorAt(ev float64) float64 {
	bs := r.Bins
	if len(bs) == 0 {
		return 1
	}
	if ev <= bs[0].Center {
		return bs[0].Factor
	}
	for i := 1; i < len(bs); i++ {
		if ev <= bs[i].Center {
			t := (math.Log(ev) - math.Log(bs[i-1].Center)) / (math.Log(bs[i].Center) - math.Log(bs[i-1].Center))
			return math.Exp((1-t)*math.Log(bs[i-1].Factor) + t*math.Log(bs[i].Factor))
		}
	}
	return bs[len(bs)-1].Factor
}

// Bootstrap draws one log from fitted (each pair's values from its
// posterior, the globals at their fitted values) on a subsample of train's
// SERPs, fits it as fitted was fitted (opt) and measures its intervals
// against the drawn truth by evidence bin.
func Bootstrap(ctx context.Context, train *sessions.Log, fitted *clickmodels.Model, opt clickmodels.Options, cfg BootstrapConfig) (*Recalibration, error) {
	post, err := fitted.PairPosteriors()
	if err != nil {
		return nil, err
	}
	if post == nil {
		return nil, fmt.Errorf("bootstrap: the %v model has no intervals", fitted.Kind)
	}
	idx := subsample(train, cfg.MaxSERPs, cfg.Seed)
	R := max(fitted.Ranks, clickmodels.DefaultRanks)
	var obs []bootObs
	for rep := range max(cfg.Replicates, 1) {
		seed := cfg.Seed + uint64(rep)
		src := &replaySource{log: train, idx: idx, fitted: fitted, post: post, seed: seed, plugIn: cfg.PlugIn}
		log, truth, err := sim.SimulateLog(ctx, sim.Config{Kind: fitted.Kind, SERPs: len(idx), Seed: seed, Source: src, Global: fitted.Global, Ranks: fitted.Ranks})
		if err != nil {
			return nil, fmt.Errorf("bootstrap: %w", err)
		}
		d, err := clickmodels.Prepare(log, R)
		if err != nil {
			return nil, err
		}
		re, err := clickmodels.Fit(ctx, d, fitted.Kind, opt)
		if err != nil {
			return nil, fmt.Errorf("bootstrap: refit: %w", err)
		}
		dists, _, err := re.RelevanceDists()
		if err != nil {
			return nil, err
		}
		for p, dd := range dists {
			q, doc := re.QueryNames[re.PairQuery[p]], re.DocNames[re.PairDoc[p]]
			obs = append(obs, bootObs{dd.Alpha, dd.Beta, dd.Lower, dd.Upper, re.PairRelevance(p), truth.Relevance(q, doc)})
		}
	}
	return &Recalibration{SERPs: len(idx), Pairs: len(obs), Bins: recalBins(obs, opt.IntervalLevel(), cfg.MinPairs)}, nil
}

// bootObs is one pair of the bootstrap's refit: its posterior Beta(alpha,
// beta), the interval written, its point estimate and the drawn truth.
type bootObs struct{ alpha, beta, lo, hi, fit, truth float64 }

// recalBins sorts obs by evidence (alpha + beta) and cuts them into bins a
// factor sqrt(2) wide (by 2 log2 of the evidence, rounded down), a bin of
// fewer than minPairs pairs merged with the next (the last with the one
// before), and measures each (binFactor).
func recalBins(obs []bootObs, level float64, minPairs int) []RecalBin {
	ev := func(o bootObs) float64 { return o.alpha + o.beta }
	slices.SortStableFunc(obs, func(a, b bootObs) int { return cmp.Compare(ev(a), ev(b)) })
	binOf := func(x float64) int { return int(math.Floor(2 * math.Log2(max(x, 1e-9)))) }
	var out []RecalBin
	for i := 0; i < len(obs); {
		j := i + 1
		for j < len(obs) && (j-i < minPairs || binOf(ev(obs[j])) == binOf(ev(obs[j-1]))) {
			j++
		}
		if len(obs)-j < minPairs {
			j = len(obs)
		}
		part := obs[i:j]
		b := RecalBin{From: ev(part[0]), To: ev(part[len(part)-1]), Pairs: len(part)}
		var logc, sf, st float64
		cov := 0
		for _, o := range part {
			logc += math.Log(max(ev(o), 1e-300))
			sf += o.fit
			st += o.truth
			if o.lo <= o.truth && o.truth <= o.hi {
				cov++
			}
		}
		b.Center = math.Exp(logc / float64(len(part)))
		b.Coverage = float64(cov) / float64(len(part))
		b.Ratio = sf / st
		b.BetaCoverage = betaCoverage(part, 1, level)
		b.Factor = binFactor(part, level)
		out = append(out, b)
		i = j
	}
	return out
}

// betaCoverage is the share of part whose truth lies in the equal-tailed
// interval at level of Beta(f alpha, f beta): whose CDF there lies
// between (1 - level)/2 and (1 + level)/2.
func betaCoverage(part []bootObs, f, level float64) float64 {
	lo, hi := (1-level)/2, (1+level)/2
	c := 0
	for _, o := range part {
		u := clickmodels.BetaProbability(f*o.alpha, f*o.beta, 0, o.truth)
		if u >= lo && u <= hi {
			c++
		}
	}
	return float64(c) / float64(len(part))
}

// binFactor is the largest factor f on the concentration, within
// [minRecalFactor, maxRecalFactor], whose intervals (betaCoverage) still
// cover level of part's truths: coverage falls as the concentration
// grows, so log f is bisected (30 steps).
func binFactor(part []bootObs, level float64) float64 {
	a, z := math.Log(minRecalFactor), math.Log(maxRecalFactor)
	switch {
	case betaCoverage(part, math.Exp(a), level) < level:
		return minRecalFactor
	case betaCoverage(part, math.Exp(z), level) >= level:
		return maxRecalFactor
	}
	for range 30 {
		m := (a + z) / 2
		if betaCoverage(part, math.Exp(m), level) >= level {
			a = m
		} else {
			z = m
		}
	}
	return math.Exp(a)
}

// subsample returns the SERPs of log, in log order, of the queries taken
// in the order of a hash of their name and seed while the SERPs fit in
// max (all of them if max <= 0 or the log fits).
func subsample(log *sessions.Log, maxSERPs int, seed uint64) []int {
	all := make([]int, log.Len())
	for i := range all {
		all[i] = i
	}
	if maxSERPs <= 0 || log.Len() <= maxSERPs {
		return all
	}
	count := map[int32]int{}
	for i := range log.Len() {
		count[log.Query[i]]++
	}
	qs := make([]int32, 0, len(count))
	for q := range count {
		qs = append(qs, q)
	}
	key := func(q int32) uint64 { return nameHash(seed, log.Queries.Names[q], "") }
	slices.SortFunc(qs, func(a, b int32) int {
		ka, kb := key(a), key(b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
	take := map[int32]bool{}
	n := 0
	for _, q := range qs {
		if n+count[q] > maxSERPs {
			continue
		}
		take[q] = true
		n += count[q]
	}
	out := all[:0]
	for i := range log.Len() {
		if take[log.Query[i]] {
			out = append(out, i)
		}
	}
	return out
}

// nameHash is the FNV-1a hash (internal/hashes) of seed's eight bytes
// (least significant first), a, a zero byte and b.
func nameHash(seed uint64, a, b string) uint64 {
	h := hashes.FNV1aUint64(hashes.FNVOffset64, seed)
	h = hashes.FNV1aByte(hashes.FNV1aString(h, a), 0)
	return hashes.FNV1aString(h, b)
}

// replaySource shows log's SERPs idx in order (sim.SERPSource), each
// pair's values drawn once from its posterior under fitted.
type replaySource struct {
	log    *sessions.Log
	idx    []int
	next   int
	fitted *clickmodels.Model
	post   []clickmodels.PairPosterior
	seed   uint64
	plugIn bool
	docs   []string
}

// Next implements sim.SERPSource.
func (s *replaySource) Next(*rand.Rand) (string, []string, error) {
	if s.next >= len(s.idx) {
		return "", nil, fmt.Errorf("bootstrap: no more SERPs")
	}
	i := s.idx[s.next]
	s.next++
	s.docs = s.docs[:0]
	for _, d := range s.log.SERPDocs(i) {
		s.docs = append(s.docs, s.log.Docs.Names[d])
	}
	return s.log.Queries.Names[s.log.Query[i]], s.docs, nil
}

// Truth implements sim.SERPSource: the attractiveness drawn from the
// pair's posterior, and for the models with satisfaction the relevance
// a·s drawn from its own, s = r / a (a raised to r where r > a).
func (s *replaySource) Truth(q, d string) (float64, float64) {
	p := s.fitted.Pair(q, d)
	if p < 0 {
		return math.NaN(), math.NaN()
	}
	h := nameHash(s.seed, q, d)
	rng := rand.New(rand.NewPCG(h, 0x626f6f74))
	clamp := func(x float64) float64 { return min(max(x, 1e-6), 1-1e-6) }
	if s.plugIn {
		if s.fitted.Sat == nil {
			return clamp(s.fitted.Attr[p]), 0.5
		}
		return clamp(s.fitted.Attr[p]), clamp(s.fitted.Sat[p])
	}
	pp := s.post[p]
	a := clamp(clickmodels.BetaQuantile(pp.AttrAlpha, pp.AttrBeta, rng.Float64()))
	if s.fitted.Sat == nil {
		return a, 0.5
	}
	r := clamp(clickmodels.BetaQuantile(pp.Alpha, pp.Beta, rng.Float64()))
	if r > a {
		a = r
	}
	return a, clamp(r / a)
}

// recalibrate fits cfg's model again in memory on the training part of
// sessions (the same fit as the relevance file relPath's, for the default
// split in file order, clickmodels.Split), runs Bootstrap
// and writes relPath with every posterior's concentration multiplied by
// its factor, its mean kept, to work/recal_relevance.tsv; for a model
// with a scale ridge the interval written stays the identified set's.
func recalibrate(ctx context.Context, sessionsDir string, cfg clickmodels.RunConfig, bc BootstrapConfig, relPath, work string) (*Recalibration, string, error) {
	if def := fit.DefaultConfig().Split; cfg.Split != def {
		return nil, "", fmt.Errorf("calibration: the bootstrap takes the training part of the default split (%s), not %q", def, cfg.Split)
	}
	log, err := sessions.LoadForFit(sessionsDir)
	if err != nil {
		return nil, "", err
	}
	train, _ := clickmodels.Split(log, cfg.TrainFraction)
	R := clickmodels.DefaultRanks
	for i := range train.Len() {
		R = max(R, train.Ranks(i))
	}
	d, err := clickmodels.Prepare(train, R)
	if err != nil {
		return nil, "", err
	}
	m, err := clickmodels.Fit(ctx, d, cfg.Kinds[0], cfg.Options)
	if err != nil {
		return nil, "", err
	}
	if bc == (BootstrapConfig{}) {
		bc = DefaultBootstrap()
	}
	t0 := time.Now()
	rec, err := Bootstrap(ctx, train, m, cfg.Options, bc)
	if err != nil {
		return nil, "", err
	}
	rec.Seconds = time.Since(t0).Seconds()
	out := filepath.Join(work, "recal_relevance.tsv")
	level := cfg.Options.IntervalLevel()
	if err := rewriteIntervals(relPath, out, func(alpha, beta, lower, upper float64) (float64, float64, float64, float64) {
		if !(alpha > 0 && beta > 0) {
			return alpha, beta, lower, upper
		}
		f := rec.FactorAt(alpha + beta)
		a, b := f*alpha, f*beta
		if m.Kind.ScaleRidge() {
			return a, b, lower, upper
		}
		l, u := clickmodels.BetaInterval(a, b, level)
		return a, b, l, u
	}); err != nil {
		return nil, "", err
	}
	return rec, out, nil
}

// rewriteIntervals copies the relevance file in to out with its alpha,
// beta, lower and upper columns replaced by fn's.
func rewriteIntervals(in, out string, fn func(alpha, beta, lower, upper float64) (float64, float64, float64, float64)) error {
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	col := map[string]int{}
	for i, h := range strings.Split(lines[0], "\t") {
		col[h] = i
	}
	ia, ib, il, iu := col["alpha"], col["beta"], col["lower"], col["upper"]
	var sb strings.Builder
	sb.WriteString(lines[0])
	sb.WriteByte('\n')
	for n, line := range lines[1:] {
		fs := strings.Split(line, "\t")
		var v [4]float64
		for k, i := range []int{ia, ib, il, iu} {
			if v[k], err = strconv.ParseFloat(fs[i], 64); err != nil {
				return fmt.Errorf("%s:%d: %w", in, n+2, err)
			}
		}
		a, bb, l, u := fn(v[0], v[1], v[2], v[3])
		for k, x := range []float64{a, bb, l, u} {
			fs[[]int{ia, ib, il, iu}[k]] = strconv.FormatFloat(x, 'g', 10, 64)
		}
		sb.WriteString(strings.Join(fs, "\t"))
		sb.WriteByte('\n')
	}
	return atomicfile.WriteFile(out, func(w io.Writer) error { _, err := io.WriteString(w, sb.String()); return err })
}
