package sim

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/sessions"
)

// SERPSource supplies what a simulated user sees: for every simulated SERP
// a query and its ranked documents, and for every (query, document) pair
// its true parameters. Implementations must be deterministic given the
// random number generator they are passed (and their own construction), so
// that a seeded simulation is reproducible.
//
// SyntheticSource is the built-in implementation. A corpus-backed source
// (queries drawn from the label words of a vocabulary corpus with some
// popularity law, the SERP from a search engine over the corpus, the truth
// from a hidden relevance function) implements the same two methods.
type SERPSource interface {
	// Next returns the query and the documents, in rank order, of the next
	// SERP. rng is the simulation's generator; use it for every random
	// choice. The returned slice may be reused by the source on the next
	// call; at most MaxSERP documents, no duplicates.
	Next(rng *rand.Rand) (query string, docs []string, err error)
	// Truth returns the true attractiveness and satisfaction of doc for
	// query, both in (0, 1). It is called once per pair, the first time the
	// pair is shown. Models without satisfaction ignore it; CCM uses the
	// attractiveness as the probability of relevance after a click.
	Truth(query, doc string) (attr, sat float64)
}

// Config describes a simulation.
type Config struct {
	Kind   clickmodels.Kind // the model that generates the clicks
	SERPs  int              // number of SERPs to simulate
	Seed   uint64           // seed of the click and SERP draws
	Source SERPSource       // what is shown
	// Global optionally overrides the model's global parameters (layout of
	// Model.Global for the given Ranks); nil means DefaultGlobal.
	Global []float64
	// Ranks is R of the truth model (0: DefaultRanks); SERPs must not be
	// longer.
	Ranks int
	// ReturnAfterClick is the probability that a user who clicked a
	// result comes back to the same results page, which the log then
	// records as a new SERP of the same query with the same documents
	// (a search engine that logs every load of its results page, as LOV's
	// does when the browser goes back from a term's page). On the page the
	// user comes back to, the documents clicked since the page was first
	// shown have attractiveness 0: the user has read them. The user may
	// come back again after a new click. 0 never comes back; the extra
	// random draw is made only when it is above 0, so logs simulated
	// without it are unchanged. At most 1.
	ReturnAfterClick float64
}

// ExaminationGlobal returns the global parameters of a UBM or PBM truth
// model with R ranks whose examination probabilities fall geometrically:
//
//	UBM: exam[r][p] = first * decay^(r-p-1), p the previous click
//	     (-1, stored in column R-1, when none); unused cells 0.5
//	PBM: exam_r = first * decay^r
//
// (DefaultGlobal is first = 0.97, decay 0.8 for UBM and 0.95, 0.82 for
// PBM.) first and decay must lie in (0, 1]; other models have no
// examination parameters and give an error.
func ExaminationGlobal(k clickmodels.Kind, R int, first, decay float64) ([]float64, error) {
	if !(first > 0 && first <= 1) || !(decay > 0 && decay <= 1) {
		return nil, fmt.Errorf("examination: first %v and decay %v must lie in (0, 1]", first, decay)
	}
	if k != clickmodels.UBM && k != clickmodels.PBM {
		return nil, fmt.Errorf("examination: %v has no examination probabilities to set (clickmodels.UBM and clickmodels.PBM have)", k)
	}
	g := DefaultGlobal(k, R)
	setExamination(g, k, R, first, decay)
	return g, nil
}

// setExamination sets the examination probabilities of UBM's or PBM's
// global parameters g (R ranks) to first * decay^k (ExaminationGlobal).
func setExamination(g []float64, k clickmodels.Kind, R int, first, decay float64) {
	switch k {
	case clickmodels.UBM:
		for r := 0; r < R; r++ {
			for p := -1; p < r; p++ {
				col := p
				if p < 0 {
					col = R - 1
				}
				g[r*R+col] = first * math.Pow(decay, float64(r-p-1))
			}
		}
	case clickmodels.PBM:
		for r := range g {
			g[r] = first * math.Pow(decay, float64(r))
		}
	}
}

