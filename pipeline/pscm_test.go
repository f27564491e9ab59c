package pipeline

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"

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
	sum := FitSummary{Models: []FitModel{
		{Model: "DCTR", LogLikelihood: -0.34, Perplexity: 1.42},
		{Model: "PSCM", LogLikelihood: -0.03, Perplexity: 1.03},
		{Model: "UBM", LogLikelihood: -0.25, Perplexity: 1.32},
	}}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range []struct{ sel, want string }{{"best", "UBM"}, {"pscm", "PSCM"}} {
		env := &StageEnv{Dir: t.TempDir(), Log: quiet}
		cm := cfg.ClickModels
		cm.Select = c.sel
		if err := writeFitSummary(env, cm, sum); err != nil {
			t.Fatal(err)
		}
		var got FitSummary
		if err := textio.ReadJSON(filepath.Join(env.Dir, FitSummaryFile), &got); err != nil {
			t.Fatal(err)
		}
		if got.Selected != c.want {
			t.Errorf("select %s: selected %s, want %s", c.sel, got.Selected, c.want)
		}
		d, err := report.Build(report.Config{Fit: env.Dir})
		if err != nil {
			t.Fatal(err)
		}
		rows := d.Models
		if len(rows) != 3 || rows[1].Name != "PSCM" || rows[1].Selected != (c.want == "PSCM") {
			t.Errorf("select %s: model table %+v", c.sel, rows)
		}
	}
}
