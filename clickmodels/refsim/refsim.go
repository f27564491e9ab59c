// Package refsim is a second click simulator, written from the click
// models' definitions alone and independently of clickmodels/sim, so that
// the click-model stage of the LOVBench paper (section 4.2, "Relevance
// from clicks") can be checked on logs the project's own simulator did not
// make (issue 36, part 4), and PSCM against the others on users who
// return up the page (issue 35, part 4). It imports nothing of the project: it writes
// the Yandex relevance-prediction log that `lovbench ingest --format
// yandex` reads and the true relevance of every pair, and nothing else.
//
// The models, as their papers define them (Chuklin, Markov and de Rijke,
// Click Models for Web Search, 2015, sections 3.5 and 3.8):
//
//   - UBM (Dupret and Piwowarski 2008): the result at rank r is examined
//     with probability gamma[r][r'], r' the rank of the previous click on
//     the SERP (0 when none), and clicked when examined with probability
//     alpha, its attractiveness: P(C_r = 1) = alpha * gamma[r][r'].
//
//   - DBN (Chapelle and Zhang 2009): a cascade. Rank 1 is examined; an
//     examined result is clicked with probability a (attractiveness); a
//     click satisfies with probability s (satisfaction); a satisfied user
//     stops, any other continues to the next rank with probability gamma
//     (the continuation). The relevance of a pair is a * s.
//
//   - PSCM (Wang, Liu, Wang, Zhou, Nie and Ma, "Incorporating
//     Non-sequential Behavior into Click Models", SIGIR 2015, section 4):
//     the clicks c_1, ..., c_T of a SERP form a sequence, each step
//     depending on the previous click only (their first-order click
//     hypothesis), and between two adjacent clicks m = c_t-1 and n = c_t
//     the user examines the results in one direction, from m towards n
//     (their locally unidirectional examination hypothesis); a result is
//     clicked when examined and attractive (their examination and
//     attractiveness hypotheses, P(A = 1) = alpha per pair). The paper
//     gives the likelihood of a click sequence, not how a user picks the
//     next direction; this simulator's user does it so: from the start,
//     and after a click at m with probability 1 - Return, scans down from
//     m + 1, examining rank i with gamma_down(i, m), UBM's examination
//     below; after a click, with probability Return, scans up first from
//     m - 1 towards rank 1, examining rank i with gamma_up(i, m) =
//     ReturnExam / (1 + ExamDecay (m - i - 1)). The first examined and
//     attractive result of a scan is the next click n; a down scan that
//     reaches the bottom without one ends the SERP, an up scan that
//     reaches the top without one turns into a down scan from m. A
//     result already clicked is not examined again. Every step m -> n is
//     then PSCM's: the ranks between m and n (exclusive) examined with a
//     gamma of (i, m) and not clicked, n clicked, so the log's likelihood
//     is PSCM's with gamma_imn = gamma_down(i, m) for n below m (and the
//     end) and gamma_up(i, m) for n above, times the direction choices,
//     which hold no alpha. Two departures from the PSCM likelihood, both
//     only after a return: the ranks of an up scan that found nothing
//     are examined but PSCM does not see them, and results already
//     clicked are skipped where PSCM counts them as examined and not
//     clicked. With Return = 0 (NoReturns) no user returns, and the log
//     is UBM's with gamma[r][r'] = gamma_down(r, r'). The relevance is
//     alpha; clicks are written in the order the user made them (times
//     1, 2, ...).
//
// Its parameters are chosen unlike the first simulator's (which examines
// rank 1 with probability 0.97 falling geometrically by 0.8 per rank, DBN
// continuation 0.9, and keeps only SERPs with a click when logs go
// through ingest):
//
//   - UBM examination gamma[r][r'] = e / (1 + 0.45 (r - r' - 1)), e = 0.95
//     without a previous click and 0.85 after one: rank 1 is examined with
//     probability 0.95, rank 10 without a previous click with 0.19;
//   - DBN continuation 0.8;
//   - PSCM: examination going down as UBM's; after a click the user
//     scans up first with probability 0.4, examining the rank just above
//     with probability 0.7 (ReturnExam), less by the same decay as going
//     down; this makes about 30% of the SERPs with two clicks or more
//     clicked out of rank order, as the paper measured in two commercial
//     logs (27.9% and 30.4%, section 3);
//   - 30% of the lists are perturbed: ten documents of the query's pool of
//     fifteen in a random order, instead of the engine's ranking;
//   - queries drawn from a Zipf law (exponent 1.1);
//   - every SERP is its own session, and SERPs without a click are written
//     like the others (as in real logs);
//   - attractiveness 0.02 + 0.96 u^1.6 and satisfaction 0.05 + 0.9 u, u
//     uniform; the engine ranks a query's pool by attractiveness plus
//     Gaussian noise (standard deviation 0.2).
//
// A seeded simulation is byte-for-byte reproducible.
package refsim

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
)

