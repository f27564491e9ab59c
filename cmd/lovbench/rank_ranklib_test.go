package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ltr --model-format json,ranklib writes both files; rank scores the
// RankLib file exactly as the JSON one (same run, byte for byte).
func TestLTRRankLibModelsRankIdentically(t *testing.T) {
	t.Parallel()
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

// rank with a hand-written RankLib LambdaMART model (ltr/testdata) on
// LETOR 4.0 MQ2008-style lines: docids from "#docid = X", scores as
// computed by hand from the trees (see TestReadRankLibLambdaMARTByHand).
func TestRankRankLibModelOnMQ2008Lines(t *testing.T) {
	t.Parallel()
	model := filepath.Join("..", "..", "ltr", "testdata", "ranklib", "lambdamart.txt")
	line := func(label int, qid string, f1, f3 float64, comment string) string {
		var sb strings.Builder
		sb.WriteString(strconv.Itoa(label) + " qid:" + qid)
		for j := 1; j <= 46; j++ {
			v := 0.0
			switch j {
			case 1:
				v = f1
			case 3:
				v = f3
			}
			sb.WriteString(" " + strconv.Itoa(j) + ":" + strconv.FormatFloat(v, 'f', 6, 64))
		}
		return sb.String() + " " + comment + "\n"
	}
	data := filepath.Join(t.TempDir(), "mq2008.txt")
	os.WriteFile(data, []byte(
		line(0, "10032", 3, -1, "#docid = GX029-35-5894638 inc = 0.0119881192468859 prob = 0.139842")+
			line(1, "10032", -1.25, 0.6, "#docid = GX030-77-6315042 inc = 1 prob = 0.341364")+
			line(2, "10032", -2, 0.5, "#docid = GX140-98-13566007 inc = 1 prob = 0.0701303")), 0o644)
	code, stdout, stderr := runCLI(t, "-q", "rank", "--model", model, "--data", data)
	if code != 0 {
		t.Fatalf("rank: exit %d: %s", code, stderr)
	}
	// Hand computation: 0.1*4.0 + 0.1*0.1 = 0.41; 0.1*2.0 + 0.1*0.1 = 0.21;
	// 0.1*-1.0 + 0.1*-0.5 = -0.15, in float32 as RankLib sums (to 1e-7).
	want := []struct {
		docid string
		score float64
	}{{"GX030-77-6315042", 0.41}, {"GX140-98-13566007", 0.21}, {"GX029-35-5894638", -0.15}}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 {
		t.Fatalf("run:\n%s", stdout)
	}
	for i, l := range lines {
		f := strings.Fields(l)
		s, _ := strconv.ParseFloat(f[4], 64)
		if f[0] != "10032" || f[2] != want[i].docid || f[3] != strconv.Itoa(i+1) || math.Abs(s-want[i].score) > 1e-7 || f[5] != "lovbench-lambdamart" {
			t.Errorf("run line %d %q, want docid %s score %v", i+1, l, want[i].docid, want[i].score)
		}
	}
}
