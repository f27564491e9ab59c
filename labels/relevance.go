package labels

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/internal/textio"
)

// Relevance is one predicted relevance: the satisfaction probability of doc
// for query, as `lovbench fit` writes it.
type Relevance struct {
	Query string
	Doc   string
	P     float64
	Line  int       // line in the input file (1-based, the header is line 1)
	Post  Posterior // zero in a file without intervals
}

// Posterior is the Beta(Alpha, Beta) distribution of a pair's relevance
// that `lovbench fit` writes next to it (docs/clickmodels.md,
// "Uncertainty"); the zero value means none.
type Posterior struct{ Alpha, Beta float64 }

// RelevanceHeader is the header of the relevance TSV of `lovbench fit --interval
// 0` (and of PyClick's relevance files, and of fits before the intervals).
const RelevanceHeader = clickmodels.RelevanceHeader

// RelevanceHeaderIntervals is the header of the relevance TSV of
// `lovbench fit` with intervals: query, doc, relevance, lower, upper,
// alpha, beta.
const RelevanceHeaderIntervals = clickmodels.RelevanceHeaderIntervals

// Skip reasons of ReadRelevance.
const (
	ReasonMalformed       = "malformed"             // not three (seven with intervals) tab-separated fields
	ReasonNotANumber      = "not_a_number"          // relevance not a number, or NaN ("NA" in PyClick's CM file)
	ReasonOutOfRange      = "out_of_range"          // relevance outside [0, 1]
	ReasonDuplicate       = "duplicate"             // same (query, doc) again with the same value: merged
	ReasonConflict        = "conflicting_duplicate" // same (query, doc) again with another value: first kept
	ReasonEmptyField      = "empty_field"           // query or doc empty
	ReasonUnknownQuery    = "unknown_query"         // query never shown in the sessions
	ReasonNotOnFirstSERP  = "not_on_first_serp"     // doc not on the query's first SERP: no label
	ReasonQueryDropped    = "query_not_labelled"    // the row's query was left out (see the query skips)
	ReasonShortSERP       = "short_serp"            // query's first SERP has fewer results than a full page
	ReasonIncompleteSERP  = "incomplete_serp"       // a result of the first SERP has no relevance
	ReasonDuplicateOnSERP = "duplicate_on_serp"     // the first SERP shows the same doc twice
	// ReasonOnlyWithoutClick: the query was shown only in sessions
	// without a click, which ingest keeps for the click models but
	// LOVBench's rule 1 keeps out of the benchmark: no label.
	ReasonOnlyWithoutClick = "only_sessions_without_click"
)

// ReadRelevance reads a relevance TSV (header RelevanceHeader, then
// query, doc, relevance per line; or header RelevanceHeaderIntervals and
// the interval and posterior after the relevance). A byte order mark and CR or CRLF line
// endings are accepted. Bad rows are skipped and counted in the returned
// Skips with file (name) and line: malformed lines, empty fields, values that
// are not numbers or NaN, values outside [0,1] (a posterior's alpha and
// beta must be positive and finite); a repeated (query, doc) keeps
// its first value and is counted as duplicate or conflicting_duplicate. A
// missing or wrong header is an error.
func ReadRelevance(r io.Reader, name string) ([]Relevance, Skips, error) {
	var skips Skips
	type key struct{ q, d string }
	seen := map[key]int{} // index into out
	var out []Relevance
	err := scanRelevance(r, name, &skips, func(q, d string, p float64, post Posterior, line int) {
		k := key{q, d}
		if i, ok := seen[k]; ok {
			skips.AddRecord(duplicateProblem(name, q, d, p, line, out[i].P, out[i].Line))
			return
		}
		q, d = strings.Clone(q), strings.Clone(d) // scanRelevance's are views
		seen[key{q, d}] = len(out)
		out = append(out, Relevance{Query: q, Doc: d, P: p, Line: line, Post: post})
	})
	if err != nil {
		return nil, skips, err
	}
	return out, skips, nil
}

// duplicateProblem is the skip of a repeated (query, doc) at line whose
// first occurrence had value prevP on line prevLine.
func duplicateProblem(name, q, d string, p float64, line int, prevP float64, prevLine int) Problem {
	if prevP == p {
		return Problem{File: name, Line: line, Reason: ReasonDuplicate, Detail: fmt.Sprintf("(%s, %s) repeats line %d", q, d, prevLine)}
	}
	return Problem{File: name, Line: line, Field: "relevance", Reason: ReasonConflict, Detail: fmt.Sprintf("(%s, %s) has %v here and %v on line %d; line %d kept", q, d, p, prevP, prevLine, prevLine)}
}

