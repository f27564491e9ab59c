// Package calibration measures, on a simulated log whose true relevance is
// known, what a user of lovbench gets when running the documented path
// with its defaults: `lovbench ingest --format yandex`, `lovbench fit
// --sessions` and `lovbench label` (docs/method.md sections 2-4; the LOVBench
// paper, section 4.2). It reports the coverage of the relevance intervals
// and the calibration of the label confidences (docs/clickmodels.md,
// "Calibration against known truth") overall and by fifth of the pairs
// ordered by evidence (the posterior's alpha + beta), because a calibration
// that holds on average can fail exactly where the evidence is largest
// (issue 36, part 4). It is the one harness of that measurement:
// bench/calibration prints it, the calibration tests check it.
//
// The logs come from either simulator: the project's own (clickmodels/sim,
// SimLog) or the second one written from the models' definitions
// (clickmodels/refsim, RefLog).
//
// Below that path, Calibrate and CalibrateSimulation measure one fitted
// model's intervals and label confidences against the model that simulated
// its log, in memory (truth.go); SimulationOptions replace one ingredient
// of the intervals at a time by the simulation's truth, and CalibrationOf
// is the one home of the calibration measures (ECE, Brier skill) both
// levels report. Bootstrap (bootstrap.go) is a parametric bootstrap of the
// intervals, measured as Options.Recalibrate and not part of the fit.
package calibration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/refsim"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/labels"
)

// Fifths is the number of evidence groups of a Report.
const Fifths = 5

// Truth gives the true relevance of a (query, document) pair of a
// simulated log, and false for a pair the simulation did not make.
type Truth func(query, doc string) (float64, bool)

// Report is the measurement of one log.
type Report struct {
	Model string `json:"model"`
	// LogSERPs are the SERPs of the simulated log, KeptSERPs those ingest
	// kept (its cleaning rules), TrainSERPs those the fit trained on.
	LogSERPs   int `json:"log_serps"`
	KeptSERPs  int `json:"kept_serps"`
	TrainSERPs int `json:"train_serps"`
	// Pairs are the rows of the relevance file; Coverage the share whose
	// interval [lower, upper] holds the true relevance.
	Pairs    int     `json:"pairs"`
	Coverage float64 `json:"coverage"`
	// Labels is the calibration of the labels' confidences (labels.csv)
	// against the labels of the true relevance (CalibrationOf).
	Labels *Calibration `json:"labels"`
	// ByEvidence splits the pairs, ordered by alpha + beta, into Fifths
	// groups of equal size (the least evidence first); the labels are
	// split among themselves the same way, by the evidence of their pair.
	ByEvidence [Fifths]Fifth `json:"by_evidence"`
	// Recalibration is the bootstrap's outcome with Options.Recalibrate.
	Recalibration *Recalibration `json:"recalibration,omitempty"`
}

// Fifth is one evidence group.
type Fifth struct {
	Pairs int `json:"pairs"`
	// MinEvidence and MaxEvidence bound alpha + beta of its pairs.
	MinEvidence float64 `json:"min_evidence"`
	MaxEvidence float64 `json:"max_evidence"`
	Coverage    float64 `json:"coverage"`
	// MeanFitted and MeanTrue are the mean fitted and true relevance of
	// its pairs: a ratio away from 1 is a bias no interval width hides.
	MeanFitted float64 `json:"mean_fitted"`
	MeanTrue   float64 `json:"mean_true"`
	// Labels and ECE are the labels of the group and the expected
	// calibration error of their confidences.
	Labels int     `json:"labels"`
	ECE    float64 `json:"ece"`
}

