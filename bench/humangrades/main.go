// Command humangrades measures how the labels lovbench derives from a
// real click log agree with human relevance grades of the same (query,
// document) pairs (docs/method.md, "Labels against human grades"): for
// DCTR, UBM and DBN (with the default estimator, and DBN also with
// --estimator pyclick; PSCM with -models pscm, also with --pscm-authors),
// fitted as a user does with the defaults, with the SERPs of sessions
// without a click kept (the default) and dropped (ingest
// --drop-clickless),
// the share of document pairs of a query with different grades that the
// fitted relevance orders the same way, overall, by confidence bin
// (pipeline/calibration.Agree) and on the judged pairs every variant
// estimates.
//
//	go run ./bench/humangrades -log /tmp/trec/log.yandex.tsv -grades /tmp/trec/grades.tsv -split random
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
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
	if err := run(*logPath, *gradesPath, *models, sp); err != nil {
		fmt.Fprintln(os.Stderr, "humangrades:", err)
		os.Exit(1)
	}
}

type variant struct {
	kind  clickmodels.Kind
	name  string
	opt   calibration.Options
	rows  []calibration.Interval
	estim map[[2]string]bool
}

func run(logPath, gradesPath, models string, sp split.Kind) error {
	ctx := context.Background()
	grades, err := calibration.ReadGrades(gradesPath)
	if err != nil {
		return err
	}
	kinds, err := clickmodels.ParseKinds(models)
	if err != nil {
		return err
	}
	deflt := func(c *clickmodels.RunConfig) { c.Split = sp }
	pyclick := func(c *clickmodels.RunConfig) { c.Split, c.Options = sp, clickmodels.EstimatorPyClick.Options() }
	var vs []*variant
	for _, k := range kinds {
		vs = append(vs, &variant{kind: k, name: "click-less SERPs kept (default)", opt: calibration.Options{Fit: deflt}},
			&variant{kind: k, name: "`--drop-clickless`", opt: calibration.Options{DropClickless: true, Fit: deflt}})
		if k == clickmodels.PSCM {
			authors := func(drop bool) calibration.Options {
				return calibration.Options{DropClickless: drop, Fit: func(c *clickmodels.RunConfig) { c.Split, c.PSCMAuthors = sp, true }}
			}
			vs = append(vs, &variant{kind: k, name: "click-less SERPs kept, --pscm-authors", opt: authors(false)},
				&variant{kind: k, name: "`--drop-clickless`, --pscm-authors", opt: authors(true)})
		}
		if k == clickmodels.DBN {
			vs = append(vs, &variant{kind: k, name: "click-less SERPs kept, `--estimator pyclick`", opt: calibration.Options{Fit: pyclick}},
				&variant{kind: k, name: "`--drop-clickless --estimator pyclick`", opt: calibration.Options{DropClickless: true, Fit: pyclick}})
		}
	}
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
	fmt.Printf("| model | fit | judged pairs estimated | document pairs | agreement | agreement by confidence %s (document pairs) | on the common pairs |\n|---|---|---|---|---|---|---|\n", strings.Join(head, " / "))
	for _, v := range vs {
		a := calibration.Agree(v.rows, grades, th, nil)
		c := calibration.Agree(v.rows, grades, th, inAll)
		var bins []string
		for _, b := range a.Bins {
			bins = append(bins, fmt.Sprintf("%.3f (%d)", b.Agree, b.DocPairs))
		}
		fmt.Printf("| %v | %s | %d | %d | %.3f | %s | %.3f (%d judged, %d document pairs) |\n", v.kind, v.name, a.JudgedPairs, a.DocPairs, a.Agree,
			strings.Join(bins, " / "), c.Agree, c.JudgedPairs, c.DocPairs)
	}
	return nil
}
