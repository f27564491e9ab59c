package clickmodels

import "github.com/lovbench/lovbench/sessions"

// DataParts are the flat arrays of a prepared Data, for the prepared-shard
// file of the out-of-core engine (clickmodels/outofcore), which writes and
// reads them as they are. Record i covers pairs RecPair[RecOff[i]:RecOff[i+1]]
// (one per rank) with click mask RecClicks[i] and weight RecWeight[i]; pair
// p is (PairQuery[p], PairDoc[p]) of Log's dictionaries; chunk c covers
// records Chunks[c][0] to [1] and pairs [2] to [3]. Record i's click orders
// other than rank order (PSCM; all nil when the log has none) are
// VarOrd[VarOff[j]:VarOff[j+1]], clicked by VarWeight[j] of its SERPs, for
// j in [RecVar[i], RecVar[i+1]).
type DataParts struct {
	Ranks, SERPs       int
	Log                *sessions.Log // the dictionaries only
	RecOff             []int64
	RecPair            []int32
	RecClicks          []uint64
	RecWeight          []float64
	PairQuery, PairDoc []int32
	Chunks             [][4]int
	RecVar             []int32
	VarOff             []int64
	VarOrd             []uint8
	VarWeight          []float64
}

// Parts returns d's arrays (not copies).
func (d *Data) Parts() DataParts {
	ch := make([][4]int, len(d.chunks))
	for i, c := range d.chunks {
		ch[i] = [4]int{c.recLo, c.recHi, c.pairLo, c.pairHi}
	}
	return DataParts{Ranks: d.ranks, SERPs: d.serps, Log: d.log, RecOff: d.recOff, RecPair: d.recPair,
		RecClicks: d.recClicks, RecWeight: d.recWeight, PairQuery: d.pairQuery, PairDoc: d.pairDoc, Chunks: ch,
		RecVar: d.recVar, VarOff: d.varOff, VarOrd: d.varOrd, VarWeight: d.varWeight}
}

// DataFromParts is the Data of p's arrays (not copied); the caller checks
// their invariants (outofcore's check).
func DataFromParts(p DataParts) *Data {
	d := &Data{ranks: p.Ranks, serps: p.SERPs, log: p.Log, recOff: p.RecOff, recPair: p.RecPair,
		recClicks: p.RecClicks, recWeight: p.RecWeight, pairQuery: p.PairQuery, pairDoc: p.PairDoc,
		recVar: p.RecVar, varOff: p.VarOff, varOrd: p.VarOrd, varWeight: p.VarWeight}
	if len(d.recVar) == 0 {
		d.recVar, d.varOff, d.varOrd, d.varWeight = nil, nil, nil, nil
	}
	d.chunks = make([]chunk, len(p.Chunks))
	for i, c := range p.Chunks {
		d.chunks[i] = chunk{recLo: c[0], recHi: c[1], pairLo: c[2], pairHi: c[3]}
	}
	return d
}
