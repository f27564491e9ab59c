package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lovbench/lovbench/export"
)

// Minimums are what a dataset needs before its learning-to-rank results
// can mean anything (export.Minimums, their one home, which validate also
// checks); below them a run refuses to publish unless told otherwise
// (RunOptions.AllowDegenerate, --allow-degenerate).
type Minimums = export.Minimums

// DefaultMinimums are the minimums of run and demo (export.DefaultMinimums).
func DefaultMinimums() Minimums { return export.DefaultMinimums() }

// ErrDegenerate is returned (wrapped) when a dataset is below the minimums.
var ErrDegenerate = errors.New("the dataset is too small to be a benchmark")

// CheckMinimums returns what the dataset directory dir has below need
// (export.CheckMinimums), one sentence per fold and minimum; nil when it
// meets them.
func CheckMinimums(dir string, need Minimums) ([]string, error) {
	return export.CheckMinimums(context.Background(), dir, need)
}

// degenerateError is the error of a run whose dataset is below the
// minimums; remedy is RunOptions.Remedy.
func degenerateError(problems []string, remedy string) error {
	if remedy == "" {
		remedy = "a larger log, or fewer folds (export.folds in the configuration)"
	}
	return fmt.Errorf("%w: %s. Use %s, or pass --allow-degenerate to publish it anyway with a warning in the report", ErrDegenerate, strings.Join(problems, "; "), remedy)
}
