// Command humangrades measures how the labels lovbench derives from a
// real click log agree with human relevance grades of the same (query,
// document) pairs (docs/method.md, "Labels against human grades"): for
// DCTR, UBM, DBN and any other click model (with the default estimator,
// and each model whose default E-step is not PyClick's, Kind.ExactEStep:
// DBN, SDBN, DCM and CCM, also with --estimator pyclick; PSCM also with
// --pscm-authors),
// fitted as a user does with the defaults, with the SERPs of sessions
// without a click kept (the default) and dropped (ingest
// --drop-clickless),
// the share of document pairs of a query with different grades that the
// fitted relevance orders the same way, overall, by confidence bin
// (pipeline/calibration.Agree) and on the judged pairs every variant
// estimates; the same for the engine's own order (each pair by the mean
// rank the log shows it at), which tells how far agreeing with the grades
// means agreeing with the ranking; each fit's mean relevance by the
// pairs' mean rank shown; and, for each model with two estimators, the
// two side by side on the pairs both estimate, with the jackknife
// standard error of their difference over queries, and on the pairs both
// observe well (evidence of at least minEvidence).
//
//	go run ./bench/humangrades -log /tmp/trec/log.yandex.tsv -grades /tmp/trec/grades.tsv -split random \
//	    -models dctr,ubm,dbn,sdbn,dcm,ccm
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/pipeline/calibration"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
)

