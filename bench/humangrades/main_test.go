package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/pipeline/calibration"
	"github.com/lovbench/lovbench/sessions/split"
)

// TestPyClickVariants fits SDBN on a tiny log where the two estimators
// order the two graded documents differently, and checks that the table
// has SDBN's rows under --estimator pyclick (on lovbench before this
// change only DBN had them) with the agreement computed by hand.
//
// Query q, one SERP per session; z graded 1, w 0, x and v ungraded. The
// first 19 SERPs train (spec split, floor(0.75 x 26)): [x z] with a click
// on x 10 times and without a click 4 times, [w v] without a click 5
// times; the last 7 (4 [x z] with a click, 3 [w v] without) are the test
// part. With --drop-clickless, 10 of the 14 SERPs with a click train and w
// is not in the log: no document pair.
//
// PyClick's SDBN takes the ranks down to the last click, or every rank of
// a SERP without a click, as examined: attractiveness (1 + clicks) / (2 +
// examinations), satisfaction (1 + last clicks) / (2 + clicks), relevance
// their product. z: (1/6)(1/2) = 1/12; w: (1/7)(1/2) = 1/14. z above w:
// agreement 1. Exact SDBN gives w the same 1/14 (rank 1, no click) but
// takes z below a click on x as examined with the posterior p = (1-s)(1-a)
// / (s + (1-s)(1-a)), s x's satisfaction, a z's attractiveness: z's
// relevance is (1/2) / (6 + 10p). At a fixed point of EM, s = (11 - 10p) /
// 12 <= 11/12 and a = 1/(6 + 10p) <= 1/6, so p >= 0.070, so s <= 0.858, so
// p >= 0.121: 10p > 1, z's relevance is below 1/14 and the agreement is 0
// (the fit: 10p = 3.46).
func TestPyClickVariants(t *testing.T) {
	logPath, gradesPath := twoListLog(t)
	var out bytes.Buffer
	if err := run(context.Background(), logPath, gradesPath, "sdbn", split.Spec, split.DefaultSeed, false, false, &out); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{
		"| SDBN | click-less SERPs kept (default) | 2 | 1 | 0.000 |",
		"| SDBN | click-less SERPs kept, `--estimator pyclick` | 2 | 1 | 1.000 |",
		"| SDBN | `--drop-clickless` | 1 | 0 | 0.000 |",
		"| SDBN | `--drop-clickless --estimator pyclick` | 1 | 0 | 0.000 |",
		// The engine shows w at rank 1, z at 2: it orders them against
		// the grades.
		"The engine's order (each pair by its mean rank shown, every SERP of the log): agreement 0.000 (2 judged pairs, 1 document pairs)",
		// PyClick's SDBN: x (11/16)(11/12) = 0.630, w 1/14; z 1/12, v 1/14.
		// Against the engine's order (x, w at rank 1; z, v at 2): x > z
		// and x > v agree, w < z does not, w = v is a tie: 2.5 of 4. Mean
		// relevance at rank 1 (x, w) and 2 (z, v). Dropped: x (11/12)
		// (11/12), z (1/2)(1/2); w and v are not in the log.
		"| SDBN | click-less SERPs kept, `--estimator pyclick` | 0.625 (4) | 0.351 / 0.077 |",
		"| SDBN | `--drop-clickless --estimator pyclick` | 1.000 (1) | 0.840 / 0.250 |",
		// exact and pyclick on the pairs both estimate, one query: no
		// standard error.
		"| SDBN | every SERP | 1 | 2 | 1 | 0.000 | 1.000 | -1.000 | NaN |",
		"| SDBN | `--drop-clickless` | 0 | 0 | 0 | 0.000 | 0.000 | +0.000 | NaN |",
	} {
		if !strings.Contains(out.String(), "\n"+row) {
			t.Errorf("no row starting %s in\n%s", row, out.String())
		}
	}
}

