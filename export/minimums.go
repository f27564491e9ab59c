package export

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/ltr"
)

// Minimums are what a dataset needs before its learning-to-rank results
// can mean anything. Below them every measure of a fold is 0 or rests on
// a handful of queries: lovbench run and demo refuse to publish such a
// dataset unless told otherwise (--allow-degenerate), and lovbench
// validate fails on it the same way (docs/method.md section 8).
type Minimums struct {
	// TestQueries is the least number of queries in every fold's test set.
	TestQueries int
	// RelevantTestQueries is the least number of queries, in every fold's
	// test set, with at least one relevant term (label >= 1, the
	// relevance of MAP, docs/method.md section 8): without one, NDCG, MAP
	// and ERR of the fold are 0 whatever the ranker.
	RelevantTestQueries int
}

// DefaultMinimums are the minimums of run, demo and validate: 5 test
// queries per fold, one of them with a relevant term.
func DefaultMinimums() Minimums { return Minimums{TestQueries: 5, RelevantTestQueries: 1} }

// CheckMinimums reads the dataset directory dir (its manifest and
// dataset.parquet) and returns what is below need, one sentence per fold
// and minimum; nil when the dataset meets them.
func CheckMinimums(ctx context.Context, dir string, need Minimums) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	c, err := ReadParquetColumns(ctx, filepath.Join(dir, ParquetFile))
	if err != nil {
		return nil, err
	}
	return minimumProblems(m.Parameters.Folds, c, need), nil
}

// minimumProblems is CheckMinimums over the columns c of a dataset of
// folds folds: the test set of fold k is the rows of its test partition
// (Folds), as FoldK/test.txt holds them.
func minimumProblems(folds int, c *Columns, need Minimums) []string {
	queries := map[int32]map[int32]bool{}  // partition -> qids
	relevant := map[int32]map[int32]bool{} // partition -> qids with a label >= 1
	for i, p := range c.Partition {
		if queries[p] == nil {
			queries[p], relevant[p] = map[int32]bool{}, map[int32]bool{}
		}
		queries[p][c.QID[i]] = true
		if c.Label[i] >= 1 {
			relevant[p][c.QID[i]] = true
		}
	}
	var problems []string
	for _, f := range Folds(folds) {
		name := ltr.FoldDir(f.Fold) + "'s test set"
		p := int32(f.Test)
		if n := len(queries[p]); n < need.TestQueries {
			problems = append(problems, fmt.Sprintf("%s has %s, need at least %d", name, textio.Count(n, "query", "queries"), need.TestQueries))
		}
		if n := len(relevant[p]); n < need.RelevantTestQueries {
			problems = append(problems, fmt.Sprintf("%s has %s with a relevant term (label >= 1), need at least %d", name, textio.Count(n, "query", "queries"), need.RelevantTestQueries))
		}
	}
	return problems
}
