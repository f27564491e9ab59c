// Package sampling builds the LOVBench ground truth from the labelled first
// SERPs, LETOR style (LOVBench paper section 5.2, docs/method.md section 5): per
// query the (up to) 10 labelled SERP terms, plus terms that match the query
// but were not labelled, drawn at random with a seed and labelled
// non-relevant (0), so that queries have about 26 judgments on average as
// in LOVBench (73,950 judged + 110,274 sampled pairs for 7,395 queries).
// A labelled term keeps its label's confidence; a sampled term has none.
//
// Draws are order independent and reproducible: each candidate term gets a
// key from a 64-bit hash of (seed, query, term) and a query takes the terms
// with the smallest keys, so a query's sample depends only on the seed, the
// query, its candidate pool and the number of terms it is given, never on
// the order queries are processed in or on the Go version.
package sampling

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/lovbench/lovbench/internal/hashes"
	"github.com/lovbench/lovbench/labels"
)

// Candidates is what sampling needs from the corpus (package features):
// the terms matching a query (docs/method.md section 6; distinct URIs, any order;
// the slice is only read) and the resolution of a log result ID (a
// prefixed name such as foaf:Person, or a URI) to a term URI.
type Candidates interface {
	Matches(query string) []string
	Resolve(name string) (uri string, ok bool)
}

// DefaultPerQuery is LOVBench's average sample size per query:
// 184,224 pairs / 7,395 queries = 24.9, "~26" in the paper (section 5.2).
const DefaultPerQuery = 26

// Options configure Sample.
type Options struct {
	Seed uint64
	// PerQuery is the target average number of judgments per query
	// (labelled + sampled); 0 means DefaultPerQuery.
	PerQuery float64
}

// Row is one judged (query, term) pair of the ground truth.
type Row struct {
	Query   string
	Term    string // term URI
	Label   int
	Sampled bool // drawn from the query match (label 0), not labelled from the SERP
	// Confidence is the label's confidence (labels.Label.Confidence): the
	// probability, under the click model's uncertainty, that the pair's
	// relevance lies in the band of its label. labels.NoConfidence where it
	// is not known: for every sampled row (the log holds no evidence about
	// a term the engine did not show for the query; its label 0 is the
	// LETOR sampling convention, not an estimate) and for labels made
	// without a confidence.
	Confidence float64
}

// UnknownTerm is a labelled result that the corpus does not know, so it has
// no features and is left out of the ground truth.
type UnknownTerm struct {
	Name    string `json:"name"`
	Queries int    `json:"queries"` // how many queries labelled it
}

// Report says what Sample did.
type Report struct {
	Seed             uint64           `json:"seed"`
	PerQueryTarget   float64          `json:"per_query_target"`
	LabelledQueries  int              `json:"labelled_queries"` // queries in the labels file
	Queries          int              `json:"queries"`          // queries in the ground truth
	Labelled         int              `json:"labelled"`         // labelled pairs kept
	Sampled          int              `json:"sampled"`          // pairs drawn as label 0
	Rows             int              `json:"rows"`
	AveragePerQuery  float64          `json:"average_per_query"`
	Level            int              `json:"level"`              // per-query size the allocation filled up to (see Allocate)
	ExhaustedPools   int              `json:"exhausted_pools"`    // queries whose whole candidate pool was sampled
	UnknownLabelled  int              `json:"unknown_labelled"`   // labelled pairs whose term the corpus does not know (left out)
	DuplicateURIs    int              `json:"duplicate_uris"`     // labelled pairs whose term resolved to a URI already labelled for the query (first kept)
	NoKnownTerms     int              `json:"no_known_terms"`     // queries left out: none of their labelled terms is in the corpus
	QueriesNoMatches int              `json:"queries_no_matches"` // queries with an empty candidate pool
	UnknownTerms     []UnknownTerm    `json:"unknown_terms"`
	Distribution     []labels.DistRow `json:"distribution"`
}

type query struct {
	name     string
	labelled []Row
	matches  []string        // Matches(query), as returned
	exclude  map[string]bool // the labelled URIs
	pool     int             // matches that are not labelled
	seed     uint64
}

