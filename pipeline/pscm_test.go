package pipeline

import (
	"path/filepath"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/report"
)

// TestSelectPSCM: run's configuration names pscm among the click models
// and may select it; "best" passes it over (its log-likelihood is told
// the test SERPs' click sequences), and the report's model table lists it
// beside the others.
func TestSelectPSCM(t *testing.T) {
	cfg, err := ParseConfig([]byte("log: {path: a}\nclick_models: {models: [dctr, PSCM, ubm], select: pscm}\n"), "lovbench.yaml", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ClickModels.Select != "pscm" || cfg.ClickModels.Models[1] != "pscm" {
		t.Fatalf("click_models %+v", cfg.ClickModels)
	}
	rep := func(model string, ll, ppl float64) clickmodels.Report {
		r := clickmodels.Report{Model: model}
		r.LogLikelihood, r.Perplexity = ll, ppl
		return r
	}
	reps := fit.Report{rep("DCTR", -0.34, 1.42), rep("PSCM", -0.03, 1.03), rep("UBM", -0.25, 1.32)}
	for _, c := range []struct{ sel, want string }{{"best", "UBM"}, {"pscm", "PSCM"}} {
		dir := t.TempDir()
		sum, err := fit.Summarize(reps, cfg.ClickModels.TrainFraction, c.sel)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeJSON(filepath.Join(dir, FitSummaryFile), sum); err != nil {
			t.Fatal(err)
		}
		var got FitSummary
		if err := textio.ReadJSON(filepath.Join(dir, FitSummaryFile), &got); err != nil {
			t.Fatal(err)
		}
		if got.Selected != c.want {
			t.Errorf("select %s: selected %s, want %s", c.sel, got.Selected, c.want)
		}
		d, err := report.Build(report.Config{Fit: dir})
		if err != nil {
			t.Fatal(err)
		}
		rows := d.Models
		if len(rows) != 3 || rows[1].Name != "PSCM" || rows[1].Selected != (c.want == "PSCM") {
			t.Errorf("select %s: model table %+v", c.sel, rows)
		}
	}
	if _, err := fit.Summarize(reps, 0.75, "sdbn"); err == nil {
		t.Error("select sdbn, not fitted: no error")
	}
}
