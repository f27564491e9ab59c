// Command pscmhelps measures where the partially sequential click model
// (PSCM; Wang, Liu, Wang, Zhou, Nie and Ma, SIGIR 2015, section 4) helps
// against UBM and DBN (issue 35, part 4; docs/clickmodels.md, "Where PSCM
// helps"), on logs of the second simulator's PSCM user
// (clickmodels/refsim, written from the model's hypotheses: users who
// return up the page after a click) and, for contrast, of the same user
// without returns (whose log is UBM's):
//
//   - test perplexity and log-likelihood of PSCM (and of PSCM as the
//     authors' code, --pscm-authors), UBM and DBN, and DCTR for reference,
//     as `lovbench fit --log LOG --models pscm,ubm,dbn,dctr
//     --train-fraction F` computes them;
//   - label recovery: the Pearson r of each model's (PSCM's also as the
//     authors' code) fitted relevance with the simulated attractiveness
//     over the pairs it estimates and over those the log shows at least
//     100 times, and the share of document pairs of a query with
//     different true values that the fitted relevance orders the same
//     way (pipeline/calibration.Agree);
//   - the calibration of PSCM's (both ways) and UBM's intervals and label
//     confidences on the user's path with the defaults (ingest, fit, label;
//     pipeline/calibration.Run): coverage and expected calibration error
//     by fifth of the pairs ordered by evidence. DBN's relevance is
//     attractiveness x satisfaction, not the simulated truth, and is left
//     out there.
//
// Profiles: sparse is the LOVBench profile (about 5 SERPs per query, the
// demo's), dense about 100 SERPs per query.
//
//	go run ./bench/pscmhelps -serps 100000 -profiles sparse,dense
//
// Agreement with human grades on real logs is bench/humangrades'
// (-models pscm,ubm,dbn).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/refsim"
	"github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/pipeline/calibration"
)

func main() {
	serps := flag.Int("serps", 100000, "simulated SERPs per log")
	profiles := flag.String("profiles", "sparse,dense", "sparse (about 5 SERPs per query, the LOVBench profile) and/or dense (about 100)")
	seed := flag.Uint64("seed", 1, "seed of the simulations")
	frac := flag.Float64("train-fraction", 0.7, "fit --train-fraction")
	noCal := flag.Bool("no-calibration", false, "skip the calibration table")
	flag.Parse()
	if err := run(context.Background(), *serps, strings.Split(*profiles, ","), *seed, *frac, !*noCal); err != nil {
		fmt.Fprintln(os.Stderr, "pscmhelps:", err)
		os.Exit(1)
	}
}

// logSpec is one simulated log.
type logSpec struct {
	profile string
	returns bool
	cfg     refsim.Config
}

func (l logSpec) name() string {
	r := "returns"
	if !l.returns {
		r = "no returns"
	}
	return l.profile + ", " + r
}

