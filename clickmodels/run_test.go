package clickmodels

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/internal/testsize"
	"github.com/lovbench/lovbench/sessions"
)

// stripTiming removes the wall-clock fields from a metrics.json.
func stripTiming(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ms []map[string]any
	if err := json.Unmarshal(b, &ms); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		delete(m, "fit_seconds")
		delete(m, "prepare_seconds")
	}
	return ms
}

// TestRunDeterministic fits every model with 1 and with 4 workers and
// checks that all outputs are byte-identical (metrics.json apart from its
// timings), and that --load reproduces the metrics from the parameter files.
// The log has 15,000 SERPs by default, whose training part (its first
// three quarters) makes 10 chunks (8 are needed, so that each of the 4
// workers gets more than one), and 30,000 with LOVBENCH_FULL=1 (16
// chunks).
func TestRunDeterministic(t *testing.T) {
	serps := testsize.Pick(15_000, 30_000)
	log, err := SimulatedLog(context.Background(), DBN, serps, 5, 200, 0.3, 3)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Prepare(log.Slice(0, serps*3/4), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.chunks) < 8 {
		t.Fatalf("only %d chunks: the test would not exercise parallel chunks", len(d.chunks))
	}
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	for i, workers := range []int{1, 4} {
		cfg := RunConfig{Kinds: AllKinds(), Options: Options{Iterations: 10, Workers: workers}}
		if _, err := Run(context.Background(), log, cfg, dirs[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range AllKinds() {
		for _, suffix := range []string{"_relevance.tsv", "_params.json"} {
			a, err := os.ReadFile(filepath.Join(dirs[0], k.String()+suffix))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dirs[1], k.String()+suffix))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%v%s differs between 1 and 4 workers", k, suffix)
			}
		}
	}
	m1, m4 := stripTiming(t, filepath.Join(dirs[0], "metrics.json")), stripTiming(t, filepath.Join(dirs[1], "metrics.json"))
	j1, _ := json.Marshal(m1)
	j4, _ := json.Marshal(m4)
	if !bytes.Equal(j1, j4) {
		t.Errorf("metrics differ between 1 and 4 workers:\n%s\n%s", j1, j4)
	}
	// Loading the parameter files gives the same test metrics.
	reps, err := Run(context.Background(), log, RunConfig{Kinds: AllKinds(), LoadDir: dirs[0]}, dirs[2])
	if err != nil {
		t.Fatal(err)
	}
	for i, rep := range reps {
		if got, want := rep.LogLikelihood, m1[i]["test_loglikelihood"].(float64); got != want {
			t.Errorf("%s loaded: log-likelihood %v, fitted %v", rep.Model, got, want)
		}
		if !rep.Loaded || rep.Iterations != int(m1[i]["iterations"].(float64)) {
			t.Errorf("%s loaded: loaded %v, iterations %d", rep.Model, rep.Loaded, rep.Iterations)
		}
	}
}