// scanRelevance reads a relevance TSV, records malformed rows in skips and
// calls fn for every well-formed row in file order (duplicates included).
// q and d are only valid during the call.
func scanRelevance(r io.Reader, name string, skips *Skips, fn func(q, d string, p float64, post Posterior, line int)) error {
	sc := bufio.NewScanner(textio.NewLineReader(r))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	line := 0
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return fmt.Errorf("%s:1: empty file, want header %s", name, textio.Quote(RelevanceHeader))
	}
	line++
	fields := 3
	switch h := strings.TrimSpace(sc.Text()); h {
	case RelevanceHeader:
	case RelevanceHeaderIntervals:
		fields = 7
	default:
		return fmt.Errorf("%s:1: header %s, want %s or %s", name, textio.Quote(h), textio.Quote(RelevanceHeader), textio.Quote(RelevanceHeaderIntervals))
	}
	for sc.Scan() {
		line++
		// The line is not copied: q and d are only valid during fn.
		b := sc.Bytes()
		text := unsafe.String(unsafe.SliceData(b), len(b))
		if strings.TrimSpace(text) == "" {
			continue
		}
		if n := strings.Count(text, "\t") + 1; n != fields {
			skips.AddRecord(Problem{File: name, Line: line, Reason: ReasonMalformed, Detail: fmt.Sprintf("%d tab-separated fields, want %d", n, fields)})
			continue
		}
		q, rest, _ := strings.Cut(text, "\t")
		d, v, _ := strings.Cut(rest, "\t")
		v, extra, _ := strings.Cut(v, "\t")
		v = strings.TrimSpace(v)
		if q == "" || d == "" {
			field := "query"
			if q != "" {
				field = "doc"
			}
			skips.AddRecord(Problem{File: name, Line: line, Field: field, Reason: ReasonEmptyField, Detail: "empty"})
			continue
		}
		p, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(p) {
			skips.AddRecord(Problem{File: name, Line: line, Field: "relevance", Reason: ReasonNotANumber, Detail: fmt.Sprintf("%s is not a number", textio.Quote(v))})
			continue
		}
		if p < 0 || p > 1 {
			skips.AddRecord(Problem{File: name, Line: line, Field: "relevance", Reason: ReasonOutOfRange, Detail: fmt.Sprintf("%v is outside [0,1]", p)})
			continue
		}
		var post Posterior
		if fields == 7 {
			var ok bool
			if post, ok = scanInterval(extra, name, line, skips); !ok {
				continue
			}
		}
		fn(q, d, p, post, line)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return nil
}

// scanInterval reads the fields after the relevance of a file with
// intervals: lower and upper (probabilities) and the posterior's alpha and
// beta (positive, finite). A bad field is recorded in skips.
func scanInterval(s, name string, line int, skips *Skips) (Posterior, bool) {
	var v [4]float64
	for i, field := range [4]string{"lower", "upper", "alpha", "beta"} {
		var f string
		f, s, _ = strings.Cut(s, "\t")
		f = strings.TrimSpace(f)
		x, err := strconv.ParseFloat(f, 64)
		switch {
		case err != nil || math.IsNaN(x):
			skips.AddRecord(Problem{File: name, Line: line, Field: field, Reason: ReasonNotANumber, Detail: fmt.Sprintf("%s is not a number", textio.Quote(f))})
			return Posterior{}, false
		case i < 2 && (x < 0 || x > 1):
			skips.AddRecord(Problem{File: name, Line: line, Field: field, Reason: ReasonOutOfRange, Detail: fmt.Sprintf("%v is outside [0,1]", x)})
			return Posterior{}, false
		case i >= 2 && !(x > 0 && x <= math.MaxFloat64):
			skips.AddRecord(Problem{File: name, Line: line, Field: field, Reason: ReasonOutOfRange, Detail: fmt.Sprintf("%v is not a positive finite number", x)})
			return Posterior{}, false
		}
		v[i] = x
	}
	return Posterior{Alpha: v[2], Beta: v[3]}, true
}
