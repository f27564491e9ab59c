package clickmodels

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestWriteJSONMatchesEncoder: the streamed parameter file is byte for byte
// what encoding/json's Encoder (indent " ") writes for the whole file, the
// reference the format was defined with.
func TestWriteJSONMatchesEncoder(t *testing.T) {
	names := []string{"q<1>&", "ü\u2028x", `"quoted"\`, "plain", "ctl\x01"}
	vals := []float64{1e-7, 0, 1, 0.5, 1e-300, 0.999999, 3.0000000000000004e-6, 123456789e15}
	for _, k := range []Kind{GCTR, RCTR, DCTR, UBM, DBN, CCM} {
		for _, np := range []int{0, 5} {
			R := 10
			m := &Model{Kind: k, Ranks: R, Iterations: 7, Exact: k == DBN, QueryNames: names, DocNames: names}
			m.Global = filled(k.GlobalParams(R), 0.25)
			for i := range m.Global {
				m.Global[i] = vals[i%len(vals)]
			}
			for p := 0; p < np; p++ {
				m.PairQuery = append(m.PairQuery, int32(p))
				m.PairDoc = append(m.PairDoc, int32((p+2)%5))
			}
			if k.PairParams() >= 1 {
				m.Attr = make([]float64, np)
				for p := range m.Attr {
					m.Attr[p] = vals[p]
				}
			}
			if k.PairParams() >= 2 {
				m.Sat = make([]float64, np)
				for p := range m.Sat {
					m.Sat[p] = vals[p+3]
				}
			}
			var got bytes.Buffer
			if err := m.WriteJSON(&got); err != nil {
				t.Fatal(err)
			}
			// Reference: the whole paramsFile through json.Encoder.
			pf := paramsFile{Format: ParamsFormat, Model: k.String(), Ranks: R, Iterations: 7, Exact: m.Exact}
			g := m.Global
			switch k {
			case GCTR:
				pf.CTR = &g[0]
			case RCTR:
				pf.CTRByRank = g
			case UBM:
				for r := 0; r < R; r++ {
					pf.ExamByRankPrevClick = append(pf.ExamByRankPrevClick, g[r*R:(r+1)*R])
				}
			case DBN:
				pf.Cont = &g[0]
			case CCM:
				pf.Tau = g
			}
			pf.Pairs = make([]pairJSON, np)
			for p := range pf.Pairs {
				pf.Pairs[p].Query, pf.Pairs[p].Doc = names[m.PairQuery[p]], names[m.PairDoc[p]]
				if m.Attr != nil {
					pf.Pairs[p].Attr = &m.Attr[p]
				}
				if m.Sat != nil {
					pf.Pairs[p].Sat = &m.Sat[p]
				}
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", " ")
			if err := enc.Encode(&pf); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("%v with %d pairs:\ngot  %s\nwant %s", k, np, got.String(), want.String())
			}
		}
	}
}