// The models the simulator draws from.
const (
	UBM  = "ubm"
	DBN  = "dbn"
	PSCM = "pscm"
)

// Config describes a simulation. Zero fields take the defaults of
// Default.
type Config struct {
	Model   string // UBM, DBN or PSCM
	SERPs   int    // SERPs to write
	Queries int    // distinct queries
	Seed    uint64
	// Ranks is the length of every list (default 10); Pool the documents
	// of a query (default 15, at least Ranks).
	Ranks, Pool int
	// Perturbed is the share of lists shown in a random order (default
	// 0.3); ZipfS the exponent of the queries' popularity (default 1.1,
	// > 1).
	Perturbed, ZipfS float64
	// FirstExam and ExamAfterClick are UBM's examination of the rank just
	// below the previous click, without a previous click (default 0.95)
	// and after one (0.85); ExamDecay (default 0.45) lowers it with the
	// distance d = r - r' as e / (1 + ExamDecay (d - 1)).
	FirstExam, ExamAfterClick, ExamDecay float64
	// Continuation is DBN's gamma (default 0.8).
	Continuation float64
	// Return is PSCM's probability that a user scans up after a click
	// (default 0.4); NoReturns sets it to 0. ReturnExam is the
	// examination of the rank just above the previous click on the way
	// up (default 0.7), lowered by ExamDecay with the distance as going
	// down.
	Return, ReturnExam float64
	NoReturns          bool
}

// Default is the configuration of the package documentation for model,
// serps and queries.
func Default(model string, serps, queries int, seed uint64) Config {
	return Config{Model: model, SERPs: serps, Queries: queries, Seed: seed}.withDefaults()
}

func (c Config) withDefaults() Config {
	def := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	if c.Ranks == 0 {
		c.Ranks = 10
	}
	if c.Pool == 0 {
		c.Pool = max(15, c.Ranks)
	}
	def(&c.Perturbed, 0.3)
	def(&c.ZipfS, 1.1)
	def(&c.FirstExam, 0.95)
	def(&c.ExamAfterClick, 0.85)
	def(&c.ExamDecay, 0.45)
	def(&c.Continuation, 0.8)
	def(&c.Return, 0.4)
	def(&c.ReturnExam, 0.7)
	if c.NoReturns {
		c.Return = 0
	}
	return c
}

func (c Config) check() error {
	switch {
	case c.Model != UBM && c.Model != DBN && c.Model != PSCM:
		return fmt.Errorf("refsim: model %q: want %q, %q or %q", c.Model, UBM, DBN, PSCM)
	case c.SERPs < 1 || c.Queries < 1:
		return fmt.Errorf("refsim: %d SERPs over %d queries: want at least 1 of each", c.SERPs, c.Queries)
	case c.Ranks < 1 || c.Ranks > 64 || c.Pool < c.Ranks:
		return fmt.Errorf("refsim: lists of %d from pools of %d: want 1 to 64 ranks and a pool at least as large", c.Ranks, c.Pool)
	case !(c.Perturbed >= 0 && c.Perturbed <= 1):
		return fmt.Errorf("refsim: perturbed share %v outside [0, 1]", c.Perturbed)
	case !(c.ZipfS > 1):
		return fmt.Errorf("refsim: Zipf exponent %v: want > 1", c.ZipfS)
	}
	for _, p := range []float64{c.FirstExam, c.ExamAfterClick, c.Continuation, c.ReturnExam} {
		if !(p > 0 && p <= 1) {
			return fmt.Errorf("refsim: probability %v outside (0, 1]", p)
		}
	}
	if !(c.Return >= 0 && c.Return <= 1) {
		return fmt.Errorf("refsim: return probability %v outside [0, 1]", c.Return)
	}
	if !(c.ExamDecay >= 0) {
		return fmt.Errorf("refsim: examination decay %v: want >= 0", c.ExamDecay)
	}
	return nil
}

