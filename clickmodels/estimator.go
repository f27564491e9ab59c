package clickmodels

import (
	"fmt"
	"strings"
)

// Estimator names how the EM models are estimated (lovbench fit
// --estimator, lovbench-beam fit -estimator, run's click_models.estimator;
// docs/method.md section 3, "Estimation").
//
//   - EstimatorExact (the default of every command): the E-steps of DBN,
//     SDBN, DCM and CCM are exact ones (Chuklin, Markov and de Rijke 2015,
//     section 4.2: every posterior conditioned on all clicks of the SERP;
//     Options.Exact, Kind.ExactEStep), and every EM model runs to
//     convergence: until the training log-likelihood per SERP changes by
//     less than DefaultTolerance, at most DefaultMaxIterations iterations.
//     EM is accelerated by SQUAREM (Options.Accelerate; fit
//     --accelerate=false, lovbench-beam -accelerate=false and run's
//     click_models.accelerate: false give plain EM, which stops by the
//     same rule at the same limit in four to five times the iterations).
//     SDBN and DCM, which PyClick counts in one pass, are then fitted by
//     EM (Kind.EM). PBM's and UBM's E-steps are exact already (PyClick's
//     are), so for them only the stopping rule changes; GCTR, RCTR, DCTR
//     and CM stay one counting pass, which is their maximum likelihood
//     estimate. Measured on logs drawn from the models, the estimates go
//     to the truth as the log grows (TestConsistency); PyClick's DBN, SDBN,
//     DCM and CCM do not (DBN: continuation 0.86 for a true 0.90 on
//     100,000 SERPs, relevance of the best-observed pairs 0.09 low; CCM:
//     relevance 0.19 low; docs/method.md section 3).
//   - EstimatorPyClick: PyClick's E-steps and counting passes, quirks
//     included, and exactly DefaultIterations (50) iterations: equal to
//     PyClick to 1e-6 on its reference log (TestPyClickEquivalence).
//
// Options' zero value is PyClick's estimator with 50 iterations (the
// library's historical behaviour, on which hand-computed tests rest);
// Estimator.Options gives an estimator's settings.
type Estimator string

const (
	// EstimatorExact is the consistent estimator, the default.
	EstimatorExact Estimator = "exact"
	// EstimatorPyClick is PyClick's estimator.
	EstimatorPyClick Estimator = "pyclick"
	// DefaultEstimator is the estimator of every command.
	DefaultEstimator = EstimatorExact
	// DefaultTolerance is EstimatorExact's stopping rule: EM stops once
	// the training log-likelihood per SERP changes by less than this
	// between two iterations. On 100,000 SERPs drawn from DBN (200
	// queries) exact DBN stops after about 100 iterations with its
	// continuation within 3e-5 of the limit of EM (0.9067), against 6e-4
	// at 50 iterations (change 2.8e-6) and a sampling error of 7e-3.
	DefaultTolerance = 1e-7
	// DefaultMaxIterations caps EstimatorExact's iterations.
	DefaultMaxIterations = 200
)

// Estimators lists the estimators, the default first.
func Estimators() []Estimator { return []Estimator{EstimatorExact, EstimatorPyClick} }

// ParseEstimator parses an estimator name (case-insensitive); "" is the
// default.
func ParseEstimator(s string) (Estimator, error) {
	switch Estimator(strings.ToLower(strings.TrimSpace(s))) {
	case "":
		return DefaultEstimator, nil
	case EstimatorExact:
		return EstimatorExact, nil
	case EstimatorPyClick:
		return EstimatorPyClick, nil
	}
	return "", fmt.Errorf("unknown estimator %q (want exact or pyclick)", s)
}

// Options returns the fitting options of e: the E-step, the iteration cap,
// the tolerance and the acceleration; the caller adds workers, level and
// callbacks.
func (e Estimator) Options() Options {
	if e == EstimatorPyClick {
		return Options{Iterations: DefaultIterations}
	}
	return Options{Iterations: DefaultMaxIterations, Tolerance: DefaultTolerance, Exact: true, Accelerate: true}
}

// CheckEmpiricalPrior refuses the empirical-Bayes prior
// (Options.EmpiricalPrior, on) under an estimator other than the exact
// one: PyClick's estimator keeps PyClick's prior. The library ignores the
// prior there; the commands (lovbench fit --empirical-prior,
// lovbench-beam fit -empirical-prior, run's click_models.empirical_prior)
// refuse it through this check, which their messages prefix with their
// own name of the option.
func (e Estimator) CheckEmpiricalPrior(on bool) error {
	if on && e != EstimatorExact {
		return fmt.Errorf("needs estimator exact, not %s (PyClick's estimator keeps PyClick's prior)", e)
	}
	return nil
}

// Estimator returns the estimator o selects: EstimatorExact when Exact is
// set, else EstimatorPyClick (the tolerance and iterations aside).
func (o Options) Estimator() Estimator {
	if o.Exact {
		return EstimatorExact
	}
	return EstimatorPyClick
}
