package clickmodels

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

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
	// PSCMAuthors: PSCM as the authors' code (Options.PSCMAuthors).
	PSCMAuthors bool `json:"pscm_authors,omitempty"`
	// EmpiricalPrior: DBN, SDBN, DCM or CCM fitted by the exact estimator
	// with the empirical prior (Options.EmpiricalPrior).
	EmpiricalPrior bool `json:"empirical_prior,omitempty"`

	CTR                 *float64    `json:"ctr,omitempty"`                     // GCTR
	CTRByRank           []float64   `json:"ctr_by_rank,omitempty"`             // RCTR
	ExamByRank          []float64   `json:"exam_by_rank,omitempty"`            // PBM
	ExamByRankPrevClick [][]float64 `json:"exam_by_rank_prev_click,omitempty"` // UBM
	ContByRank          []float64   `json:"cont_by_rank,omitempty"`            // DCM
	Cont                *float64    `json:"cont,omitempty"`                    // DBN
	Tau                 []float64   `json:"tau,omitempty"`                     // CCM
	// PSCM: gamma[i][m][n], m and n from 0 to ranks (ranks: the start,
	// resp. the end; see Kind.GlobalParams).
	ExamByRankPrevNext [][][]float64 `json:"exam_by_rank_prev_next_click,omitempty"`
	Pairs              []pairJSON    `json:"pairs"`
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
// models. Pairs are streamed, never held as JSON in memory.
func (m *Model) WriteJSON(w io.Writer) error { return m.pairWriter().writeJSON(w) }

// pairWriter streams a model's parameter and relevance files from a
// sequence of pairs (one model, or per-shard models merged in log order).
type pairWriter struct {
	kind            Kind
	ranks           int
	iterations      int
	exact           bool
	pscmAuthors     bool
	empiricalPrior  bool
	global          []float64
	hasAttr, hasSat bool
	// hasEv: the pairs carry Evidence, so the relevance file gets
	// intervals at level from the priors (set by writeModelFiles).
	hasEv                 bool
	level                 float64
	gibbs                 *GibbsSetting // Evidence.Gibbs: the sampler computed the relevance's Betas
	attrPriors, satPriors *priorTable   // by rank bucket and exposure class
	// transfer (with GibbsSetting.Subset) maps the counts' Betas of the
	// pairs outside the sampler's subset, set with the priors; else nil.
	transfer *gibbsTransfer
	// ridge is the identified scale set of the pairs (PBM, UBM), set with
	// the priors; nil: no scale ridge.
	ridge *ridge
	pairs func(yield func(q, d string, v *pairVal) bool)
	// err, if set, reports why pairs stopped early (a read error of the
	// pairs' source); the writers check it after the pairs.
	err func() error
}

// readErr is the error that stopped pw's pairs, if any.
func (pw *pairWriter) readErr() error {
	if pw.err == nil {
		return nil
	}
	return pw.err()
}

// pairVal is one pair's values as the writers take them.
type pairVal struct {
	a, s           float64 // attractiveness, satisfaction
	ak, an, sk, sn float64 // Evidence, when the model has it
	ainfo, sinfo   float64 // Evidence.AttrInfo, SatInfo (+Inf: no bound)
	rank           float64 // Evidence: mean rank at which the pair was shown
	shown          float64 // Evidence: impressions (Evidence.Shown)
	ranks          uint64  // Evidence.Ranks: the ranks the pair was shown at (PBM, UBM)
	relA, relB     float64 // Evidence.RelAlpha, RelBeta (the Gibbs sampler's); 0: none
	relMean        float64 // Evidence.RelMean; 0: none
}

// setPair fills v with pair p of m.
func (v *pairVal) setPair(m *Model, p int) {
	*v = pairVal{}
	if m.Attr != nil {
		v.a = m.Attr[p]
	}
	if m.Sat != nil {
		v.s = m.Sat[p]
	}
	if ev := m.Evidence; ev != nil {
		v.ak, v.an, v.rank, v.shown, v.ainfo = ev.AttrK[p], ev.AttrN[p], ev.Rank[p], ev.Shown[p], infoOf(ev.AttrInfo, p)
		if ev.SatK != nil {
			v.sk, v.sn, v.sinfo = ev.SatK[p], ev.SatN[p], infoOf(ev.SatInfo, p)
		}
		if ev.Ranks != nil {
			v.ranks = ev.Ranks[p]
		}
		if ev.RelAlpha != nil {
			v.relA, v.relB = ev.RelAlpha[p], ev.RelBeta[p]
		}
		if ev.RelMean != nil {
			v.relMean = ev.RelMean[p]
		}
	}
}

func (m *Model) pairWriter() *pairWriter {
	pw := shardPairWriter(m)
	pw.pairs = func(yield func(q, d string, v *pairVal) bool) {
		var v pairVal
		for p := range m.PairQuery {
			v.setPair(m, p)
			if !yield(m.QueryNames[m.PairQuery[p]], m.DocNames[m.PairDoc[p]], &v) {
				return
			}
		}
	}
	return pw
}