func run(ctx context.Context, serps int, profiles []string, seed uint64, frac float64, withCal bool) error {
	var specs []logSpec
	for _, p := range profiles {
		per := 0
		switch strings.TrimSpace(p) {
		case "sparse":
			per = 5
		case "dense":
			per = 100
		default:
			return fmt.Errorf("-profiles: %q: want sparse or dense", p)
		}
		for _, ret := range []bool{true, false} {
			c := refsim.Default(refsim.PSCM, serps, max(1, serps/per), seed)
			c.NoReturns = !ret
			specs = append(specs, logSpec{strings.TrimSpace(p), ret, c})
		}
	}
	var fitRows, recRows, calRows []string
	for _, sp := range specs {
		work, err := os.MkdirTemp("", "lovbench-pscmhelps-")
		if err != nil {
			return err
		}
		f, r, c, err := measure(ctx, sp, frac, withCal, work)
		os.RemoveAll(work)
		if err != nil {
			return fmt.Errorf("%s: %w", sp.name(), err)
		}
		fitRows, recRows, calRows = append(fitRows, f...), append(recRows, r...), append(calRows, c...)
	}
	fmt.Println("| log | SERPs | queries | out of order (of multi-click SERPs) | model | test perplexity | test log-likelihood |")
	fmt.Println("|---|---|---|---|---|---|---|")
	fmt.Print(strings.Join(fitRows, ""))
	fmt.Println()
	fmt.Println("| log | model | pairs estimated | Pearson r with the true attractiveness | pairs shown >= 100 times | their r | their mean fitted - true | document pairs | agreement with the true order |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	fmt.Print(strings.Join(recRows, ""))
	if withCal {
		fmt.Println()
		fmt.Println("| log | model | pairs | coverage by evidence fifth, least to most | coverage | labels | ECE | ECE by fifth | fitted / true relevance by fifth |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|")
		fmt.Print(strings.Join(calRows, ""))
	}
	return nil
}

// measure simulates sp's log into work and returns its rows of the three
// tables.
func measure(ctx context.Context, sp logSpec, frac float64, withCal bool, work string) (fitRows, recRows, calRows []string, err error) {
	logPath, truth, st, err := calibration.RefLog(ctx, sp.cfg, work)
	if err != nil {
		return nil, nil, nil, err
	}
	shown, err := readShown(filepath.Join(work, "truth.tsv"))
	if err != nil {
		return nil, nil, nil, err
	}
	kinds := []clickmodels.Kind{clickmodels.PSCM, clickmodels.UBM, clickmodels.DBN, clickmodels.DCTR}
	ooo := fmt.Sprintf("%.3f", float64(st.OutOfOrder)/float64(max(1, st.MultiClick)))
	for _, authors := range []bool{false, true} {
		cfg := fit.DefaultConfig()
		cfg.Input, cfg.Dir, cfg.TrainFraction = logPath, filepath.Join(work, fmt.Sprint("fit-", authors)), frac
		cfg.Kinds = kinds
		if authors {
			cfg.Kinds, cfg.PSCMAuthors = kinds[:1], true
		}
		if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
			return nil, nil, nil, err
		}
		reps, err := fit.Run(ctx, cfg)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, r := range reps {
			name := r.Model
			if authors {
				name += ", --pscm-authors"
			}
			fitRows = append(fitRows, fmt.Sprintf("| %s | %d | %d | %s | %s | %.5f | %.5f |\n", sp.name(), sp.cfg.SERPs, sp.cfg.Queries, ooo, name, r.Perplexity, r.LogLikelihood))
		}
		grades := calibration.Grades{}
		for _, k := range cfg.Kinds {
			name := k.String()
			if authors {
				name += ", --pscm-authors"
			}
			rows, err := calibration.ReadIntervals(filepath.Join(cfg.Dir, clickmodels.RelevanceFile(k.String())))
			if err != nil {
				return nil, nil, nil, err
			}
			var x, y, xw, yw []float64
			bias := 0.0
			for _, iv := range rows {
				if tr, ok := truth(iv.Query, iv.Doc); ok {
					x, y = append(x, iv.Relevance), append(y, tr)
					grades[[2]string{iv.Query, iv.Doc}] = tr
					if shown[[2]string{iv.Query, iv.Doc}] >= 100 {
						xw, yw = append(xw, iv.Relevance), append(yw, tr)
						bias += iv.Relevance - tr
					}
				}
			}
			a := calibration.Agree(rows, grades, labels.DefaultThresholds(), nil)
			recRows = append(recRows, fmt.Sprintf("| %s | %s | %d | %.3f | %d | %.3f | %+.3f | %d | %.3f |\n", sp.name(), name, len(x), stat.Correlation(x, y, nil),
				len(xw), stat.Correlation(xw, yw, nil), bias/float64(max(1, len(xw))), a.DocPairs, a.Agree))
		}
	}
	if !withCal {
		return fitRows, recRows, nil, nil
	}
	for i, k := range []clickmodels.Kind{clickmodels.PSCM, clickmodels.PSCM, clickmodels.UBM} {
		name, opt := k.String(), calibration.Options{}
		if i == 1 {
			name += ", --pscm-authors"
			opt.Fit = func(c *clickmodels.RunConfig) { c.PSCMAuthors = true }
		}
		r, err := calibration.Run(ctx, logPath, k, truth, filepath.Join(work, fmt.Sprint("cal-", i)), opt)
		if err != nil {
			return nil, nil, nil, err
		}
		var cov, ece, bias []string
		for _, f := range r.ByEvidence {
			cov = append(cov, fmt.Sprintf("%.2f", f.Coverage))
			ece = append(ece, fmt.Sprintf("%.3f", f.ECE))
			bias = append(bias, fmt.Sprintf("%.2f", f.MeanFitted/f.MeanTrue))
		}
		calRows = append(calRows, fmt.Sprintf("| %s | %s | %d | %s | %.3f | %d | %.3f | %s | %s |\n", sp.name(), name, r.Pairs,
			strings.Join(cov, " / "), r.Coverage, r.Labels.Pairs, r.Labels.ECE, strings.Join(ece, " / "), strings.Join(bias, " / ")))
	}
	return fitRows, recRows, calRows, nil
}

// readShown reads the SERPs that showed each pair from the truth file
// calibration.RefLog writes (refsim.WriteTruth: query, doc, ..., shown).
func readShown(path string) (map[[2]string]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[[2]string]int{}
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")[1:] {
		f := strings.Split(line, "\t")
		n, err := strconv.Atoi(f[len(f)-1])
		if len(f) != 6 || err != nil {
			return nil, fmt.Errorf("%s:%d: want 6 fields, the last the SERPs that showed the pair", path, i+2)
		}
		out[[2]string{f[0], f[1]}] = n
	}
	return out, nil
}
