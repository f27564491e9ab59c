package labels

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"sort"

	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/sessions"
)

// rowSource calls fn on every relevance row in file order, recording the
// rows it cannot read in skips. assignRows may call it twice.
type rowSource func(skips *Skips, fn func(q, d string, p float64, line int)) error

// fileRows reads the rows of the relevance file that open opens (name is
// its name for the report), afresh on every call.
func fileRows(open func() (io.ReadCloser, error), name string) rowSource {
	return func(skips *Skips, fn func(q, d string, p float64, line int)) error {
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
	return func(_ *Skips, fn func(q, d string, p float64, line int)) error {
		for _, r := range rel {
			fn(r.Query, r.Doc, r.P, r.Line)
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
// found by a 128-bit hash and counted in the returned read skips with the
// rows rows could not read.
func assignRows(ctx context.Context, log *sessions.Log, rows rowSource, name string, opts Options) ([]Label, Report, Skips, error) {
	opts = opts.withDefaults()
	var readSkips Skips
	rep := Report{Thresholds: opts.Thresholds.String(), FirstSERP: string(opts.Choice), SERPSize: opts.SERPSize}
	// The streamed first-SERP log has at most one SERP per query: its
	// full SERPs are the first SERPs under either choice, no counting
	// needed (firstSERPs' per-query maps would cost as much as the rest).
	var first map[int32][]int32
	oneEach := true
	seenQ := make([]bool, log.Queries.Len())
	for _, q := range log.Query {
		if seenQ[q] {
			oneEach = false
			break
		}
		seenQ[q] = true
	}
	seenQ = nil
	if oneEach {
		first = make(map[int32][]int32, log.Len())
		for i := range log.Len() {
			if docs := log.SERPDocs(i); len(docs) >= opts.SERPSize {
				first[log.Query[i]] = docs[:opts.SERPSize]
			}
		}
	} else {
		var err error
		if first, err = firstSERPs(ctx, log, opts); err != nil {
			return nil, rep, readSkips, err
		}
	}
	rep.LogQueries = log.Queries.Len()

	type row struct {
		p    float64
		line int32 // 0: no row
		used bool
	}
	type queryRows struct {
		onSERP  []row // by rank of the first SERP (a doc shown twice: its first rank)
		offN    int32 // rows of docs not on the first SERP
		anyRows bool
	}
	qrows := make([]queryRows, log.Queries.Len())
	type seenVal struct {
		p    float64
		line int
	}
	seen := map[[2]uint64]seenVal{}
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
	err := rows(&readSkips, func(q, d string, p float64, line int) {
		k := [2]uint64{hash(&h1, q, d), hash(&h2, q, d)}
		if prev, ok := seen[k]; ok {
			readSkips.AddRecord(duplicateProblem(name, q, d, p, line, prev.p, prev.line))
			return
		}
		seen[k] = seenVal{p, line}
		valid++
		qid, ok := log.Queries.Lookup(q)
		if !ok {
			rep.RowSkips.AddRecord(Problem{File: name, Line: line, Field: "query", Reason: ReasonUnknownQuery, Detail: fmt.Sprintf("query %s is not in the sessions", textio.Quote(q))})
			return
		}
		qr := &qrows[qid]
		qr.anyRows = true
		if serp, ok := first[qid]; ok {
			for i, doc := range serp {
				if log.Docs.Names[doc] == d {
					if qr.onSERP == nil {
						qr.onSERP = make([]row, len(serp))
					}
					qr.onSERP[i] = row{p: p, line: int32(line)}
					return
				}
			}
		}
		qr.offN++
	})
	seen = nil
	if err != nil {
		return nil, rep, readSkips, err
	}
	rep.RelevanceRows = valid

	qids := make([]int32, 0, log.Queries.Len())
	for q := range log.Queries.Len() {
		qids = append(qids, int32(q))
	}
	sort.Slice(qids, func(i, j int) bool { return log.Queries.Names[qids[i]] < log.Queries.Names[qids[j]] })
	// rowAt is the row of the doc at rank i of serp: the row stored at
	// the doc's first rank.
	rowAt := func(qr *queryRows, serp []int32, i int) *row {
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
	nLabels := 0 // an upper bound: every full first SERP labelled
	for _, serp := range first {
		nLabels += len(serp)
	}
	out := make([]Label, 0, nLabels)
	kept := make([]bool, log.Queries.Len())
	dups := map[int32][]Problem{} // duplicate_on_serp rows, added with the query's other skipped rows
	for _, q := range qids {
		if err := ctx.Err(); err != nil {
			return nil, rep, readSkips, err
		}
		qname := log.Queries.Names[q]
		qr := &qrows[q]
		serp, ok := first[q]
		switch {
		case !ok:
			rep.QuerySkips.Add(Problem{Reason: ReasonShortSERP, Detail: fmt.Sprintf("query %s: no SERP with %d results", textio.Quote(qname), opts.SERPSize)})
		case !qr.anyRows:
			rep.QuerySkips.Add(Problem{Reason: "no_relevance", Detail: fmt.Sprintf("query %s has no relevance row", textio.Quote(qname))})
		default:
			missing := ""
			for i, d := range serp {
				if rowAt(qr, serp, i) == nil {
					missing = log.Docs.Names[d]
					break
				}
			}
			if missing != "" {
				rep.QuerySkips.Add(Problem{Reason: ReasonIncompleteSERP, Detail: fmt.Sprintf("query %s: %s on its first SERP has no relevance", textio.Quote(qname), textio.Quote(missing))})
				break
			}
			for i, d := range serp {
				dr := rowAt(qr, serp, i)
				if dr.used {
					dups[q] = append(dups[q], Problem{File: name, Line: int(dr.line), Reason: ReasonDuplicateOnSERP, Detail: fmt.Sprintf("query %s shows %s again at rank %d", textio.Quote(qname), textio.Quote(log.Docs.Names[d]), i+1)})
					continue
				}
				dr.used = true
				out = append(out, Label{Query: qname, Term: log.Docs.Names[d], Rank: i + 1, Grade: opts.Thresholds.Label(dr.p), P: dr.p})
			}
			rep.LabelledQueries++
			kept[q] = true
		}
	}
	// Rows that got no label, per query in name order and in file order
	// within a query, as Assign adds them. Only the first MaxExamples of a
	// reason become examples, so only the first queries with such rows
	// need their rows read again (a second pass over the file); the
	// others are counted.
	reasonOf := func(q int32) (string, string) {
		if kept[q] {
			return ReasonNotOnFirstSERP, "not on the query's first SERP"
		}
		return ReasonQueryDropped, "its query was left out (see query_skips)"
	}
	unusedOf := func(q int32) int {
		n := int(qrows[q].offN)
		for _, r := range qrows[q].onSERP {
			if r.line != 0 && !r.used {
				n++
			}
		}
		return n
	}
	need := map[int32]bool{}
	seenN := map[string]int{}
	for _, q := range qids {
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
		err := rows(&dummy, func(q, d string, p float64, line int) {
			qid, ok := log.Queries.Lookup(q)
			if !ok || !need[qid] || dup[q+"\x00"+d] {
				return
			}
			dup[q+"\x00"+d] = true // first occurrence only, as the dedupe above
			if serp, ok := first[qid]; ok {
				for i, doc := range serp {
					if log.Docs.Names[doc] == d {
						if rr := rowAt(&qrows[qid], serp, i); rr != nil && rr.used {
							return
						}
						break
					}
				}
			}
			unusedRows[qid] = append(unusedRows[qid], unused{d, line})
		})
		if err != nil {
			return nil, rep, readSkips, err
		}
	}
	for _, q := range qids {
		for _, p := range dups[q] {
			rep.RowSkips.Add(p)
		}
		n := unusedOf(q)
		if n == 0 {
			continue
		}
		reason, why := reasonOf(q)
		added := 0
		for _, u := range unusedRows[q] {
			rep.RowSkips.Add(Problem{File: name, Line: u.line, Reason: reason, Detail: fmt.Sprintf("(%s, %s): %s", textio.Quote(log.Queries.Names[q]), textio.Quote(u.doc), why)})
			added++
		}
		rep.RowSkips.Count(reason, n-added)
	}
	rep.Labels = len(out)
	ls := make([]int, len(out))
	for i, l := range out {
		ls[i] = l.Grade
	}
	rep.Distribution = Distribution(ls)
	return out, rep, readSkips, nil
}