// header is the paramsFile of the model without its pairs.
func (pw *pairWriter) header() paramsFile {
	pf := paramsFile{Format: ParamsFormat, Model: pw.kind.String(), Ranks: pw.ranks, Iterations: pw.iterations, Exact: pw.exact, PSCMAuthors: pw.pscmAuthors, EmpiricalPrior: pw.empiricalPrior}
	g := pw.global
	switch pw.kind {
	case GCTR:
		pf.CTR = &g[0]
	case RCTR:
		pf.CTRByRank = g
	case PBM:
		pf.ExamByRank = g
	case UBM:
		for r := 0; r < pw.ranks; r++ {
			pf.ExamByRankPrevClick = append(pf.ExamByRankPrevClick, g[r*pw.ranks:(r+1)*pw.ranks])
		}
	case DCM:
		pf.ContByRank = g
	case DBN:
		pf.Cont = &g[0]
	case CCM:
		pf.Tau = g
	case PSCM:
		R1 := pw.ranks + 1
		for i := 0; i < pw.ranks; i++ {
			var rows [][]float64
			for m := 0; m < R1; m++ {
				rows = append(rows, g[(i*R1+m)*R1:(i*R1+m+1)*R1])
			}
			pf.ExamByRankPrevNext = append(pf.ExamByRankPrevNext, rows)
		}
	}
	return pf
}

