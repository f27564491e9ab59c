package clickmodels

import (
	"bytes"
	"context"
	"testing"
)

// FuzzReadModel feeds arbitrary bytes to ReadModel: it must return a model
// or an error, never panic, and a model it returns must evaluate relevance
// and write itself back.
func FuzzReadModel(f *testing.F) {
	log := &testLogBuilder{}
	d, err := Prepare(log.three(), 0)
	if err != nil {
		f.Fatal(err)
	}
	for _, k := range AllKinds() {
		m, err := Fit(context.Background(), d, k, Options{Iterations: 2})
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		if err := m.WriteJSON(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte(`{"format":"lovbench-clickmodel/1","model":"UBM","ranks":2,"exam_by_rank_prev_click":[[0.5],[0.5,0.5]],"pairs":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ReadModel(bytes.NewReader(b), "fuzz.json")
		if err != nil {
			return
		}
		for p := 0; p < m.NumPairs(); p++ {
			_ = m.PairRelevance(p)
		}
		_ = m.Relevance("q", "A")
		var out bytes.Buffer
		if err := m.WriteJSON(&out); err != nil {
			t.Fatalf("write back: %v", err)
		}
	})
}
