package ltr

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/ltr/measures"
)

// The words of the results tables (the *_Results.csv files and
// results.json), the one home of each: the fold of a row of means over
// the folds, and the configuration of the baseline's rows.
const (
	FoldMean       = "MEAN"
	ConfigBaseline = "Baseline"
)

// ResultRow is one row of a results table: a system on one fold, or the
// MEAN over folds.
type ResultRow struct {
	Ranker        string `json:"ranker"`
	Configuration string `json:"configuration"`
	// Fold is "1".."5" or FoldMean.
	Fold string `json:"fold"`
	// Values are the test-set means per measure (MEAN: the mean over folds
	// of the fold values).
	Values map[string]float64 `json:"values"`
	// Improvement and ImprovementPct are Values minus the baseline's on
	// the same fold, absolute and in percent of the baseline (fold rows of
	// learned configurations only).
	Improvement    map[string]float64 `json:"improvement,omitempty"`
	ImprovementPct map[string]float64 `json:"improvement_pct,omitempty"`
	// PValue is the two-sided paired randomisation test against the
	// baseline over the fold's test queries (MEAN: all folds' queries
	// pooled); absent for the baseline.
	PValue map[string]float64 `json:"p_value,omitempty"`
	// Significance compares the configuration with the baseline over the
	// pooled test queries of all folds, per measure (MEAN rows of learned
	// configurations only; see ResultsFile.Significance for the methods).
	// Its P is PValue's; its Diff is the mean over the pooled queries,
	// which differs from Values minus the baseline's (a mean of fold
	// means) when the folds differ in size.
	Significance map[string]measures.Significance `json:"significance,omitempty"`
	// Model summarises the trained model (fold rows of learned
	// configurations only).
	Model *ModelSummary `json:"model,omitempty"`
	// Ties says how much the row's values depend on tie-breaking.
	Ties *TieStats `json:"ties,omitempty"`
}

// TieStats describes the ties of a system's test rankings.
type TieStats struct {
	// Rate is the share of the top-10 ranks (of every test query, pooled)
	// that hold a document whose score equals another document's score in
	// the same query.
	Rate float64 `json:"tie_rate"`
	// NDCG10Optimistic and NDCG10Pessimistic are the mean NDCG@10 with
	// ties ordered by grade descending and ascending (MEAN: the mean of the
	// fold values).
	NDCG10Optimistic  float64 `json:"ndcg@10_optimistic"`
	NDCG10Pessimistic float64 `json:"ndcg@10_pessimistic"`
}

// tieStats summarises the ties of per-query test values over folds.
func tieStats(pqs ...PerQuery) *TieStats {
	ts := &TieStats{}
	tied, top := 0, 0
	for _, pq := range pqs {
		for qi := range pq.Top {
			tied += pq.TiedTop[qi]
			top += pq.Top[qi]
		}
		ts.NDCG10Optimistic += Mean(pq.Optimistic) / float64(len(pqs))
		ts.NDCG10Pessimistic += Mean(pq.Pessimistic) / float64(len(pqs))
	}
	if top > 0 {
		ts.Rate = float64(tied) / float64(top)
	}
	return ts
}

// ModelSummary describes a trained model in results.json.
type ModelSummary struct {
	TrainScore      float64 `json:"train_score"`
	ValidationScore float64 `json:"validation_score"`
	Iterations      int     `json:"iterations"`
	Seed            uint64  `json:"seed"`
}

// ResultsFile is the content of results.json.
type ResultsFile struct {
	Format          string           `json:"format"`
	Metric          string           `json:"metric"`
	Ties            string           `json:"ties"`
	Normalization   string           `json:"normalization"`
	Seed            uint64           `json:"seed"`
	Permutations    int              `json:"permutations"`
	BaselineFeature int              `json:"baseline_feature"`
	Measures        []string         `json:"measures"`
	Folds           []string         `json:"folds"`
	Configurations  map[string][]int `json:"configurations"`
	// Significance says how the rows' significance was computed.
	Significance SignificanceMethod `json:"significance"`
	// Verdict names the best learned ranker on NDCG@10 only when it is
	// significantly better than the baseline after correction.
	Verdict  Verdict             `json:"verdict"`
	Rows     []ResultRow         `json:"rows"`
	PerQuery map[string][]string `json:"test_queries"`
}

// SignificanceMethod describes the comparisons with the baseline in words
// and parameters, for results.json and the report.
type SignificanceMethod struct {
	Test            string  `json:"test"`
	Correction      string  `json:"correction"`
	Family          string  `json:"family"`
	Alpha           float64 `json:"alpha"`
	ConfidenceLevel float64 `json:"confidence_level"`
	Interval        string  `json:"confidence_interval"`
	EffectSize      string  `json:"effect_size"`
}

// verdict is the experiment's Verdict over rows (every ranker's rows):
// the one decision results.json stores and lovbench ltr's summary prints.
func (r *ExperimentResult) verdict(rows []ResultRow) Verdict {
	return NewVerdict(rows, VerdictMeasure, r.Options.Correction, measures.DefaultAlpha)
}

