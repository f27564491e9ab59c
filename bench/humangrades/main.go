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
// estimates.
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
	"github.com/lovbench/lovbench/sessions/split"
)

func main() {
	logPath := flag.String("log", "", "click log in the Yandex format")
	gradesPath := flag.String("grades", "", "human grades: TSV query, doc, grade with a header")
	models := flag.String("models", "dctr,ubm,dbn", "click models")
	splitName := flag.String("split", string(split.Spec), "fit --split: spec (the default), random or time")
	flag.Parse()
	sp, err := split.Parse(*splitName)
	if err != nil {
		fmt.Fprintln(os.Stderr, "humangrades: -split:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), *logPath, *gradesPath, *models, sp, os.Stdout); err != nil {
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
// sp: the defaults with the SERPs without a click kept and dropped; for a
// model whose default E-step is not PyClick's (clickmodels.Kind.ExactEStep)
// the same two under --estimator pyclick; for PSCM the same two under
// --pscm-authors.
func variants(kinds []clickmodels.Kind, sp split.Kind) []*variant {
	deflt := func(c *clickmodels.RunConfig) { c.Split = sp }
	pyclick := func(c *clickmodels.RunConfig) { c.Split, c.Options = sp, clickmodels.EstimatorPyClick.Options() }
	authors := func(c *clickmodels.RunConfig) { c.Split, c.PSCMAuthors = sp, true }
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
	}
	return vs
}

// run fits every variant of models on the log and writes the table of
// their agreement with the grades to w.
func run(ctx context.Context, logPath, gradesPath, models string, sp split.Kind, w io.Writer) error {
	grades, err := calibration.ReadGrades(gradesPath)
	if err != nil {
		return err
	}
	kinds, err := clickmodels.ParseKinds(models)
	if err != nil {
		return err
	}
	vs := variants(kinds, sp)
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
	first := true
	for _, v := range vs {
		if v.exact == nil {
			continue
		}
		if first {
			fmt.Fprintf(w, "\n| model | click models see | queries | judged pairs | document pairs | exact | pyclick | exact - pyclick | jackknife s.e. over queries |\n|---|---|---|---|---|---|---|---|---|\n")
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
		fmt.Fprintf(w, "| %v | %s | %d | %d | %d | %.3f | %.3f | %+.3f | %.3f |\n", v.kind, see, d.Queries, d.JudgedPairs, d.DocPairs, d.A, d.B, d.A-d.B, d.SE)
	}
	return nil
}

// paired is the agreement of two fits with the grades on the same
// document pairs: A and B, over DocPairs document pairs from JudgedPairs
// judged pairs of Queries queries (those with a document pair), and SE the
// jackknife standard error of A - B over the queries (the document pairs
// of a query share documents, so the query is the unit that is resampled).
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
	var p paired
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
	p.SE = math.NaN()
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