// DefaultGlobal returns the global parameters simulations use unless told
// otherwise, for a model of kind k with R ranks (layout of Model.Global):
//
//	GCTR: ctr 0.25;  RCTR: 0.6 * 0.85^r
//	PBM:  exam_r = 0.95 * 0.82^r
//	UBM:  exam[r][p] = 0.97 * 0.8^(r-p-1), p the previous click, p = -1
//	      (stored in column R-1) when none; unused cells (p >= r) 0.5
//	DCM:  lambda_r = 0.7 - 0.02 r
//	DBN:  gamma 0.9
//	CCM:  tau1 0.85, tau2 0.6, tau3 0.3
func DefaultGlobal(k clickmodels.Kind, R int) []float64 {
	g := make([]float64, k.GlobalParams(R))
	for i := range g {
		g[i] = clickmodels.Unseen
	}
	switch k {
	case clickmodels.GCTR:
		g[0] = 0.25
	case clickmodels.RCTR:
		for r := range g {
			g[r] = 0.6 * math.Pow(0.85, float64(r))
		}
	case clickmodels.PBM:
		setExamination(g, k, R, 0.95, 0.82)
	case clickmodels.UBM:
		setExamination(g, k, R, 0.97, 0.8)
	case clickmodels.DCM:
		for r := range g {
			g[r] = 0.7 - 0.02*float64(r)
		}
	case clickmodels.DBN:
		g[0] = 0.9
	case clickmodels.CCM:
		g[0], g[1], g[2] = 0.85, 0.6, 0.3
	}
	return g
}

// SERP is one simulated SERP, as handed to Simulate's callback. QueryID
// and DocIDs index the truth model's QueryNames and DocNames.
type SERP struct {
	Index   int
	Query   string
	Docs    []string
	QueryID int32
	DocIDs  []int32
	Clicks  uint64 // bit r set: rank r clicked
}

