package labels

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"sort"
	"strings"

	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/sessions"
)

// rowSource calls fn on every relevance row in file order, recording the
// rows it cannot read in skips. assignRows may call it twice. q and d
// are only valid during the call to fn.
type rowSource func(skips *Skips, fn func(q, d string, p float64, post Posterior, line int)) error

// fileRows reads the rows of the relevance file that open opens (name is
// its name for the report), afresh on every call.
func fileRows(open func() (io.ReadCloser, error), name string) rowSource {
	return func(skips *Skips, fn func(q, d string, p float64, post Posterior, line int)) error {
		r, err := open()
		if err != nil {
			return err
		}
		defer r.Close()
		return scanRelevance(r, name, skips, fn)
	}
}

// sliceRows yields rows already read.
func sliceRows(rel []Relevance) rowSource {
	return func(_ *Skips, fn func(q, d string, p float64, post Posterior, line int)) error {
		for _, r := range rel {
			fn(r.Query, r.Doc, r.P, r.Post, r.Line)
		}
		return nil
	}
}

// assignRows is the one labelling core of Assign and the streamed label
// stage: it labels the first SERP of every query of log from the rows of
// rows, without holding the rows: only those of the docs on the first
// SERPs are kept, plus per query the count of its other rows; the first
// MaxExamples rows of each skip reason (all that the report's examples can
// show) are found by a second pass over rows. A repeated (query, doc) is
// found by 96 bits of a 128-bit hash (hashTable) and counted in the
// returned read skips with the rows rows could not read. The phases:
// choose the first SERPs (firstSERPsOf), keep the rows of their docs
// (readRows), label the queries whose whole first SERP has rows
// (labelQueries), and account for every row that got no label
// (accountUnused).
func assignRows(ctx context.Context, log *sessions.Log, noClick []bool, rows rowSource, name string, opts Options) ([]Label, Report, Skips, error) {
	out := []Label{}
	rep, readSkips, err := assignRowsTo(ctx, log, nil, noClick, rows, name, opts, func(l Label) error {
		out = append(out, l)
		return nil
	})
	if err != nil {
		return nil, rep, readSkips, err
	}
	return out, rep, readSkips, nil
}

// assignRowsTo is assignRows handing each label to emit, in output order,
// instead of holding them all: `label` writes them as they come. docName
// turns the log's document IDs into names; nil reads log.Docs. noClick
// (by query ID; nil: none) marks the queries shown only in sessions
// without a click, which get no label (ReasonOnlyWithoutClick).
func assignRowsTo(ctx context.Context, log *sessions.Log, docName func(int32) string, noClick []bool, rows rowSource, name string, opts Options, emit func(Label) error) (Report, Skips, error) {
	opts = opts.withDefaults()
	var readSkips Skips
	if docName == nil {
		docName = func(id int32) string { return log.Docs.Names[id] }
	}
	st := &assigner{log: log, docName: docName, noClick: noClick, name: name, opts: opts,
		rep: Report{Thresholds: opts.Thresholds.String(), FirstSERP: string(opts.Choice), SERPSize: opts.SERPSize}}
	var err error
	if st.first, err = firstSERPsOf(ctx, log, opts); err != nil {
		return st.rep, readSkips, err
	}
	st.rep.LogQueries = log.Queries.Len()
	if err := st.readRows(rows, &readSkips); err != nil {
		return st.rep, readSkips, err
	}
	grades := map[int]int{}
	n := 0
	err = st.labelQueries(ctx, func(l Label) error {
		grades[l.Grade]++
		n++
		return emit(l)
	})
	if err != nil {
		return st.rep, readSkips, err
	}
	if err := st.accountUnused(rows); err != nil {
		return st.rep, readSkips, err
	}
	st.rep.Labels = n
	// First-page labels only: beside LOVBench's first-page shares, not
	// Table 4's shares of labelled plus sampled pairs.
	st.rep.Distribution = distributionOf(grades, n, LOVBenchFirstPageShare)
	return st.rep, readSkips, nil
}

// assigner is the state assignRows's phases share.
type assigner struct {
	log     *sessions.Log
	docName func(int32) string // a document ID's name
	noClick []bool             // by query: shown only in sessions without a click (nil: none)
	name    string             // the relevance file, for the report
	opts    Options
	rep     Report
	first   [][]int32   // by query: its first full SERP's docs, nil if none
	qrows   []queryRows // per query
	qids    []int32     // queries in name order
	kept    []bool      // per query: labelled
	dups    map[int32][]Problem
}

// row is a relevance row of a doc on a first SERP.
type row struct {
	p    float64
	post Posterior
	line int32 // 0: no row
	used bool
}

// queryRows are the rows of one query that readRows keeps.
type queryRows struct {
	onSERP  []row // by rank of the first SERP (a doc shown twice: its first rank)
	offN    int32 // rows of docs not on the first SERP
	anyRows bool
}

