package ltr

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/ltr/measures"
)

// fieldStarts returns the columns (in runes) where the fields of a line
// start; fields are separated by runs of spaces.
func fieldStarts(line string) []int {
	var out []int
	prev := ' '
	for i, r := range []rune(line) {
		if r != ' ' && prev == ' ' {
			out = append(out, i)
		}
		prev = r
	}
	return out
}

// The summary's columns line up on every row, the LOVBenchLight rows (a
// name longer than the other configurations) included.
func TestSummaryTableAligned(t *testing.T) {
	rows := []SummaryRow{{Ranker: "-", Configuration: "Baseline", NDCG10: 0.7254, MAP: 0.7199},
		{Ranker: "RankNet", Configuration: "LOVSimple", NDCG10: 0.7086, MAP: 0.7064, TrainSeconds: 0.83},
		{Ranker: "RankNet", Configuration: "LOVBenchLight", NDCG10: 0.6748, MAP: 0.6659, TrainSeconds: 0.92},
		{Ranker: "CoordinateAscent", Configuration: "LOVBenchLight", NDCG10: 0.7002, MAP: 0.6945, TrainSeconds: 120.5},
		{Ranker: "AdaRank", Configuration: "Features_1_3_5-9_12-20", NDCG10: 0.7002, MAP: 0.6945, TrainSeconds: 0.24}}
	var b bytes.Buffer
	if err := writeSummaryTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 1+len(rows) {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	want := fieldStarts(lines[0])
	if len(want) != 5 {
		t.Fatalf("header %q has %d fields", lines[0], len(want))
	}
	for _, l := range lines[1:] {
		if got := fieldStarts(l); !slices.Equal(got, want) {
			t.Errorf("columns of %q start at %v, header's at %v:\n%s", l, got, want, b.String())
		}
	}
}

func sigOf(diff, p, padj float64) map[string]measures.Significance {
	return map[string]measures.Significance{VerdictMeasure: {PairedStats: measures.PairedStats{N: 100, Diff: diff, CILow: diff - 0.01, CIHigh: diff + 0.01}, P: p, PAdjusted: padj}}
}

// The best learned ranker is named only when it is significantly better
// after correction; the highest mean alone is not enough (the demo's
// AdaRank on LOVSimple, 0.7087 against the baseline's 0.7254).
func TestVerdictNamesOnlySignificant(t *testing.T) {
	base := ResultRow{Ranker: "RankNet", Configuration: "Baseline", Fold: "MEAN", Values: map[string]float64{VerdictMeasure: 0.7254}}
	rows := []ResultRow{base,
		{Ranker: "RankNet", Configuration: "LOVSimple", Fold: "MEAN", Values: map[string]float64{VerdictMeasure: 0.7086}, Significance: sigOf(-0.0169, 0.02, 0.0639)},
		{Ranker: "AdaRank", Configuration: "LOVSimple", Fold: "MEAN", Values: map[string]float64{VerdictMeasure: 0.7087}, Significance: sigOf(-0.0168, 0.016, 0.0639)},
		{Ranker: "AdaRank", Configuration: "CBRBench", Fold: "MEAN", Values: map[string]float64{VerdictMeasure: 0.3546}, Significance: sigOf(-0.37, 0.001, 0.012)},
		// A fold row is never a candidate.
		{Ranker: "AdaRank", Configuration: "DWRank", Fold: "1", Values: map[string]float64{VerdictMeasure: 0.99}, Significance: sigOf(0.3, 0.001, 0.001)},
	}
	v := NewVerdict(rows, VerdictMeasure, measures.CorrectionHolm, 0.05)
	if v.Best != nil || v.Top == nil || v.Top.Ranker != "AdaRank" || v.Top.Configuration != "LOVSimple" || v.Learned != 3 || v.Worse != 1 {
		t.Fatalf("verdict %+v", v)
	}
	s := v.Sentence()
	for _, want := range []string{"No learned ranker beats the baseline (NDCG@10 0.7254) significantly after Holm correction (α = 0.05)",
		"AdaRank on LOVSimple (0.7087), differs by -0.0168", "corrected p = 0.0639", "1 of the 3 learned rankers are significantly worse"} {
		if !strings.Contains(s, want) {
			t.Errorf("sentence %q lacks %q", s, want)
		}
	}
	// A significantly better one is named, even when another (not
	// significant) has a higher mean.
	rows = append(rows,
		ResultRow{Ranker: "LambdaMART", Configuration: "LOVBenchFull", Fold: "MEAN", Values: map[string]float64{VerdictMeasure: 0.7500}, Significance: sigOf(0.0246, 0.001, 0.004)},
		ResultRow{Ranker: "CoordinateAscent", Configuration: "LOVBenchFull", Fold: "MEAN", Values: map[string]float64{VerdictMeasure: 0.7600}, Significance: sigOf(0.0346, 0.03, 0.09)})
	v = NewVerdict(rows, VerdictMeasure, measures.CorrectionHolm, 0.05)
	if v.Best == nil || v.Best.Ranker != "LambdaMART" || v.Top.Ranker != "CoordinateAscent" || v.Better != 1 {
		t.Fatalf("verdict %+v", v)
	}
	if s := v.Sentence(); !strings.HasPrefix(s, "Best learned ranker by NDCG@10: LambdaMART on LOVBenchFull, 0.7500 (baseline 0.7254), significantly better after Holm correction") {
		t.Errorf("sentence %q", s)
	}
}

// RunExperiment's significance: P is the pooled p-value, the corrected
// p-values are Holm's over each measure's family (recomputed here by
// hand from the P values), the difference and wins/ties/losses come from
// the pooled per-query values; results.json and the summary carry them.
func TestExperimentSignificance(t *testing.T) {
	folds := smallFolds(t)
	cfgs, _ := SelectConfigs("simple,dwrank")
	opt := ExperimentOptions{Algorithms: []Algorithm{AdaRank, CoordAscent}, Configs: cfgs, Train: fastOptions(), Permutations: 200}
	res, err := RunExperiment(context.Background(), folds, opt)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		a Algorithm
		c string
	}
	var keys []key
	for _, a := range opt.Algorithms {
		for _, c := range cfgs {
			keys = append(keys, key{a, c.Name})
		}
	}
	for mi := range ReportMeasures {
		// Holm by hand: sort the family's p ascending, multiply the i-th
		// (from 0) by m - i, take the running maximum, cap at 1.
		m := len(keys)
		ps := make([]float64, m)
		for i, k := range keys {
			ps[i] = res.PooledPValues[k.a][k.c][mi]
		}
		order := make([]int, m)
		for i := range order {
			order[i] = i
		}
		for i := 1; i < m; i++ {
			for j := i; j > 0 && ps[order[j]] < ps[order[j-1]]; j-- {
				order[j], order[j-1] = order[j-1], order[j]
			}
		}
		want := make([]float64, m)
		run := 0.0
		for i, o := range order {
			run = math.Max(run, math.Min(1, float64(m-i)*ps[o]))
			want[o] = run
		}
		for i, k := range keys {
			s := res.Significance[k.a][k.c][mi]
			if s.P != ps[i] || math.Abs(s.PAdjusted-want[i]) > 1e-12 {
				t.Errorf("%v %s: p %v adjusted %v, want %v %v", k, ReportMeasures[mi], s.P, s.PAdjusted, ps[i], want[i])
			}
		}
	}
	// Difference and W/T/L from the pooled per-query values.
	k := keys[0]
	var diff float64
	w, ti, l, n := 0, 0, 0, 0
	for fi := range folds {
		run := res.Runs[fi] // first algorithm, first configuration
		for qi, x := range run.Test.Values[3] {
			d := x - res.Baseline[fi].Values[3][qi]
			diff += d
			n++
			switch {
			case d > 0:
				w++
			case d < 0:
				l++
			default:
				ti++
			}
		}
	}
	s := res.Significance[k.a][k.c][3]
	if ReportMeasures[3].String() != "NDCG@10" || math.Abs(s.Diff-diff/float64(n)) > 1e-12 || s.Wins != w || s.Ties != ti || s.Losses != l || s.N != n {
		t.Errorf("NDCG@10 significance %+v, want diff %v W/T/L %d/%d/%d over %d", s, diff/float64(n), w, ti, l, n)
	}
	dir := t.TempDir()
	if err := res.WriteResults(dir); err != nil {
		t.Fatal(err)
	}
	var rf ResultsFile
	b, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	if err := json.Unmarshal(b, &rf); err != nil {
		t.Fatal(err)
	}
	if rf.Significance.Correction != "holm" || rf.Verdict.Measure != "NDCG@10" || rf.Verdict.Learned != 4 {
		t.Errorf("results.json significance %+v verdict %+v", rf.Significance, rf.Verdict)
	}
	found := false
	for _, r := range rf.Rows {
		if r.Fold == "MEAN" && r.Ranker == "AdaRank" && r.Configuration == k.c {
			found = true
			if g := r.Significance["NDCG@10"]; g.PAdjusted != s.PAdjusted || g.Wins != s.Wins {
				t.Errorf("results.json row significance %+v, want %+v", g, s)
			}
		}
	}
	if !found {
		t.Error("no AdaRank MEAN row in results.json")
	}
	var out bytes.Buffer
	if err := res.WriteSummary(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"p(holm)", "d_z", "W/T/L", "Holm correction for the 4 comparisons of each measure"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	// Bonferroni as an option.
	opt.Correction = measures.CorrectionBonferroni
	res2, err := RunExperiment(context.Background(), folds, opt)
	if err != nil {
		t.Fatal(err)
	}
	if g := res2.Significance[k.a][k.c][3]; g.PAdjusted != math.Min(1, 4*g.P) {
		t.Errorf("Bonferroni: %v for p %v", g.PAdjusted, g.P)
	}
}
