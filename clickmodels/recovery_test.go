package clickmodels_test

import (
	"context"
	"math"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/internal/testsize"
	"github.com/lovbench/lovbench/sessions"
	"gonum.org/v1/gonum/stat"
)

// impressions counts how often each (query, doc) pair of log was shown.
// It counts by the log's query and document IDs, in a table of every
// (query, doc) when that has at most 2^24 cells (the simulated logs of
// these tests: a few hundred queries and thousands of documents), else in
// a map, and then names the pairs shown.
func impressions(log *sessions.Log) map[[2]string]int {
	nq, nd := len(log.Queries.Names), len(log.Docs.Names)
	out := map[[2]string]int{}
	if nq*nd > 1<<24 {
		for i := 0; i < log.Len(); i++ {
			q := log.Queries.Names[log.Query[i]]
			for _, d := range log.SERPDocs(i) {
				out[[2]string{q, log.Docs.Names[d]}]++
			}
		}
		return out
	}
	counts := make([]int32, nq*nd)
	for i := 0; i < log.Len(); i++ {
		row := int(log.Query[i]) * nd
		for _, d := range log.SERPDocs(i) {
			counts[row+int(d)]++
		}
	}
	for k, n := range counts {
		if n > 0 {
			out[[2]string{log.Queries.Names[k/nd], log.Docs.Names[k%nd]}] = int(n)
		}
	}
	return out
}

// TestParameterRecovery simulates 200,000 SERPs (400,000 with
// LOVBENCH_FULL=1) from UBM and DBN with known
// (seeded random) parameters and checks that the fitted attractiveness (and
// DBN's satisfaction) correlate above 0.95 with the truth over the pairs
// shown at least 100 times. DBN is fitted both with PyClick's E-step and
// the exact one. 50 queries and half the SERPs shuffled give satisfaction,
// which only the last click of a SERP informs, enough data: with 300
// queries, 30% shuffled and 200,000 SERPs its correlation is about 0.89
// (0.90 for attractiveness with PyClick's E-step, 0.94 with the exact one).
// At 200,000 SERPs of this design: attractiveness 0.997 (UBM), 0.970 and
// 0.989 (DBN, PyClick's and exact E-step), satisfaction 0.955 and 0.957.
// UBM, far above the bound, is fitted on 50,000 SERPs at the default
// size (400,000 with LOVBENCH_FULL=1): r 0.9925 over 745 pairs shown 100
// times or more (0.9947 over 951 at 100,000).
func TestParameterRecovery(t *testing.T) {
	serps := testsize.Pick(200_000, 400_000)
	// DBN and DBN-exact fit the same log: it is drawn (and prepared) once.
	type drawn struct {
		log   *sessions.Log
		truth *clickmodels.Model
		d     *clickmodels.Data
		shown map[[2]string]int
	}
	logs := map[clickmodels.Kind]*drawn{}
	for _, tc := range []struct {
		name  string
		kind  clickmodels.Kind
		iters int
		exact bool
	}{{"UBM", clickmodels.UBM, 50, false}, {"DBN", clickmodels.DBN, 30, false}, {"DBN-exact", clickmodels.DBN, 30, true}} {
		t.Run(tc.name, func(t *testing.T) {
			serps := serps
			if tc.kind == clickmodels.UBM {
				serps = testsize.Pick(50_000, serps)
			}
			dr := logs[tc.kind]
			if dr == nil {
				src, err := sim.NewSyntheticSource(synthCfg(50, 0.5, 7))
				if err != nil {
					t.Fatal(err)
				}
				log, truth, err := sim.SimulateLog(context.Background(), sim.Config{Kind: tc.kind, SERPs: serps, Seed: 11, Source: src})
				if err != nil {
					t.Fatal(err)
				}
				d, err := clickmodels.Prepare(log, 0)
				if err != nil {
					t.Fatal(err)
				}
				dr = &drawn{log, truth, d, impressions(log)}
				logs[tc.kind] = dr
			}
			truth := dr.truth
			m, err := clickmodels.Fit(context.Background(), dr.d, tc.kind, clickmodels.Options{Iterations: tc.iters, Exact: tc.exact})
			if err != nil {
				t.Fatal(err)
			}
			var ta, fa, ts, fs []float64
			for k, n := range dr.shown {
				if n < 100 {
					continue
				}
				tp, fp := truth.Pair(k[0], k[1]), m.Pair(k[0], k[1])
				if tp < 0 || fp < 0 {
					t.Fatalf("pair %v missing: truth %d, fitted %d", k, tp, fp)
				}
				ta = append(ta, truth.Attr[tp])
				fa = append(fa, m.Attr[fp])
				if tc.kind == clickmodels.DBN {
					ts = append(ts, truth.Sat[tp])
					fs = append(fs, m.Sat[fp])
				}
			}
			if len(ta) < 500 {
				t.Fatalf("only %d pairs shown 100 times or more", len(ta))
			}
			r := stat.Correlation(ta, fa, nil)
			t.Logf("%v: %d pairs, attractiveness r = %.4f", tc.kind, len(ta), r)
			if r <= 0.95 {
				t.Errorf("attractiveness correlates %.4f with the truth, want > 0.95", r)
			}
			if tc.kind == clickmodels.DBN {
				rs := stat.Correlation(ts, fs, nil)
				t.Logf("DBN satisfaction r = %.4f, gamma fitted %.4f (true %.2f)", rs, m.Global[0], truth.Global[0])
				if rs <= 0.95 {
					t.Errorf("satisfaction correlates %.4f with the truth, want > 0.95", rs)
				}
				// The exact E-step also recovers the continuation gamma;
				// PyClick's biases it (0.95 here).
				if tc.exact && math.Abs(m.Global[0]-truth.Global[0]) > 0.01 {
					t.Errorf("exact clickmodels.DBN: gamma %.4f, true %.2f", m.Global[0], truth.Global[0])
				}
			}
		})
	}
}