// Sample builds the ground truth from labels (in the order of a labels file:
// each query's rows in rank order) and the corpus c. Queries come out sorted;
// each query's labelled terms first (rank order), then its sampled terms in
// draw order. The sample sizes come from Allocate.
func Sample(ctx context.Context, ls []labels.Label, c Candidates, opts Options) ([]Row, Report, error) {
	if opts.PerQuery == 0 {
		opts.PerQuery = DefaultPerQuery
	}
	rep := Report{Seed: opts.Seed, PerQueryTarget: opts.PerQuery}
	if opts.PerQuery < 0 || math.IsNaN(opts.PerQuery) || math.IsInf(opts.PerQuery, 0) {
		return nil, rep, fmt.Errorf("sampling: per-query target %v is not a positive number", opts.PerQuery)
	}
	byName := map[string]*query{}
	var qs []*query
	unknown := map[string]int{}
	for _, l := range ls {
		q := byName[l.Query]
		if q == nil {
			q = &query{name: l.Query}
			byName[l.Query] = q
			qs = append(qs, q)
		}
		uri, ok := c.Resolve(l.Term)
		if !ok {
			rep.UnknownLabelled++
			unknown[l.Term]++
			continue
		}
		dup := false
		for _, r := range q.labelled {
			if r.Term == uri {
				dup = true
				break
			}
		}
		if dup {
			rep.DuplicateURIs++
			continue
		}
		q.labelled = append(q.labelled, Row{Query: l.Query, Term: uri, Label: l.Grade, Confidence: l.Confidence})
	}
	rep.LabelledQueries = len(qs)
	sort.Slice(qs, func(i, j int) bool { return qs[i].name < qs[j].name })
	kept := qs[:0]
	for i, q := range qs {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, rep, err
			}
		}
		if len(q.labelled) == 0 {
			rep.NoKnownTerms++
			continue
		}
		q.exclude = make(map[string]bool, len(q.labelled))
		for _, r := range q.labelled {
			q.exclude[r.Term] = true
		}
		q.matches = c.Matches(q.name)
		for _, u := range q.matches {
			if !q.exclude[u] {
				q.pool++
			}
		}
		if q.pool == 0 {
			rep.QueriesNoMatches++
		}
		q.seed = QuerySeed(opts.Seed, q.name)
		kept = append(kept, q)
	}
	qs = kept

	sizes := make([]Size, len(qs))
	for i, q := range qs {
		sizes[i] = Size{Labelled: len(q.labelled), Pool: q.pool, Key: q.seed}
	}
	takes, level := Allocate(sizes, opts.PerQuery)
	rep.Level = level

	var rows []Row
	for i, q := range qs {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, rep, err
			}
		}
		rows = append(rows, q.labelled...)
		rep.Labelled += len(q.labelled)
		drawn := draw(q.seed, q.matches, q.exclude, takes[i])
		for _, u := range drawn {
			rows = append(rows, Row{Query: q.name, Term: u, Label: 0, Sampled: true, Confidence: labels.NoConfidence})
		}
		rep.Sampled += len(drawn)
		if len(drawn) >= q.pool {
			rep.ExhaustedPools++
		}
		q.matches, q.exclude = nil, nil
	}
	rep.Queries = len(qs)
	rep.Rows = len(rows)
	if rep.Queries > 0 {
		rep.AveragePerQuery = float64(rep.Rows) / float64(rep.Queries)
	}
	for name, n := range unknown {
		rep.UnknownTerms = append(rep.UnknownTerms, UnknownTerm{Name: name, Queries: n})
	}
	sort.Slice(rep.UnknownTerms, func(i, j int) bool { return rep.UnknownTerms[i].Name < rep.UnknownTerms[j].Name })
	lab := make([]int, len(rows))
	for i, r := range rows {
		lab[i] = r.Label
	}
	rep.Distribution = labels.Distribution(lab)
	return rows, rep, nil
}

// Size is one query's input to Allocate.
type Size struct {
	Labelled int    // labelled terms
	Pool     int    // candidate terms available for sampling
	Key      uint64 // tie-break order for the last extra draws (QuerySeed)
}

