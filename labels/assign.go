package labels

import (
	"context"
	"fmt"
	"strconv"

	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/sessions"
)

// SERPChoice says which SERP of a query is its "first SERP" when the log
// shows the query several times with different result lists (the LOV index
// changes over time, so one query may have been answered differently).
type SERPChoice string

const (
	// MostFrequent picks the result list (its first SERPSize results) that
	// the log shows most often for the query; ties go to the list shown
	// first. This is the default: it is the page most users saw, and the
	// one the click model's estimates rest on.
	MostFrequent SERPChoice = "most-frequent"
	// Earliest picks the first full SERP of the query in log order.
	Earliest SERPChoice = "first"
)

// ParseSERPChoice parses "most-frequent" or "first".
func ParseSERPChoice(s string) (SERPChoice, error) {
	switch SERPChoice(s) {
	case MostFrequent, Earliest:
		return SERPChoice(s), nil
	}
	return "", fmt.Errorf("first-SERP choice %s: want %s or %s", textio.Quote(s), textio.Quote(string(MostFrequent)), textio.Quote(string(Earliest)))
}

// Options configure Assign.
type Options struct {
	Thresholds Thresholds // zero value means DefaultThresholds
	SERPSize   int        // results of a full first page; 0 means DefaultSERPSize
	Choice     SERPChoice // "" means MostFrequent
}

// withDefaults returns o with its zero fields set to their defaults.
func (o Options) withDefaults() Options {
	if o.Thresholds == (Thresholds{}) {
		o.Thresholds = DefaultThresholds()
	}
	if o.SERPSize <= 0 {
		o.SERPSize = DefaultSERPSize
	}
	if o.Choice == "" {
		o.Choice = MostFrequent
	}
	return o
}

// Label is one labelled (query, term) pair of a query's first SERP.
type Label struct {
	Query string
	Term  string  // result ID as in the log (LOV: prefixed name)
	Rank  int     // 1-based rank on the first SERP
	Grade int     // graded label, -2 or 0..4
	P     float64 // satisfaction probability the label comes from
	// Confidence is the probability, under the relevance estimate's
	// uncertainty, that the pair's relevance falls in the band of Grade;
	// NoConfidence where it was not computed.
	Confidence float64
	// Post is the posterior of the relevance the label comes from (zero
	// without one), for the order confidence (OrderAgreement); labels.csv
	// does not hold it.
	Post Posterior
}

// NoConfidence is the Confidence of a label whose confidence was not
// computed (written as an empty field in labels.csv).
const NoConfidence = -1.0

// Report says what Assign did, with every skipped record counted.
type Report struct {
	Thresholds      string `json:"thresholds"`
	FirstSERP       string `json:"first_serp"`
	SERPSize        int    `json:"serp_size"`
	RelevanceRows   int    `json:"relevance_rows"`
	LogQueries      int    `json:"log_queries"`
	LabelledQueries int    `json:"labelled_queries"`
	Labels          int    `json:"labels"`
	RowSkips        Skips  `json:"row_skips"`   // relevance rows without a label, per reason
	QuerySkips      Skips  `json:"query_skips"` // log queries left out, per reason
	// Distribution counts the labels per grade, beside LOVBench's shares of
	// its labelled first-page pairs (LOVBenchFirstPageShare), like with like.
	Distribution []DistRow `json:"distribution"`
}

// Assign labels the first SERP of every query of log from the relevance
// predictions rel (docs/method.md section 4). A query is kept only if every result
// of its first full SERP (opts.SERPSize results) has a relevance; its labels
// come out in rank order, queries in sorted order. Relevance rows whose
// query is not in the log, or whose doc is not on the query's first SERP,
// are counted in Report.RowSkips (name is the relevance file for the
// report); queries that are left out are counted in Report.QuerySkips.
func Assign(ctx context.Context, log *sessions.Log, rel []Relevance, name string, opts Options) ([]Label, Report, error) {
	return assign(ctx, log, nil, rel, name, opts)
}

// assign is Assign; noClick (by query ID, nil for none) marks the queries
// shown only in sessions without a click, left out as
// ReasonOnlyWithoutClick.
func assign(ctx context.Context, log *sessions.Log, noClick []bool, rel []Relevance, name string, opts Options) ([]Label, Report, error) {
	ls, rep, dups, err := assignRows(ctx, log, noClick, sliceRows(rel), name, opts)
	// rel from ReadRelevance holds no repeated (query, doc); any other
	// repeat is counted with the skipped rows, so every row is accounted
	// for.
	for _, p := range dups.Records {
		rep.RowSkips.AddRecord(p)
	}
	rep.RelevanceRows = len(rel)
	return ls, rep, err
}

// firstSERPs returns, per query ID, the first SERPSize doc IDs of its first
// SERP (SERPChoice), considering only SERPs with at least SERPSize results;
// nil for a query without such a SERP.
func firstSERPs(ctx context.Context, log *sessions.Log, opts Options) ([][]int32, error) {
	type cand struct {
		docs  []int32
		count int
		first int
	}
	best := make([][]int32, log.Queries.Len())
	perQuery := make(map[int32]map[string]*cand)
	var key []byte
	for i := range log.Len() {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		docs := log.SERPDocs(i)
		if len(docs) < opts.SERPSize {
			continue
		}
		docs = docs[:opts.SERPSize]
		q := log.Query[i]
		if opts.Choice == Earliest {
			if best[q] == nil {
				best[q] = docs
			}
			continue
		}
		key = key[:0]
		for _, d := range docs {
			key = strconv.AppendInt(key, int64(d), 10)
			key = append(key, ',')
		}
		m := perQuery[q]
		if m == nil {
			m = map[string]*cand{}
			perQuery[q] = m
		}
		c := m[string(key)]
		if c == nil {
			c = &cand{docs: docs, first: i}
			m[string(key)] = c
		}
		c.count++
	}
	if opts.Choice == Earliest {
		return best, nil
	}
	for q, m := range perQuery {
		var b *cand
		for _, c := range m {
			if b == nil || c.count > b.count || (c.count == b.count && c.first < b.first) {
				b = c
			}
		}
		best[q] = b.docs
	}
	return best, nil
}