// Options vary the user's path; the zero value is the path as documented.
type Options struct {
	// DropClickless ingests with `--drop-clickless` (ingest.Config
	// .DropClickless): the sessions without a click are dropped for the
	// click models too, as LOVBench's rule 1 does, instead of kept as
	// evidence (the default).
	DropClickless bool
	// Fit, if set, changes the fit's configuration from the defaults of
	// lovbench fit (fit.DefaultConfig: e.g. its estimator).
	Fit func(*clickmodels.RunConfig)
	// Recalibrate applies the parametric bootstrap's correction
	// (Bootstrap, with the configuration Bootstrap, DefaultBootstrap if
	// zero) to the fit's intervals before the labels are made: a
	// measurement, not part of the user's path (docs/clickmodels.md, "A
	// parametric bootstrap of the intervals, measured and not adopted").
	Recalibrate bool
	Bootstrap   BootstrapConfig
}

// Run runs the user's path on the Yandex log logPath, as the commands do
// with their defaults: ingest (labels.Run and fit.Run read its
// directory), the fit of kind alone with intervals, and the labels of the
// first SERPs; then measures the intervals and confidences against truth.
// Its files go into work (created if missing; the caller removes it). The
// configurations are the stages' DefaultConfig, the commands' defaults, so
// a change of a default reaches this measurement. (Until issue 36's
// measurements were taken again, the fit here was clickmodels.RunConfig's
// zero value, PyClick's estimator with 50 iterations: not what a user's
// `lovbench fit` runs.)
func Run(ctx context.Context, logPath string, kind clickmodels.Kind, truth Truth, work string, opt Options) (*Report, error) {
	sessions, irep, err := sessionsOf(ctx, logPath, work, opt.DropClickless)
	if err != nil {
		return nil, err
	}
	cfg := defaultFit(kind)
	if opt.Fit != nil {
		opt.Fit(&cfg)
	}
	relPath, reps, err := Fit(ctx, sessions, cfg, filepath.Join(work, "fit"))
	if err != nil {
		return nil, err
	}
	var rec *Recalibration
	if opt.Recalibrate {
		if rec, relPath, err = recalibrate(ctx, sessions, cfg, opt.Bootstrap, relPath, work); err != nil {
			return nil, err
		}
	}
	labPath := filepath.Join(work, labels.FileLabels)
	lcfg := labels.DefaultConfig()
	lcfg.Relevance, lcfg.Sessions, lcfg.Out = relPath, sessions, labPath
	if _, err := labels.Run(ctx, lcfg); err != nil {
		return nil, fmt.Errorf("label: %w", err)
	}
	rows, err := ReadIntervals(relPath)
	if err != nil {
		return nil, err
	}
	ls, err := labels.ReadLabelsFile(labPath)
	if err != nil {
		return nil, err
	}
	r, err := Measure(rows, ls, truth, labels.DefaultThresholds())
	if err != nil {
		return nil, err
	}
	r.Model = kind.String()
	r.Recalibration = rec
	r.LogSERPs = irep.RawQueries
	r.KeptSERPs = irep.KeptQueries
	if len(reps) > 0 {
		r.TrainSERPs = reps[0].TrainSessions
	}
	return r, nil
}

// sessionsOf ingests the Yandex log logPath into work/ingest as `lovbench
// ingest --format yandex` does (with dropClickless, `--drop-clickless`)
// and returns the ingest directory, which the fit and the labels read.
func sessionsOf(ctx context.Context, logPath, work string, dropClickless bool) (string, *ingest.Report, error) {
	dir := filepath.Join(work, "ingest")
	icfg := ingest.DefaultConfig()
	icfg.Format, icfg.Log, icfg.OutDir, icfg.PIISalt, icfg.DropClickless = ingest.FormatYandex, logPath, dir, []byte("calibration"), dropClickless
	rep, err := ingest.Run(ctx, icfg)
	if err != nil {
		return "", nil, fmt.Errorf("ingest: %w", err)
	}
	return dir, &rep, nil
}

