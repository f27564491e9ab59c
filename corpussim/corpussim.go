// Package corpussim simulates the click log of a vocabulary search engine
// over a corpus (the demo's log and lovbench simulate --corpus): queries
// drawn from the words of term labels with Zipf popularity, each SERP the
// top results of a LOV-like search, and clicks from any click model of
// package clickmodels (drawn by package clickmodels/sim) whose true
// parameters come from a hidden relevance of each (query, term) pair
// (Source.TrueRelevance), so that the labels a run infers can be checked
// against it (docs/pipeline.md). It sits above both the simulator and
// features (it searches the corpus), not under clickmodels: the click
// models never reach the corpus.
package corpussim

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"

	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/features/democorpus"
	"github.com/lovbench/lovbench/sessions"
)

// Options configures a Source.
type Options struct {
	// Queries is the number of distinct queries.
	Queries int
	// SERPSize is the number of results per SERP (10 for LOV term search).
	SERPSize int
	// ZipfS is the exponent of the Zipf query popularity: the query of
	// popularity rank i is drawn with probability proportional to 1/i^ZipfS.
	ZipfS float64
	// Seed makes the choice of queries, their popularity order and the
	// hidden relevance noise deterministic.
	Seed uint64
	// SplitSatisfaction makes Truth return attractiveness = satisfaction =
	// sqrt(relevance), for models whose relevance is their product (DBN,
	// SDBN); otherwise attractiveness = relevance (DCTR, PBM, UBM, ...).
	SplitSatisfaction bool
}

// Searcher ranks the terms of a corpus for a query, best first, returning
// term URIs: the search engine whose SERPs users of the simulated log see
// (lovbench search; features.Corpus.Search).
type Searcher func(query string, k int) []string

// LOVSearch returns the Searcher of the corpus' LOV-like ranking
// (features.Corpus.Search with features.ByLOV, what `lovbench search`
// shows).
func LOVSearch(c *features.Corpus) Searcher {
	return func(q string, k int) []string {
		hits := c.Search(q, features.ByLOV, k)
		out := make([]string, len(hits))
		for i, h := range hits {
			out[i] = h.URI
		}
		return out
	}
}

// Source draws SERPs for a simulated log from a vocabulary corpus
// ("corpus mode"):
//
//   - Queries are words of term labels (rdfs:label, tokenised as the features
//     tokenise text) that match at least SERPSize terms, so every SERP is a
//     full first page; about one query in five is instead a two-word phrase of
//     a label. Candidates are ordered by a seeded shuffle, the first Queries
//     are kept, and the query at position i gets popularity 1/(i+1)^ZipfS.
//   - The SERP of a query is the top SERPSize terms of the Searcher, as term
//     URIs; it is the same every time the query is drawn (as on LOV, whose
//     ranking did not change within a month).
//   - The hidden true relevance of (query, term) is TrueRelevance; Truth
//     hands it to the click model as attractiveness (and satisfaction).
//
// Source implements sim.SERPSource, so sim.Simulate
// draws the clicks from any click model on it.
type Source struct {
	corpus  *features.Corpus
	opts    Options
	queries []string
	serps   [][]string
	cum     []float64 // cumulative popularity, last = 1
	vocabFX map[string]float64
}