// Simulate draws cfg.SERPs SERPs from cfg.Source and clicks on them from
// the model cfg.Kind with the true parameters, calls emit for each in order
// (the SERP is reused afterwards), and returns the truth: a Model holding
// the true parameters of every pair shown (Iterations 0).
func Simulate(ctx context.Context, cfg Config, emit func(*SERP) error) (*clickmodels.Model, error) {
	R := cfg.Ranks
	if R == 0 {
		R = clickmodels.DefaultRanks
	}
	if R > clickmodels.MaxSERP {
		return nil, fmt.Errorf("simulate: %d ranks, at most %d supported", R, clickmodels.MaxSERP)
	}
	if cfg.Kind < 0 || int(cfg.Kind) >= len(clickmodels.AllKinds()) {
		return nil, fmt.Errorf("simulate: unknown model %v", cfg.Kind)
	}
	if cfg.Source == nil {
		return nil, fmt.Errorf("simulate: no SERP source")
	}
	g := cfg.Global
	if g == nil {
		g = DefaultGlobal(cfg.Kind, R)
	}
	if len(g) != cfg.Kind.GlobalParams(R) {
		return nil, fmt.Errorf("simulate: %d global parameters given, %v with %d ranks has %d", len(g), cfg.Kind, R, cfg.Kind.GlobalParams(R))
	}
	if !(cfg.ReturnAfterClick >= 0 && cfg.ReturnAfterClick <= 1) {
		return nil, fmt.Errorf("simulate: return-after-click probability %v, want 0 to 1", cfg.ReturnAfterClick)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x73696d756c617465))
	var queries, docs sessions.Dict
	var pairs pairIndex
	truth := &clickmodels.Model{Kind: cfg.Kind, Ranks: R, Global: g}
	var a, s [clickmodels.MaxSERP]float64
	serp := &SERP{}
	// Coming back to a page (ReturnAfterClick): back says the next SERP is
	// the page backQuery/backDocs again, read holds the ranks clicked on
	// it since it was first shown.
	var (
		back      bool
		backQuery string
		backDocs  []string
		read      uint64
	)
	for i := 0; i < cfg.SERPs; i++ {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		var q string
		var ds []string
		if back {
			// The same page again; its documents were copied below,
			// since the source may reuse its slice.
			q, ds = backQuery, backDocs
		} else {
			var err error
			q, ds, err = cfg.Source.Next(rng)
			if err != nil {
				return nil, fmt.Errorf("simulate: SERP %d: %w", i, err)
			}
			read = 0
			if cfg.ReturnAfterClick > 0 {
				backQuery, backDocs = q, append(backDocs[:0], ds...)
			}
		}
		if len(ds) == 0 || len(ds) > R {
			return nil, fmt.Errorf("simulate: SERP %d for query %q has %d documents, want 1 to %d", i, q, len(ds), R)
		}
		qid := queries.ID(q)
		serp.Index, serp.Query, serp.Docs, serp.QueryID = i, q, ds, qid
		serp.DocIDs = serp.DocIDs[:0]
		for r, d := range ds {
			did := docs.ID(d)
			serp.DocIDs = append(serp.DocIDs, did)
			p, ok := pairs.find(qid, did)
			if !ok {
				if q == "" || d == "" || strings.ContainsAny(q, "\t\r\n") || strings.ContainsAny(d, "\t\r\n") {
					return nil, fmt.Errorf("simulate: SERP %d: query %q or document %q is empty or holds a tab or line break", i, q, d)
				}
				ta, ts := cfg.Source.Truth(q, d)
				if !(ta > 0 && ta < 1 && ts > 0 && ts < 1) {
					return nil, fmt.Errorf("simulate: true parameters of (%q, %q) are %v, %v: want values in (0, 1)", q, d, ta, ts)
				}
				p = int32(len(truth.PairQuery))
				pairs.add(qid, did, p)
				truth.PairQuery = append(truth.PairQuery, qid)
				truth.PairDoc = append(truth.PairDoc, did)
				truth.Attr = append(truth.Attr, ta)
				truth.Sat = append(truth.Sat, ts)
			}
			for j := 0; j < r; j++ {
				if serp.DocIDs[j] == did {
					return nil, fmt.Errorf("simulate: SERP %d for query %q shows %q twice", i, q, d)
				}
			}
			a[r], s[r] = truth.Attr[p], truth.Sat[p]
			if read&(1<<uint(r)) != 0 {
				a[r] = 0 // clicked before the user came back
			}
		}
		serp.Clicks = drawClicks(cfg.Kind, rng, a[:len(ds)], s[:len(ds)], g, R)
		read |= serp.Clicks
		back = cfg.ReturnAfterClick > 0 && serp.Clicks != 0 && rng.Float64() < cfg.ReturnAfterClick
		if err := emit(serp); err != nil {
			return nil, err
		}
	}
	truth.QueryNames, truth.DocNames = queries.Names, docs.Names
	switch cfg.Kind.PairParams() {
	case 0:
		truth.Attr, truth.Sat = nil, nil
	case 1:
		truth.Sat = nil
	}
	return truth, nil
}

// pairIndex finds the index of a (query, document) pair among the pairs
// shown so far. A document is shown for few queries (the synthetic
// source's for one), so its first pairs are kept in a short list by
// document ID, which the simulation's hot loop scans instead of hashing
// the pair; a document's pairs beyond maxDocPairs go to a map.
type pairIndex struct {
	byDoc [][]docPair // [document ID]: its first maxDocPairs pairs
	more  map[[2]int32]int32
}

type docPair struct{ query, pair int32 }

const maxDocPairs = 8

func (x *pairIndex) find(qid, did int32) (int32, bool) {
	if int(did) >= len(x.byDoc) {
		return 0, false
	}
	l := x.byDoc[did]
	for _, dp := range l {
		if dp.query == qid {
			return dp.pair, true
		}
	}
	if len(l) == maxDocPairs {
		p, ok := x.more[[2]int32{qid, did}]
		return p, ok
	}
	return 0, false
}

// add records pair p of (qid, did), which find does not know.
func (x *pairIndex) add(qid, did, p int32) {
	for int(did) >= len(x.byDoc) {
		x.byDoc = append(x.byDoc, nil)
	}
	if len(x.byDoc[did]) < maxDocPairs {
		x.byDoc[did] = append(x.byDoc[did], docPair{qid, p})
		return
	}
	if x.more == nil {
		x.more = map[[2]int32]int32{}
	}
	x.more[[2]int32{qid, did}] = p
}

