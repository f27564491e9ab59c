package calibration_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/refsim"
	"github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/pipeline/calibration"
	"gonum.org/v1/gonum/stat"
)

// recovery fits kinds as `lovbench fit --log` does (the defaults) on a
// log of the second simulator's PSCM user (refsim) of 30,000 SERPs over
// 50 queries, half the lists shuffled, with or without returns, and
// returns per model the Pearson r of the fitted relevance with the
// simulated attractiveness and the mean fitted minus true attractiveness,
// over the pairs the log shows at least 100 times.
func recovery(t *testing.T, returns bool, kinds ...clickmodels.Kind) (r, bias []float64) {
	t.Helper()
	dir := t.TempDir()
	cfg := refsim.Default(refsim.PSCM, 30000, 50, 3)
	cfg.Perturbed, cfg.NoReturns = 0.5, !returns
	logPath := filepath.Join(dir, "log.tsv")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	truth, st, err := refsim.Simulate(context.Background(), cfg, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if returns != (st.OutOfOrder > 0) {
		t.Fatalf("returns %v: %d SERPs out of rank order", returns, st.OutOfOrder)
	}
	fc := fit.DefaultConfig()
	fc.Input, fc.Dir, fc.Kinds = logPath, filepath.Join(dir, "fit"), kinds
	if err := os.MkdirAll(fc.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := fit.Run(context.Background(), fc); err != nil {
		t.Fatal(err)
	}
	byPair := map[[2]string]refsim.Pair{}
	for _, p := range truth {
		byPair[[2]string{p.Query, p.Doc}] = p
	}
	for _, k := range kinds {
		rows, err := calibration.ReadIntervals(filepath.Join(fc.Dir, clickmodels.RelevanceFile(k.String())))
		if err != nil {
			t.Fatal(err)
		}
		var x, y []float64
		var sum float64
		for _, iv := range rows {
			if p := byPair[[2]string{iv.Query, iv.Doc}]; p.Shown >= 100 {
				x, y = append(x, iv.Relevance), append(y, p.Attr)
				sum += iv.Relevance - p.Attr
			}
		}
		if len(x) < 300 {
			t.Fatalf("%v: %d pairs shown 100 times, want at least 300", k, len(x))
		}
		r, bias = append(r, stat.Correlation(x, y, nil)), append(bias, sum/float64(len(x)))
	}
	return r, bias
}

// TestPSCMRecoveryRefsim measures PSCM and UBM on the logs of PSCM's
// user (clickmodels/refsim: the user scans from the previous click, up
// first with probability 0.4 after a click) and checks what
// docs/clickmodels.md ("Where PSCM helps") reports:
//
//   - returns hurt UBM, which reads the clicks in rank order: its mean
//     fitted attractiveness is above the truth by more with returns than
//     without (the ranks an up scan examined without a click are not seen
//     by a model that reads no order), by at least 0.015;
//   - PSCM does not recover the attractiveness better than UBM, with
//     returns or without: its examination gamma_imn is conditioned on the
//     next click n, so the ranks a step skips, never clicked by
//     definition, are explained by gamma_imn -> 0 and carry no evidence
//     against their attractiveness, which the fit pushes up (mean bias
//     above 0.3, Pearson r below UBM's by more than 0.2).
//
// The first point fails with the returns taken away (NoReturns on both
// logs: the two biases are equal).
func TestPSCMRecoveryRefsim(t *testing.T) {
	rRet, bRet := recovery(t, true, clickmodels.PSCM, clickmodels.UBM)
	rNo, bNo := recovery(t, false, clickmodels.PSCM, clickmodels.UBM)
	t.Logf("with returns: PSCM r %.3f bias %.3f, UBM r %.3f bias %.3f", rRet[0], bRet[0], rRet[1], bRet[1])
	t.Logf("without:      PSCM r %.3f bias %.3f, UBM r %.3f bias %.3f", rNo[0], bNo[0], rNo[1], bNo[1])
	if bRet[1] < bNo[1]+0.015 {
		t.Errorf("UBM's mean bias %.3f with returns, %.3f without: want returns to raise it by at least 0.015", bRet[1], bNo[1])
	}
	for _, c := range []struct {
		what    string
		r, bias []float64
	}{{"with returns", rRet, bRet}, {"without returns", rNo, bNo}} {
		if c.bias[0] < 0.3 || c.r[0] > c.r[1]-0.2 {
			t.Errorf("%s: PSCM r %.3f, bias %.3f; UBM r %.3f: want PSCM's bias above 0.3 and its r below UBM's by more than 0.2", c.what, c.r[0], c.bias[0], c.r[1])
		}
	}
}
