// Command ltr is the speed benchmark of package ltr (performance
// item): it generates a LOVBench-sized synthetic dataset (by default 7,400
// queries, about 185,000 rows, 33 features plus the baseline feature 34,
// split into 5 folds) and runs each algorithm's full 5-fold experiment on
// the LOVBenchFull configuration (training with validation model
// selection, test evaluation with the seven report measures, randomisation
// tests against the baseline), printing the wall and CPU time per
// algorithm (on a shared machine, CPU/2 estimates the wall time on two idle
// cores).
//
//	go run ./bench/ltr -workers 2
//
// The rankers train on per-query z-scored features, lovbench ltr's default
// (-norm none|sum|zscore|linear changes it). The comparison with XGBoost,
// which reads the values as they are, is bench/ltr/vs_xgboost.sh: both
// programs back to back, single-threaded, on the same fold files without
// normalisation. A profile of one algorithm:
//
//	go run ./bench/ltr -algorithms lambdamart -workers 1 -cpuprofile cpu.out
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/lovbench/lovbench/ltr"
)

func main() {
	queries := flag.Int("queries", 7400, "number of queries")
	docs := flag.Int("docs", 25, "mean documents per query")
	workers := flag.Int("workers", 2, "parallel jobs")
	algs := flag.String("algorithms", "ranknet,adarank,lambdamart,ca", "algorithms to time")
	metric := flag.String("metric", "", "training metric (RankLib -metric2t), e.g. NDCG@10 (the default) or NDCG (whole list)")
	norm := flag.String("norm", string(ltr.NormZScore), "per-query feature normalisation: none, sum, zscore, linear")
	seed := flag.Uint64("seed", 1, "seed")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the timed runs to this file")
	write := flag.String("write", "", "only write the folds to DIR/Fold1..Fold5/{train,vali,test}.txt (for bench/ltr/xgb.py) and exit")
	flag.Parse()
	if *write != "" {
		if err := writeFolds(*write, *queries, *docs, *seed); err != nil {
			fmt.Fprintln(os.Stderr, "bench/ltr:", err)
			os.Exit(1)
		}
		return
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench/ltr:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "bench/ltr:", err)
			os.Exit(1)
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	nm, err := ltr.ParseNormalization(*norm)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/ltr:", err)
		os.Exit(2)
	}
	if err := run(*queries, *docs, *workers, *algs, *metric, nm, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "bench/ltr:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(queries, docs, workers int, algs, metric string, norm ltr.Normalization, seed uint64) error {
	t0 := time.Now()
	ds, err := ltr.Synthetic(ltr.SyntheticOptions{Queries: queries, DocsPerQuery: docs, Features: 34, Noise: 0.3, Seed: seed})
	if err != nil {
		return err
	}
	folds := ltr.MakeFolds(ds, seed)
	fmt.Printf("dataset: %d queries, %d rows, 33 features + the LabelSearch baseline (34), %d folds (generated in %v)\n",
		len(ds.Queries), ds.NumDocs(), len(folds), time.Since(t0).Round(time.Millisecond))
	fmt.Printf("machine: %d CPUs (GOMAXPROCS %d), workers %d; shared machine, timings are indicative; normalisation %s\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), workers, norm)
	full, err := ltr.SelectConfigs("full")
	if err != nil {
		return err
	}
	fmt.Printf("%-16s %10s %10s %10s %10s  %s\n", "algorithm", "wall", "cpu", "NDCG@10", "baseline", "iterations per fold")
	for _, name := range strings.Split(algs, ",") {
		a, err := ltr.ParseAlgorithm(name)
		if err != nil {
			return err
		}
		opt := ltr.ExperimentOptions{Algorithms: []ltr.Algorithm{a}, Configs: full, Train: ltr.DefaultOptions(), Workers: workers}
		opt.Train.Seed = seed
		opt.Train.Normalization = norm
		if metric != "" {
			m, err := ltr.ParseMetric(metric)
			if err != nil {
				return err
			}
			opt.Train.Metric = m
		}
		start, cpu0 := time.Now(), cpuTime()
		res, err := ltr.RunExperiment(context.Background(), folds, opt)
		if err != nil {
			return err
		}
		wall, cpu := time.Since(start), cpuTime()-cpu0
		rows := res.Rows(a)
		var mean, base float64
		for _, r := range rows {
			if r.Fold == ltr.FoldMean && r.Configuration == ltr.ConfigBaseline {
				base = r.Values["NDCG@10"]
			} else if r.Fold == ltr.FoldMean {
				mean = r.Values["NDCG@10"]
			}
		}
		var iters []string
		for _, r := range res.Runs {
			iters = append(iters, fmt.Sprint(r.Model.Iterations))
		}
		fmt.Printf("%-16s %10s %10s %10.4f %10.4f  %s\n", a.DisplayName(), wall.Round(100*time.Millisecond), cpu.Round(100*time.Millisecond), mean, base, strings.Join(iters, " "))
	}
	return nil
}

// writeFolds writes the benchmark's folds in SVMlight form.
func writeFolds(dir string, queries, docs int, seed uint64) error {
	ds, err := ltr.Synthetic(ltr.SyntheticOptions{Queries: queries, DocsPerQuery: docs, Features: 34, Noise: 0.3, Seed: seed})
	if err != nil {
		return err
	}
	for i, f := range ltr.MakeFolds(ds, seed) {
		k := i + 1
		if err := os.MkdirAll(filepath.Join(dir, ltr.FoldDir(k)), 0o755); err != nil {
			return err
		}
		for set, part := range map[string]*ltr.Dataset{ltr.SetTrain: f.Train, ltr.SetVali: f.Vali, ltr.SetTest: f.Test} {
			var b bytes.Buffer
			if err := ltr.WriteSVMLight(&b, part); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(ltr.FoldFile(k, set))), b.Bytes(), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// cpuTime is the process's user+system CPU time: on a shared machine,
// cpu/2 is what the wall time would be on 2 idle cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
