package measures

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/lovbench/lovbench/internal/textio"
)

// ParseError reports a malformed line of a qrels or run file, naming the
// file, the 1-based line number and the field.
type ParseError struct {
	File  string // file name as given
	Line  int    // 1-based line number
	Field string // name of the offending field, e.g. "score"
	Err   error  // what is wrong with it
}

// Error formats the error as "file:line: field: reason".
func (e *ParseError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: field %s: %v", e.File, e.Line, e.Field, e.Err)
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// Qrels are TREC relevance judgments: for each query, the grade of each
// judged document. Lines read "qid iter docid grade" (the iter column is
// ignored, as trec_eval ignores it).
type Qrels struct {
	grades map[string]map[string]float64
	ids    []string // query ids, sorted
}

// Queries returns the judged query ids in increasing (byte-wise) order.
func (q *Qrels) Queries() []string { return q.ids }

// Judged returns the grades of all judged documents of query qid, as read
// (a negative grade, trec_eval's unjudged marker, is kept: the measures give
// it gain 0 and never count it as relevant).
func (q *Qrels) Judged(qid string) map[string]float64 { return q.grades[qid] }

// ReadQrels reads a TREC qrels file.
func ReadQrels(path string) (*Qrels, error) {
	data, err := textio.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseQrelsBytes(data, path)
}

// splitFields splits a line on ASCII white space into dst, returning the
// number of fields found (it stops counting past len(dst)+1).
func splitFields(line string, dst []string) int {
	n := 0
	for i := 0; i < len(line); {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
			i++
		}
		if i == len(line) {
			break
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' && line[j] != '\r' {
			j++
		}
		if n < len(dst) {
			dst[n] = line[i:j]
		}
		n++
		if n > len(dst) {
			return n
		}
		i = j
	}
	return n
}

func parseNumber(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%s is not a number", textio.Quote(s))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s is not a finite number", textio.Quote(s))
	}
	return v, nil
}

// ParseQrels reads qrels lines "qid iter docid grade" from r; name is used
// in error messages. Blank lines are skipped. A grade below 0 (trec_eval's
// unjudged markers) is kept as read; the measures give it gain 0 and never
// count it as relevant. A document judged twice for the same
// query is an error.
func ParseQrels(r io.Reader, name string) (*Qrels, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return parseQrelsBytes(data, name)
}

// parseQrelsBytes parses a whole qrels file. It takes ownership of data,
// whose memory the query and document ids share (see parseRunBytes).
func parseQrelsBytes(data []byte, name string) (*Qrels, error) {
	q := &Qrels{grades: map[string]map[string]float64{}}
	data = textio.TrimBOM(data)
	text := unsafe.String(unsafe.SliceData(data), len(data))
	var f [4]string
	for line := 1; len(text) > 0; line++ {
		var l string
		l, text, _ = strings.Cut(text, "\n")
		n := splitFields(l, f[:])
		if n == 0 {
			continue
		}
		if n != 4 {
			return nil, &ParseError{name, line, "", fmt.Errorf("want 4 fields (qid iter docid grade), got %d", n)}
		}
		g, err := parseNumber(f[3])
		if err != nil {
			return nil, &ParseError{name, line, "grade", err}
		}
		m := q.grades[f[0]]
		if m == nil {
			m = map[string]float64{}
			q.grades[f[0]] = m
		}
		if _, dup := m[f[2]]; dup {
			return nil, &ParseError{name, line, "docid", fmt.Errorf("document %s judged twice for query %s", textio.Quote(f[2]), textio.Quote(f[0]))}
		}
		m[f[2]] = g
	}
	for id := range q.grades {
		q.ids = append(q.ids, id)
	}
	sort.Strings(q.ids)
	return q, nil
}

// Entry is one retrieved document of a run.
type Entry struct {
	Doc   string
	Score float64
	line  int // line of the run file, for error messages
}

// Run is a TREC run: for each query, its retrieved documents in trec_eval
// order (see ParseRun).
type Run struct {
	Name    string             // the file name or tag the run was read from
	ranking map[string][]Entry // qid -> entries in rank order
}

// Ranking returns the documents retrieved for qid in rank order.
func (r *Run) Ranking(qid string) []Entry { return r.ranking[qid] }

