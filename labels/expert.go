package labels

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/internal/textio"
)

// Judgment is one expert judgment in the CBRBench ground-truth format
// (docs/method.md section 4): query, term URI, mean expert rating, rounded label.
type Judgment struct {
	Query  string
	Term   string
	Rating float64
	Label  int
	Line   int
}

// ReadExpert reads expert judgments in the CBRBench format: CSV rows
// `query,term URI,mean rating,label` without a header (a first row starting
// with "query" is taken as a header and skipped). The file may start with a
// UTF-8 byte order mark and use CR, CRLF or LF line endings (the CBRBench
// file has a BOM and CR endings). Queries are trimmed and lower-cased, as
// the log queries are normalised (docs/method.md section 2). Rows with a wrong
// number of fields, an empty query or term, or a rating or label that is not
// a number are skipped and counted; a repeated (query, term) keeps its first
// judgment and is counted as duplicate (same values) or
// conflicting_duplicate (the CBRBench file rates music/schema:MusicEvent
// both 1 and 2).
func ReadExpert(r io.Reader, name string) ([]Judgment, Skips, error) {
	var skips Skips
	cr := csv.NewReader(textio.NewLineReader(r))
	cr.FieldsPerRecord = -1
	type key struct{ q, t string }
	seen := map[key]int{}
	var out []Judgment
	for rec := 0; ; rec++ {
		f, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				skips.AddRecord(Problem{File: name, Line: pe.Line, Reason: ReasonMalformed, Detail: pe.Err.Error()})
				continue
			}
			return nil, skips, fmt.Errorf("%s: %w", name, err)
		}
		if rec == 0 && len(f) > 0 && strings.EqualFold(strings.TrimSpace(f[0]), "query") {
			continue
		}
		if len(f) != 4 {
			skips.AddRecord(Problem{File: name, Line: line, Reason: ReasonMalformed, Detail: fmt.Sprintf("%d fields, want 4 (query, term, rating, label)", len(f))})
			continue
		}
		q := strings.ToLower(strings.TrimSpace(f[0]))
		t := strings.TrimSpace(f[1])
		if q == "" || t == "" {
			field := "query"
			if q != "" {
				field = "term"
			}
			skips.AddRecord(Problem{File: name, Line: line, Field: field, Reason: ReasonEmptyField, Detail: "empty"})
			continue
		}
		rating, err := strconv.ParseFloat(strings.TrimSpace(f[2]), 64)
		if err != nil || math.IsNaN(rating) {
			skips.AddRecord(Problem{File: name, Line: line, Field: "rating", Reason: ReasonNotANumber, Detail: fmt.Sprintf("%s is not a number", textio.Quote(f[2]))})
			continue
		}
		label, err := strconv.Atoi(strings.TrimSpace(f[3]))
		if err != nil {
			skips.AddRecord(Problem{File: name, Line: line, Field: "label", Reason: ReasonNotANumber, Detail: fmt.Sprintf("%s is not an integer", textio.Quote(f[3]))})
			continue
		}
		k := key{q, t}
		if i, ok := seen[k]; ok {
			prev := out[i]
			if prev.Rating == rating && prev.Label == label {
				skips.AddRecord(Problem{File: name, Line: line, Reason: ReasonDuplicate, Detail: fmt.Sprintf("(%s, %s) repeats line %d", q, t, prev.Line)})
			} else {
				skips.AddRecord(Problem{File: name, Line: line, Reason: ReasonConflict, Detail: fmt.Sprintf("(%s, %s) rated %v (label %d) here and %v (label %d) on line %d; line %d kept", q, t, rating, label, prev.Rating, prev.Label, prev.Line, prev.Line)})
			}
			continue
		}
		seen[k] = len(out)
		out = append(out, Judgment{Query: q, Term: t, Rating: rating, Label: label, Line: line})
	}
	return out, skips, nil
}

// Resolver maps a result ID of the log (LOV: a prefixed name such as
// foaf:Person) to the full term URI the expert file uses.
type Resolver interface {
	Resolve(name string) (uri string, ok bool)
}

// QueryAgreement is the agreement of predictions and expert labels on one
// query (or, for the pooled row, on all matched pairs). Coefficients are nil
// when undefined (fewer than two pairs, or one side constant).
type QueryAgreement struct {
	Query   string   `json:"query"`
	Pairs   int      `json:"pairs"`
	Pearson *float64 `json:"pearson"`
	Kendall *float64 `json:"kendall_tau_b"`
}

// Agreement is the relevance prediction evaluation of LOVBench section 4.2.3.
type Agreement struct {
	PerQuery []QueryAgreement `json:"per_query"`
	// Pooled is computed over all matched pairs of all queries at once.
	Pooled QueryAgreement `json:"pooled"`
	// MeanPearson and MeanKendall average the defined per-query values.
	MeanPearson *float64 `json:"mean_pearson"`
	MeanKendall *float64 `json:"mean_kendall_tau_b"`
	// Unresolved counts predicted docs that are not terms of the corpus
	// (compared by their prefix expansion, or their own name); Unmatched
	// counts predictions of an expert query with no expert judgment for the
	// term.
	Unresolved int `json:"unresolved"`
	Unmatched  int `json:"unmatched"`
	// DuplicatePairs counts predictions that resolved to a (query, term)
	// already matched (two names for one URI): the first was kept.
	DuplicatePairs int `json:"duplicate_pairs"`
}

