package report

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/export"
	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/internal/buildinfo"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/ltr"
	"github.com/lovbench/lovbench/sampling"
	"github.com/lovbench/lovbench/sessions"
)

// MaxScatter bounds the points of the label-recovery scatter plot.
const MaxScatter = 1500

// Build gathers the report's data from the stage outputs cfg names.
// Missing outputs leave their section empty; malformed ones are errors
// naming the file.
func Build(cfg Config) (Data, error) {
	d := Data{Title: cfg.Title, Notes: cfg.Notes, Stages: cfg.Stages}
	d.Notes = append(d.Notes, provenanceNotes(cfg.Inputs, cfg.LTRSettings)...)
	if p := cfg.Fit; p != "" {
		notes, err := identificationNotes(filepath.Join(p, fit.FileSummary))
		if err != nil {
			return Data{}, err
		}
		d.Notes = append(d.Notes, notes...)
	}
	if p := cfg.Export; p != "" {
		var m export.Manifest
		if err := textio.ReadJSON(filepath.Join(p, export.ManifestFile), &m); err != nil {
			return Data{}, err
		}
		d.FeatureSemantics = m.Parameters.FeatureSemantics
		problems, err := export.CheckMinimums(context.Background(), p, export.DefaultMinimums())
		if err != nil && !errors.Is(err, fs.ErrNotExist) { // no folds: nothing to warn about
			return Data{}, err
		}
		if len(problems) > 0 {
			d.Warnings = append(d.Warnings, degenerateWarning(problems))
		}
		if note := featureSemanticsNote(m.Parameters.FeatureSemantics); note != "" {
			d.Notes = append(d.Notes, note)
		}
		note, constant, err := columnNotes(filepath.Join(p, export.ParquetFile))
		if err != nil {
			return Data{}, err
		}
		if note != "" {
			d.Notes = append(d.Notes, note)
		}
		if constant != "" {
			d.Warnings = append(d.Warnings, constant)
		}
	}
	if p := cfg.Ingest; p != "" {
		c, err := cleaningCounts(filepath.Join(p, ingest.ReportFile))
		if err != nil {
			return Data{}, err
		}
		d.Cleaning = c
	}
	if cfg.Sessions != "" {
		ls, err := logStats(cfg.Sessions)
		if err != nil {
			return Data{}, err
		}
		d.Log = ls
	}
	if p := cfg.Fit; p != "" {
		var sum fit.Summary
		if err := textio.ReadJSON(filepath.Join(p, fit.FileSummary), &sum); err != nil {
			return Data{}, err
		}
		d.Models = modelRows(sum)
		if p := cfg.Label; p != "" {
			addExpert(d.Models, sum.Selected, p)
		}
	}
	if p := cfg.Sample; p != "" {
		rows, err := sampling.ReadGroundTruthFile(filepath.Join(p, export.GroundTruthFile))
		if err != nil {
			return Data{}, err
		}
		counts := map[int]int64{}
		qs := map[string]bool{}
		for _, r := range rows {
			counts[r.Label]++
			qs[r.Query] = true
		}
		for _, l := range labels.AllLabels() {
			d.Labels = append(d.Labels, LabelShare{Label: l, Count: counts[l]})
		}
		d.Dataset = []Count{{Name: "queries", Value: int64(len(qs))}, {Name: "(query, term) pairs", Value: int64(len(rows))}}
	}
	if p := cfg.LTR; p != "" {
		res, rf, err := ltrResults(p)
		if err != nil {
			return Data{}, err
		}
		d.LTR = res
		if rf != nil {
			d.LTRTieRule = rf.Ties
			// Results written before significance was computed have
			// none: no method, no verdict. The verdict is the one the
			// ltr stage decided and stored, read back, not decided again.
			if rf.Significance.Correction != "" {
				m, v := rf.Significance, rf.Verdict
				d.LTRSignificance, d.LTRVerdict = &m, &v
			}
		}
	}
	if truth, pl := cfg.Truth, cfg.Label; truth != "" && pl != "" {
		rec, err := recovery(truth, filepath.Join(pl, labels.FileLabels), cfg.Thresholds)
		if err != nil {
			return Data{}, err
		}
		d.Recovery = rec
	}
	if pl := cfg.Label; pl != "" {
		prior, err := selectedPrior(cfg.Fit)
		if err != nil {
			return Data{}, err
		}
		c, err := labelConfidence(filepath.Join(pl, labels.FileLabels), cfg.Truth, thresholdsOf(cfg.Thresholds), prior)
		if err != nil {
			return Data{}, err
		}
		if c != nil {
			if err := orderAndFilter(c, filepath.Join(pl, labels.FileReport), cfg.Export); err != nil {
				return Data{}, err
			}
			if err := shareKeepingRecovery(c, filepath.Join(pl, labels.FileLabels), cfg.Truth); err != nil {
				return Data{}, err
			}
		}
		d.Confidence = c
	}
	return d, nil
}