// Examination is UBM's gamma[r][prev] of c: the probability that rank r
// (1-based) is examined when the previous click was at rank prev (0: no
// click above r).
func (c Config) Examination(r, prev int) float64 {
	c = c.withDefaults()
	e := c.FirstExam
	if prev > 0 {
		e = c.ExamAfterClick
	}
	return e / (1 + c.ExamDecay*float64(r-prev-1))
}

// ExaminationUp is PSCM's gamma_up(r, prev) of c: the probability that a
// user scanning up from the click at rank prev examines rank r < prev
// (1-based).
func (c Config) ExaminationUp(r, prev int) float64 {
	c = c.withDefaults()
	return c.ReturnExam / (1 + c.ExamDecay*float64(prev-r-1))
}

// Pair is the truth of one (query, document) pair.
type Pair struct {
	Query, Doc string
	Attr, Sat  float64
	// Relevance is what a click model estimates: the attractiveness
	// under UBM and PSCM, attractiveness x satisfaction under DBN
	// (PSCM's logs leave Sat unused).
	Relevance float64
	Shown     int // SERPs that showed it
}

// Stats counts what a simulation wrote.
type Stats struct {
	SERPs         int `json:"serps"`
	ClicklessSERP int `json:"clickless_serps"`
	Clicks        int `json:"clicks"`
	Perturbed     int `json:"perturbed_serps"`
	// MultiClick are the SERPs with two clicks or more, OutOfOrder those
	// of them clicked out of rank order (PSCM's returns).
	MultiClick int `json:"multi_click_serps"`
	OutOfOrder int `json:"out_of_order_serps"`
}

// query is the truth and engine ranking of one query.
type query struct {
	id        string
	docs      []string
	attr, sat []float64
	ranking   []int // the engine's list: indices into docs
	shown     []int
}

// Simulate writes cfg's log to w in the Yandex relevance-prediction format
// (tab-separated; a SERP is `SessionID TimePassed Q QueryID RegionID URL...`
// followed by one `SessionID TimePassed C URL` line per click, in rank
// order, PSCM's in the order they were made, at times 1, 2, ...) and returns the truth of every pair of every query, in query
// then document order, and the counts.
func Simulate(ctx context.Context, cfg Config, w io.Writer) ([]Pair, Stats, error) {
	cfg = cfg.withDefaults()
	var st Stats
	if err := cfg.check(); err != nil {
		return nil, st, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed0f5ec0d5))
	qs := make([]*query, cfg.Queries)
	for i := range qs {
		q := &query{id: strconv.Itoa(i + 1), docs: make([]string, cfg.Pool), attr: make([]float64, cfg.Pool),
			sat: make([]float64, cfg.Pool), shown: make([]int, cfg.Pool)}
		score := make([]float64, cfg.Pool)
		for j := range q.docs {
			q.docs[j] = strconv.Itoa(100000 + i*cfg.Pool + j)
			q.attr[j] = 0.02 + 0.96*math.Pow(rng.Float64(), 1.6)
			q.sat[j] = 0.05 + 0.9*rng.Float64()
			score[j] = q.attr[j] + 0.2*rng.NormFloat64()
		}
		q.ranking = make([]int, cfg.Pool)
		for j := range q.ranking {
			q.ranking[j] = j
		}
		sort.SliceStable(q.ranking, func(a, b int) bool { return score[q.ranking[a]] > score[q.ranking[b]] })
		q.ranking = q.ranking[:cfg.Ranks]
		qs[i] = q
	}
	zipf := rand.NewZipf(rng, cfg.ZipfS, 1, uint64(cfg.Queries-1))
	bw := bufio.NewWriterSize(w, 1<<20)
	list := make([]int, cfg.Ranks)
	perm := make([]int, cfg.Pool)
	clicks := make([]bool, cfg.Ranks)
	order := make([]int, 0, cfg.Ranks) // the clicked ranks in time order
	var line []byte
	for n := range cfg.SERPs {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, st, err
			}
		}
		q := qs[zipf.Uint64()]
		if rng.Float64() < cfg.Perturbed {
			for j := range perm {
				perm[j] = j
			}
			rng.Shuffle(len(perm), func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
			copy(list, perm[:cfg.Ranks])
			st.Perturbed++
		} else {
			copy(list, q.ranking)
		}
		nc := 0
		order = order[:0]
		switch cfg.Model {
		case UBM:
			prev := 0
			for r := range list {
				d := list[r]
				clicks[r] = rng.Float64() < cfg.Examination(r+1, prev) && rng.Float64() < q.attr[d]
				if clicks[r] {
					prev = r + 1
					nc++
				}
			}
		case DBN:
			examined := true
			for r := range list {
				d := list[r]
				clicks[r] = false
				if !examined {
					continue
				}
				clicks[r] = rng.Float64() < q.attr[d]
				if clicks[r] {
					nc++
					if rng.Float64() < q.sat[d] {
						examined = false // satisfied: the user stops
						continue
					}
				}
				examined = rng.Float64() < cfg.Continuation
			}
		case PSCM:
			order = pscmClicks(cfg, rng, q.attr, list, clicks, order)
			nc = len(order)
		}
		if cfg.Model != PSCM {
			for r, c := range clicks {
				if c {
					order = append(order, r)
				}
			}
		}
		if nc > 1 {
			st.MultiClick++
			for i := 1; i < nc; i++ {
				if order[i] < order[i-1] {
					st.OutOfOrder++
					break
				}
			}
		}
		sid := strconv.Itoa(n + 1)
		line = append(line[:0], sid...)
		line = append(line, "\t0\tQ\t"...)
		line = append(line, q.id...)
		line = append(line, "\t0"...)
		for _, d := range list {
			line = append(line, '\t')
			line = append(line, q.docs[d]...)
			q.shown[d]++
		}
		line = append(line, '\n')
		for t, r := range order {
			line = append(line, sid...)
			line = append(line, '\t')
			line = strconv.AppendInt(line, int64(t+1), 10)
			line = append(line, "\tC\t"...)
			line = append(line, q.docs[list[r]]...)
			line = append(line, '\n')
		}
		if _, err := bw.Write(line); err != nil {
			return nil, st, err
		}
		st.SERPs++
		st.Clicks += nc
		if nc == 0 {
			st.ClicklessSERP++
		}
	}
	if err := bw.Flush(); err != nil {
		return nil, st, err
	}
	var truth []Pair
	for _, q := range qs {
		for j, d := range q.docs {
			p := Pair{Query: q.id, Doc: d, Attr: q.attr[j], Sat: q.sat[j], Relevance: q.attr[j], Shown: q.shown[j]}
			if cfg.Model == DBN {
				p.Relevance = q.attr[j] * q.sat[j]
			}
			truth = append(truth, p)
		}
	}
	return truth, st, nil
}

