package clickmodels

import (
	"slices"

	"github.com/lovbench/lovbench/sessions"
)

// testPairs finds, for every rank of every SERP of test, the pair of d it
// shows: out[j] is the pair of the document test.DocIDs[j] for its SERP's
// query, or -1 for a pair not seen in training. test must share its
// dictionaries with the log d was prepared from (both sides of one split),
// so that pairs are found by ID, without the string indexes Evaluate
// builds for each model (on 5 M SERPs about 250 MiB per model). The
// pairs found are the ones Evaluate finds by name, so are the metrics.
func testPairs(d *Data, test *sessions.Log) []int32 {
	nq := test.Queries.Len()
	// d numbers its pairs query by query: the pairs of query q are
	// [qStart[q], qStart[q+1]).
	qStart := make([]int32, nq+1)
	for _, q := range d.pairQuery {
		qStart[q+1]++
	}
	for q := 0; q < nq; q++ {
		qStart[q+1] += qStart[q]
	}
	// byDoc lists each query's pairs by document ID, for binary search.
	byDoc := make([]int32, len(d.pairDoc))
	for p := range byDoc {
		byDoc[p] = int32(p)
	}
	for q := 0; q < nq; q++ {
		if qStart[q+1]-qStart[q] > 1 {
			slices.SortFunc(byDoc[qStart[q]:qStart[q+1]], func(a, b int32) int { return int(d.pairDoc[a]) - int(d.pairDoc[b]) })
		}
	}
	out := make([]int32, len(test.DocIDs))
	for i := 0; i < test.Len(); i++ {
		q := test.Query[i]
		own := byDoc[qStart[q]:qStart[q+1]]
		for j := test.Offsets[i]; j < test.Offsets[i+1]; j++ {
			doc := test.DocIDs[j]
			k, found := slices.BinarySearchFunc(own, doc, func(p, doc int32) int { return int(d.pairDoc[p]) - int(doc) })
			out[j] = -1
			if found {
				out[j] = own[k]
			}
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