// significanceMethod describes the experiment's comparisons.
func (r *ExperimentResult) significanceMethod() SignificanceMethod {
	return SignificanceMethod{
		Test: fmt.Sprintf("two-sided paired randomisation (sign-flip) test over the test queries of all folds pooled, %d random assignments, p = (1 + hits)/(1 + assignments)",
			r.Options.Permutations),
		Correction:      string(r.Options.Correction),
		Family:          fmt.Sprintf("per measure: the %d learned (ranker, configuration) pairs against the baseline", r.comparisons()),
		Alpha:           measures.DefaultAlpha,
		ConfidenceLevel: measures.ConfidenceLevel,
		Interval:        measures.CIMethod,
		EffectSize:      measures.EffectSizeName,
	}
}

// foldLabel is a fold's number as the result tables print it ("1" for
// FoldDir(1)).
func foldLabel(name string) string { return strings.TrimPrefix(name, foldPrefix) }

// Rows returns the result rows of one algorithm in the layout of LOVBench's
// RankNet_Results.csv: the baseline per fold and MEAN, then each
// configuration per fold and MEAN.
func (r *ExperimentResult) Rows(alg Algorithm) []ResultRow {
	nf := len(r.Folds)
	name := alg.DisplayName()
	var rows []ResultRow
	baseMean := map[string]float64{}
	for fi, f := range r.Folds {
		row := ResultRow{Ranker: name, Configuration: ConfigBaseline, Fold: foldLabel(f), Values: map[string]float64{}, Ties: tieStats(r.Baseline[fi])}
		for mi, m := range ReportMeasures {
			v := Mean(r.Baseline[fi].Values[mi])
			row.Values[m.String()] = v
			baseMean[m.String()] += v / float64(nf)
		}
		rows = append(rows, row)
	}
	rows = append(rows, ResultRow{Ranker: name, Configuration: ConfigBaseline, Fold: FoldMean, Values: baseMean, Ties: tieStats(r.Baseline...)})
	for i := 0; i < len(r.Runs); i += nf {
		if r.Runs[i].Algorithm != alg {
			continue
		}
		cfg := r.Runs[i].Configuration
		mean := map[string]float64{}
		for fi := 0; fi < nf; fi++ {
			run := &r.Runs[i+fi]
			row := ResultRow{Ranker: name, Configuration: cfg, Fold: foldLabel(run.Fold), Values: map[string]float64{},
				Improvement: map[string]float64{}, ImprovementPct: map[string]float64{}, PValue: map[string]float64{},
				Model: &ModelSummary{TrainScore: run.Model.TrainScore, ValidationScore: run.Model.ValidationScore,
					Iterations: run.Model.Iterations, Seed: run.Model.Seed}, Ties: tieStats(run.Test)}
			for mi, m := range ReportMeasures {
				k := m.String()
				v := Mean(run.Test.Values[mi])
				b := Mean(r.Baseline[fi].Values[mi])
				row.Values[k] = v
				row.Improvement[k] = v - b
				if b != 0 {
					row.ImprovementPct[k] = (v - b) * 100 / b
				}
				row.PValue[k] = run.PValues[mi]
				mean[k] += v / float64(nf)
			}
			rows = append(rows, row)
		}
		tests := make([]PerQuery, nf)
		for fi := range tests {
			tests[fi] = r.Runs[i+fi].Test
		}
		row := ResultRow{Ranker: name, Configuration: cfg, Fold: FoldMean, Values: mean,
			PValue: pvMap(r.PooledPValues[alg][cfg]), Ties: tieStats(tests...)}
		if sig := r.Significance[alg][cfg]; len(sig) > 0 {
			row.Significance = map[string]measures.Significance{}
			for mi, m := range ReportMeasures {
				row.Significance[m.String()] = sig[mi]
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func pvMap(pv []float64) map[string]float64 {
	out := map[string]float64{}
	for mi, m := range ReportMeasures {
		if mi < len(pv) {
			out[m.String()] = pv[mi]
		}
	}
	return out
}

// WriteCSV writes rows in the layout of LOVBench's RankNet_Results.csv:
// quoted fields, per measure the value, "+delta (+pct%)" and the p-value;
// fold values rounded to 4 decimals, MEAN values (mean of the fold values
// as printed, as in LOVBench's tables) to 5; NA where LOVBench has NA.
func WriteCSV(w io.Writer, rows []ResultRow) error {
	var sb strings.Builder
	sb.WriteString(`"Ranker","Configuration","Fold"`)
	for _, m := range ReportMeasures {
		k := m.String()
		fmt.Fprintf(&sb, `,"%s","%s_improvement","%s_pvalue"`, k, k, k)
	}
	sb.WriteString("\n")
	// MEAN rows show the mean of the printed fold values.
	printedMean := map[string]map[string]float64{}
	for _, row := range rows {
		key := row.Ranker + "\x00" + row.Configuration
		if row.Fold == FoldMean {
			continue
		}
		if printedMean[key] == nil {
			printedMean[key] = map[string]float64{}
		}
		for _, m := range ReportMeasures {
			printedMean[key][m.String()] += round(row.Values[m.String()], 4)
		}
	}
	nFolds := map[string]int{}
	for _, row := range rows {
		if row.Fold != FoldMean {
			nFolds[row.Ranker+"\x00"+row.Configuration]++
		}
	}
	for _, row := range rows {
		key := row.Ranker + "\x00" + row.Configuration
		fmt.Fprintf(&sb, "%s,%s,%s", quote(row.Ranker), quote(row.Configuration), quote(row.Fold))
		for _, m := range ReportMeasures {
			k := m.String()
			if row.Fold == FoldMean {
				v := row.Values[k]
				if n := nFolds[key]; n > 0 {
					v = printedMean[key][k] / float64(n)
				}
				sb.WriteString("," + quote(rFormat(round(v, 5))) + ",NA")
			} else {
				sb.WriteString("," + quote(rFormat(round(row.Values[k], 4))))
				if row.Improvement == nil {
					sb.WriteString(`,""`)
				} else {
					sb.WriteString("," + quote(improvement(row.Improvement[k], row.ImprovementPct[k])))
				}
			}
			if row.PValue == nil {
				sb.WriteString(",NA")
			} else {
				sb.WriteString("," + quote(rFormat(roundSig(row.PValue[k], 4))))
			}
		}
		sb.WriteString("\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func roundSig(v float64, sig int) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	e := math.Floor(math.Log10(math.Abs(v)))
	p := math.Pow(10, float64(sig-1)-e)
	return math.Round(v*p) / p
}

// rFormat prints v as R's write.csv does: fixed notation unless scientific
// is shorter ("1e-04").
func rFormat(v float64) string {
	fixed := strconv.FormatFloat(v, 'f', -1, 64)
	sci := strconv.FormatFloat(v, 'e', -1, 64)
	// Go writes e-05; R writes e-05 too (two-digit exponent at least).
	if len(sci) < len(fixed) {
		return sci
	}
	return fixed
}

// javaDouble prints v as Java's Double.toString does for the magnitudes
// RankLib's Analyzer prints (at least one decimal: "111.0").
func javaDouble(v float64) string {
	a := math.Abs(v)
	if a != 0 && (a < 1e-3 || a >= 1e7) {
		s := strconv.FormatFloat(v, 'E', -1, 64)
		mant, exp, _ := strings.Cut(s, "E")
		if !strings.Contains(mant, ".") {
			mant += ".0"
		}
		e, _ := strconv.Atoi(exp)
		return mant + "E" + strconv.Itoa(e)
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// improvement formats "+0.2813 (+64.72%)" as RankLib's Analyzer prints it:
// the difference rounded to 4 decimals and the percentage to 2, "+" when
// positive.
func improvement(delta, pct float64) string {
	sign := ""
	if delta > 0 {
		sign = "+"
	}
	return fmt.Sprintf("%s%s (%s%s%%)", sign, javaDouble(round(delta, 4)), sign, javaDouble(round(pct, 2)))
}

// OutputNames are the name patterns of an ltr output directory's files
// besides results.json (atomicfile.CreateDir's names): what its index may
// list, the tables (<Ranker>_Results.csv) and the saved models
// (models/<algorithm>_<configuration>_<fold> with a format's extension).
var OutputNames = []string{"*_Results.csv", "models/*"}

// WriteResults writes <Ranker>_Results.csv per algorithm and results.json
// into dir, atomically.
func (r *ExperimentResult) WriteResults(dir string) error {
	rf := ResultsFile{
		Format:          "lovbench-ltr-results/1",
		Metric:          r.Options.Train.Metric.String(),
		Ties:            string(r.Options.Ties),
		Normalization:   string(r.Options.Train.Normalization),
		Seed:            r.Options.Train.Seed,
		Permutations:    r.Options.Permutations,
		BaselineFeature: r.Options.BaselineFeature,
		Folds:           r.Folds,
		Configurations:  map[string][]int{},
		PerQuery:        map[string][]string{},
	}
	for _, m := range ReportMeasures {
		rf.Measures = append(rf.Measures, m.String())
	}
	for _, c := range r.Options.Configs {
		rf.Configurations[c.Name] = c.Features
	}
	for fi, f := range r.Folds {
		rf.PerQuery[f] = r.Baseline[fi].QueryIDs
	}
	rf.Significance = r.significanceMethod()
	for _, a := range r.Options.Algorithms {
		rows := r.Rows(a)
		rf.Rows = append(rf.Rows, rows...)
		path := filepath.Join(dir, a.DisplayName()+"_Results.csv")
		if err := atomicfile.WriteFile(path, func(w io.Writer) error { return WriteCSV(w, rows) }); err != nil {
			return err
		}
	}
	rf.Verdict = r.verdict(rf.Rows)
	return atomicfile.WriteFile(filepath.Join(dir, FileResults), func(w io.Writer) error {
		b, err := json.MarshalIndent(rf, "", " ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	})
}