// TestParamsRoundTrip writes and reads back a parameter file of every
// model and checks the values and the error for a broken file.
func TestParamsRoundTrip(t *testing.T) {
	d, err := Prepare(threeSessions(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range AllKinds() {
		m, err := Fit(context.Background(), d, k, Options{Iterations: 3})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := m.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		got, err := ReadModel(bytes.NewReader(buf.Bytes()), "x.json")
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		for _, p := range []struct{ q, d string }{{"q", "A"}, {"q", "B"}, {"q", "C"}} {
			if a, b := m.Relevance(p.q, p.d), got.Relevance(p.q, p.d); a != b {
				t.Errorf("%v: relevance(%s, %s) %v, read back %v", k, p.q, p.d, a, b)
			}
		}
		if len(got.Global) != len(m.Global) {
			t.Fatalf("%v: %d global values, read back %d", k, len(m.Global), len(got.Global))
		}
		for i := range m.Global {
			if m.Global[i] != got.Global[i] {
				t.Errorf("%v: global %d: %v, read back %v", k, i, m.Global[i], got.Global[i])
			}
		}
	}
	bad := `{"format":"lovbench-clickmodel/1","model":"DBN","ranks":10,"iterations":1,"cont":0.5,"pairs":[{"query":"q","doc":"A","attr":0.5}]}`
	_, err = ReadModel(strings.NewReader(bad), "bad.json")
	if err == nil || !strings.Contains(err.Error(), "bad.json: pairs[0]: field sat missing") {
		t.Errorf("missing sat: error %v", err)
	}
	bad = `{"format":"lovbench-clickmodel/1","model":"PBM","ranks":10,"iterations":1,"exam_by_rank":[0.5],"pairs":[]}`
	if _, err = ReadModel(strings.NewReader(bad), "bad.json"); err == nil || !strings.Contains(err.Error(), "exam_by_rank: 1 values") {
		t.Errorf("short exam_by_rank: error %v", err)
	}
}

// TestSplits checks the three splits on a small simulated log.
func TestSplits(t *testing.T) {
	log, err := SimulatedLog(context.Background(), UBM, 1000, 2, 20, 0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	train, test := Split(log, 0.75)
	if train.Len() != 750 {
		t.Errorf("spec split: %d training SERPs, want floor(0.75*1000) = 750", train.Len())
	}
	seen := map[int32]bool{}
	for _, q := range train.Query {
		seen[q] = true
	}
	for _, q := range test.Query {
		if !seen[q] {
			t.Fatalf("test query %s not in training", log.Queries.Names[q])
		}
	}
	r1, _ := RandomSplit(log, 0.75, 9)
	r2, _ := RandomSplit(log, 0.75, 9)
	r3, _ := RandomSplit(log, 0.75, 10)
	if r1.Len() != 750 || !equalInts(r1.Query, r2.Query) || equalInts(r1.Query, r3.Query) && equalInts(r1.DocIDs, r3.DocIDs) {
		t.Errorf("random split: not 750 SERPs, not reproducible, or independent of the seed")
	}
	if g := Gain(1.2, 1.5); math.Abs(g-0.6) > 1e-15 {
		t.Errorf("Gain(1.2, 1.5) = %v, want (1.5-1.2)/(1.5-1) = 0.6", g)
	}
}

func equalInts(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTolerance checks early stopping: with a tolerance EM stops once the
// training log-likelihood moves less than it (reporting the iterations
// used); without, it runs exactly the iterations asked for.
func TestTolerance(t *testing.T) {
	log, err := SimulatedLog(context.Background(), UBM, 5000, 9, 30, 0.3, 8)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Prepare(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lls []float64
	m, err := Fit(context.Background(), d, UBM, Options{Iterations: 200, Tolerance: 1e-4, OnIteration: func(_ int, ll float64) { lls = append(lls, ll) }})
	if err != nil {
		t.Fatal(err)
	}
	if m.Iterations >= 200 || m.Iterations != len(lls) || m.Iterations < 2 {
		t.Fatalf("tolerance 1e-4: %d iterations (%d callbacks)", m.Iterations, len(lls))
	}
	// The last change is below the tolerance, the one before is not (the
	// first iteration is compared with the initial values, not recorded).
	n := len(lls)
	if math.Abs(lls[n-1]-lls[n-2]) >= 1e-4 || n >= 3 && math.Abs(lls[n-2]-lls[n-3]) < 1e-4 {
		t.Errorf("stopped after %d iterations with log-likelihoods %v", n, lls[max(0, n-3):])
	}
	m, err = Fit(context.Background(), d, UBM, Options{Iterations: 7})
	if err != nil || m.Iterations != 7 {
		t.Fatalf("no tolerance: %d iterations, %v", m.Iterations, err)
	}
}

// TestTimeSplit: user sessions A (SERPs 0-2), B (3-4), C (5-7); fraction
// 0.5 cuts at SERP floor(0.5 x 8) = 4. A and B start before the cut and
// train whole (5 SERPs, B not cut in two); C tests, without its SERP whose
// query "z" never occurs in training.
func TestTimeSplit(t *testing.T) {
	log := &sessions.Log{}
	for _, s := range []struct{ sess, q string }{
		{"A", "x"}, {"A", "y"}, {"A", "x"}, {"B", "y"}, {"B", "w"}, {"C", "x"}, {"C", "z"}, {"C", "w"},
	} {
		if err := log.Add(&sessions.SERP{SessionID: s.sess, Query: s.q, Results: []string{"d1", "d2"}}); err != nil {
			t.Fatal(err)
		}
	}
	train, test := TimeSplit(log, 0.5)
	var got []string
	for i := 0; i < train.Len(); i++ {
		got = append(got, train.Sessions.Names[train.Session[i]]+train.Queries.Names[train.Query[i]])
	}
	got = append(got, "|")
	for i := 0; i < test.Len(); i++ {
		got = append(got, test.Sessions.Names[test.Session[i]]+test.Queries.Names[test.Query[i]])
	}
	if want := "Ax Ay Ax By Bw | Cx Cw"; strings.Join(got, " ") != want {
		t.Errorf("time split %q, want %q", strings.Join(got, " "), want)
	}
}