// rowAt is the row of the doc at rank i of serp: the row stored at the
// doc's first rank, nil if none.
func (qr *queryRows) rowAt(serp []int32, i int) *row {
	if qr.onSERP == nil {
		return nil
	}
	for j := 0; j <= i; j++ {
		if serp[j] == serp[i] {
			if qr.onSERP[j].line == 0 {
				return nil
			}
			return &qr.onSERP[j]
		}
	}
	return nil
}

// firstSERPsOf returns every query's first full SERP. The streamed
// first-SERP log has at most one SERP per query: its full SERPs are the
// first SERPs under either choice, no counting needed (firstSERPs'
// per-query maps would cost as much as the rest).
func firstSERPsOf(ctx context.Context, log *sessions.Log, opts Options) ([][]int32, error) {
	seenQ := make([]bool, log.Queries.Len())
	for _, q := range log.Query {
		if seenQ[q] {
			return firstSERPs(ctx, log, opts)
		}
		seenQ[q] = true
	}
	first := make([][]int32, log.Queries.Len())
	for i := range log.Len() {
		if docs := log.SERPDocs(i); len(docs) >= opts.SERPSize {
			first[log.Query[i]] = docs[:opts.SERPSize]
		}
	}
	return first, nil
}

// readRows reads every row once: a repeated (query, doc) goes to
// readSkips, a row of an unknown query to the report's row skips; a row
// of a doc on its query's first SERP is kept, the others counted. A row
// of a doc on a first SERP is a repeat if its SERP slot is taken; only
// the other rows go through the table of pairs seen (hashTable: 96 bits
// of a 128-bit hash, 24 bytes a slot, where a Go map of the same took
// about 75 bytes a pair).
func (st *assigner) readRows(rows rowSource, readSkips *Skips) error {
	log := st.log
	st.qrows = make([]queryRows, log.Queries.Len())
	// The pairs seen off the first SERPs: the line (i) and relevance (v)
	// of their first row.
	var seen hashTable[float64]
	var h1, h2 maphash.Hash
	h1.SetSeed(maphash.MakeSeed())
	h2.SetSeed(maphash.MakeSeed())
	var lenBuf [8]byte
	hash := func(h *maphash.Hash, q, d string) uint64 {
		h.Reset()
		binary.LittleEndian.PutUint64(lenBuf[:], uint64(len(q)))
		h.Write(lenBuf[:])
		h.WriteString(q)
		h.WriteString(d)
		return h.Sum64()
	}
	valid := 0
	err := rows(readSkips, func(q, d string, p float64, post Posterior, line int) {
		qid, known := log.Queries.Lookup(q)
		rank := -1 // of d on the query's first SERP
		if known {
			for i, doc := range st.first[qid] {
				if st.docName(doc) == d {
					rank = i
					break
				}
			}
		}
		if rank >= 0 {
			if on := st.qrows[qid].onSERP; on != nil && on[rank].line != 0 {
				readSkips.AddRecord(duplicateProblem(st.name, q, d, p, line, on[rank].p, int(on[rank].line)))
				return
			}
		} else {
			prev, ok := seen.slot(hash(&h1, q, d), hash(&h2, q, d))
			if ok {
				readSkips.AddRecord(duplicateProblem(st.name, q, d, p, line, prev.v, int(prev.i)))
				return
			}
			prev.i, prev.v = int32(line), p
		}
		valid++
		if !known {
			st.rep.RowSkips.AddRecord(Problem{File: st.name, Line: line, Field: "query", Reason: ReasonUnknownQuery, Detail: fmt.Sprintf("query %s is not in the sessions", textio.Quote(q))})
			return
		}
		qr := &st.qrows[qid]
		qr.anyRows = true
		if rank >= 0 {
			if qr.onSERP == nil {
				qr.onSERP = make([]row, len(st.first[qid]))
			}
			qr.onSERP[rank] = row{p: p, post: post, line: int32(line)}
			return
		}
		qr.offN++
	})
	st.rep.RelevanceRows = valid
	return err
}