// writeJSON writes exactly what encoding/json's Encoder with indent " "
// writes for the paramsFile, but streams the pairs.
func (pw *pairWriter) writeJSON(w io.Writer) error {
	pf := pw.header()
	pf.Pairs = []pairJSON{}
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetIndent("", " ")
	if err := enc.Encode(&pf); err != nil {
		return err
	}
	const tail = "[]\n}\n"
	hb := head.Bytes()
	if !bytes.HasSuffix(hb, []byte(tail)) {
		return fmt.Errorf("click models: unexpected JSON encoding of the parameter header")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(hb[:len(hb)-len(tail)])
	bw.WriteByte('[')
	var buf []byte
	n := 0
	var err error
	pw.pairs(func(q, d string, v *pairVal) bool {
		a, s := v.a, v.s
		buf = buf[:0]
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n  {\n   \"query\": "...)
		buf = appendJSONString(buf, q)
		buf = append(buf, ",\n   \"doc\": "...)
		buf = appendJSONString(buf, d)
		if pw.hasAttr {
			buf = append(buf, ",\n   \"attr\": "...)
			buf = appendJSONFloat(buf, a)
		}
		if pw.hasSat {
			buf = append(buf, ",\n   \"sat\": "...)
			buf = appendJSONFloat(buf, s)
		}
		buf = append(buf, "\n  }"...)
		n++
		_, err = bw.Write(buf)
		return err == nil
	})
	if err == nil {
		err = pw.readErr()
	}
	if err != nil {
		return err
	}
	if n > 0 {
		bw.WriteString("\n ]\n}\n")
	} else {
		bw.WriteString("]\n}\n")
	}
	return bw.Flush()
}

// appendJSONString appends s as encoding/json encodes it (HTML escaping
// on): plain printable ASCII directly, anything else through json.Marshal.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// appendJSONFloat appends f as encoding/json encodes a float64: the
// shortest representation, in exponent form below 1e-6 or from 1e21 on,
// with a one-digit negative exponent written without its leading zero.
func appendJSONFloat(dst []byte, f float64) []byte {
	abs := math.Abs(f)
	fmtc := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		fmtc = 'e'
	}
	dst = strconv.AppendFloat(dst, f, fmtc, -1, 64)
	if fmtc == 'e' {
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
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
	return modelOf(&pf, name)
}

// modelOf checks a parameter file read from JSON or Parquet and returns
// its model.
func modelOf(pf *paramsFile, name string) (*Model, error) {
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
	if pf.EmpiricalPrior && !(pf.Exact && kind.ExactEStep()) {
		return nil, fmt.Errorf("%s: field empirical_prior: true for %s without exact, want it only with exact for DBN, SDBN, DCM or CCM", name, kind)
	}
	m := &Model{Kind: kind, Ranks: R, Iterations: pf.Iterations, Exact: pf.Exact, PSCMAuthors: pf.PSCMAuthors && kind == PSCM, EmpiricalPrior: pf.EmpiricalPrior}
	want := kind.GlobalParams(R)
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
	case PSCM:
		field = "exam_by_rank_prev_next_click"
		for i, rows := range pf.ExamByRankPrevNext {
			if len(rows) != R+1 {
				return nil, fmt.Errorf("%s: field %s: rank %d has %d rows, want %d", name, field, i, len(rows), R+1)
			}
			for mr, row := range rows {
				if len(row) != R+1 {
					return nil, fmt.Errorf("%s: field %s: rank %d, row %d has %d values, want %d", name, field, i, mr, len(row), R+1)
				}
				m.Global = append(m.Global, row...)
			}
		}
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
	np := kind.PairParams()
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

// RelevanceHeader is the header of a relevance file without intervals
// (a model without Evidence; PyClick's relevance files).
const RelevanceHeader = "query\tdoc\trelevance"

// RelevanceHeaderIntervals is the header of a relevance file with
// intervals: lower and upper are the interval's bounds at the level that
// metrics.json gives, alpha and beta the Beta distribution of the relevance
// they are the quantiles of (see Evidence).
const RelevanceHeaderIntervals = "query\tdoc\trelevance\tlower\tupper\talpha\tbeta"

// relevanceOf is PairRelevance from the pair's values.
func relevanceOf(k Kind, global []float64, a, s float64) float64 {
	switch k {
	case GCTR:
		return global[0]
	case RCTR:
		return 0
	case DBN, SDBN:
		return a * s
	case CCM:
		return a * a
	default:
		return a
	}
}

// fieldsCache remembers the text of the relevance file's interval fields
// (a tab before each of the four numbers, strconv.AppendFloat's shortest
// form) by the numbers' bits, in a table of fieldsSlots slots indexed by a
// hash of them: pairs that share their Beta (intervalCache) share the
// four numbers unless a scale ridge widens their intervals, and
// formatting them took more than the line's other work. The text is a
// function of the bits (-0 and 0, or two NaNs, are told apart by them),
// so the file is the same bytes.
type fieldsCache struct {
	slots []fieldsSlot
}

// fieldsSlot is one set of numbers and its text (nil: empty).
type fieldsSlot struct {
	bits [4]uint64
	text []byte
}

// fieldsSlotBits is log2 of fieldsCache's number of slots.
const fieldsSlotBits = 14

// append appends to buf a tab and the shortest form of each of x.
func (c *fieldsCache) append(buf []byte, x [4]float64) []byte {
	if c.slots == nil {
		c.slots = make([]fieldsSlot, 1<<fieldsSlotBits)
	}
	var b [4]uint64
	h := uint64(0)
	for i, v := range x {
		b[i] = math.Float64bits(v)
		h = (h ^ b[i]) * 0x9e3779b97f4a7c15
	}
	s := &c.slots[h>>(64-fieldsSlotBits)]
	if s.text != nil && s.bits == b {
		return append(buf, s.text...)
	}
	start := len(buf)
	for _, v := range x {
		buf = append(buf, '\t')
		buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
	}
	s.bits, s.text = b, append(s.text[:0], buf[start:]...)
	return buf
}

// tsvBreak reports whether s holds a tab, a carriage return or a line
// feed, which a TSV field cannot: strings.ContainsAny(s, "\t\r\n") as a
// loop over the bytes (none of the three is part of a longer UTF-8
// sequence), one comparison for most bytes; the relevance file checks
// every document's name, and ContainsAny's general path cost more than
// writing the line.
func tsvBreak(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= '\r' && (c == '\t' || c == '\n' || c == '\r') {
			return true
		}
	}
	return false
}

func (pw *pairWriter) writeRelevance(w io.Writer) error {
	if pw.hasEv && pw.attrPriors == nil { // priors not fitted yet
		if _, err := pw.setPriors(); err != nil {
			return err
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if pw.hasEv {
		bw.WriteString(RelevanceHeaderIntervals + "\n")
	} else {
		bw.WriteString(RelevanceHeader + "\n")
	}
	var buf []byte
	var err error
	var cache intervalCache
	var fields fieldsCache
	lastQ, qOK := "", false // the query last checked (a query's pairs come together)
	pw.pairs(func(q, d string, pv *pairVal) bool {
		a, s := pv.a, pv.s
		if !qOK || q != lastQ {
			lastQ, qOK = q, !tsvBreak(q)
		}
		if !qOK || tsvBreak(d) {
			err = fmt.Errorf("relevance: pair (%s, %s) contains a tab or line break, which TSV cannot hold", textio.Quote(q), textio.Quote(d))
			return false
		}
		v := relevanceOf(pw.kind, pw.global, a, s)
		if pv.relMean > 0 {
			v = pv.relMean // the Gibbs sampler's (GibbsSetting.Mean)
		}
		if math.IsNaN(v) {
			err = fmt.Errorf("relevance: pair (%s, %s) has no relevance", textio.Quote(q), textio.Quote(d))
			return false
		}
		buf = append(buf[:0], q...)
		buf = append(buf, '\t')
		buf = append(buf, d...)
		buf = append(buf, '\t')
		buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		if pw.hasEv {
			al, be, lo, hi := pw.relevanceDist(pv, &cache)
			buf = fields.append(buf, [4]float64{lo, hi, al, be})
		}
		buf = append(buf, '\n')
		_, err = bw.Write(buf)
		return err == nil
	})
	if err == nil {
		err = pw.readErr()
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}
