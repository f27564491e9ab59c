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
// docid is Doc.DocID: the term of the line's comment (its last token,
// LOVBench's "# query term") or, for a line without a comment, "row"
// followed by the 1-based data line number.
func WriteRun(w io.Writer, ds *Dataset, m *Model, tag string) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for qi := range ds.Queries {
		q := &ds.Queries[qi]
		scores := m.Scores(q)
		ids := docIDs(q)
		for r, i := range tieRanking(scores, ids) {
			id := ids[i]
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