// Allocate decides how many terms each query draws so that the average
// number of judgments per query is target, as closely as the pools allow
// (water filling):
//
//   - the budget is B = round(target x queries) - (labelled terms);
//   - at level L a query draws min(max(L - labelled, 0), pool) terms;
//     the largest L whose total stays within B is used;
//   - the R < queries draws left over go, one each, to the queries that could
//     still draw at level L+1, in ascending Key order.
//
// So every query is filled up to the same total size L (or L+1) unless its
// pool runs out, and the average is exactly target (to rounding) whenever
// the pools hold enough terms. It returns the draws per query and L.
func Allocate(sizes []Size, target float64) ([]int, int) {
	takes := make([]int, len(sizes))
	if len(sizes) == 0 {
		return takes, 0
	}
	labelled, maxL := 0, 0
	for _, s := range sizes {
		labelled += s.Labelled
		maxL = max(maxL, s.Labelled+s.Pool)
	}
	budget := int(math.Round(target*float64(len(sizes)))) - labelled
	if budget <= 0 {
		return takes, 0
	}
	at := func(s Size, level int) int { return min(max(level-s.Labelled, 0), s.Pool) }
	total := func(level int) int {
		t := 0
		for _, s := range sizes {
			t += at(s, level)
		}
		return t
	}
	// Largest level in [0, maxL] with total(level) <= budget (total is
	// non-decreasing in level).
	lo, hi := 0, maxL
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if total(mid) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	level := lo
	left := budget
	var grow []int
	for i, s := range sizes {
		takes[i] = at(s, level)
		left -= takes[i]
		if at(s, level+1) > takes[i] {
			grow = append(grow, i)
		}
	}
	// Ties of the 64-bit key (possible in principle) by input index, so
	// the order is total and reruns are byte-identical.
	sort.Slice(grow, func(a, b int) bool {
		ka, kb := sizes[grow[a]].Key, sizes[grow[b]].Key
		return ka < kb || ka == kb && grow[a] < grow[b]
	})
	for _, i := range grow {
		if left == 0 {
			break
		}
		takes[i]++
		left--
	}
	return takes, level
}

// keyedTerm is a candidate with its draw key.
type keyedTerm struct {
	key  uint64
	term string
}

// less orders candidates by key, then by term (a tie of 64-bit keys between
// different terms is possible in principle).
func (a keyedTerm) less(b keyedTerm) bool {
	return a.key < b.key || a.key == b.key && a.term < b.term
}

// draw is Draw over the terms of pool not in exclude. It keeps the k
// smallest candidates in a max-heap (O(n log k)), then sorts them.
func draw(qseed uint64, pool []string, exclude map[string]bool, k int) []string {
	if k <= 0 {
		return nil
	}
	h := make([]keyedTerm, 0, min(k, len(pool)))
	up := func(i int) {
		for i > 0 {
			p := (i - 1) / 2
			if !h[p].less(h[i]) {
				return
			}
			h[p], h[i] = h[i], h[p]
			i = p
		}
	}
	down := func(i int) {
		for {
			l, big := 2*i+1, i
			if l < len(h) && h[big].less(h[l]) {
				big = l
			}
			if r := l + 1; r < len(h) && h[big].less(h[r]) {
				big = r
			}
			if big == i {
				return
			}
			h[i], h[big] = h[big], h[i]
			i = big
		}
	}
	for _, t := range pool {
		if exclude[t] {
			continue
		}
		e := keyedTerm{TermKey(qseed, t), t}
		if len(h) == k && !e.less(h[0]) {
			continue
		}
		if slices.Contains(h, e) {
			continue // the same term twice
		}
		if len(h) < k {
			h = append(h, e)
			up(len(h) - 1)
		} else {
			h[0] = e
			down(0)
		}
	}
	slices.SortFunc(h, func(a, b keyedTerm) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return strings.Compare(a.term, b.term)
	})
	out := make([]string, len(h))
	for i, e := range h {
		out[i] = e.term
	}
	return out
}

// QuerySeed derives a query's seed from the run seed and the query text:
// splitmix64(seed XOR FNV-1a(query)) (hashes.Keyed).
func QuerySeed(seed uint64, query string) uint64 { return hashes.Keyed(seed, query) }

// TermKey is the random key of a term within a query's draw:
// splitmix64(qseed XOR FNV-1a(term)) (hashes.Keyed).
func TermKey(qseed uint64, term string) uint64 { return hashes.Keyed(qseed, term) }
