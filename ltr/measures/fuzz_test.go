package measures

import (
	"context"
	"math"
	"strings"
	"testing"
)

// FuzzParseRun feeds arbitrary text to the run reader: it must return an
// error or a run, never panic, and an accepted run must evaluate to finite
// values in [0, 1] for the normalised measures.
func FuzzParseRun(f *testing.F) {
	f.Add("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 2.5 t\n")
	f.Add("q1 Q0 d1 1 NaN t\n")
	f.Add("q1 Q0 d1 x 1 t\r\n\n\tq2 Q0 d1 1 -1e308 t")
	f.Add("q1 Q0 d1 1 1 t\nq1 Q0 d1 2 1 t\n")
	q, err := ParseQrels(strings.NewReader("q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 1\n"), "q")
	if err != nil {
		f.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Measures, _ = ParseMeasures("ndcg@3,map,err@3,awp,ancg,tau_prime,q,genavep,genavep_prime")
	f.Fuzz(func(t *testing.T, text string) {
		run, err := ParseRun(strings.NewReader(text), "fuzz")
		if err != nil {
			return
		}
		res, err := Evaluate(context.Background(), q, run, opts)
		if err != nil {
			t.Fatal(err)
		}
		for m, v := range res.Mean {
			if math.IsNaN(v) || v < 0 || v > 1+1e-9 {
				t.Fatalf("%s = %v for run %q", m, v, text)
			}
		}
	})
}

// FuzzParseQrels feeds arbitrary text to the qrels reader.
func FuzzParseQrels(f *testing.F) {
	f.Add("q1 0 d1 2\nq1 0 d2 0\n")
	f.Add("q1 0 d1 -2\nq1 0 d1 1\n")
	f.Add("q1 0 d1 1e400\n")
	run, err := ParseRun(strings.NewReader("q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\n"), "r")
	if err != nil {
		f.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Measures, _ = ParseMeasures("ndcg@10,map,p@1,mrr")
	f.Fuzz(func(t *testing.T, text string) {
		q, err := ParseQrels(strings.NewReader(text), "fuzz")
		if err != nil || len(q.Queries()) == 0 {
			return
		}
		res, err := Evaluate(context.Background(), q, run, opts)
		if err != nil {
			if strings.Contains(err.Error(), "has the gain") {
				return // a grade too large for the exponential gain
			}
			t.Fatal(err)
		}
		for m, v := range res.Mean {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s = %v for qrels %q", m, v, text)
			}
		}
	})
}