// New selects the queries and computes their SERPs.
func New(ctx context.Context, c *features.Corpus, search Searcher, o Options) (*Source, error) {
	if o.Queries <= 0 {
		return nil, errors.New("corpus simulation: queries must be positive")
	}
	if o.SERPSize <= 0 {
		o.SERPSize = sessions.FullSERPTerm
	}
	if o.ZipfS <= 1 {
		return nil, fmt.Errorf("corpus simulation: Zipf exponent %g must be above 1", o.ZipfS)
	}
	s := &Source{corpus: c, opts: o, vocabFX: map[string]float64{}}
	cands, best, labelled := s.candidates()
	if len(cands) == 0 {
		if labelled == 0 {
			return nil, fmt.Errorf("corpus simulation: no term of the corpus (%d terms) has a label in English or without a language, so there is no query to draw; is the corpus empty?", len(c.Terms()))
		}
		return nil, fmt.Errorf("corpus simulation: no label word matches a full SERP of %d terms (%d terms have a label; the best word matches %d): give a SERP length of at most %d (simulate --serp-length; labels.serp_size in a run configuration), or a larger corpus", o.SERPSize, labelled, best, max(best, 1))
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x6c6f7662656e6368))
	rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	for _, q := range cands {
		if len(s.queries) == o.Queries {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		serp := search(q, o.SERPSize)
		if len(serp) < o.SERPSize {
			continue
		}
		s.queries = append(s.queries, q)
		s.serps = append(s.serps, serp[:o.SERPSize])
	}
	if len(s.queries) < o.Queries {
		return nil, fmt.Errorf("corpus simulation: the corpus yields only %d queries with a full SERP, %d asked", len(s.queries), o.Queries)
	}
	total := 0.0
	s.cum = make([]float64, len(s.queries))
	for i := range s.queries {
		total += 1 / math.Pow(float64(i+1), o.ZipfS)
		s.cum[i] = total
	}
	for i := range s.cum {
		s.cum[i] /= total
	}
	for _, v := range c.Vocabularies() {
		s.vocabFX[v.URI] = 0.5 * s.normal("vocab", v.URI)
	}
	return s, nil
}