// drawClicks simulates one user on a SERP with attractiveness a and
// satisfaction s per rank, following each model's generative story
// (Chuklin et al. 2015, chapter 3).
func drawClicks(k clickmodels.Kind, rng *rand.Rand, a, s, g []float64, R int) uint64 {
	var clicks uint64
	bern := func(p float64) bool { return rng.Float64() < p }
	n := len(a)
	switch k {
	case clickmodels.GCTR, clickmodels.RCTR, clickmodels.DCTR, clickmodels.PBM:
		for r := 0; r < n; r++ {
			var p float64
			switch k {
			case clickmodels.GCTR:
				p = g[0]
			case clickmodels.RCTR:
				p = g[r]
			case clickmodels.DCTR:
				p = a[r]
			case clickmodels.PBM:
				p = g[r] * a[r]
			}
			if bern(p) {
				clicks |= 1 << uint(r)
			}
		}
	case clickmodels.UBM:
		prev := R - 1
		for r := 0; r < n; r++ {
			if bern(g[r*R+prev]) && bern(a[r]) {
				clicks |= 1 << uint(r)
				prev = r
			}
		}
	default: // cascade family: examine top-down until the user stops
		for r := 0; r < n; r++ {
			click := bern(a[r])
			if click {
				clicks |= 1 << uint(r)
			}
			var goOn float64
			switch k {
			case clickmodels.CM:
				goOn = 0
				if !click {
					goOn = 1
				}
			case clickmodels.DCM:
				goOn = 1
				if click {
					goOn = g[r]
				}
			case clickmodels.SDBN, clickmodels.DBN:
				cont := 1.0
				if k == clickmodels.DBN {
					cont = g[0]
				}
				goOn = cont
				if click && bern(s[r]) {
					goOn = 0
				}
			case clickmodels.CCM:
				goOn = g[0]
				if click {
					goOn = g[1]
					if bern(a[r]) { // relevant
						goOn = g[2]
					}
				}
			}
			if !bern(goOn) {
				break
			}
		}
	}
	return clicks
}

// SimulateYandex runs Simulate and writes the SERPs to w in the Yandex
// relevance-prediction format (docs/method.md section 1): SERP i is user session
// i, its Q line has TimePassed 0 and RegionID 0, and its clicks follow in
// rank order with TimePassed 1, 2, ...
func SimulateYandex(ctx context.Context, cfg Config, w io.Writer) (*clickmodels.Model, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	serp := sessions.SERP{Region: "0"}
	truth, err := Simulate(ctx, cfg, func(s *SERP) error {
		serp.SessionID = strconv.Itoa(s.Index)
		serp.Query, serp.Results, serp.Clicks = s.Query, s.Docs, serp.Clicks[:0]
		for r := range s.Docs {
			if s.Clicks&(1<<uint(r)) != 0 {
				serp.Clicks = append(serp.Clicks, sessions.Click{Rank: r, TimePassed: int64(len(serp.Clicks) + 1)})
			}
		}
		buf = sessions.AppendYandexBytes(buf[:0], &serp)
		_, err := bw.Write(buf)
		return err
	})
	if err != nil {
		return nil, err
	}
	return truth, bw.Flush()
}

