package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/ltr"
)

func writeSyntheticFolds(t *testing.T) string {
	t.Helper()
	ds, err := ltr.Synthetic(ltr.SyntheticOptions{Queries: 60, DocsPerQuery: 8, Features: 34, Noise: 0.3, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ltr.MakeFolds(ds, 2) {
		for name, d := range map[string]*ltr.Dataset{"train.txt": f.Train, "vali.txt": f.Vali, "test.txt": f.Test} {
			var b bytes.Buffer
			if err := ltr.WriteSVMLight(&b, d); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, f.Name, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func TestLTRAndRankCommands(t *testing.T) {
	t.Parallel()
	data := writeSyntheticFolds(t)
	out := t.TempDir()
	code, _, stderr := runCLI(t, "-q", "ltr", "--data", data, "--algorithms", "lambdamart,adarank", "--configs", "simple",
		"--lambdamart-trees", "10", "--permutations", "100", "--workers", "2", "--out", out)
	if code != 0 {
		t.Fatalf("ltr: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"LambdaMART_Results.csv", "AdaRank_Results.csv", "results.json", "models/lambdamart_LOVSimple_Fold1.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	// Not inside out: a directory ltr published whole is no place for
	// another command's output (atomicfile.CheckOutputs).
	run := filepath.Join(t.TempDir(), "run.txt")
	test := filepath.Join(data, "Fold1", "test.txt")
	code, _, stderr = runCLI(t, "-q", "rank", "--model", filepath.Join(out, "models", "lambdamart_LOVSimple_Fold1.json"), "--data", test, "--out", run)
	if code != 0 {
		t.Fatalf("rank: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(run)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	ds, _ := ltr.ReadSVMLightFile(test)
	if len(lines) != ds.NumDocs() {
		t.Fatalf("%d run lines for %d documents", len(lines), ds.NumDocs())
	}
	f := strings.Fields(lines[0])
	if len(f) != 6 || f[1] != "Q0" || f[3] != "1" || f[5] != "lovbench-lambdamart" || !strings.HasPrefix(f[2], "term") || f[0] != ds.Queries[0].ID {
		t.Fatalf("first run line %q", lines[0])
	}

	// Usage errors exit 2; bad data exits 1 naming file, line and field.
	if code, _, _ := runCLI(t, "ltr", "--data", data, "--out", out, "--algorithms", "svm"); code != 2 {
		t.Errorf("unknown algorithm: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(t, "rank", "--model", "x.json"); code != 2 {
		t.Errorf("rank without --data: exit %d, want 2", code)
	}
	bad := filepath.Join(t.TempDir(), "bad.txt")
	os.WriteFile(bad, []byte("1 qid:1 1:0.5\n2 qid:1 1:zz\n"), 0o644)
	code, _, stderr = runCLI(t, "-q", "rank", "--model", filepath.Join(out, "models", "lambdamart_LOVSimple_Fold1.json"), "--data", bad)
	if code != 1 || !strings.Contains(stderr, "bad.txt:2: field 3") {
		t.Errorf("bad data: exit %d, stderr %q", code, stderr)
	}
}

// `ltr` prints a summary table whose NDCG@10 and MAP are
// the MEAN rows of <Ranker>_Results.csv.
func TestLTRPrintsSummary(t *testing.T) {
	t.Parallel()
	data := writeSyntheticFolds(t)
	out := filepath.Join(t.TempDir(), "ltr")
	code, stdout, stderr := runCLI(t, "ltr", "--data", data, "--algorithms", "lambdamart", "--configs", "simple",
		"--lambdamart-trees", "5", "--permutations", "10", "--out", out)
	if code != 0 {
		t.Fatalf("ltr: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "LambdaMART_Results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := recs[0]
	col := func(name string) int {
		for i, h := range head {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s in %v", name, head)
		return -1
	}
	nd, mp := col("NDCG@10"), col("MAP")
	var want []string
	for _, f := range recs[1:] {
		if f[2] == "MEAN" {
			for _, c := range []int{nd, mp} {
				v, err := strconv.ParseFloat(f[c], 64)
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, strconv.FormatFloat(v, 'f', 4, 64))
			}
		}
	}
	if len(want) != 4 {
		t.Fatalf("MEAN values %v, want baseline and LOVSimple", want)
	}
	if !strings.Contains(stdout, "NDCG@10") || !strings.Contains(stdout, "LOVSimple") || !strings.Contains(stdout, "train_s") {
		t.Fatalf("no summary table on stdout: %q", stdout)
	}
	for _, w := range want {
		if !strings.Contains(stdout, w) {
			t.Errorf("summary lacks %s (a MEAN value of the CSV): %q", w, stdout)
		}
	}
}
