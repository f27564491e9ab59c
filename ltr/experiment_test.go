package ltr

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/internal/refdata"
)

// smallFolds is a 5-fold synthetic dataset with 34 features (feature 34 is
// noise, standing in for the baseline).
func smallFolds(t *testing.T) []Fold {
	t.Helper()
	ds, err := Synthetic(SyntheticOptions{Queries: 100, DocsPerQuery: 10, Features: 34, Noise: 0.3, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	return MakeFolds(ds, 5)
}

func fastOptions() Options {
	o := DefaultOptions()
	o.RankNet.Epochs = 5
	o.LambdaMART.Trees = 20
	o.CA.Restarts = 2
	o.CA.MaxIter = 8
	return o
}

// Same seed, 1 or 3 workers: byte-identical result files and models.
func TestExperimentDeterministicAcrossWorkers(t *testing.T) {
	folds := smallFolds(t)
	cfgs, _ := SelectConfigs("simple,dwrank")
	var outs [2]string
	for i, workers := range []int{1, 3} {
		dir := t.TempDir()
		opt := ExperimentOptions{Algorithms: Algorithms, Configs: cfgs, Train: fastOptions(), Workers: workers,
			Permutations: 200, ModelDir: filepath.Join(dir, "models")}
		res, err := RunExperiment(context.Background(), folds, opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := res.WriteResults(dir); err != nil {
			t.Fatal(err)
		}
		outs[i] = dir
	}
	for _, name := range []string{"RankNet_Results.csv", "AdaRank_Results.csv", "LambdaMART_Results.csv", "CoordinateAscent_Results.csv", "results.json",
		"models/ranknet_LOVSimple_Fold1.json", "models/lambdamart_DWRank_Fold5.json", "models/ca_DWRank_Fold3.json", "models/adarank_LOVSimple_Fold2.json"} {
		a, err := os.ReadFile(filepath.Join(outs[0], name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(outs[1], name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between 1 and 3 workers", name)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(outs[0], "RankNet_Results.csv"))
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 1+3*6 {
		t.Fatalf("%d lines, want header + 3 systems x (5 folds + MEAN)", len(lines))
	}
	if !strings.HasPrefix(lines[1], `"RankNet","Baseline","1","`) || !strings.HasPrefix(lines[6], `"RankNet","Baseline","MEAN","`) ||
		!strings.HasPrefix(lines[7], `"RankNet","LOVSimple","1","`) || !strings.HasPrefix(lines[18], `"RankNet","DWRank","MEAN","`) {
		t.Fatalf("row order:\n%s", strings.Join(lines, "\n"))
	}
}

// The baseline rows are the test-set means of ranking by feature 34 alone,
// recomputed here independently with package measures' NDCG.
func TestExperimentBaselineRows(t *testing.T) {
	folds := smallFolds(t)
	cfgs, _ := SelectConfigs("simple")
	res, err := RunExperiment(context.Background(), folds, ExperimentOptions{Algorithms: []Algorithm{AdaRank}, Configs: cfgs, Train: fastOptions(), Permutations: 100})
	if err != nil {
		t.Fatal(err)
	}
	rows := res.Rows(AdaRank)
	for fi, f := range folds {
		sum := 0.0
		for _, q := range f.Test.Queries {
			labels := make([]float64, len(q.Docs))
			scores := make([]float64, len(q.Docs))
			for i, d := range q.Docs {
				labels[i], scores[i] = d.Label, d.Features[33]
			}
			sum += ndcg10.Score(rankedLabels(labels, scores))
		}
		want := sum / float64(len(f.Test.Queries))
		if got := rows[fi].Values["NDCG@10"]; got != want {
			t.Errorf("fold %d baseline NDCG@10 %v, want %v", fi+1, got, want)
		}
	}
	lov := rows[6+2]
	if lov.Configuration != "LOVSimple" || lov.Fold != "3" {
		t.Fatalf("row %+v", lov)
	}
	if d := lov.Values["MAP"] - rows[2].Values["MAP"]; d != lov.Improvement["MAP"] {
		t.Errorf("improvement %v, want %v", lov.Improvement["MAP"], d)
	}
	for k, p := range lov.PValue {
		if !(p > 0 && p <= 1) {
			t.Errorf("p-value %s = %v", k, p)
		}
	}
	// Missing baseline feature: a clear error.
	ds, _ := Synthetic(SyntheticOptions{Queries: 20, DocsPerQuery: 5, Features: 9, Noise: 0.3, Seed: 5})
	if _, err := RunExperiment(context.Background(), MakeFolds(ds, 1), ExperimentOptions{Algorithms: []Algorithm{AdaRank}, Configs: cfgs}); err == nil ||
		err.Error() != "synthetic/Fold1/train.txt: baseline feature 34 not present (largest feature id 9); choose the baseline feature with --baseline-feature" {
		t.Errorf("missing feature 34: %v", err)
	}
}

func TestEmbeddedConfigurationsMatchShared(t *testing.T) {
	dir := refdata.Path(t, "lovbench", "results", "configurations")
	cfgs := Configurations()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(cfgs) {
		t.Fatalf("%d shared configuration files, %d embedded", len(entries), len(cfgs))
	}
	for _, c := range cfgs {
		b, err := os.ReadFile(filepath.Join(dir, c.Name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := ParseFeatureList(string(b), c.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c.Features, want) {
			t.Errorf("%s: embedded %v, shared %v", c.Name, c.Features, want)
		}
	}
}

// Hand-checked against LOVBench's RankNet_Results.csv (values printed by
// RankLib's Analyzer and R).
func TestResultFormatting(t *testing.T) {
	// A slice, not a map keyed by the output: two cases with equal output
	// would silently collapse into one.
	cases := []struct{ name, got, want string }{
		{"improvement(0.28125, 64.7231)", improvement(0.28125, 64.7231), "+0.2813 (+64.72%)"},
		{"improvement(0.386, 127.7)", improvement(0.386, 127.7), "+0.386 (+127.7%)"},
		{"improvement(0.4805, 111.0)", improvement(0.4805, 111.0), "+0.4805 (+111.0%)"},
		{"improvement(-0.01234, -2.5)", improvement(-0.01234, -2.5), "-0.0123 (-2.5%)"},
		{"rFormat(0.0001)", rFormat(0.0001), "1e-04"},
		{"rFormat(0.26)", rFormat(0.26), "0.26"},
		{"rFormat(0)", rFormat(0), "0"},
		{"rFormat(0.43314)", rFormat(0.43314), "0.43314"},
		{"rFormat(roundSig(1/10001.0, 4))", rFormat(roundSig(1/10001.0, 4)), "9.999e-05"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
}

func TestCSVHeaderMatchesReference(t *testing.T) {
	ref := refdata.Path(t, "lovbench", "results", "RankNet_Results.csv")
	b, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := strings.Cut(string(b), "\n")
	var buf bytes.Buffer
	if err := WriteCSV(&buf, nil); err != nil {
		t.Fatal(err)
	}
	got, _, _ := strings.Cut(buf.String(), "\n")
	if strings.TrimRight(want, "\r") != got {
		t.Errorf("header\n got %s\nwant %s", got, want)
	}
}