// SimulateLog runs Simulate and returns the SERPs as an in-memory log,
// sharing the truth model's query and document dictionaries. To keep a
// 10-million-SERP log small, all SERPs belong to one user session named
// "simulated" (user sessions matter only to TimeSplit).
func SimulateLog(ctx context.Context, cfg Config) (*sessions.Log, *clickmodels.Model, error) {
	log := &sessions.Log{Offsets: make([]int64, 1, cfg.SERPs+1)}
	log.Sessions.ID("simulated")
	log.Query = make([]int32, 0, cfg.SERPs)
	log.Session = make([]int32, 0, cfg.SERPs)
	log.Clicks = make([]uint64, 0, cfg.SERPs)
	log.DocIDs = make([]int32, 0, cfg.SERPs*clickmodels.DefaultRanks)
	truth, err := Simulate(ctx, cfg, func(s *SERP) error {
		log.Query = append(log.Query, s.QueryID)
		log.Session = append(log.Session, 0)
		log.DocIDs = append(log.DocIDs, s.DocIDs...)
		log.Offsets = append(log.Offsets, int64(len(log.DocIDs)))
		log.Clicks = append(log.Clicks, s.Clicks)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for _, q := range truth.QueryNames {
		log.Queries.ID(q)
	}
	for _, d := range truth.DocNames {
		log.Docs.ID(d)
	}
	return log, truth, nil
}

// SyntheticConfig configures a SyntheticSource; start from
// DefaultSyntheticConfig.
type SyntheticConfig struct {
	Queries    int     // number of queries
	PoolSize   int     // documents per query
	SERPLength int     // results per SERP, at most PoolSize
	Shuffle    float64 // share of SERPs that show a random sample of the pool in random order
	ZipfS      float64 // Zipf exponent of query popularity, > 1
	Seed       uint64  // seed of the true parameters and default rankings
}

// DefaultSyntheticConfig returns 1000 queries, pools of 20 documents, SERPs
// of 10, 30% shuffled SERPs, Zipf exponent 1.1 and seed 1.
func DefaultSyntheticConfig() SyntheticConfig {
	return SyntheticConfig{Queries: 1000, PoolSize: 20, SERPLength: 10, Shuffle: 0.3, ZipfS: 1.1, Seed: 1}
}

// SyntheticSource is the built-in SERPSource: queries named q0, q1, ...
// with Zipf popularity, each with a pool of documents (named
// d<query*PoolSize+j>) whose true attractiveness and satisfaction are
// uniform in [0.02, 0.98]. A SERP shows the pool's best documents by
// attractiveness in order (the engine's default ranking) or, with
// probability Shuffle, a random sample of the pool in random order, so that
// position and document effects can be told apart (like the shared PyClick
// reference log).
type SyntheticSource struct {
	cfg       SyntheticConfig
	attr, sat [][]float64 // [query][pool index]
	ranking   [][]int     // default ranking per query
	qnames    []string
	dnames    [][]string
	zipf      *rand.Zipf
	zipfRNG   *rand.Rand
	perm      []int
	out       []string
}

// NewSyntheticSource draws the true parameters and default rankings.
func NewSyntheticSource(cfg SyntheticConfig) (*SyntheticSource, error) {
	switch {
	case cfg.Queries < 1:
		return nil, fmt.Errorf("synthetic source: %d queries, want at least 1", cfg.Queries)
	case cfg.PoolSize < 1:
		return nil, fmt.Errorf("synthetic source: pool of %d documents, want at least 1", cfg.PoolSize)
	case cfg.SERPLength < 1 || cfg.SERPLength > cfg.PoolSize || cfg.SERPLength > clickmodels.MaxSERP:
		return nil, fmt.Errorf("synthetic source: SERP length %d, want 1 to min(pool %d, %d)", cfg.SERPLength, cfg.PoolSize, clickmodels.MaxSERP)
	case !(cfg.Shuffle >= 0 && cfg.Shuffle <= 1):
		return nil, fmt.Errorf("synthetic source: shuffled share %v, want 0 to 1", cfg.Shuffle)
	case !(cfg.ZipfS > 1):
		return nil, fmt.Errorf("synthetic source: Zipf exponent %v, want > 1", cfg.ZipfS)
	}
	src := &SyntheticSource{cfg: cfg}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x74727574680a0a0a))
	nq, pool := cfg.Queries, cfg.PoolSize
	src.attr = make([][]float64, nq)
	src.sat = make([][]float64, nq)
	src.ranking = make([][]int, nq)
	src.qnames = make([]string, nq)
	src.dnames = make([][]string, nq)
	for q := 0; q < nq; q++ {
		src.qnames[q] = "q" + strconv.Itoa(q)
		src.attr[q] = make([]float64, pool)
		src.sat[q] = make([]float64, pool)
		src.dnames[q] = make([]string, pool)
		idx := make([]int, pool)
		for j := 0; j < pool; j++ {
			src.attr[q][j] = 0.02 + 0.96*rng.Float64()
			src.sat[q][j] = 0.02 + 0.96*rng.Float64()
			src.dnames[q][j] = "d" + strconv.Itoa(q*pool+j)
			idx[j] = j
		}
		// Default ranking: by attractiveness, best first (ties by index).
		sortByDesc(idx, src.attr[q])
		src.ranking[q] = idx[:cfg.SERPLength]
	}
	src.perm = make([]int, pool)
	return src, nil
}