func ptr(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

// CompareExperts measures agreement between predicted satisfaction
// probabilities and expert labels (docs/method.md section 4): for every predicted
// (query, doc) whose query (trimmed, lower-cased) and resolved term URI have
// an expert judgment, the pair (probability, expert label) is kept; then
// RankPearson and KendallTauB are computed per query (sorted by query) and
// pooled over all pairs. res may be nil: docs are then compared as they are.
func CompareExperts(pred []Relevance, expert []Judgment, res Resolver) Agreement {
	type key struct{ q, t string }
	ex := make(map[key]int, len(expert))
	expertQueries := map[string]bool{}
	for _, j := range expert {
		ex[key{j.Query, j.Term}] = j.Label
		expertQueries[j.Query] = true
	}
	var a Agreement
	type pair struct{ p, l float64 }
	byQuery := map[string][]pair{}
	used := map[key]bool{}
	for _, r := range pred {
		q := strings.ToLower(strings.TrimSpace(r.Query))
		if !expertQueries[q] {
			continue
		}
		t := r.Doc
		if res != nil {
			// A name the corpus does not hold as a term may still expand
			// to a URI (known prefix): use the expansion, count it.
			u, ok := res.Resolve(r.Doc)
			if u != "" {
				t = u
			}
			if !ok {
				a.Unresolved++
			}
		}
		k := key{q, t}
		l, ok := ex[k]
		if !ok {
			a.Unmatched++
			continue
		}
		if used[k] {
			a.DuplicatePairs++
			continue
		}
		used[k] = true
		byQuery[q] = append(byQuery[q], pair{r.P, float64(l)})
	}
	queries := make([]string, 0, len(byQuery))
	for q := range byQuery {
		queries = append(queries, q)
	}
	sort.Strings(queries)
	var allP, allL []float64
	var sumP, sumK float64
	var nP, nK int
	for _, q := range queries {
		ps := byQuery[q]
		x, y := make([]float64, len(ps)), make([]float64, len(ps))
		for i, p := range ps {
			x[i], y[i] = p.p, p.l
		}
		allP, allL = append(allP, x...), append(allL, y...)
		qa := QueryAgreement{Query: q, Pairs: len(ps), Pearson: ptr(RankPearson(x, y)), Kendall: ptr(KendallTauB(x, y))}
		if qa.Pearson != nil {
			sumP += *qa.Pearson
			nP++
		}
		if qa.Kendall != nil {
			sumK += *qa.Kendall
			nK++
		}
		a.PerQuery = append(a.PerQuery, qa)
	}
	a.Pooled = QueryAgreement{Query: "(pooled)", Pairs: len(allP), Pearson: ptr(RankPearson(allP, allL)), Kendall: ptr(KendallTauB(allP, allL))}
	if nP > 0 {
		a.MeanPearson = ptr(sumP / float64(nP))
	}
	if nK > 0 {
		a.MeanKendall = ptr(sumK / float64(nK))
	}
	return a
}

// Published is LOVBench's agreement of one click model with CBRBench, as
// published with the LOVBench results (paper section 4.2.3; its Table 2
// truncates the Pearson values to 0.448, 0.282, 0.613).
type Published struct {
	Model   string
	Kendall float64
	Pearson float64
}

// LOVBenchAgreement returns LOVBench's published agreement with CBRBench for
// DCTR, DBN and UBM, for comparison with Agreement.
func LOVBenchAgreement() []Published {
	return []Published{
		{"DCTR", 0.354395604395604, 0.448051948051948},
		{"DBN", 0.239010989010989, 0.282467532467532},
		{"UBM", 0.461538461538462, 0.613636363636364},
	}
}

// FormatAgreement renders an agreement as a text table, with LOVBench's
// published values (LOVBenchAgreement) for comparison.
func FormatAgreement(a Agreement) string {
	var b strings.Builder
	f := func(p *float64) string {
		if p == nil {
			return "     n/a"
		}
		return fmt.Sprintf("%8.4f", *p)
	}
	fmt.Fprintf(&b, "%-24s %6s %8s %8s\n", "query", "pairs", "pearson", "kendall")
	for _, q := range a.PerQuery {
		fmt.Fprintf(&b, "%-24s %6d %s %s\n", q.Query, q.Pairs, f(q.Pearson), f(q.Kendall))
	}
	fmt.Fprintf(&b, "%-24s %6d %s %s\n", a.Pooled.Query, a.Pooled.Pairs, f(a.Pooled.Pearson), f(a.Pooled.Kendall))
	fmt.Fprintf(&b, "%-24s %6s %s %s\n", "(mean of queries)", "", f(a.MeanPearson), f(a.MeanKendall))
	for _, p := range LOVBenchAgreement() {
		fmt.Fprintf(&b, "%-24s %6s %8.4f %8.4f\n", "LOVBench "+p.Model, "", p.Pearson, p.Kendall)
	}
	return b.String()
}