// twoListLog writes TestPyClickVariants's log (26 SERPs of query q:
// [x z] with a click on x 10 times, without a click 4 times, [w v]
// without a click 5 times, [x z] with a click 4 times, [w v] 3 times) and
// its grades (z 1, w 0), returning their paths.
func twoListLog(t *testing.T) (logPath, gradesPath string) {
	t.Helper()
	dir := t.TempDir()
	var log strings.Builder
	s := 0
	serp := func(n int, first, second string, click bool) {
		for range n {
			s++
			fmt.Fprintf(&log, "%d\t0\tQ\tq\t0\t%s\t%s\n", s, first, second)
			if click {
				fmt.Fprintf(&log, "%d\t0\tC\t%s\n", s, first)
			}
		}
	}
	serp(10, "x", "z", true)
	serp(4, "x", "z", false)
	serp(5, "w", "v", false)
	serp(4, "x", "z", true)
	serp(3, "w", "v", false)
	logPath, gradesPath = filepath.Join(dir, "log.tsv"), filepath.Join(dir, "grades.tsv")
	if err := os.WriteFile(logPath, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gradesPath, []byte("query\tdoc\tgrade\nq\tz\t1\nq\tw\t0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return logPath, gradesPath
}

// TestGibbsVariants: with -intervals, the models the sampler serves (SDBN
// here) are fitted twice more each way, with their intervals from the
// counts and from the sampler, and the others (DCTR) are not. The
// intervals' method changes the intervals, not the relevance column, so
// their rows agree with the grades exactly as the default's do: on TestPyClickVariants's log, exact SDBN orders z below w
// against the grades (0.000 of the one document pair) with the click-less
// SERPs kept, and estimates only z of the two judged pairs without them
// (no document pair).
func TestGibbsVariants(t *testing.T) {
	logPath, gradesPath := twoListLog(t)
	var out bytes.Buffer
	if err := run(context.Background(), logPath, gradesPath, "dctr,sdbn", split.Spec, split.DefaultSeed, false, true, &out); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{
		"| SDBN | click-less SERPs kept (default) | 2 | 1 | 0.000 |",
		"| SDBN | click-less SERPs kept, `--intervals-from gibbs` | 2 | 1 | 0.000 |",
		"| SDBN | `--drop-clickless --intervals-from gibbs` | 1 | 0 | 0.000 |",
		"| SDBN | click-less SERPs kept, `--intervals-from counts` | 2 | 1 | 0.000 |",
		"| SDBN | `--drop-clickless --intervals-from counts` | 1 | 0 | 0.000 |",
	} {
		if !strings.Contains(out.String(), "\n"+row) {
			t.Errorf("no row starting %s in\n%s", row, out.String())
		}
	}
	if strings.Contains(out.String(), "| DCTR | click-less SERPs kept, `--intervals-from") {
		t.Errorf("a DCTR row with the sampler's intervals in\n%s", out.String())
	}
}

// TestCompare checks the paired agreement and its jackknife standard
// error against a hand computation. Grades: q1 a 2, b 1, c 0; q2 d 1, e 0;
// q3 f 1, g 0. Fit A orders q1 a > b > c (3 of 3 document pairs agree),
// q2 d > e (1 of 1), q3 f = g (a tie, 1/2); fit B q1 c > b > a (0 of 3),
// q2 d > e (1), q3 f > g (1). A = 4.5/5 = 0.9, B = 2/5 = 0.4. Leaving out
// q1: (1.5 - 2)/2 = -0.25; q2: (3.5 - 1)/4 = 0.625; q3: (4 - 1)/4 = 0.75;
// mean 0.375; SE = sqrt(2/3 (0.625^2 + 0.25^2 + 0.375^2)) =
// sqrt(0.3958333) = 0.6291529.
func TestCompare(t *testing.T) {
	g := calibration.Grades{{"q1", "a"}: 2, {"q1", "b"}: 1, {"q1", "c"}: 0, {"q2", "d"}: 1, {"q2", "e"}: 0, {"q3", "f"}: 1, {"q3", "g"}: 0}
	rows := func(rel map[[2]string]float64) []calibration.Interval {
		var out []calibration.Interval
		for _, k := range [][2]string{{"q1", "a"}, {"q1", "b"}, {"q1", "c"}, {"q2", "d"}, {"q2", "e"}, {"q3", "f"}, {"q3", "g"}} {
			if r, ok := rel[k]; ok {
				out = append(out, calibration.Interval{Query: k[0], Doc: k[1], Relevance: r, Alpha: 1, Beta: 1})
			}
		}
		return out
	}
	a := rows(map[[2]string]float64{{"q1", "a"}: 0.9, {"q1", "b"}: 0.5, {"q1", "c"}: 0.1, {"q2", "d"}: 0.6, {"q2", "e"}: 0.4, {"q3", "f"}: 0.2, {"q3", "g"}: 0.2})
	b := rows(map[[2]string]float64{{"q1", "a"}: 0.1, {"q1", "b"}: 0.5, {"q1", "c"}: 0.9, {"q2", "d"}: 0.6, {"q2", "e"}: 0.4, {"q3", "f"}: 0.3, {"q3", "g"}: 0.2})
	p, err := compare(a, b, g, labels.DefaultThresholds(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Queries != 3 || p.JudgedPairs != 7 || p.DocPairs != 5 {
		t.Errorf("queries, judged pairs, document pairs = %d, %d, %d, want 3, 7, 5", p.Queries, p.JudgedPairs, p.DocPairs)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"A", p.A, 0.9}, {"B", p.B, 0.4}, {"SE", p.SE, 0.6291529}} {
		if math.Abs(c.got-c.want) > 1e-6 {
			t.Errorf("%s = %.7f, want %.7f", c.name, c.got, c.want)
		}
	}
	// Restricted to the pairs both fits observe with evidence >= 2: q1's
	// c has 1 + 0.5 in a, so q1 keeps a > b only in a (1 of 1 agrees),
	// b > a in b (0); q2, q3 as above. A = 2.5/3, B = 2/3; leaving out
	// q1: (1.5 - 2)/2 = -0.25; q2: (1.5 - 1)/2 = 0.25; q3: (2 - 1)/2 =
	// 0.5; mean 1/6; SE = sqrt(2/3 ((5/12)^2 + (1/12)^2 + (1/3)^2)) =
	// sqrt(2/3 x 42/144) = 0.4409586.
	a[2].Alpha, a[2].Beta = 1, 0.5
	p, err = compare(a, b, g, labels.DefaultThresholds(), observed(2, a, b))
	if err != nil {
		t.Fatal(err)
	}
	if p.Queries != 3 || p.JudgedPairs != 6 || p.DocPairs != 3 || math.Abs(p.A-2.5/3) > 1e-9 || math.Abs(p.B-2.0/3) > 1e-9 || math.Abs(p.SE-0.4409586) > 1e-6 {
		t.Errorf("with evidence >= 2: %+v, want 3 queries, 6 judged pairs, 3 document pairs, A 0.8333333, B 0.6666667, SE 0.4409586", p)
	}
	// A fit that misses a judged pair is not compared.
	if _, err := compare(a, b[:6], g, labels.DefaultThresholds(), nil); err == nil {
		t.Error("compare of fits with different pairs: no error")
	}
}

// TestVariantsSplit checks that every variant fits with the split and seed
// asked for (-split, -seed), that the models with an exact E-step of their
// own (DBN, SDBN, DCM, CCM) get PyClick's estimator as a second pair, paired
// with their default fits, and that the others (DCTR, UBM) do not.
func TestVariantsSplit(t *testing.T) {
	kinds := []clickmodels.Kind{clickmodels.DCTR, clickmodels.UBM, clickmodels.DBN, clickmodels.SDBN, clickmodels.DCM, clickmodels.CCM}
	vs := variants(kinds, split.Random, 7, false, false)
	if len(vs) != 2*6+2*4 {
		t.Fatalf("%d variants, want 20: two per model and two more for DBN, SDBN, DCM and CCM", len(vs))
	}
	pyclick := map[clickmodels.Kind]int{}
	for _, v := range vs {
		var c clickmodels.RunConfig
		v.opt.Fit(&c)
		if c.Split != split.Random || c.Seed != 7 {
			t.Errorf("%v, %s: split %s seed %d, want random 7", v.kind, v.name, c.Split, c.Seed)
		}
		if v.exact == nil {
			// A default fit leaves the options it is given (here the
			// zero value) alone.
			if c.Options.Exact || c.Options.Iterations != 0 {
				t.Errorf("%v, %s: options changed: %+v", v.kind, v.name, c.Options)
			}
			continue
		}
		pyclick[v.kind]++
		if c.Options.Estimator() != clickmodels.EstimatorPyClick || c.Options.Iterations != clickmodels.DefaultIterations {
			t.Errorf("%v, %s: options %+v, want PyClick's", v.kind, v.name, c.Options)
		}
		if v.exact.kind != v.kind || v.exact.exact != nil || v.exact.opt.DropClickless != v.opt.DropClickless {
			t.Errorf("%v, %s: paired with %v, %s", v.kind, v.name, v.exact.kind, v.exact.name)
		}
	}
	want := map[clickmodels.Kind]int{clickmodels.DBN: 2, clickmodels.SDBN: 2, clickmodels.DCM: 2, clickmodels.CCM: 2}
	if fmt.Sprint(pyclick) != fmt.Sprint(want) {
		t.Errorf("fits under --estimator pyclick per model: %v, want %v", pyclick, want)
	}
}
