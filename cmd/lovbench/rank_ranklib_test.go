package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ltr --model-format json,ranklib writes both files; rank scores the
// RankLib file exactly as the JSON one (same run, byte for byte).
func TestLTRRankLibModelsRankIdentically(t *testing.T) {
	data := writeSyntheticFolds(t)
	out := t.TempDir()
	code, _, stderr := runCLI(t, "-q", "ltr", "--data", data, "--algorithms", "lambdamart,ca,adarank,ranknet", "--features", "1-6",
		"--lambdamart-trees", "10", "--ca-restarts", "1", "--ranknet-epochs", "3", "--permutations", "50",
		"--model-format", "json,ranklib", "--out", out)
	if code != 0 {
		t.Fatalf("ltr: exit %d: %s", code, stderr)
	}
	test := filepath.Join(data, "Fold1", "test.txt")
	for _, alg := range []string{"lambdamart", "ca", "adarank", "ranknet"} {
		base := filepath.Join(out, "models", alg+"_Features_1-6_Fold1")
		var runs [2][]byte
		for i, ext := range []string{".json", ".ranklib.txt"} {
			run := filepath.Join(t.TempDir(), "run.txt")
			code, _, stderr := runCLI(t, "-q", "rank", "--model", base+ext, "--data", test, "--tag", "x", "--out", run)
			if code != 0 {
				t.Fatalf("rank %s%s: exit %d: %s", alg, ext, code, stderr)
			}
			runs[i], _ = os.ReadFile(run)
		}
		if len(runs[0]) == 0 || !bytes.Equal(runs[0], runs[1]) {
			t.Errorf("%s: the RankLib model's run differs from the JSON model's", alg)
		}
	}
	// --norm overrides the model's normalisation (RankLib's files do not
	// store -norm): the scores change.
	m := filepath.Join(out, "models", "ca_Features_1-6_Fold1.ranklib.txt")
	_, a, _ := runCLI(t, "-q", "rank", "--model", m, "--data", test)
	_, b, _ := runCLI(t, "-q", "rank", "--model", m, "--data", test, "--norm", "none")
	if a == "" || a == b {
		t.Errorf("--norm none did not change the run")
	}
	if code, _, _ := runCLI(t, "rank", "--model", m, "--data", test, "--norm", "l2"); code != 2 {
		t.Errorf("bad --norm: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(t, "ltr", "--data", data, "--out", out, "--model-format", "pmml"); code != 2 {
		t.Errorf("bad --model-format: exit %d, want 2", code)
	}
	// A file in neither format: exit 1, naming both formats.
	bad := filepath.Join(t.TempDir(), "model.txt")
	os.WriteFile(bad, []byte("<ensemble></ensemble>\n"), 0o644)
	code, _, stderr = runCLI(t, "-q", "rank", "--model", bad, "--data", test)
	if code != 1 || !strings.Contains(stderr, "want a lovbench JSON model") || !strings.Contains(stderr, `"## LambdaMART"`) {
		t.Errorf("bad model: exit %d, stderr %q", code, stderr)
	}
}