// identificationNotes are the report's notes on the fitted models whose
// log does not identify their relevances up to one scale (a disconnected
// identifiability graph; docs/clickmodels.md, "What a log identifies"):
// the warning `lovbench fit` logs.
func identificationNotes(metrics string) ([]string, error) {
	var sum fit.Summary
	if err := textio.ReadJSON(metrics, &sum); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var notes []string
	for _, m := range sum.Models {
		if u := m.Uncertainty; u != nil && u.Identification != nil && u.Identification.Warning != "" {
			notes = append(notes, "Identifiability: "+u.Identification.Warning+" (docs/clickmodels.md, \"What a log identifies\").")
		}
	}
	return notes, nil
}

// orderAndFilter adds to c the order confidence the label stage reported
// (labelReport) and the label shares before and after export's filter
// (the manifest in exportDir, when it applied one); missing files add
// nothing.
func orderAndFilter(c *Confidence, labelReport, exportDir string) error {
	var rep labels.RunReport
	if err := textio.ReadJSON(labelReport, &rep); err == nil {
		c.Order = rep.Order
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if exportDir == "" {
		return nil
	}
	var m export.Manifest
	if err := textio.ReadJSON(filepath.Join(exportDir, export.ManifestFile), &m); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if f := m.ConfidenceFilter; f != nil {
		lf := &LabelFilter{MinConfidence: f.MinConfidence, MinQueryAgreement: f.MinQueryAgreement, KeepConfident: f.KeepConfident}
		if a := f.Agreeing; a != nil {
			lf.Agreeing = &AgreeingFilter{Fraction: f.KeepAgreeing, Eligible: a.EligibleQueries, Target: a.TargetQueries, Kept: f.KeptQueries,
				ShareTolerance: a.ShareTolerance, ShareDeviation: a.ShareDeviation, ToleranceRatio: a.ToleranceRatio}
			if o := m.OrderAgreement; o != nil {
				lf.Agreeing.MeanAgreement = o.Mean
			}
		}
		for _, n := range f.ByLabel {
			lf.ByLabel = append(lf.ByLabel, LabelFilterRow{Label: n.Label, Before: n.Rows, After: n.Kept, ShareBefore: n.ShareBefore, ShareAfter: n.ShareAfter, Threshold: n.KeptMinConfidence, Bound: n.ShareTolerance})
		}
		c.Filter = lf
	}
	return nil
}

// shareKeepingRecovery appends to c's recovery table the row of the
// export's filter that keeps the label shares (c.Filter: the stratified
// filter, --keep-confident, or the agreeing one, --keep-agreeing-queries,
// with its share tolerance), measured as every row is: Recover with the
// filter's labels.Selection over the labels at labelsPath and the truth
// at truthPath, the agreeing filter with the queries' agreements of the
// order file beside the labels (labels.QueryOrderPath). Nothing for
// another filter, without a recovery table (no truth), or without the
// order file.
func shareKeepingRecovery(c *Confidence, labelsPath, truthPath string) error {
	f := c.Filter
	if f == nil || len(c.Recovery) == 0 || (f.KeepConfident == 0 && f.Agreeing == nil) {
		return nil
	}
	sel := labels.Selection{KeepConfident: f.KeepConfident}
	if a := f.Agreeing; a != nil {
		ag, err := labels.ReadQueryOrderFile(labels.QueryOrderPath(labelsPath))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		sel = labels.Selection{KeepAgreeing: a.Fraction, ShareTolerance: a.ShareTolerance, QueryAgreement: ag}
	}
	ls, truth, err := ReadSimulatedLabels(labelsPath, truthPath)
	if err != nil {
		return err
	}
	c.Recovery = append(c.Recovery, Recover(ls, truth, sel, true))
	return nil
}

// cleaningCounts lists the ingest report's accounting (docs/method.md section 2):
// input events, every drop rule (zero or not, in rule order), the non-zero
// quarantine reasons, what was kept (the SERPs split by whether their
// session has a click), and the sessions.
func cleaningCounts(path string) ([]Count, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	rep, err := ingest.ReadReport(path)
	if err != nil {
		return nil, err
	}
	out := []Count{{Name: "input events", Value: int64(rep.InputEvents)}}
	// Reasons that did not occur are left out, as the report says.
	for _, k := range sortedKeys(rep.Dropped) {
		if rep.Dropped[k] != 0 {
			out = append(out, Count{Name: "dropped by " + ingest.DescribeDrop(k), Value: int64(rep.Dropped[k]), Kind: Dropped})
		}
	}
	for _, k := range sortedKeys(rep.Quarantined) {
		if rep.Quarantined[k] != 0 {
			out = append(out, Count{Name: "quarantined as malformed: " + ingest.DescribeQuarantine(k), Value: int64(rep.Quarantined[k]), Kind: Quarantined})
		}
	}
	for _, k := range sortedKeys(rep.ControlCharacters) {
		if rep.ControlCharacters[k] != 0 {
			out = append(out, Count{Name: "queries with control characters removed: " + ingest.DescribeControl(k), Value: int64(rep.ControlCharacters[k])})
		}
	}
	return append(out,
		Count{Name: "kept queries (SERPs)", Value: int64(rep.KeptQueries), Kind: KeptQueries},
		// Of these, the SERPs LOVBench's rule 1 keeps, from which the
		// labels are drawn, and those of sessions without a click, which
		// only the click models see (docs/method.md section 2).
		Count{Name: "of them, SERPs of sessions with a click (the labels' SERPs)", Value: int64(rep.SERPsWithClickSession)},
		Count{Name: "of them, SERPs of sessions without a click (click models only)", Value: int64(rep.SERPsWithoutClickSession)},
		Count{Name: "kept clicks", Value: int64(rep.KeptClicks), Kind: KeptClicks},
		Count{Name: "sessions seen", Value: int64(rep.Sessions.Seen), Kind: Sessions},
		Count{Name: "sessions kept", Value: int64(rep.Sessions.Kept), Kind: Sessions},
		Count{Name: "sessions dropped without a click", Value: int64(rep.Sessions.DroppedNoClick), Kind: Sessions},
		Count{Name: "sessions dropped as multi-tab", Value: int64(rep.Sessions.DroppedMultiTab), Kind: Sessions},
	), nil
}

// logStats computes the log analysis of LOVBench section 4.1 from sessions
// (sessions.Analyze).
func logStats(path string) (*LogStats, error) {
	log, err := sessions.Load(path)
	if err != nil {
		return nil, err
	}
	a := sessions.Analyze(log)
	st := &LogStats{SERPs: int64(a.SERPs), Sessions: int64(a.Sessions), DistinctQueries: int64(a.DistinctQueries),
		Clicks: int64(a.Clicks), ClassClicks: int64(a.ClickedKinds.Class), PropertyClicks: int64(a.ClickedKinds.Property)}
	for _, c := range a.ClicksPerRank {
		st.ClicksPerRank = append(st.ClicksPerRank, int64(c))
	}
	for _, lc := range a.QueryLength {
		for len(st.QueryLengths) <= lc.Words {
			st.QueryLengths = append(st.QueryLengths, 0)
		}
		st.QueryLengths[lc.Words] += int64(lc.SERPs)
	}
	return st, nil
}

// modelRows turns the fit summary into the report's click-model table, with
// the perplexity gain of every model over the first one (Gain(A, B) =
// (P_B - P_A) / (P_B - 1), docs/method.md section 3).
func modelRows(sum fit.Summary) []ClickModel {
	var rows []ClickModel
	for _, m := range sum.Models {
		base := sum.Models[0]
		rows = append(rows, ClickModel{Name: m.Model, TrainSessions: m.TrainSessions, TestSessions: m.TestSessions,
			LogLikelihood: m.LogLikelihood, Perplexity: m.Perplexity, PerplexityAt: m.PerplexityAtRank,
			Gain: clickmodels.Gain(m.Perplexity, base.Perplexity), GainBase: base.Model, Selected: m.Model == sum.Selected})
	}
	return rows
}

// addExpert fills the expert correlations of the click-model rows from the
// label stage: every model's (expert_agreement.json), or else the selected
// model's (label_report.json).
func addExpert(rows []ClickModel, selected, labelDir string) {
	var ag []labels.ModelAgreement
	if textio.ReadJSON(filepath.Join(labelDir, labels.FileExpertAgreement), &ag) == nil {
		for _, a := range ag {
			for i := range rows {
				if rows[i].Name == a.Model {
					rows[i].ExpertPearson, rows[i].ExpertKendall = a.Pearson, a.Kendall
				}
			}
		}
		return
	}
	var rep labels.RunReport
	if textio.ReadJSON(filepath.Join(labelDir, labels.FileReport), &rep) != nil || rep.Agreement == nil {
		return
	}
	for i := range rows {
		if rows[i].Name == selected {
			rows[i].ExpertPearson, rows[i].ExpertKendall = rep.Agreement.Pooled.Pearson, rep.Agreement.Pooled.Kendall
		}
	}
}

// recovery compares the inferred labels (labels.csv: probability and label)
// with the hidden true relevance of the simulation (truth.tsv).
func recovery(truthPath, labelsPath string, th []float64) (*Recovery, error) {
	truth, err := readTruth(truthPath)
	if err != nil {
		return nil, err
	}
	ls, err := labels.ReadLabelsFile(labelsPath)
	if err != nil {
		return nil, err
	}
	t := thresholdsOf(th)
	all := labels.AllLabels()
	idx := map[int]int{}
	for i, l := range all {
		idx[l] = i
	}
	rec := &Recovery{Labels: all, Confusion: make([][]int64, len(all))}
	for i := range rec.Confusion {
		rec.Confusion[i] = make([]int64, len(all))
	}
	var xs, ys []float64
	agree := 0
	for _, l := range ls {
		tr, ok := truth[[2]string{l.Query, l.Term}]
		if !ok {
			continue
		}
		if l.P >= NearPriorLow && l.P < NearPriorHigh {
			rec.NearPrior++
		}
		xs = append(xs, l.P)
		ys = append(ys, tr)
		tl := t.Label(tr)
		rec.Confusion[idx[tl]][idx[l.Grade]]++
		if tl == l.Grade {
			agree++
		}
	}
	rec.Pairs = len(xs)
	if rec.Pairs == 0 {
		return nil, fmt.Errorf("%s: no labelled pair has a true relevance in %s", labelsPath, truthPath)
	}
	rec.Pearson, rec.Kendall = correlations(xs, ys, true)
	rec.Agreement = float64(agree) / float64(rec.Pairs)
	step := 1
	if len(xs) > MaxScatter {
		step = (len(xs) + MaxScatter - 1) / MaxScatter
	}
	rec.PointStep = step
	for i := 0; i < len(xs); i += step {
		rec.Points = append(rec.Points, Point{X: xs[i], Y: ys[i]})
	}
	return rec, nil
}

// readTruth reads truth.tsv (header query, term, relevance).
func readTruth(path string) (map[[2]string]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[[2]string]float64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			continue
		}
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 3 {
			return nil, fmt.Errorf("%s: line %d: %d fields, want 3 (query, term, relevance)", path, line, len(parts))
		}
		v, err := strconv.ParseFloat(parts[2], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: field relevance: %q is not a number", path, line, parts[2])
		}
		out[[2]string{parts[0], parts[1]}] = v
	}
	return out, sc.Err()
}