// Fit fits cfg's single model on sessions (an ingest directory or
// a Yandex log) into the new directory dir as `lovbench fit` does
// (fit.Run), and returns the path of its relevance file and the
// fit's report.
func Fit(ctx context.Context, sessions string, cfg clickmodels.RunConfig, dir string) (string, []clickmodels.Report, error) {
	if len(cfg.Kinds) != 1 {
		return "", nil, fmt.Errorf("calibration: fit one model, not %d", len(cfg.Kinds))
	}
	d, err := atomicfile.CreateDir(dir, clickmodels.MetricsFile)
	if err != nil {
		return "", nil, err
	}
	defer d.Abort()
	reps, err := fit.Run(ctx, fit.Config{Input: sessions, Dir: d.Path(), RunConfig: cfg})
	if err != nil {
		return "", nil, fmt.Errorf("fit: %w", err)
	}
	if err := d.Commit(); err != nil {
		return "", nil, err
	}
	return filepath.Join(dir, clickmodels.RelevanceFile(cfg.Kinds[0].String())), reps, nil
}

// defaultFit is the configuration of `lovbench fit --models kind` with
// every other flag at its default (fit.DefaultConfig): the estimator, the
// train split and the interval level the user gets.
func defaultFit(kind clickmodels.Kind) clickmodels.RunConfig {
	cfg := fit.DefaultConfig().RunConfig
	cfg.Kinds = []clickmodels.Kind{kind}
	return cfg
}

// Interval is one row of a relevance file with intervals.
type Interval struct {
	Query, Doc                     string
	Relevance, Lower, Upper, Alpha float64
	Beta                           float64
}

// Evidence is alpha + beta of the row's posterior.
func (iv Interval) Evidence() float64 { return iv.Alpha + iv.Beta }

// Measure computes a Report from the relevance rows and labels of a fit
// against truth, with the label thresholds th.
func Measure(rows []Interval, ls []labels.Label, truth Truth, th labels.Thresholds) (*Report, error) {
	r := &Report{Pairs: len(rows)}
	type key struct{ q, d string }
	trueOf := make([]float64, len(rows))
	evOf := make(map[key]float64, len(rows))
	for i, iv := range rows {
		t, ok := truth(iv.Query, iv.Doc)
		if !ok {
			return nil, fmt.Errorf("calibration: pair (%s, %s) of the relevance file is not in the simulation's truth", iv.Query, iv.Doc)
		}
		trueOf[i] = t
		evOf[key{iv.Query, iv.Doc}] = iv.Evidence()
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rows[order[a]].Evidence() < rows[order[b]].Evidence() })
	covered := 0
	for g := range Fifths {
		lo, hi := g*len(order)/Fifths, (g+1)*len(order)/Fifths
		fi := &r.ByEvidence[g]
		fi.Pairs = hi - lo
		if fi.Pairs == 0 {
			continue
		}
		fi.MinEvidence, fi.MaxEvidence = rows[order[lo]].Evidence(), rows[order[hi-1]].Evidence()
		c := 0
		for _, i := range order[lo:hi] {
			iv := rows[i]
			if iv.Lower <= trueOf[i] && trueOf[i] <= iv.Upper {
				c++
			}
			fi.MeanFitted += iv.Relevance
			fi.MeanTrue += trueOf[i]
		}
		covered += c
		n := float64(fi.Pairs)
		fi.Coverage, fi.MeanFitted, fi.MeanTrue = float64(c)/n, fi.MeanFitted/n, fi.MeanTrue/n
	}
	if len(rows) > 0 {
		r.Coverage = float64(covered) / float64(len(rows))
	}
	// Labels: correct when the true relevance has the same label.
	type lab struct {
		conf, ev float64
		ok       bool
	}
	var labs []lab
	for _, l := range ls {
		if l.Confidence == labels.NoConfidence {
			continue
		}
		t, ok := truth(l.Query, l.Term)
		if !ok {
			return nil, fmt.Errorf("calibration: label (%s, %s) is not in the simulation's truth", l.Query, l.Term)
		}
		ev, ok := evOf[key{l.Query, l.Term}]
		if !ok {
			return nil, fmt.Errorf("calibration: label (%s, %s) has no row in the relevance file", l.Query, l.Term)
		}
		labs = append(labs, lab{l.Confidence, ev, th.Label(t) == l.Grade})
	}
	all := func(ls []lab) *Calibration {
		conf, ok := make([]float64, len(ls)), make([]bool, len(ls))
		for i, l := range ls {
			conf[i], ok[i] = l.conf, l.ok
		}
		return CalibrationOf(conf, ok)
	}
	r.Labels = all(labs)
	sort.SliceStable(labs, func(a, b int) bool { return labs[a].ev < labs[b].ev })
	for g := range Fifths {
		part := labs[g*len(labs)/Fifths : (g+1)*len(labs)/Fifths]
		r.ByEvidence[g].Labels = len(part)
		r.ByEvidence[g].ECE = all(part).ECE
	}
	return r, nil
}