// pscmClicks draws the clicks of one SERP of PSCM's user (see the package
// documentation) on list, whose documents have attractiveness attr: it
// sets clicks[r] for every clicked rank r (0-based) and returns order
// holding the clicked ranks in the order of the clicks.
func pscmClicks(cfg Config, rng *rand.Rand, attr []float64, list []int, clicks []bool, order []int) []int {
	for r := range clicks {
		clicks[r] = false
	}
	// scan examines the ranks from r in steps of dir (+1 down, -1 up)
	// with examination exam(rank) (1-based ranks) and returns the first
	// rank examined and attractive, or -1.
	scan := func(r, dir int, exam func(int) float64) int {
		for ; r >= 0 && r < len(list); r += dir {
			if clicks[r] {
				continue // already clicked: not examined again
			}
			if rng.Float64() < exam(r+1) && rng.Float64() < attr[list[r]] {
				return r
			}
		}
		return -1
	}
	m := -1 // the previous click (0-based), -1 at the start
	for {
		n := -1
		if m >= 0 && rng.Float64() < cfg.Return {
			n = scan(m-1, -1, func(i int) float64 { return cfg.ExaminationUp(i, m+1) })
		}
		if n < 0 {
			n = scan(m+1, 1, func(i int) float64 { return cfg.Examination(i, m+1) })
		}
		if n < 0 {
			return order // the bottom reached without a click: the end
		}
		clicks[n] = true
		order = append(order, n)
		m = n
	}
}

// TruthHeader is the header line WriteTruth writes.
const TruthHeader = "query\tdoc\trelevance\tattractiveness\tsatisfaction\tshown"

// WriteTruth writes truth as a tab-separated file with TruthHeader.
func WriteTruth(w io.Writer, truth []Pair) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, TruthHeader)
	for _, p := range truth {
		fmt.Fprintf(bw, "%s\t%s\t%s\t%s\t%s\t%d\n", p.Query, p.Doc, strconv.FormatFloat(p.Relevance, 'g', -1, 64),
			strconv.FormatFloat(p.Attr, 'g', -1, 64), strconv.FormatFloat(p.Sat, 'g', -1, 64), p.Shown)
	}
	return bw.Flush()
}