// ltrResults reads the learning-to-rank stage's results.json: the MEAN
// row of every (ranker, configuration), baseline included.
func ltrResults(dir string) ([]LTRResult, *ltr.ResultsFile, error) {
	p := filepath.Join(dir, ltr.FileResults)
	var rf ltr.ResultsFile
	if err := textio.ReadJSON(p, &rf); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	var out []LTRResult
	seen := map[string]bool{}
	for _, row := range rf.Rows {
		if row.Fold != ltr.FoldMean {
			continue
		}
		ranker := row.Ranker
		if strings.EqualFold(row.Configuration, ltr.ConfigBaseline) {
			if seen["baseline"] {
				continue
			}
			seen["baseline"] = true
			ranker = "baseline"
			row.Configuration = "LabelSearch_T (feature 34)"
		}
		r := LTRResult{Ranker: ranker, Config: row.Configuration, Measures: row.Values, Significance: row.Significance}
		if row.Ties != nil {
			r.Ties = &LTRTies{Rate: row.Ties.Rate, Optimistic: row.Ties.NDCG10Optimistic, Pessimistic: row.Ties.NDCG10Pessimistic}
		}
		out = append(out, r)
	}
	return out, &rf, nil
}

// naturalCompare orders strings with their runs of digits compared as
// numbers: corpus/2/x before corpus/10/x (strings equal that way, such as
// 07 and 7, in byte order).
func naturalCompare(a, b string) int {
	if c := naturalCompareRuns(a, b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func naturalCompareRuns(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digitRun is the length of the run of ASCII digits that s starts with.
func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// featureSemanticsNote says which feature semantics built the dataset (the
// manifest's parameters.feature_semantics; "" when it is not recorded).
func featureSemanticsNote(sem string) string {
	if sem == "" {
		return ""
	}
	if d := features.Semantics(sem).Description(); d != "" {
		return "Features computed with the " + sem + " semantics: " + d + " (docs/features.md)."
	}
	return "Features computed with the " + sem + " semantics."
}

// columnNotes reads the dataset's feature columns once and returns the
// note on extreme values, export.ExtremeThreshold or more in magnitude
// (LOVBench's Double.MAX_VALUE for the Min_Hub_O of an ontology without
// terms, which a z-score turns into infinities), and the warning on
// features constant over the dataset (export.ConstantColumns, as validate
// and lovbench features say it); "" for none, both "" without a dataset.
func columnNotes(parquetPath string) (extreme, constant string, err error) {
	c, err := export.ReadParquetColumns(context.Background(), parquetPath)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", nil
	}
	if err != nil {
		return "", "", err
	}
	rows := 0
	if len(c.Features) > 0 {
		rows = len(c.Features[0])
	}
	return export.ExtremeNote(export.ExtremeValues(c)), features.ConstantNote(export.ConstantColumns(c), rows), nil
}

// provenanceNotes states what produced the report: the program version and
// VCS revision, every input file of the stages with its SHA-256
// (Config.Inputs, from the stage stamps), and the learning-to-rank
// settings the experiment used (iterations and permutations differ between
// the demo and the defaults, and the scores with them).
func provenanceNotes(inputs map[string]string, lc *LTRSettings) []string {
	notes := []string{"Program: lovbench " + buildinfo.Version() + "."}
	if len(inputs) > 0 {
		var parts []string
		for _, f := range slices.SortedFunc(maps.Keys(inputs), naturalCompare) {
			parts = append(parts, fmt.Sprintf("%s (SHA-256 %s)", f, inputs[f]))
		}
		notes = append(notes, "Input files: "+strings.Join(parts, "; ")+".")
	}
	if lc != nil {
		iters := fmt.Sprintf("%d iterations per ranker", lc.Iterations)
		if lc.Iterations == 0 {
			iters = "each ranker's default number of iterations"
		} else {
			iters += " (not the rankers' defaults: scores differ from a default run)"
		}
		notes = append(notes, fmt.Sprintf("Learning to rank: %s on configurations %s, %s, seed %d, %d permutations in the randomisation tests.",
			strings.Join(lc.Algorithms, ", "), strings.Join(lc.Configs, ", "), iters, lc.Seed, lc.Permutations))
	}
	return notes
}

// degenerateWarning is the report's banner for a dataset below the
// minimums (export.CheckMinimums' problems).
func degenerateWarning(problems []string) string {
	return "Warning: this dataset is below the minimums of a meaningful benchmark and was published only because --allow-degenerate was given: " +
		strings.Join(problems, "; ") + ". Its learning-to-rank results mean little."
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