// candidates returns the distinct candidate queries, sorted (the shuffle
// that follows makes the order random but seeded), the most terms a word
// or phrase of the labels matches (the longest full SERP the corpus
// allows) and the number of terms with a label in English or none, for
// the message when there is no candidate.
func (s *Source) candidates() (cands []string, best, labelled int) {
	df := map[string]int{}   // word -> terms whose label contains it
	phr := map[string]bool{} // two-word label phrases
	for _, uri := range s.corpus.Terms() {
		t, ok := s.corpus.Term(uri)
		if !ok {
			continue
		}
		counted := false
		seen := map[string]bool{}
		for _, l := range t.Labels {
			if l.Lang != "" && !strings.HasPrefix(l.Lang, "en") {
				continue
			}
			if !counted {
				labelled++
				counted = true
			}
			toks := features.Tokenize(l.Value)
			for i, w := range toks {
				if len([]rune(w)) >= 3 && !isDigits(w) && !seen[w] {
					seen[w] = true
					df[w]++
				}
				if i > 0 && len(toks) <= 4 && len([]rune(toks[i-1])) >= 3 && len([]rune(w)) >= 3 {
					phr[toks[i-1]+" "+w] = true
				}
			}
		}
	}
	var words, phrases []string
	for w, n := range df {
		if n < 2 {
			continue
		}
		m := s.corpus.MatchCount(w)
		best = max(best, m)
		if m >= s.opts.SERPSize {
			words = append(words, w)
		}
	}
	for p := range phr {
		m := s.corpus.MatchCount(p)
		best = max(best, m)
		if m >= s.opts.SERPSize {
			phrases = append(phrases, p)
		}
	}
	sort.Strings(words)
	sort.Strings(phrases)
	// One candidate in five a phrase, as far as phrases last.
	var out []string
	pi := 0
	for i, w := range words {
		out = append(out, w)
		if i%4 == 3 && pi < len(phrases) {
			out = append(out, phrases[pi])
			pi++
		}
	}
	return out, best, labelled
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Queries returns the simulated queries, most popular first.
func (s *Source) Queries() []string { return append([]string(nil), s.queries...) }

// Next picks a query by popularity with rng and returns it with its SERP
// (shared; do not modify). It implements sim.SERPSource.
func (s *Source) Next(rng *rand.Rand) (query string, serp []string, err error) {
	u := rng.Float64()
	i := sort.SearchFloat64s(s.cum, u)
	if i >= len(s.queries) {
		i = len(s.queries) - 1
	}
	return s.queries[i], s.serps[i], nil
}

// Truth implements sim.SERPSource: the click model's true
// attractiveness and satisfaction of a term for a query, derived from
// TrueRelevance so that the model's relevance (docs/method.md section 3) equals it.
func (s *Source) Truth(query, term string) (attr, sat float64) {
	r := s.TrueRelevance(query, term)
	if s.opts.SplitSatisfaction {
		r = math.Sqrt(r)
	}
	return r, r
}

// normal returns a standard normal deviate determined by the seed and the
// strings (FNV-1a hash, Box-Muller), so the hidden relevance of a pair does
// not depend on the order pairs are asked for.
func (s *Source) normal(parts ...string) float64 {
	h := fnv.New128a()
	var seed [8]byte
	binary.LittleEndian.PutUint64(seed[:], s.opts.Seed)
	h.Write(seed[:])
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	sum := h.Sum(nil)
	u1 := (float64(binary.LittleEndian.Uint64(sum[:8])>>11) + 0.5) / (1 << 53)
	u2 := float64(binary.LittleEndian.Uint64(sum[8:])>>11) / (1 << 53)
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// TrueRelevance is the hidden relevance in (0, 1) of a term (URI) for a
// query, the quantity the benchmark's labels should recover:
//
//	x = -3.2 + 2.2·name + 1.3·label + 0.4·comment + 0.4·[class]
//	    + v(vocabulary) + 0.6·e(query, term)
//	TrueRelevance = 1 / (1 + exp(-x))
//
// where name, label and comment are the shares of the query's words found
// among the words (features.Tokenize) of the term's local name, of its
// rdfs:label values and of its rdfs:comment values; [class] is 1 for a
// class; v is a per-vocabulary taste, 0.5 times a seeded standard normal
// deviate (users prefer some vocabularies); e is a seeded standard normal
// deviate per pair (what a term's text cannot tell). A term unknown to the
// corpus has relevance 1/(1+exp(3.2)) ≈ 0.039.
func (s *Source) TrueRelevance(query, term string) float64 {
	x := -3.2
	if t, ok := s.corpus.Term(term); ok {
		qw := features.Tokenize(query)
		if len(qw) > 0 {
			name := wordSet(features.Tokenize(features.LocalName(t.URI)))
			var lab, com []string
			for _, l := range t.Labels {
				lab = append(lab, features.Tokenize(l.Value)...)
			}
			for _, c := range t.Comments {
				com = append(com, features.Tokenize(c.Value)...)
			}
			x += 2.2*share(qw, name) + 1.3*share(qw, wordSet(lab)) + 0.4*share(qw, wordSet(com))
		}
		if t.Kind == features.Class {
			x += 0.4
		}
		x += s.vocabFX[t.Vocabulary] + 0.6*s.normal("pair", query, term)
	}
	return 1 / (1 + math.Exp(-x))
}

func wordSet(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

func share(q []string, set map[string]bool) float64 {
	n := 0
	for _, w := range q {
		if set[w] {
			n++
		}
	}
	return float64(n) / float64(len(q))
}

// Load loads a corpus and builds a Source over it with
// the LOV-like search (LOVSearch): what `lovbench simulate --corpus` needs.
// paths are files or directories of RDF (features.Load reads directories
// recursively, in sorted order); no paths means
// the embedded demo corpus (features/democorpus), materialised in a
// temporary directory that is removed again.
func Load(ctx context.Context, paths []string, opts features.LoadOptions, o Options) (*Source, error) {
	if len(paths) == 0 {
		tmp, err := os.MkdirTemp("", "lovbench-corpus-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		if paths, err = democorpus.Materialize(tmp); err != nil {
			return nil, err
		}
	}
	c, err := features.Load(ctx, paths, opts)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	return New(ctx, c, LOVSearch(c), o)
}
