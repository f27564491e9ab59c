package clickmodels

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/sessions"
)

// ParamsFormat identifies the parameter file format written by WriteJSON.
const ParamsFormat = "lovbench-clickmodel/1"

// paramsFile is the JSON form of a Model (docs/clickmodels.md, "Parameter
// files"). Exactly the global fields of the model's kind are present.
type paramsFile struct {
	Format     string `json:"format"`
	Model      string `json:"model"`
	Ranks      int    `json:"ranks"`
	Iterations int    `json:"iterations"`
	Exact      bool   `json:"exact,omitempty"`

	CTR                 *float64    `json:"ctr,omitempty"`                     // GCTR
	CTRByRank           []float64   `json:"ctr_by_rank,omitempty"`             // RCTR
	ExamByRank          []float64   `json:"exam_by_rank,omitempty"`            // PBM
	ExamByRankPrevClick [][]float64 `json:"exam_by_rank_prev_click,omitempty"` // UBM
	ContByRank          []float64   `json:"cont_by_rank,omitempty"`            // DCM
	Cont                *float64    `json:"cont,omitempty"`                    // DBN
	Tau                 []float64   `json:"tau,omitempty"`                     // CCM
	Pairs               []pairJSON  `json:"pairs"`
}

type pairJSON struct {
	Query string   `json:"query"`
	Doc   string   `json:"doc"`
	Attr  *float64 `json:"attr,omitempty"`
	Sat   *float64 `json:"sat,omitempty"`
}