// Queries returns the query ids of the run in increasing order.
func (r *Run) Queries() []string {
	ids := make([]string, 0, len(r.ranking))
	for id := range r.ranking {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// ReadRun reads a TREC run file.
func ReadRun(path string) (*Run, error) {
	data, err := textio.ReadFile(path) // plain: sized from the file, no regrowth
	if err != nil {
		return nil, err
	}
	return parseRunBytes(data, path)
}

// ParseRun reads run lines "qid Q0 docid rank score tag" from r. As
// trec_eval does (form_res_rels.c, comp_sim_docno), the rank column is
// ignored and each query's documents are ordered by score descending, ties
// broken by docid in descending byte-wise (strcmp) order. The rank must
// still be an integer and the score a finite number. A document retrieved
// twice for the same query is an error, as in trec_eval.
func ParseRun(r io.Reader, name string) (*Run, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return parseRunBytes(data, name)
}

// parseRunBytes parses a whole run file. It takes ownership of data.
func parseRunBytes(data []byte, name string) (*Run, error) {
	// One string for the whole file, sharing data's memory (data is never
	// written again): the fields are substrings of it, so parsing neither
	// copies the file nor allocates per line.
	data = textio.TrimBOM(data)
	text := unsafe.String(unsafe.SliceData(data), len(data))
	chunks := lineChunks(text, runtime.GOMAXPROCS(0), parallelParseMin)
	parts := make([]map[string][]Entry, len(chunks))
	errs := make([]error, len(chunks))
	// Every chunk is parsed (no job fails the pool), so that the error
	// reported is always the earliest chunk's.
	parallelItems(len(chunks), func(i int) {
		c := chunks[i]
		parts[i], errs[i] = parseRunChunk(text[c.start:c.end], c.line, name)
	})
	for _, err := range errs {
		if err != nil { // the error of the earliest chunk, i.e. line
			return nil, err
		}
	}
	run := &Run{Name: name, ranking: parts[0]}
	for _, p := range parts[1:] {
		for q, es := range p {
			run.ranking[q] = append(run.ranking[q], es...)
		}
	}
	// Check and sort the queries in parallel; report the error of the
	// first query in sorted order so that it is always the same one.
	qids := run.Queries()
	qerrs := make([]error, len(qids))
	seed := maphash.MakeSeed()
	parallelChunks(len(qids), func(lo, hi int) {
		var buf []uint64
		for i := lo; i < hi; i++ {
			q := qids[i]
			es := run.ranking[q]
			var doc string
			var ok bool
			if doc, ok, buf = duplicate(es, seed, buf); ok {
				qerrs[i] = duplicateError(name, q, doc, es)
				continue
			}
			sortTREC(es)
		}
	})
	for _, err := range qerrs {
		if err != nil {
			return nil, err
		}
	}
	return run, nil
}

// chunk is a range of whole lines of a file; line is the number of its
// first line.
type chunk struct {
	start, end, line int
}

// parallelParseMin is the smallest run file parsed by several goroutines.
const parallelParseMin = 1 << 20

// lineChunks splits text into at most n ranges of whole lines of similar
// size; texts shorter than minSize make one range.
func lineChunks(text string, n, minSize int) []chunk {
	if n < 1 || len(text) < minSize {
		n = 1
	}
	var out []chunk
	start, line := 0, 1
	for k := 1; k <= n && start < len(text); k++ {
		end := len(text)
		if k < n {
			end = max(start, len(text)*k/n)
			if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
				end += i + 1
			} else {
				end = len(text)
			}
		}
		out = append(out, chunk{start, end, line})
		line += strings.Count(text[start:end], "\n")
		start = end
	}
	if len(out) == 0 {
		out = append(out, chunk{0, 0, 1})
	}
	return out
}

// parseRunChunk parses the run lines of text, whose first line has the
// number firstLine, into entries per query in file order.
func parseRunChunk(text string, firstLine int, name string) (map[string][]Entry, error) {
	ranking := map[string][]Entry{}
	var f [6]string
	var lastQ string
	var cur []Entry
	started := false
	for line := firstLine; len(text) > 0; line++ {
		var l string
		l, text, _ = strings.Cut(text, "\n")
		n := splitFields(l, f[:])
		if n == 0 {
			continue
		}
		if n != 6 {
			return nil, &ParseError{name, line, "", fmt.Errorf("want 6 fields (qid Q0 docid rank score tag), got %d", n)}
		}
		if _, err := strconv.ParseInt(f[3], 10, 64); err != nil {
			return nil, &ParseError{name, line, "rank", fmt.Errorf("%s is not an integer", textio.Quote(f[3]))}
		}
		s, err := parseNumber(f[4])
		if err != nil {
			return nil, &ParseError{name, line, "score", err}
		}
		if !started || f[0] != lastQ {
			if started {
				ranking[lastQ] = cur
			}
			started = true
			lastQ = f[0]
			cur = ranking[lastQ]
			if cur == nil {
				cur = make([]Entry, 0, 64)
			}
		}
		cur = append(cur, Entry{Doc: f[2], Score: s, line: line})
	}
	if started {
		ranking[lastQ] = cur
	}
	return ranking, nil
}

// duplicateError reports doc, retrieved twice for query q.
func duplicateError(name, q, doc string, es []Entry) error {
	first, second := 0, 0
	for _, e := range es {
		if e.Doc == doc {
			if first == 0 {
				first = e.line
			} else if second == 0 {
				second = e.line
			}
		}
	}
	return &ParseError{name, max(first, second), "docid", fmt.Errorf("document %s retrieved twice for query %s (also on line %d)", textio.Quote(doc), textio.Quote(q), min(first, second))}
}

// duplicate returns a document that occurs twice in es. It sorts 64-bit
// hashes of the docids (cheaper than sorting the strings) and compares the
// strings only when two hashes are equal.
func duplicate(es []Entry, seed maphash.Seed, buf []uint64) (string, bool, []uint64) {
	if len(es) < 2 {
		return "", false, buf
	}
	buf = buf[:0]
	for _, e := range es {
		buf = append(buf, maphash.String(seed, e.Doc))
	}
	slices.Sort(buf)
	for i := 1; i < len(buf); i++ {
		if buf[i] != buf[i-1] {
			continue
		}
		// Equal hashes: find the documents behind them.
		h := buf[i]
		seen := map[string]bool{}
		for _, e := range es {
			if maphash.String(seed, e.Doc) == h {
				if seen[e.Doc] {
					return e.Doc, true, buf
				}
				seen[e.Doc] = true
			}
		}
	}
	return "", false, buf
}

// sortTREC orders entries as trec_eval does: score descending, then docid
// descending (strcmp).
func sortTREC(es []Entry) {
	slices.SortFunc(es, func(a, b Entry) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(b.Doc, a.Doc)
	})
}
