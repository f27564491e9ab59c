package pipeline

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/lovbench/lovbench/export"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/ltr"
)

// Minimums are what a dataset needs before its learning-to-rank results
// can mean anything. Below them every measure of a fold
// is 0 or rests on a handful of queries, so a run refuses to publish unless
// told otherwise (RunOptions.AllowDegenerate, --allow-degenerate).
type Minimums struct {
	// TestQueries is the least number of queries in every fold's test set.
	TestQueries int
	// RelevantTestQueries is the least number of queries, in every fold's
	// test set, with at least one relevant term (label >= 1, the
	// relevance of MAP, docs/method.md section 8): without one, NDCG, MAP
	// and ERR of the fold are 0 whatever the ranker.
	RelevantTestQueries int
}

// DefaultMinimums are the minimums of run and demo: 5 test queries per
// fold, one of them with a relevant term.
func DefaultMinimums() Minimums { return Minimums{TestQueries: 5, RelevantTestQueries: 1} }

// ErrDegenerate is returned (wrapped) when a dataset is below the minimums.
var ErrDegenerate = errors.New("the dataset is too small to be a benchmark")

// CheckMinimums reads the test set of every fold of the dataset directory
// dir and returns what is below need, one sentence per fold and minimum;
// nil when the dataset meets them.
func CheckMinimums(dir string, need Minimums) ([]string, error) {
	var m export.Manifest
	if err := readJSON(filepath.Join(dir, export.ManifestFile), &m); err != nil {
		return nil, err
	}
	var problems []string
	for _, f := range export.Folds(m.Parameters.Folds) {
		ds, err := ltr.ReadSVMLightFile(filepath.Join(dir, filepath.FromSlash(export.FoldFile(f.Fold, "test"))))
		if err != nil {
			return nil, err
		}
		relevant := 0
		for _, q := range ds.Queries {
			for _, d := range q.Docs {
				if d.Label >= 1 {
					relevant++
					break
				}
			}
		}
		name := fmt.Sprintf("Fold%d's test set", f.Fold)
		if n := len(ds.Queries); n < need.TestQueries {
			problems = append(problems, fmt.Sprintf("%s has %s, need at least %d", name, textio.Count(n, "query", "queries"), need.TestQueries))
		}
		if relevant < need.RelevantTestQueries {
			problems = append(problems, fmt.Sprintf("%s has %s with a relevant term (label >= 1), need at least %d", name, textio.Count(relevant, "query", "queries"), need.RelevantTestQueries))
		}
	}
	return problems, nil
}

// degenerateError is the error of a run whose dataset is below the
// minimums; remedy is RunOptions.Remedy.
func degenerateError(problems []string, remedy string) error {
	if remedy == "" {
		remedy = "a larger log, or fewer folds (export.folds in the configuration)"
	}
	return fmt.Errorf("%w: %s. Use %s, or pass --allow-degenerate to publish it anyway with a warning in the report", ErrDegenerate, strings.Join(problems, "; "), remedy)
}

// degenerateWarning is the report's banner for a dataset below the
// minimums.
func degenerateWarning(problems []string) string {
	return "Warning: this dataset is below the minimums of a meaningful benchmark and was published only because --allow-degenerate was given: " +
		strings.Join(problems, "; ") + ". Its learning-to-rank results mean little."
}