func main() {
	logPath := flag.String("log", "", "click log in the Yandex format")
	gradesPath := flag.String("grades", "", "human grades: TSV query, doc, grade with a header")
	models := flag.String("models", "dctr,ubm,dbn", "click models")
	splitName := flag.String("split", string(split.Spec), "fit --split: spec (the default), random or time")
	seed := flag.Uint64("seed", split.DefaultSeed, "fit --seed: the seed of the random split")
	eb := flag.Bool("empirical-prior", false, "fit the default estimator's fits with the empirical-Bayes prior (clickmodels.Options.EmpiricalPrior; --estimator pyclick's stay PyClick's)")
	both := flag.Bool("intervals", false, "also fit each model the Gibbs sampler serves (DBN, SDBN) with its intervals from the counts and from the sampler (fit --intervals-from counts, gibbs; the default, auto, is one of them by the log's size): the same labels, other confidences")
	flag.Parse()
	sp, err := split.Parse(*splitName)
	if err != nil {
		fmt.Fprintln(os.Stderr, "humangrades: -split:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), *logPath, *gradesPath, *models, sp, *seed, *eb, *both, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "humangrades:", err)
		os.Exit(1)
	}
}

type variant struct {
	kind clickmodels.Kind
	name string
	opt  calibration.Options
	rows []calibration.Interval
	// exact, on a variant under --estimator pyclick, is the same fit
	// under the default estimator, which the paired comparison sets
	// against it.
	exact *variant
}

// variants lists the fits measured for each of kinds, all with the split
// sp seeded with seed: the defaults with the SERPs without a click kept
// and dropped; for a model whose default E-step is not PyClick's
// (clickmodels.Kind.ExactEStep) the same two under --estimator pyclick;
// for PSCM the same two under --pscm-authors; with intervals, for a
// model the Gibbs sampler serves (DBN, SDBN), the same two with their
// intervals from the counts and the same two from the sampler
// (clickmodels.IntervalsCounts, IntervalsGibbs).
func variants(kinds []clickmodels.Kind, sp split.Kind, seed uint64, eb, intervals bool) []*variant {
	deflt := func(c *clickmodels.RunConfig) { c.Split, c.Seed, c.EmpiricalPrior = sp, seed, c.EmpiricalPrior || eb }
	pyclick := func(c *clickmodels.RunConfig) { deflt(c); c.Options = clickmodels.EstimatorPyClick.Options() }
	authors := func(c *clickmodels.RunConfig) { deflt(c); c.PSCMAuthors = true }
	counted := func(c *clickmodels.RunConfig) { deflt(c); c.Intervals = clickmodels.IntervalsCounts }
	sampled := func(c *clickmodels.RunConfig) { deflt(c); c.Intervals = clickmodels.IntervalsGibbs }
	var vs []*variant
	// both adds the fit with the SERPs without a click kept and dropped;
	// exact, if not nil, are the same two under the default estimator.
	both := func(k clickmodels.Kind, kept, dropped string, fit func(*clickmodels.RunConfig), exact []*variant) []*variant {
		two := []*variant{{kind: k, name: kept, opt: calibration.Options{Fit: fit}},
			{kind: k, name: dropped, opt: calibration.Options{DropClickless: true, Fit: fit}}}
		if exact != nil {
			two[0].exact, two[1].exact = exact[0], exact[1]
		}
		vs = append(vs, two...)
		return two
	}
	for _, k := range kinds {
		def := both(k, "click-less SERPs kept (default)", "`--drop-clickless`", deflt, nil)
		if k == clickmodels.PSCM {
			both(k, "click-less SERPs kept, --pscm-authors", "`--drop-clickless`, --pscm-authors", authors, nil)
		}
		if k.ExactEStep() {
			both(k, "click-less SERPs kept, `--estimator pyclick`", "`--drop-clickless --estimator pyclick`", pyclick, def)
		}
		if intervals && (k == clickmodels.DBN || k == clickmodels.SDBN) {
			both(k, "click-less SERPs kept, `--intervals-from counts`", "`--drop-clickless --intervals-from counts`", counted, nil)
			both(k, "click-less SERPs kept, `--intervals-from gibbs`", "`--drop-clickless --intervals-from gibbs`", sampled, nil)
		}
	}
	return vs
}

// run fits every variant of models on the log and writes the tables of
// their agreement with the grades (and with the engine's order) to w.
func run(ctx context.Context, logPath, gradesPath, models string, sp split.Kind, seed uint64, eb, intervals bool, w io.Writer) error {
	grades, err := calibration.ReadGrades(gradesPath)
	if err != nil {
		return err
	}
	kinds, err := clickmodels.ParseKinds(models)
	if err != nil {
		return err
	}
	vs := variants(kinds, sp, seed, eb, intervals)
	work, err := os.MkdirTemp("", "lovbench-humangrades-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	common := map[[2]string]int{}
	for i, v := range vs {
		dir, err := os.MkdirTemp(work, "v")
		if err != nil {
			return err
		}
		if v.rows, err = calibration.FitLog(ctx, logPath, v.kind, v.opt, dir, fmt.Sprint(i)); err != nil {
			return err
		}
		for _, iv := range v.rows {
			if _, ok := grades[[2]string{iv.Query, iv.Doc}]; ok {
				common[[2]string{iv.Query, iv.Doc}]++
			}
		}
	}
	inAll := func(q, d string) bool { return common[[2]string{q, d}] == len(vs) }
	th := labels.DefaultThresholds()
	var head []string
	for i, f := range calibration.ConfidenceBins {
		to := "1]"
		if i+1 < len(calibration.ConfidenceBins) {
			to = fmt.Sprintf("%.1f)", calibration.ConfidenceBins[i+1])
		}
		head = append(head, fmt.Sprintf("[%.1f, %s", f, to))
	}
	fmt.Fprintf(w, "| model | fit | judged pairs estimated | document pairs | agreement | agreement by confidence %s (document pairs) | on the common pairs |\n|---|---|---|---|---|---|---|\n", strings.Join(head, " / "))
	for _, v := range vs {
		a := calibration.Agree(v.rows, grades, th, nil)
		c := calibration.Agree(v.rows, grades, th, inAll)
		var bins []string
		for _, b := range a.Bins {
			bins = append(bins, fmt.Sprintf("%.3f (%d)", b.Agree, b.DocPairs))
		}
		fmt.Fprintf(w, "| %v | %s | %d | %d | %.3f | %s | %.3f (%d judged, %d document pairs) |\n", v.kind, v.name, a.JudgedPairs, a.DocPairs, a.Agree,
			strings.Join(bins, " / "), c.Agree, c.JudgedPairs, c.DocPairs)
	}
	engine, err := engineOrder(logPath)
	if err != nil {
		return err
	}
	e, ec := calibration.Agree(engine, grades, th, nil), calibration.Agree(engine, grades, th, inAll)
	fmt.Fprintf(w, "\nThe engine's order (each pair by its mean rank shown, every SERP of the log): agreement %.3f (%d judged pairs, %d document pairs); on the common pairs %.3f (%d document pairs).\n",
		e.Agree, e.JudgedPairs, e.DocPairs, ec.Agree, ec.DocPairs)
	// Ranks beyond lastRank share one column.
	const lastRank = 10
	rankOf := map[[2]string]int{}
	// The engine's order as grades: a fit's agreement with it tells how
	// far the fit keeps the order the log was shown in.
	engineGrades := calibration.Grades{}
	maxRank := 0
	for _, iv := range engine {
		engineGrades[[2]string{iv.Query, iv.Doc}] = iv.Relevance
		r := min(int(math.Round(-iv.Relevance)), lastRank+1)
		rankOf[[2]string{iv.Query, iv.Doc}] = r
		maxRank = max(maxRank, r)
	}
	fmt.Fprintf(w, "\n| model | fit | agreement with the engine's order (document pairs) | mean fitted relevance of the pairs by their mean rank shown (rounded) 1")
	for r := 2; r <= maxRank; r++ {
		if r > lastRank {
			fmt.Fprintf(w, " / %d+", r)
			continue
		}
		fmt.Fprintf(w, " / %d", r)
	}
	fmt.Fprintf(w, " |\n|---|---|---|---|\n")
	for _, v := range vs {
		sum, n := make([]float64, maxRank+1), make([]int, maxRank+1)
		for _, iv := range v.rows {
			if r, ok := rankOf[[2]string{iv.Query, iv.Doc}]; ok {
				sum[r] += iv.Relevance
				n[r]++
			}
		}
		var cells []string
		for r := 1; r <= maxRank; r++ {
			if n[r] == 0 {
				cells = append(cells, "-")
				continue
			}
			cells = append(cells, fmt.Sprintf("%.3f", sum[r]/float64(n[r])))
		}
		o := calibration.Agree(v.rows, engineGrades, th, nil)
		fmt.Fprintf(w, "| %v | %s | %.3f (%d) | %s |\n", v.kind, v.name, o.Agree, o.DocPairs, strings.Join(cells, " / "))
	}
	first := true
	for _, v := range vs {
		if v.exact == nil {
			continue
		}
		if first {
			fmt.Fprintf(w, "\n| model | click models see | queries | judged pairs | document pairs | exact | pyclick | exact - pyclick | jackknife s.e. over queries | where both fits have evidence >= %g: document pairs, exact, pyclick |\n|---|---|---|---|---|---|---|---|---|---|\n", minEvidence)
			first = false
		}
		see := "every SERP"
		if v.opt.DropClickless {
			see = "`--drop-clickless`"
		}
		d, err := compare(v.exact.rows, v.rows, grades, th, nil)
		if err != nil {
			return fmt.Errorf("%v, %s: %w", v.kind, v.name, err)
		}
		well, err := compare(v.exact.rows, v.rows, grades, th, observed(minEvidence, v.exact.rows, v.rows))
		if err != nil {
			return fmt.Errorf("%v, %s: %w", v.kind, v.name, err)
		}
		fmt.Fprintf(w, "| %v | %s | %d | %d | %d | %.3f | %.3f | %+.3f | %.3f | %d, %.3f, %.3f |\n", v.kind, see, d.Queries, d.JudgedPairs, d.DocPairs, d.A, d.B, d.A-d.B, d.SE,
			well.DocPairs, well.A, well.B)
	}
	return nil
}

// engineOrder returns a row per (query, document) pair of the Yandex log
// at logPath whose relevance is minus the mean rank (1 the top) at which
// the log's SERPs, every one of them, show the pair: the order of the
// engine that made the log, to read the fits' agreement against.
func engineOrder(logPath string) ([]calibration.Interval, error) {
	log, err := sessions.LoadForFit(logPath)
	if err != nil {
		return nil, err
	}
	type acc struct{ sum, n int }
	by := map[[2]int32]*acc{}
	var keys [][2]int32
	for i := range log.Len() {
		for r, d := range log.SERPDocs(i) {
			k := [2]int32{log.Query[i], d}
			a := by[k]
			if a == nil {
				a = &acc{}
				by[k] = a
				keys = append(keys, k)
			}
			a.sum += r + 1
			a.n++
		}
	}
	rows := make([]calibration.Interval, len(keys))
	for i, k := range keys {
		a := by[k]
		rows[i] = calibration.Interval{Query: log.Queries.Names[k[0]], Doc: log.Docs.Names[k[1]], Relevance: -float64(a.sum) / float64(a.n), Alpha: 1, Beta: 1}
	}
	return rows, nil
}

// minEvidence is the posterior evidence (alpha + beta) from which the
// paired table counts a pair as well observed: five observations' worth.
const minEvidence = 5.0

// observed returns the pairs whose evidence (calibration.Interval
// .Evidence) is at least min in every one of fits.
func observed(min float64, fits ...[]calibration.Interval) func(q, d string) bool {
	n := map[[2]string]int{}
	for _, rows := range fits {
		for _, iv := range rows {
			if iv.Evidence() >= min {
				n[[2]string{iv.Query, iv.Doc}]++
			}
		}
	}
	return func(q, d string) bool { return n[[2]string{q, d}] == len(fits) }
}

// paired is the agreement of two fits with the grades on the same
// document pairs: A and B, over DocPairs document pairs from JudgedPairs
// judged pairs of Queries queries (those with a document pair), and SE the
// jackknife standard error of A - B over the queries (the document pairs
// of a query share documents, so the query is the unit that is resampled;
// NaN with fewer than two queries).
type paired struct {
	Queries, JudgedPairs, DocPairs int
	A, B, SE                       float64
}

// compare measures the paired agreement of the fits a and b with grades
// on the pairs keep admits, which both must estimate: per query q with
// n_q document pairs and agreeing sums a_q and b_q, A - B = (sum a_q -
// sum b_q) / sum n_q, its leave-one-query-out value D_q = (sum a - a_q -
// sum b + b_q) / (sum n - n_q), and SE = sqrt((Q-1)/Q sum_q (D_q -
// mean D)^2) (the jackknife of Efron and Tibshirani 1993, chapter 11).
func compare(a, b []calibration.Interval, grades calibration.Grades, th labels.Thresholds, keep func(q, d string) bool) (paired, error) {
	byQuery := func(rows []calibration.Interval) map[string][]calibration.Interval {
		m := map[string][]calibration.Interval{}
		for _, iv := range rows {
			m[iv.Query] = append(m[iv.Query], iv)
		}
		return m
	}
	qa, qb := byQuery(a), byQuery(b)
	qs := make([]string, 0, len(qa))
	for q := range qa {
		qs = append(qs, q)
	}
	sort.Strings(qs)
	p := paired{SE: math.NaN()}
	type sums struct{ n, a, b float64 }
	var per []sums
	var all sums
	for _, q := range qs {
		x, y := calibration.Agree(qa[q], grades, th, keep), calibration.Agree(qb[q], grades, th, keep)
		if x.DocPairs != y.DocPairs || x.JudgedPairs != y.JudgedPairs {
			return p, fmt.Errorf("query %s: %d and %d judged pairs: the two fits must be compared on the same pairs", q, x.JudgedPairs, y.JudgedPairs)
		}
		if x.DocPairs == 0 {
			continue
		}
		s := sums{float64(x.DocPairs), x.Agree * float64(x.DocPairs), y.Agree * float64(y.DocPairs)}
		per = append(per, s)
		all.n, all.a, all.b = all.n+s.n, all.a+s.a, all.b+s.b
		p.JudgedPairs += x.JudgedPairs
	}
	p.Queries, p.DocPairs = len(per), int(all.n)
	if all.n == 0 {
		return p, nil
	}
	p.A, p.B = all.a/all.n, all.b/all.n
	if len(per) < 2 {
		return p, nil
	}
	ds := make([]float64, len(per))
	mean := 0.0
	for i, s := range per {
		ds[i] = (all.a - s.a - all.b + s.b) / (all.n - s.n)
		mean += ds[i] / float64(len(per))
	}
	ss := 0.0
	for _, d := range ds {
		ss += (d - mean) * (d - mean)
	}
	q := float64(len(per))
	p.SE = math.Sqrt((q - 1) / q * ss)
	return p, nil
}