// labelQueries labels, in query name order, every query whose first SERP
// has a row for each doc; the others go to the report's query skips. A
// doc shown twice is labelled at its first rank and its later ranks noted
// as duplicate_on_serp.
func (st *assigner) labelQueries(ctx context.Context, emit func(Label) error) error {
	log := st.log
	st.qids = make([]int32, 0, log.Queries.Len())
	for q := range log.Queries.Len() {
		st.qids = append(st.qids, int32(q))
	}
	sort.Slice(st.qids, func(i, j int) bool { return log.Queries.Names[st.qids[i]] < log.Queries.Names[st.qids[j]] })
	st.kept = make([]bool, log.Queries.Len())
	st.dups = map[int32][]Problem{} // duplicate_on_serp rows, added with the query's other skipped rows
	for _, q := range st.qids {
		if err := ctx.Err(); err != nil {
			return err
		}
		qname := log.Queries.Names[q]
		qr := &st.qrows[q]
		serp := st.first[q]
		switch {
		case st.noClick != nil && st.noClick[q]:
			st.rep.QuerySkips.Add(Problem{Reason: ReasonOnlyWithoutClick, Detail: fmt.Sprintf("query %s was shown only in sessions without a click (LOVBench's rule 1)", textio.Quote(qname))})
		case serp == nil:
			st.rep.QuerySkips.Add(Problem{Reason: ReasonShortSERP, Detail: fmt.Sprintf("query %s: no SERP with %d results", textio.Quote(qname), st.opts.SERPSize)})
		case !qr.anyRows:
			st.rep.QuerySkips.Add(Problem{Reason: "no_relevance", Detail: fmt.Sprintf("query %s has no relevance row", textio.Quote(qname))})
		default:
			missing := ""
			for i, d := range serp {
				if qr.rowAt(serp, i) == nil {
					missing = st.docName(d)
					break
				}
			}
			if missing != "" {
				st.rep.QuerySkips.Add(Problem{Reason: ReasonIncompleteSERP, Detail: fmt.Sprintf("query %s: %s on its first SERP has no relevance", textio.Quote(qname), textio.Quote(missing))})
				break
			}
			for i, d := range serp {
				dr := qr.rowAt(serp, i)
				if dr.used {
					st.dups[q] = append(st.dups[q], Problem{File: st.name, Line: int(dr.line), Reason: ReasonDuplicateOnSERP, Detail: fmt.Sprintf("query %s shows %s again at rank %d", textio.Quote(qname), textio.Quote(st.docName(d)), i+1)})
					continue
				}
				dr.used = true
				g := st.opts.Thresholds.Label(dr.p)
				if err := emit(Label{Query: qname, Term: st.docName(d), Rank: i + 1, Grade: g, P: dr.p, Confidence: st.opts.Thresholds.Confidence(g, dr.post), Post: dr.post}); err != nil {
					return err
				}
			}
			st.rep.LabelledQueries++
			st.kept[q] = true
		}
	}
	return nil
}

// accountUnused adds the rows that got no label to the report's row
// skips, per query in name order and in file order within a query, as
// Assign adds them. Only the first MaxExamples of a reason become
// examples, so only the first queries with such rows need their rows read
// again (a second pass over rows); the others are counted.
func (st *assigner) accountUnused(rows rowSource) error {
	log := st.log
	reasonOf := func(q int32) (string, string) {
		if st.kept[q] {
			return ReasonNotOnFirstSERP, "not on the query's first SERP"
		}
		return ReasonQueryDropped, "its query was left out (see query_skips)"
	}
	unusedOf := func(q int32) int {
		n := int(st.qrows[q].offN)
		for _, r := range st.qrows[q].onSERP {
			if r.line != 0 && !r.used {
				n++
			}
		}
		return n
	}
	need := map[int32]bool{}
	seenN := map[string]int{}
	for _, q := range st.qids {
		if n := unusedOf(q); n > 0 {
			reason, _ := reasonOf(q)
			if seenN[reason] < MaxExamples {
				need[q] = true
			}
			seenN[reason] += n
		}
	}
	type unused struct {
		doc  string
		line int
	}
	unusedRows := map[int32][]unused{}
	if len(need) > 0 {
		var dummy Skips
		dup := map[string]bool{}
		err := rows(&dummy, func(q, d string, p float64, _ Posterior, line int) {
			qid, ok := log.Queries.Lookup(q)
			if !ok || !need[qid] || dup[q+"\x00"+d] {
				return
			}
			dup[q+"\x00"+d] = true // first occurrence only, as the dedupe above
			if serp := st.first[qid]; serp != nil {
				for i, doc := range serp {
					if st.docName(doc) == d {
						if rr := st.qrows[qid].rowAt(serp, i); rr != nil && rr.used {
							return
						}
						break
					}
				}
			}
			unusedRows[qid] = append(unusedRows[qid], unused{strings.Clone(d), line})
		})
		if err != nil {
			return err
		}
	}
	for _, q := range st.qids {
		for _, p := range st.dups[q] {
			st.rep.RowSkips.Add(p)
		}
		n := unusedOf(q)
		if n == 0 {
			continue
		}
		reason, why := reasonOf(q)
		added := 0
		for _, u := range unusedRows[q] {
			st.rep.RowSkips.Add(Problem{File: st.name, Line: u.line, Reason: reason, Detail: fmt.Sprintf("(%s, %s): %s", textio.Quote(log.Queries.Names[q]), textio.Quote(u.doc), why)})
			added++
		}
		st.rep.RowSkips.Count(reason, n-added)
	}
	return nil
}
