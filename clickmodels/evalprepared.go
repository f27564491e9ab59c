package clickmodels

import (
	"slices"

	"github.com/lovbench/lovbench/sessions"
)

// pairIndex finds the pairs of a prepared Data by query and document ID,
// without the string indexes Evaluate builds for each model (on 5 M SERPs
// about 250 MiB per model). A test log that shares its dictionaries with
// the log the Data was prepared from (both sides of one split, or a
// shard's test SERPs) finds its pairs by ID, and they are the ones
// Evaluate finds by name, so are the metrics.
type pairIndex struct {
	d *Data
	// Data numbers its pairs query by query: those of query q are
	// [qStart[q], qStart[q+1]); byDoc lists them by document ID for the
	// queries of more than linearPairs pairs, in pair order for the
	// others (scanned: faster than a search).
	qStart, byDoc []int32
}

// linearPairs is the most pairs of a query that pairIndex scans.
const linearPairs = 16

// newPairIndex indexes the pairs of d, whose dictionaries hold nq queries.
func newPairIndex(d *Data, nq int) *pairIndex {
	x := &pairIndex{d: d, qStart: make([]int32, nq+1), byDoc: make([]int32, len(d.pairDoc))}
	for _, q := range d.pairQuery {
		x.qStart[q+1]++
	}
	for q := 0; q < nq; q++ {
		x.qStart[q+1] += x.qStart[q]
	}
	for p := range x.byDoc {
		x.byDoc[p] = int32(p)
	}
	for q := 0; q < nq; q++ {
		if x.qStart[q+1]-x.qStart[q] > linearPairs {
			slices.SortFunc(x.byDoc[x.qStart[q]:x.qStart[q+1]], func(a, b int32) int { return int(d.pairDoc[a]) - int(d.pairDoc[b]) })
		}
	}
	return x
}

// pair is the pair of query q and document doc, or -1 for a pair not seen
// in training.
func (x *pairIndex) pair(q, doc int32) int32 {
	own := x.byDoc[x.qStart[q]:x.qStart[q+1]]
	if len(own) <= linearPairs {
		for _, p := range own {
			if x.d.pairDoc[p] == doc {
				return p
			}
		}
		return -1
	}
	k, found := slices.BinarySearchFunc(own, doc, func(p, doc int32) int { return int(x.d.pairDoc[p]) - int(doc) })
	if !found {
		return -1
	}
	return own[k]
}

// testPairs finds, for every rank of every SERP of test, the pair of d it
// shows (pairIndex): out[j] is the pair of the document test.DocIDs[j]
// for its SERP's query, or -1. Computed once, it serves every model fitted
// on d.
func testPairs(d *Data, test *sessions.Log) []int32 {
	x := newPairIndex(d, test.Queries.Len())
	out := make([]int32, len(test.DocIDs))
	for i := 0; i < test.Len(); i++ {
		q := test.Query[i]
		for j := test.Offsets[i]; j < test.Offsets[i+1]; j++ {
			out[j] = x.pair(q, test.DocIDs[j])
		}
	}
	return out
}

// evaluatePrepared is Evaluate for a model fitted on the Data d of
// testPairs, given pairOf = testPairs(d, test): the same metrics.
func evaluatePrepared(m *Model, test *sessions.Log, pairOf []int32) (Metrics, error) {
	var acc EvalSums
	err := acc.add(m, test, func(v *view, i int, a, s []float64) {
		docs := v.setSERP(m, test, i, a, s)
		base := int(test.Offsets[i])
		for r := range docs {
			v.setPair(m, r, pairOf[base+r])
		}
	})
	if err != nil {
		return Metrics{}, err
	}
	return acc.Metrics(m.Kind)
}
