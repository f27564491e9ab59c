package clickmodels

import (
	"context"
	"reflect"
	"testing"

	"github.com/lovbench/lovbench/sessions/split"
)

// TestEvaluatePrepared checks the evaluation by ID that Run uses after
// fitting against Evaluate, which finds pairs by name: the same pair for
// every test rank (Model.Pair) and the same metrics, bit for bit, for every
// model, with the spec and the random split (a simulated log is one user
// session: the time split would leave no test SERP).
func TestEvaluatePrepared(t *testing.T) {
	log, err := SimulatedLog(context.Background(), DBN, 6_000, 3, 300, 0.5, 11)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []split.Kind{split.Spec, split.Random} {
		train, test := Split(log, 0.6)
		if kind == split.Random {
			train, test = RandomSplit(log, 0.6, 9)
		}
		d, err := Prepare(train, 0)
		if err != nil {
			t.Fatal(err)
		}
		pairOf := testPairs(d, test)
		for _, k := range AllKinds() {
			m, err := Fit(context.Background(), d, k, Options{Iterations: 3})
			if err != nil {
				t.Fatal(err)
			}
			unseen := 0
			for i := 0; i < test.Len(); i++ {
				q := test.Queries.Names[test.Query[i]]
				for r, doc := range test.SERPDocs(i) {
					got := pairOf[int(test.Offsets[i])+r]
					if want := m.Pair(q, test.Docs.Names[doc]); int(got) != want {
						t.Fatalf("%s %v: SERP %d rank %d: pair %d, Model.Pair %d", kind, k, i, r, got, want)
					}
					if got < 0 {
						unseen++
					}
				}
			}
			if unseen == 0 {
				t.Fatalf("%s: no unseen pair in the test part: the test would not exercise them", kind)
			}
			want, err := Evaluate(m, test)
			if err != nil {
				t.Fatal(err)
			}
			got, err := evaluatePrepared(m, test, pairOf)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %v: evaluatePrepared %+v, Evaluate %+v", kind, k, got, want)
			}
		}
	}
}
