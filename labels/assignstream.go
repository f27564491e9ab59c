package labels

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"sort"

	"github.com/lovbench/lovbench/sessions"
)

// assignStream is ReadRelevance followed by Assign on log (the first-SERP
// log of loadFirstSERPs), without holding the relevance rows: only the
// rows of the docs on the first SERPs are kept, plus per query the count of
// its other rows and the first MaxExamples of them (all that the report's
// examples can show; see below). Duplicates are found by a 128-bit hash of
// (query, doc). The labels and the two Skips equal those of the
// non-streaming path (TestAssignStream).
func assignStream(ctx context.Context, log *sessions.Log, r io.Reader, name string, opts Options) ([]Label, Report, Skips, error) {
	if opts.Thresholds == (Thresholds{}) {
		opts.Thresholds = DefaultThresholds()
	}
	if opts.SERPSize <= 0 {
		opts.SERPSize = 10
	}
	if opts.Choice == "" {
		opts.Choice = MostFrequent
	}
	var readSkips Skips
	rep := Report{Thresholds: opts.Thresholds.String(), FirstSERP: string(opts.Choice), SERPSize: opts.SERPSize}
	first, err := firstSERPs(ctx, log, opts)
	if err != nil {
		return nil, rep, readSkips, err
	}
	rep.LogQueries = log.Queries.Len()

	type row struct {
		p    float64
		line int
		doc  string
		used bool
	}
	type queryRows struct {
		onSERP  map[string]*row // rows of docs on the first SERP
		off     []row           // first MaxExamples other rows, in file order
		offN    int             // number of other rows
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
	err = scanRelevance(r, name, &readSkips, func(q, d string, p float64, line int) {
		k := [2]uint64{hash(&h1, q, d), hash(&h2, q, d)}
		if prev, ok := seen[k]; ok {
			readSkips.AddRecord(duplicateProblem(name, q, d, p, line, prev.p, prev.line))
			return
		}
		seen[k] = seenVal{p, line}
		valid++
		qid, ok := log.Queries.Lookup(q)
		if !ok {
			rep.RowSkips.AddRecord(Problem{File: name, Line: line, Field: "query", Reason: ReasonUnknownQuery, Detail: fmt.Sprintf("query %q is not in the sessions", q)})
			return
		}
		qr := &qrows[qid]
		qr.anyRows = true
		if serp, ok := first[qid]; ok {
			for _, doc := range serp {
				if log.Docs.Names[doc] == d {
					if qr.onSERP == nil {
						qr.onSERP = map[string]*row{}
					}
					qr.onSERP[d] = &row{p: p, line: line, doc: d}
					return
				}
			}
		}
		if len(qr.off) < MaxExamples {
			qr.off = append(qr.off, row{p: p, line: line, doc: d})
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
	var out []Label
	for _, q := range qids {
		if err := ctx.Err(); err != nil {
			return nil, rep, readSkips, err
		}
		qname := log.Queries.Names[q]
		qr := &qrows[q]
		serp, ok := first[q]
		kept := false
		switch {
		case !ok:
			rep.QuerySkips.Add(Problem{Reason: ReasonShortSERP, Detail: fmt.Sprintf("query %q: no SERP with %d results", qname, opts.SERPSize)})
		case !qr.anyRows:
			rep.QuerySkips.Add(Problem{Reason: "no_relevance", Detail: fmt.Sprintf("query %q has no relevance row", qname)})
		default:
			missing := ""
			for _, d := range serp {
				if qr.onSERP[log.Docs.Names[d]] == nil {
					missing = log.Docs.Names[d]
					break
				}
			}
			if missing != "" {
				rep.QuerySkips.Add(Problem{Reason: ReasonIncompleteSERP, Detail: fmt.Sprintf("query %q: %q on its first SERP has no relevance", qname, missing)})
				break
			}
			for i, d := range serp {
				dr := qr.onSERP[log.Docs.Names[d]]
				if dr.used {
					rep.RowSkips.Add(Problem{File: name, Line: dr.line, Reason: ReasonDuplicateOnSERP, Detail: fmt.Sprintf("query %q shows %q again at rank %d", qname, log.Docs.Names[d], i+1)})
					continue
				}
				dr.used = true
				out = append(out, Label{Query: qname, Term: log.Docs.Names[d], Rank: i + 1, Label: opts.Thresholds.Label(dr.p), P: dr.p})
			}
			rep.LabelledQueries++
			kept = true
		}
		// Rows of this query that got no label, in file order, as Assign
		// adds them. Rows after the MaxExamples-th kept "other" row can no
		// longer be examples (that reason's count already exceeds
		// MaxExamples by then), so they are only counted.
		var rest []row
		for _, dr := range qr.onSERP {
			if !dr.used {
				rest = append(rest, *dr)
			}
		}
		rest = append(rest, qr.off...)
		sort.Slice(rest, func(i, j int) bool { return rest[i].line < rest[j].line })
		reason, why := ReasonNotOnFirstSERP, "not on the query's first SERP"
		if !kept {
			reason, why = ReasonQueryDropped, "its query was left out (see query_skips)"
		}
		cutLine := -1 // line of the last kept other row when some were not kept
		if qr.offN > len(qr.off) {
			cutLine = qr.off[len(qr.off)-1].line
		}
		added := 0
		for _, u := range rest {
			if cutLine >= 0 && u.line > cutLine {
				break
			}
			rep.RowSkips.Add(Problem{File: name, Line: u.line, Reason: reason, Detail: fmt.Sprintf("(%s, %s): %s", qname, u.doc, why)})
			added++
		}
		rep.RowSkips.Count(reason, len(rest)+qr.offN-len(qr.off)-added)
	}
	rep.Labels = len(out)
	ls := make([]int, len(out))
	for i, l := range out {
		ls[i] = l.Label
	}
	rep.Distribution = Distribution(ls)
	return out, rep, readSkips, nil
}