// ReadIntervals reads the relevance file of `lovbench fit` (with
// intervals), taking its columns by their names in the header so that
// columns added later do not change what is read.
func ReadIntervals(path string) ([]Interval, error) {
	f, err := textio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(textio.NewLineReader(f))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("%s: empty, want a relevance file with intervals", path)
	}
	col := map[string]int{}
	for i, h := range strings.Split(sc.Text(), "\t") {
		col[h] = i
	}
	names := []string{"query", "doc", "relevance", "lower", "upper", "alpha", "beta"}
	idx := make([]int, len(names))
	for i, n := range names {
		c, ok := col[n]
		if !ok {
			return nil, fmt.Errorf("%s:1: no column %q: fit it with intervals (--interval, on by default)", path, n)
		}
		idx[i] = c
	}
	var out []Interval
	line := 1
	for sc.Scan() {
		line++
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != len(col) {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d", path, line, len(fs), len(col))
		}
		var v [5]float64
		for i := range v {
			x, err := strconv.ParseFloat(fs[idx[i+2]], 64)
			if err != nil || math.IsNaN(x) {
				return nil, fmt.Errorf("%s:%d: field %s: %s is not a number", path, line, names[i+2], textio.Quote(fs[idx[i+2]]))
			}
			v[i] = x
		}
		out = append(out, Interval{Query: fs[idx[0]], Doc: fs[idx[1]], Relevance: v[0], Lower: v[1], Upper: v[2], Alpha: v[3], Beta: v[4]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", path, line+1, err)
	}
	return out, nil
}

// RefLog writes the log of the second simulator (clickmodels/refsim) to
// dir/log.yandex.tsv and its truth to dir/truth.tsv, and returns the log's
// path, the truth and the simulation's counts.
func RefLog(ctx context.Context, cfg refsim.Config, dir string) (string, Truth, refsim.Stats, error) {
	path := filepath.Join(dir, "log.yandex.tsv")
	var pairs []refsim.Pair
	var st refsim.Stats
	err := atomicfile.WriteFile(path, func(w io.Writer) error {
		var err error
		pairs, st, err = refsim.Simulate(ctx, cfg, w)
		return err
	})
	if err != nil {
		return "", nil, st, err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "truth.tsv"), func(w io.Writer) error { return refsim.WriteTruth(w, pairs) }); err != nil {
		return "", nil, st, err
	}
	m := make(map[[2]string]float64, len(pairs))
	for _, p := range pairs {
		m[[2]string{p.Query, p.Doc}] = p.Relevance
	}
	return path, func(q, d string) (float64, bool) { v, ok := m[[2]string{q, d}]; return v, ok }, st, nil
}

// SimLog writes the log of the project's simulator (sim.SimulateYandex)
// to dir/log.yandex.tsv and returns its path and truth.
func SimLog(ctx context.Context, cfg sim.Config, dir string) (string, Truth, error) {
	path := filepath.Join(dir, "log.yandex.tsv")
	var truth *clickmodels.Model
	err := atomicfile.WriteFile(path, func(w io.Writer) error {
		var err error
		truth, err = sim.SimulateYandex(ctx, cfg, w)
		return err
	})
	if err != nil {
		return "", nil, err
	}
	return path, func(q, d string) (float64, bool) {
		if truth.Pair(q, d) < 0 {
			return 0, false
		}
		return truth.Relevance(q, d), true
	}, nil
}