// WriteJSON writes the model's parameters as JSON. Floats are written in
// the shortest form that reads back to the same float64, so ReadModel
// restores the model exactly; the output is byte-identical for identical
// models.
func (m *Model) WriteJSON(w io.Writer) error {
	pf := paramsFile{Format: ParamsFormat, Model: m.Kind.String(), Ranks: m.Ranks, Iterations: m.Iterations, Exact: m.Exact}
	g := m.Global
	switch m.Kind {
	case GCTR:
		pf.CTR = &g[0]
	case RCTR:
		pf.CTRByRank = g
	case PBM:
		pf.ExamByRank = g
	case UBM:
		for r := 0; r < m.Ranks; r++ {
			pf.ExamByRankPrevClick = append(pf.ExamByRankPrevClick, g[r*m.Ranks:(r+1)*m.Ranks])
		}
	case DCM:
		pf.ContByRank = g
	case DBN:
		pf.Cont = &g[0]
	case CCM:
		pf.Tau = g
	}
	pf.Pairs = make([]pairJSON, m.NumPairs())
	for p := range pf.Pairs {
		pj := &pf.Pairs[p]
		pj.Query, pj.Doc = m.QueryNames[m.PairQuery[p]], m.DocNames[m.PairDoc[p]]
		if m.Attr != nil {
			pj.Attr = &m.Attr[p]
		}
		if m.Sat != nil {
			pj.Sat = &m.Sat[p]
		}
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetIndent("", " ")
	if err := enc.Encode(&pf); err != nil {
		return err
	}
	return bw.Flush()
}

// ReadModel reads a parameter file written by WriteJSON. name is used in
// error messages.
func ReadModel(r io.Reader, name string) (*Model, error) {
	var pf paramsFile
	dec := json.NewDecoder(textio.NewReader(r))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pf); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if pf.Format != ParamsFormat {
		return nil, fmt.Errorf("%s: field format: %s, want %s", name, textio.Quote(pf.Format), textio.Quote(ParamsFormat))
	}
	kind, err := ParseKind(pf.Model)
	if err != nil {
		return nil, fmt.Errorf("%s: field model: %w", name, err)
	}
	R := pf.Ranks
	if R < 1 || R > MaxSERP {
		return nil, fmt.Errorf("%s: field ranks: %d, want 1 to %d", name, R, MaxSERP)
	}
	m := &Model{Kind: kind, Ranks: R, Iterations: pf.Iterations, Exact: pf.Exact}
	want := kind.globalParams(R)
	field := ""
	switch kind {
	case GCTR:
		field = "ctr"
		if pf.CTR != nil {
			m.Global = []float64{*pf.CTR}
		}
	case RCTR:
		field, m.Global = "ctr_by_rank", pf.CTRByRank
	case PBM:
		field, m.Global = "exam_by_rank", pf.ExamByRank
	case UBM:
		field = "exam_by_rank_prev_click"
		for r, row := range pf.ExamByRankPrevClick {
			if len(row) != R {
				return nil, fmt.Errorf("%s: field %s: row %d has %d values, want %d", name, field, r, len(row), R)
			}
			m.Global = append(m.Global, row...)
		}
	case DCM:
		field, m.Global = "cont_by_rank", pf.ContByRank
	case DBN:
		field = "cont"
		if pf.Cont != nil {
			m.Global = []float64{*pf.Cont}
		}
	case CCM:
		field, m.Global = "tau", pf.Tau
	}
	if len(m.Global) != want {
		return nil, fmt.Errorf("%s: field %s: %d values, %v with %d ranks needs %d", name, field, len(m.Global), kind, R, want)
	}
	for i, v := range m.Global {
		if !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("%s: field %s: value %d is %v, want a probability", name, field, i, v)
		}
	}
	var queries, docs sessions.Dict
	seen := make(map[uint64]bool, len(pf.Pairs))
	np := kind.pairParams()
	for i, pj := range pf.Pairs {
		q, d := queries.ID(pj.Query), docs.ID(pj.Doc)
		if seen[pairKey(q, d)] {
			return nil, fmt.Errorf("%s: pairs[%d]: duplicate pair (%s, %s)", name, i, textio.Quote(pj.Query), textio.Quote(pj.Doc))
		}
		seen[pairKey(q, d)] = true
		m.PairQuery = append(m.PairQuery, q)
		m.PairDoc = append(m.PairDoc, d)
		for _, f := range []struct {
			name string
			v    *float64
			need bool
			dst  *[]float64
		}{{"attr", pj.Attr, np >= 1, &m.Attr}, {"sat", pj.Sat, np >= 2, &m.Sat}} {
			switch {
			case f.need && f.v == nil:
				return nil, fmt.Errorf("%s: pairs[%d]: field %s missing", name, i, f.name)
			case !f.need && f.v != nil:
				return nil, fmt.Errorf("%s: pairs[%d]: field %s: %v has no such parameter", name, i, f.name, kind)
			case f.need:
				if !(*f.v >= 0 && *f.v <= 1) {
					return nil, fmt.Errorf("%s: pairs[%d]: field %s: %v, want a probability", name, i, f.name, *f.v)
				}
				*f.dst = append(*f.dst, *f.v)
			}
		}
	}
	if np >= 1 && m.Attr == nil {
		m.Attr = []float64{}
	}
	if np >= 2 && m.Sat == nil {
		m.Sat = []float64{}
	}
	m.QueryNames, m.DocNames = queries.Names, docs.Names
	return m, nil
}

// WriteRelevance writes the relevance of every pair (see PairRelevance) as
// tab-separated text with the header query, doc, relevance; one row per
// pair, in the model's pair order (queries in order of first appearance in
// training, documents in order of first appearance with their query).
// Relevances are written in the shortest form that reads back exactly.
// Queries or documents containing a tab or a line break are an error.
func (m *Model) WriteRelevance(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString("query\tdoc\trelevance\n")
	var buf []byte
	for p := range m.PairQuery {
		q, d := m.QueryNames[m.PairQuery[p]], m.DocNames[m.PairDoc[p]]
		if strings.ContainsAny(q, "\t\r\n") || strings.ContainsAny(d, "\t\r\n") {
			return fmt.Errorf("relevance: pair (%s, %s) contains a tab or line break, which TSV cannot hold", textio.Quote(q), textio.Quote(d))
		}
		v := m.PairRelevance(p)
		if math.IsNaN(v) {
			return fmt.Errorf("relevance: pair (%s, %s) has no relevance", textio.Quote(q), textio.Quote(d))
		}
		buf = append(buf[:0], q...)
		buf = append(buf, '\t')
		buf = append(buf, d...)
		buf = append(buf, '\t')
		buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
