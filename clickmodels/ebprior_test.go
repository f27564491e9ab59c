package clickmodels

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// TestEmpiricalPriorHand checks two plain EM iterations of exact SDBN
// with the empirical prior (Options.EmpiricalPrior, ebprior.go) against a
// hand computation on a log of one query and two SERPs:
//
//	A: x y, click on x (rank 0)
//	B: y x, no click
//
// Iteration 1 reads every value at 1/2, so its prior is PyClick's.
// SDBN's exact E-step (gamma = 1) at a = s = 1/2:
//
//	A: rank 0 clicked and last: aNum 1 / 1; Z = 1 - (1-s) car_1 =
//	   1 - (1/2)(1/2) = 3/4, sNum s/Z = 2/3 / 1; rank 1 (y): e = 1/2,
//	   q = e (1 - car_1) / (1 - e car_1) = 1/3, aNum a (1-q) = 1/3 / 1
//	B: no click, car_0 = 3/4: q_0 = q_1 = 1, aNum 0 / 1 at both ranks
//
// so iteration 1 gives x: a = (1+1)/4 = 1/2, s = (1+2/3)/3 = 5/9; y:
// a = (1+1/3)/4 = 1/3, s = 1/2; and the prior means of attractiveness
// per rank from the same counts: m_0 = (1+1)/(2+2) = 1/2,
// m_1 = (1+1/3)/(2+2) = 1/3.
//
// Iteration 2, at a_x = 1/2, s_x = 5/9, a_y = 1/3, s_y = 1/2:
//
//	A: Z = 1 - (4/9)(1/3) = 23/27, sNum = (5/9)/Z = 15/23; e = 4/9,
//	   q = (4/9)(2/3)/(23/27) = 8/23, y's aNum (1/3)(15/23) = 5/23
//	B: car_1 = 1/2, car_0 = 1/3 + (2/3)(1/2) = 2/3: q_0 = q_1 = 1, aNum 0
//
// Each pair is shown once at each rank, so its prior mean is the mean of
// the ranks', (1/2 + 1/3)/2 = 5/12, with weight 2; satisfaction keeps
// PyClick's 1 / 2:
//
//	a_x = (1 + 0 + 2 (5/12)) / (2 + 2) = 11/24     (PyClick's prior: 1/2)
//	a_y = (5/23 + 0 + 2 (5/12)) / (2 + 2) = 145/552 (7/23)
//	s_x = (1 + 15/23) / (2 + 1) = 38/69,  s_y = 1/2
//
// The model's globals are SDBN's (none beyond the continuation's slot):
// the prior means are not part of the model.
func TestEmpiricalPriorHand(t *testing.T) {
	log := &sessions.Log{}
	for _, s := range []sessions.SERP{
		{SessionID: "A", Query: "q", Results: []string{"x", "y"}, Clicks: []sessions.Click{{Rank: 0}}},
		{SessionID: "B", Query: "q", Results: []string{"y", "x"}},
	} {
		if err := log.Add(&s); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Prepare(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range []int{1, 2} {
		m, err := Fit(context.Background(), d, SDBN, Options{Iterations: it, Exact: true, EmpiricalPrior: true, NoIntervals: true})
		if err != nil {
			t.Fatal(err)
		}
		x, y := m.Pair("q", "x"), m.Pair("q", "y")
		if len(m.Global) != SDBN.GlobalParams(d.Ranks()) {
			t.Errorf("%d global values in the model, want %d", len(m.Global), SDBN.GlobalParams(d.Ranks()))
		}
		if it == 1 {
			near(t, "a_x", m.Attr[x], 1.0/2)
			near(t, "s_x", m.Sat[x], 5.0/9)
			near(t, "a_y", m.Attr[y], 1.0/3)
			near(t, "s_y", m.Sat[y], 1.0/2)
			continue
		}
		near(t, "a_x", m.Attr[x], 11.0/24)
		near(t, "s_x", m.Sat[x], 38.0/69)
		near(t, "a_y", m.Attr[y], 145.0/552)
		near(t, "s_y", m.Sat[y], 1.0/2)
	}
	// PyClick's estimator ignores the option: its pseudo-counts stay 1 / 2.
	for _, k := range []Kind{SDBN, DBN, CCM, DCM} {
		a, err := Fit(context.Background(), d, k, Options{Iterations: 3, NoIntervals: true})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Fit(context.Background(), d, k, Options{Iterations: 3, EmpiricalPrior: true, NoIntervals: true})
		if err != nil {
			t.Fatal(err)
		}
		for p := range a.Attr {
			if a.Attr[p] != b.Attr[p] {
				t.Errorf("%v pyclick: attractiveness of pair %d %v with the option, %v without", k, p, b.Attr[p], a.Attr[p])
			}
		}
	}
}

// TestEmpiricalPriorRecorded: a fit with Options.EmpiricalPrior records
// it in the parameter file and in metrics.json ("empirical_prior": true)
// for the models it changes (DBN here, exact estimator) and only for
// them: not for UBM, which it leaves alone, not under PyClick's
// estimator, which ignores it, and not without the option, whose outputs
// keep no such field. Loading the parameter file (--load) keeps it.
func TestEmpiricalPriorRecorded(t *testing.T) {
	log, err := SimulatedLog(context.Background(), DBN, 2000, 5, 50, 0.3, 3)
	if err != nil {
		t.Fatal(err)
	}
	// field returns the empirical_prior field of the JSON object b, and
	// whether it is present.
	field := func(b []byte, what string) (v, ok bool) {
		t.Helper()
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		raw, ok := m["empirical_prior"]
		if ok && json.Unmarshal(raw, &v) != nil {
			t.Fatalf("%s: empirical_prior %s", what, raw)
		}
		return v, ok
	}
	// metrics returns the entries of dir's metrics.json.
	metrics := func(dir string) []json.RawMessage {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, "metrics.json"))
		if err != nil {
			t.Fatal(err)
		}
		var reps []json.RawMessage
		if err := json.Unmarshal(b, &reps); err != nil {
			t.Fatal(err)
		}
		return reps
	}
	// check reads dir's parameter files and metrics.json and wants the
	// field true for DBN if dbn, absent elsewhere.
	check := func(name, dir string, dbn bool) {
		t.Helper()
		reps := metrics(dir)
		for i, k := range []Kind{DBN, UBM} {
			want := dbn && k == DBN
			p, err := os.ReadFile(ParamsPath(dir, k))
			if err != nil {
				t.Fatal(err)
			}
			if v, ok := field(p, "params"); v != want || ok != want {
				t.Errorf("%s: %v parameter file: empirical_prior %v (present %v), want %v", name, k, v, ok, want)
			}
			if v, ok := field(reps[i], "metrics"); v != want || ok != want {
				t.Errorf("%s: %v in metrics.json: empirical_prior %v (present %v), want %v", name, k, v, ok, want)
			}
		}
	}
	for _, tc := range []struct {
		name       string
		exact, opt bool
		want       bool
	}{
		{"exact with the option", true, true, true},
		{"exact without", true, false, false},
		{"pyclick with the option", false, true, false},
	} {
		dir := t.TempDir()
		cfg := RunConfig{Kinds: []Kind{DBN, UBM}, Options: Options{Iterations: 3, Workers: 1, NoIntervals: true, Exact: tc.exact, EmpiricalPrior: tc.opt}}
		if _, err := Run(context.Background(), log, cfg, dir); err != nil {
			t.Fatal(err)
		}
		check(tc.name, dir, tc.want)
		m, err := LoadModel(ParamsPath(dir, DBN))
		if err != nil {
			t.Fatal(err)
		}
		if m.EmpiricalPrior != tc.want {
			t.Errorf("%s: loaded DBN: EmpiricalPrior %v, want %v", tc.name, m.EmpiricalPrior, tc.want)
		}
		if !tc.want {
			continue
		}
		// --load: the loaded model's report keeps the flag, and the
		// parameter file written back from it too (round trip).
		back := t.TempDir()
		if _, err := Run(context.Background(), log, RunConfig{Kinds: []Kind{DBN, UBM}, LoadDir: dir}, back); err != nil {
			t.Fatal(err)
		}
		reps := metrics(back)
		if v, _ := field(reps[0], "loaded metrics"); !v {
			t.Errorf("%s: loaded DBN's report lost empirical_prior: %s", tc.name, reps[0])
		}
		if v, _ := field(reps[1], "loaded metrics"); v {
			t.Errorf("%s: loaded UBM's report has empirical_prior: %s", tc.name, reps[1])
		}
		var buf bytes.Buffer
		if err := m.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		if v, _ := field(buf.Bytes(), "rewritten params"); !v {
			t.Errorf("%s: the loaded DBN written back lost empirical_prior", tc.name)
		}
	}
	// A parameter file that claims the prior for a model it cannot have
	// changed is refused, naming the field.
	for _, bad := range []string{
		`{"format":"lovbench-clickmodel/1","model":"UBM","ranks":1,"iterations":1,"empirical_prior":true,"exam_by_rank_prev_click":[[0.5]],"pairs":[]}`,
		`{"format":"lovbench-clickmodel/1","model":"DBN","ranks":1,"iterations":1,"empirical_prior":true,"cont":0.5,"pairs":[]}`,
	} {
		if _, err := ReadModel(strings.NewReader(bad), "bad.json"); err == nil || !strings.Contains(err.Error(), "bad.json: field empirical_prior") {
			t.Errorf("%s: error %v", bad, err)
		}
	}
}
