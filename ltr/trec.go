package ltr

import (
	"bufio"
	"io"
	"strconv"
)

// WriteRun scores every query of ds with m and writes a TREC run:
//
//	qid Q0 docid rank score tag
//
// one line per document, queries in file order, documents by decreasing
// score, ties by docid descending (trec_eval's order, so the rank column
// agrees with what trec_eval and lovbench eval compute), rank from 1. The
// docid is read from the line's comment by Doc.DocID (LETOR's
// "#docid = X ..." or lovbench's "# query term") or, for a line without a
// comment, is "row" followed by the 1-based data line number. A comment
// DocID cannot read is an error naming the file and line.
func WriteRun(w io.Writer, ds *Dataset, m *Model, tag string) error {
	// Read every docid first, so that a bad comment fails before any
	// output.
	ids := make([][]string, len(ds.Queries))
	for qi := range ds.Queries {
		q := &ds.Queries[qi]
		ids[qi] = make([]string, len(q.Docs))
		for di := range q.Docs {
			d := &q.Docs[di]
			id, err := d.runID()
			if err != nil {
				return &ParseError{File: ds.Name, Line: d.Line, Msg: err.Error(), Err: err}
			}
			ids[qi][di] = id
		}
	}
	bw := bufio.NewWriter(w)
	var buf []byte
	for qi := range ds.Queries {
		q := &ds.Queries[qi]
		scores := m.Scores(q)
		for r, i := range tieRanking(scores, ids[qi]) {
			id := ids[qi][i]
			buf = buf[:0]
			buf = append(buf, q.ID...)
			buf = append(buf, " Q0 "...)
			buf = append(buf, id...)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(r+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, scores[i], 'g', -1, 64)
			buf = append(buf, ' ')
			buf = append(buf, tag...)
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
