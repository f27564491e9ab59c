package export

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/ltr"
)

// TestFoldFilesInQidOrder: every fold file lists its queries in ascending
// qid order, each query's lines together, though train.txt joins three
// partitions (XGBoost's ranker rejects "qid must be sorted in
// non-decreasing order" otherwise); validate rejects a file that is not.
func TestFoldFilesInQidOrder(t *testing.T) {
	dir, _, _ := buildDir(t, Options{Seed: 5})
	m := readManifest(t, dir)
	for _, f := range m.Folds {
		for _, set := range []string{"train", "vali", "test"} {
			lines := readSVM(t, filepath.Join(dir, ltr.FoldFile(f.Fold, set)))
			seen := map[int]bool{}
			for i, l := range lines {
				if i > 0 && l.qid < lines[i-1].qid {
					t.Fatalf("Fold%d/%s.txt line %d: qid %d after qid %d", f.Fold, set, i+1, l.qid, lines[i-1].qid)
				}
				if i > 0 && l.qid != lines[i-1].qid && seen[l.qid] {
					t.Fatalf("Fold%d/%s.txt line %d: qid %d reappears", f.Fold, set, i+1, l.qid)
				}
				seen[l.qid] = true
			}
			// 12 queries of 6 terms in 5 partitions: train holds 3 of them.
			if set == "train" && len(seen) < 6 {
				t.Errorf("Fold%d/train.txt has only %d queries", f.Fold, len(seen))
			}
		}
	}

	// Swap the first and last query blocks of Fold1/train.txt: validate
	// must name the order.
	p := filepath.Join(dir, "Fold1", "train.txt")
	orig, _ := os.ReadFile(p)
	lines := strings.SplitAfter(string(orig), "\n")
	lines = lines[:len(lines)-1] // after the final newline
	first := strings.Fields(lines[0])[1]
	last := strings.Fields(lines[len(lines)-1])[1]
	var head, mid, tail []string
	for _, l := range lines {
		switch q := strings.Fields(l)[1]; {
		case q == first:
			head = append(head, l)
		case q == last:
			tail = append(tail, l)
		default:
			mid = append(mid, l)
		}
	}
	swapped := strings.Join(append(append(tail, mid...), head...), "")
	os.WriteFile(p, []byte(swapped), 0o644)
	fixManifest(t, dir)
	v, _ := Validate(context.Background(), dir)
	if v.Valid || !hasProblem(v, "ascending qid order") {
		t.Errorf("train file out of qid order accepted: %v", v.Problems)
	}
}

// TestFoldsLoadInXGBoost loads Fold1/train.txt with scikit-learn's
// load_svmlight_file(query_id=True) and trains 10 trees with XGBoost's
// XGBRanker on it as it is, without re-sorting: what an LTR researcher
// does first with the folds. It needs python3 with sklearn and xgboost
// (Debian: python3-sklearn, python3-xgboost) and skips without them.
func TestFoldsLoadInXGBoost(t *testing.T) {
	py, err := exec.LookPath("python3")
	if _, err2 := os.Stat("/usr/bin/python3"); err2 == nil {
		py, err = "/usr/bin/python3", nil // Debian's, where its packages are
	}
	if err != nil {
		t.Skip("python3 not found: install python3-sklearn and python3-xgboost to run this check")
	}
	dir, _, _ := buildDir(t, Options{Seed: 5})
	// One python run (their imports take seconds): exit status 3 when
	// scikit-learn or XGBoost is missing.
	script := `
import sys
try:
    import numpy as np
    from sklearn.datasets import load_svmlight_file
    import xgboost as xgb
except ImportError as e:
    print(e)
    sys.exit(3)
X, y, qid = load_svmlight_file(sys.argv[1], query_id=True)
m = xgb.XGBRanker(n_estimators=10, tree_method="hist", objective="rank:ndcg")
m.fit(X, y, qid=qid)
print(len(y), len(np.unique(qid)), m.get_booster().num_boosted_rounds())
`
	cmd := exec.Command(py, "-c", script, filepath.Join(dir, "Fold1", "train.txt"))
	// One OpenMP thread: XGBoost's idle threads spin, which costs CPU
	// (up to 1.5 CPU-s measured on two loaded cores) for 10 trees on a
	// few dozen rows.
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
		t.Skipf("python3 lacks scikit-learn or XGBoost (install python3-sklearn and python3-xgboost): %s", bytes.TrimSpace(out))
	}
	if err != nil {
		t.Fatalf("XGBRanker on Fold1/train.txt: %v\n%s", err, out)
	}
	// 3 partitions of the 12 queries of 6 terms: rows and queries as the
	// manifest counts them, and 10 rounds.
	m := readManifest(t, dir)
	rows, queries := 0, 0
	for _, p := range m.Folds[0].Train {
		rows += m.Partitions[p-1].Rows
		queries += m.Partitions[p-1].Queries
	}
	want := []string{strconv.Itoa(rows), strconv.Itoa(queries), "10"}
	if got := strings.Fields(string(out)); len(got) < 3 || strings.Join(got[len(got)-3:], " ") != strings.Join(want, " ") {
		t.Errorf("python printed %q, want %q", out, strings.Join(want, " "))
	}
}