func sortByDesc(idx []int, key []float64) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && (key[idx[j]] > key[idx[j-1]] || key[idx[j]] == key[idx[j-1]] && idx[j] < idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

// Next implements SERPSource.
func (src *SyntheticSource) Next(rng *rand.Rand) (string, []string, error) {
	if src.zipf == nil || src.zipfRNG != rng {
		src.zipf = rand.NewZipf(rng, src.cfg.ZipfS, 1, uint64(len(src.qnames)-1))
		src.zipfRNG = rng
	}
	q := int(src.zipf.Uint64())
	src.out = src.out[:0]
	if rng.Float64() < src.cfg.Shuffle {
		for j := range src.perm {
			src.perm[j] = j
		}
		for j := 0; j < src.cfg.SERPLength; j++ { // partial Fisher-Yates
			m := j + rng.IntN(len(src.perm)-j)
			src.perm[j], src.perm[m] = src.perm[m], src.perm[j]
			src.out = append(src.out, src.dnames[q][src.perm[j]])
		}
	} else {
		for _, j := range src.ranking[q] {
			src.out = append(src.out, src.dnames[q][j])
		}
	}
	return src.qnames[q], src.out, nil
}

// Truth implements SERPSource.
func (src *SyntheticSource) Truth(query, doc string) (float64, float64) {
	q, err := strconv.Atoi(query[1:])
	if err != nil || q < 0 || q >= len(src.qnames) {
		return math.NaN(), math.NaN()
	}
	j, err := strconv.Atoi(doc[1:])
	pool := len(src.attr[q])
	j -= q * pool
	if err != nil || j < 0 || j >= pool {
		return math.NaN(), math.NaN()
	}
	return src.attr[q][j], src.sat[q][j]
}

// Summary describes a simulated log in one line, for the provenance that
// travels with it (sessions.Provenance) and the dataset card: serps SERPs
// whose queries are drawn from a pool of pool queries by Zipf popularity
// (not every query of the pool appears: 2,000 SERPs from a pool of 400
// at exponent 1.1 show about 220 of them), clicks from the click model
// named model, and the seed.
func Summary(serps, pool int, model string, zipf float64, seed uint64) string {
	return fmt.Sprintf("%d SERPs with queries drawn from a pool of %d (Zipf exponent %g), clicks from %s, seed %d", serps, pool, zipf, strings.ToUpper(model), seed)
}

// DistinctQueries is the number of distinct queries of serps, the queries
// of the pool that a simulated log shows.
func DistinctQueries(serps []sessions.SERP) int {
	seen := map[string]bool{}
	for _, s := range serps {
		seen[s.Query] = true
	}
	return len(seen)
}

// ShuffleClickOrders gives a share of the SERPs of log with two or more
// clicks a random click order (drawn with rng; an order that comes out in
// rank order is left as it is) and returns their number: a log with
// returns up the page for PSCM from a log simulated in rank order
// (bench/clickmodels' -order, BenchmarkPSCMBesideUBM). log must have no
// click orders yet.
func ShuffleClickOrders(log *sessions.Log, share float64, rng *rand.Rand) int {
	var buf [sessions.MaxRanks]uint8
	n := 0
	for i := range log.Len() {
		if bits.OnesCount64(log.Clicks[i]) < 2 || rng.Float64() >= share {
			continue
		}
		o := sessions.RankOrder(buf[:0], log.Clicks[i])
		rng.Shuffle(len(o), func(a, b int) { o[a], o[b] = o[b], o[a] })
		if sessions.InRankOrder(o) {
			continue
		}
		if len(log.OrderOff) == 0 {
			log.OrderOff = append(log.OrderOff, 0)
		}
		log.OrderSERP = append(log.OrderSERP, int32(i))
		log.OrderRanks = append(log.OrderRanks, o...)
		log.OrderOff = append(log.OrderOff, int64(len(log.OrderRanks)))
		n++
	}
	return n
}