// TestRecoveryOtherModels checks, as TestParameterRecovery, that PBM, CM,
// DCM, SDBN, CCM and DCTR fitted on 200,000 SERPs simulated from themselves
// recover the true attractiveness (SDBN also satisfaction) with a
// correlation above 0.95 (measured: 0.96 for CCM, 0.97 for SDBN's
// satisfaction, 0.986 to 0.998 for the others). CCM's continuation
// parameters are not checked: PyClick's CCM update drives tau1 towards 1.
//
// At the default size the models other than CCM are fitted on 100,000
// SERPs (200,000 with LOVBENCH_FULL=1), where they still recover it
// (measured: r 0.973 for CM, 0.958 for SDBN's satisfaction, 0.987 to
// 0.997 for the others, about 940 pairs each); CCM is fitted on 200,000
// at both sizes, since at 100,000 its r is 0.9497, below the bound.
func TestRecoveryOtherModels(t *testing.T) {
	for _, k := range []clickmodels.Kind{clickmodels.PBM, clickmodels.CM, clickmodels.DCM, clickmodels.SDBN, clickmodels.CCM, clickmodels.DCTR} {
		serps := testsize.Pick(100_000, 200_000)
		if k == clickmodels.CCM {
			serps = 200_000
		}
		t.Run(k.String(), func(t *testing.T) {
			src, err := sim.NewSyntheticSource(synthCfg(50, 0.5, 7))
			if err != nil {
				t.Fatal(err)
			}
			log, truth, err := sim.SimulateLog(context.Background(), sim.Config{Kind: k, SERPs: serps, Seed: 11, Source: src})
			if err != nil {
				t.Fatal(err)
			}
			d, err := clickmodels.Prepare(log, 0)
			if err != nil {
				t.Fatal(err)
			}
			m, err := clickmodels.Fit(context.Background(), d, k, clickmodels.Options{Iterations: 30})
			if err != nil {
				t.Fatal(err)
			}
			var ta, fa, ts, fs []float64
			for key, n := range impressions(log) {
				if n < 100 {
					continue
				}
				tp, fp := truth.Pair(key[0], key[1]), m.Pair(key[0], key[1])
				ta = append(ta, truth.Attr[tp])
				fa = append(fa, m.Attr[fp])
				if k == clickmodels.SDBN {
					ts = append(ts, truth.Sat[tp])
					fs = append(fs, m.Sat[fp])
				}
			}
			r := stat.Correlation(ta, fa, nil)
			t.Logf("%v, %d SERPs: %d pairs, attractiveness r = %.4f", k, serps, len(ta), r)
			if r <= 0.95 || len(ta) < 500 {
				t.Errorf("%d pairs, attractiveness r = %.4f, want > 0.95", len(ta), r)
			}
			if k == clickmodels.SDBN {
				r := stat.Correlation(ts, fs, nil)
				t.Logf("SDBN satisfaction r = %.4f", r)
				if r <= 0.95 {
					t.Errorf("satisfaction r = %.4f, want > 0.95", r)
				}
			}
		})
	}
}
