// Package refsim is a second click simulator, written from the click
// models' definitions alone and independently of clickmodels/sim, so that
// the click-model stage of the LOVBench paper (section 4.2, "Relevance
// from clicks") can be checked on logs the project's own simulator did not
// make (issue 36, part 4). It imports nothing of the project: it writes
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
//   - DBN (Chapelle and Zhang 2009): a cascade. Rank 1 is examined; an
//     examined result is clicked with probability a (attractiveness); a
//     click satisfies with probability s (satisfaction); a satisfied user
//     stops, any other continues to the next rank with probability gamma
//     (the continuation). The relevance of a pair is a * s.
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
	UBM = "ubm"
	DBN = "dbn"
)

// Config describes a simulation. Zero fields take the defaults of
// Default.
type Config struct {
	Model   string // UBM or DBN
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
	return c
}

func (c Config) check() error {
	switch {
	case c.Model != UBM && c.Model != DBN:
		return fmt.Errorf("refsim: model %q: want %q or %q", c.Model, UBM, DBN)
	case c.SERPs < 1 || c.Queries < 1:
		return fmt.Errorf("refsim: %d SERPs over %d queries: want at least 1 of each", c.SERPs, c.Queries)
	case c.Ranks < 1 || c.Ranks > 64 || c.Pool < c.Ranks:
		return fmt.Errorf("refsim: lists of %d from pools of %d: want 1 to 64 ranks and a pool at least as large", c.Ranks, c.Pool)
	case !(c.Perturbed >= 0 && c.Perturbed <= 1):
		return fmt.Errorf("refsim: perturbed share %v outside [0, 1]", c.Perturbed)
	case !(c.ZipfS > 1):
		return fmt.Errorf("refsim: Zipf exponent %v: want > 1", c.ZipfS)
	}
	for _, p := range []float64{c.FirstExam, c.ExamAfterClick, c.Continuation} {
		if !(p > 0 && p <= 1) {
			return fmt.Errorf("refsim: probability %v outside (0, 1]", p)
		}
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

// Pair is the truth of one (query, document) pair.
type Pair struct {
	Query, Doc string
	Attr, Sat  float64
	// Relevance is what a click model estimates: the attractiveness
	// under UBM, attractiveness x satisfaction under DBN.
	Relevance float64
	Shown     int // SERPs that showed it
}

// Stats counts what a simulation wrote.
type Stats struct {
	SERPs         int `json:"serps"`
	ClicklessSERP int `json:"clickless_serps"`
	Clicks        int `json:"clicks"`
	Perturbed     int `json:"perturbed_serps"`
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
// order) and returns the truth of every pair of every query, in query
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
		t := 0
		for r, c := range clicks {
			if c {
				t++
				line = append(line, sid...)
				line = append(line, '\t')
				line = strconv.AppendInt(line, int64(t), 10)
				line = append(line, "\tC\t"...)
				line = append(line, q.docs[list[r]]...)
				line = append(line, '\n')
			}
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
