package clickmodels

import (
	"strings"
	"testing"
)

// TestCheckEmpiricalPrior: the empirical-Bayes prior belongs to the exact
// estimator (docs/method.md section 4); under PyClick's it is refused,
// and off it is never refused. lovbench fit, lovbench-beam fit and run's
// configuration all check through it.
func TestCheckEmpiricalPrior(t *testing.T) {
	t.Parallel()
	for _, e := range Estimators() {
		if err := e.CheckEmpiricalPrior(false); err != nil {
			t.Errorf("%s without the prior: %v", e, err)
		}
	}
	if err := EstimatorExact.CheckEmpiricalPrior(true); err != nil {
		t.Errorf("exact with the prior: %v", err)
	}
	err := EstimatorPyClick.CheckEmpiricalPrior(true)
	if err == nil || !strings.Contains(err.Error(), "needs estimator exact") || !strings.Contains(err.Error(), "pyclick") {
		t.Errorf("pyclick with the prior: %v, want a refusal naming both estimators", err)
	}
}
