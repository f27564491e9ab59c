// Command clickmodels measures the speed of package clickmodels.
//
// Default mode: fit every model on the 4,500 training SERPs of the PyClick
// reference log in the repository (internal/refdata; LOVBench's 75/25 split) and print a table of our fit time
// beside PyClick's fit_seconds_pyclick from its metrics.json, with the
// speed-up. Each model is fitted -repeat times and the fastest run is
// reported (the machine is shared; the minimum is the least disturbed).
//
//	go run ./bench/clickmodels
//
// Simulation mode (-sim N): simulate N SERPs from UBM and from DBN (the
// built-in synthetic source) and fit each (50 iterations by default),
// printing fit time (wall clock and CPU), SERPs x iterations per second, the number of distinct
// SERPs the engine works on, and the peak resident set size of the process.
//
//	go run ./bench/clickmodels -sim 10000000
//
// PSCM, which reads the order of clicks, is fitted on the log simulated
// from UBM (the same log as UBM's, same seed), in which a share -order of
// the SERPs with two or more clicks is clicked in a random order (PSCM's
// cost grows with the returns up the page); UBM ignores the order, so the
// two fit the same log side by side:
//
//	go run ./bench/clickmodels -sim 1000000 -models ubm,pscm -order 0.3
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/internal/refdata"
	"github.com/lovbench/lovbench/sessions"
)

func main() {
	ref := flag.String("reference", "", "directory of the PyClick reference outputs (default: the repository's, internal/refdata/testdata/pyclick)")
	repeat := flag.Int("repeat", 5, "fits per model in reference mode (the fastest is reported)")
	sim := flag.Int("sim", 0, "simulation mode: number of SERPs to simulate")
	queries := flag.Int("queries", 10000, "simulation mode: number of queries")
	iters := flag.Int("iterations", clickmodels.DefaultIterations, "EM iterations")
	workers := flag.Int("workers", 0, "workers (0: GOMAXPROCS)")
	models := flag.String("models", "ubm,dbn", "simulation mode: models to simulate and fit")
	order := flag.Float64("order", 0.3, "simulation mode: share of the multi-click SERPs clicked in a random order (seeded), for PSCM")
	unc := flag.Bool("uncertainty", false, "simulation mode: also fit with the relevance intervals (fit --interval 0.9) and compare the CPU time with the fit alone")
	dflt := flag.Bool("default", false, "simulation mode: fit each model twice on the same prepared log, as fit --estimator pyclick --no-intervals (the fit before issue 36 with --interval 0) and as fit's default (exact estimator, tolerance, intervals), and print both CPU times and their ratio")
	accel := flag.Bool("plain", false, "with -default: also fit as the default with --accelerate=false (plain EM, not accelerated by SQUAREM) and print its CPU time")
	equal := flag.Int("equal-iterations", 0, "simulation mode with -default: run fit's default for exactly this many iterations (the tolerance's log-likelihood still computed every iteration, never met), so that the models' default fits compare at equal iteration counts")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the fits (not the simulation) to this file")
	flag.Parse()
	if *cpuprofile != "" {
		stop, err := startProfile(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "clickmodels bench:", err)
			os.Exit(1)
		}
		defer stop()
	}
	var err error
	if *sim == 0 && *ref == "" {
		var dir string
		if dir, err = refdata.Dir(); err != nil {
			fmt.Fprintln(os.Stderr, "clickmodels bench:", err, "(or give -reference)")
			os.Exit(2)
		}
		*ref = filepath.Join(dir, "pyclick")
	}
	if *sim > 0 {
		err = simulate(*sim, *queries, *iters, *workers, *models, *order, *unc, *dflt, *accel, *equal)
	} else {
		err = reference(*ref, *repeat, *iters, *workers)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "clickmodels bench:", err)
		os.Exit(1)
	}
}

// startProfile starts a CPU profile written to path; stop ends it.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "clickmodels bench:", err)
		}
	}, nil
}

func reference(dir string, repeat, iters, workers int) error {
	f, err := os.Open(filepath.Join(dir, "golden_ubm6k.tsv"))
	if err != nil {
		return err
	}
	log, _, err := sessions.ReadYandex(f, "golden_ubm6k.tsv", true)
	f.Close()
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(dir, "golden_ubm6k", "metrics.json"))
	if err != nil {
		return err
	}
	var ref []struct {
		Model      string  `json:"model"`
		FitSeconds float64 `json:"fit_seconds_pyclick"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		return err
	}
	train, _ := clickmodels.Split(log, 0.75)
	fmt.Printf("%d training SERPs, %d iterations, GOMAXPROCS %d, best of %d\n", train.Len(), iters, runtime.GOMAXPROCS(0), repeat)
	fmt.Printf("%-5s %12s %16s %12s %10s %14s\n", "model", "ours_fit_s", "ours_prep+fit_s", "pyclick_s", "speed-up", "speed-up(all)")
	for _, r := range ref {
		kind, err := clickmodels.ParseKind(r.Model)
		if err != nil {
			return err
		}
		best, bestAll := 1e9, 1e9
		for range repeat {
			t0 := time.Now()
			d, err := clickmodels.Prepare(train, 0)
			if err != nil {
				return err
			}
			t1 := time.Now()
			if _, err := clickmodels.Fit(context.Background(), d, kind, clickmodels.Options{Iterations: iters, Workers: workers}); err != nil {
				return err
			}
			t2 := time.Now()
			best = min(best, t2.Sub(t1).Seconds())
			bestAll = min(bestAll, t2.Sub(t0).Seconds())
		}
		fmt.Printf("%-5s %12.5f %16.5f %12.2f %10.0f %14.0f\n", r.Model, best, bestAll, r.FitSeconds, r.FitSeconds/best, r.FitSeconds/bestAll)
	}
	return nil
}

func simulate(n, queries, iters, workers int, models string, order float64, unc, dflt, accel bool, equal int) error {
	kinds, err := clickmodels.ParseKinds(models)
	if err != nil {
		return err
	}
	fmt.Printf("%d simulated SERPs, %d queries, %d iterations, GOMAXPROCS %d\n", n, queries, iters, runtime.GOMAXPROCS(0))
	var oldCPU, newCPU, accCPU float64 // -default: the fits' CPU seconds over all models
	fmt.Printf("%-5s %9s %10s %9s %10s %9s %10s %16s %12s\n", "model", "sim_s", "records", "prep_s", "prep_cpu_s", "fit_s", "fit_cpu_s", "serp*iter/s", "peak_rss_MiB")
	for _, kind := range kinds {
		sc := sim.DefaultSyntheticConfig()
		sc.Queries = queries
		src, err := sim.NewSyntheticSource(sc)
		if err != nil {
			return err
		}
		t0 := time.Now()
		simKind := kind
		if kind == clickmodels.PSCM {
			simKind = clickmodels.UBM // no PSCM simulator: UBM's log, clicks reordered below
		}
		log, _, err := sim.SimulateLog(context.Background(), sim.Config{Kind: simKind, SERPs: n, Seed: 2, Source: src})
		if err != nil {
			return err
		}
		reordered := sim.ShuffleClickOrders(log, order, rand.New(rand.NewPCG(7, 7))) // the same orders for every model
		t1 := time.Now()
		c1 := cpuSeconds()
		d, err := clickmodels.Prepare(log, 0)
		if err != nil {
			return err
		}
		t2 := time.Now()
		c2 := cpuSeconds()
		m, err := clickmodels.Fit(context.Background(), d, kind, clickmodels.Options{Iterations: iters, Workers: workers, NoIntervals: true})
		if err != nil {
			return err
		}
		t3 := time.Now()
		c3 := cpuSeconds()
		fit := t3.Sub(t2).Seconds()
		fmt.Printf("%-5s %9.2f %10d %9.2f %10.2f %9.2f %10.2f %16.3g %12.0f   (%d SERPs clicked out of rank order)\n", kind, t1.Sub(t0).Seconds(), d.Records(), t2.Sub(t1).Seconds(), c2-c1, fit,
			c3-c2, float64(n)*float64(m.Iterations)/fit, peakRSSMiB(), reordered)
		if dflt {
			o, n, a, err := sideBySide(d, kind, workers, accel, equal)
			if err != nil {
				return err
			}
			oldCPU, newCPU, accCPU = oldCPU+o, newCPU+n, accCPU+a
		}
		if unc {
			// The same fit with the intervals: the evidence pass, the
			// priors and every pair's interval (what the relevance file
			// writes), side by side with the fit alone above.
			m, err = clickmodels.Fit(context.Background(), d, kind, clickmodels.Options{Iterations: iters, Workers: workers})
			if err != nil {
				return err
			}
			if _, _, err := m.RelevanceDists(); err != nil {
				return err
			}
			c4 := cpuSeconds()
			fmt.Printf("%-5s fit alone %.2f CPU-s, fit with intervals %.2f CPU-s (%.2fx), %d pairs\n", kind, c3-c2, c4-c3, (c4-c3)/(c3-c2), m.NumPairs())
		}
		log, d, m = nil, nil, nil
		runtime.GC()
	}
	if dflt {
		fmt.Printf("all   pyclick --no-intervals %.2f CPU-s, default %.2f CPU-s: %.2fx\n", oldCPU, newCPU, newCPU/oldCPU)
		if accel {
			fmt.Printf("all   default --accelerate=false %.2f CPU-s: %.2fx\n", accCPU, accCPU/oldCPU)
		}
	}
	return nil
}

// cpuSeconds is the user and system CPU time of the process so far. On a
// machine shared with other work, fit_cpu_s / GOMAXPROCS is what the fit
// would take alone (if it scales).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// peakRSSMiB is the process's peak resident set size (getrusage maxrss,
// KiB on Linux).
func peakRSSMiB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return float64(ru.Maxrss) / 1024
}

// sideBySide fits kind on d as the fit before issue 36 ran with
// --interval 0 (PyClick's estimator, 50 iterations, no intervals) and as
// lovbench fit's default (the exact estimator under the tolerance, with the
// intervals: the evidence pass, the priors and every pair's interval), and
// with accel as the default with --accelerate=false too (plain EM), and prints the CPU
// seconds of each and their ratio to the first; equal > 0 runs the
// default fits for exactly that many iterations.
func sideBySide(d *clickmodels.Data, kind clickmodels.Kind, workers int, accel bool, equal int) (oldCPU, newCPU, accCPU float64, err error) {
	ctx := context.Background()
	old := clickmodels.EstimatorPyClick.Options()
	old.Workers, old.NoIntervals = workers, true
	c0 := cpuSeconds()
	mo, err := clickmodels.Fit(ctx, d, kind, old)
	if err != nil {
		return 0, 0, 0, err
	}
	c1 := cpuSeconds()
	def := clickmodels.DefaultEstimator.Options()
	def.Workers = workers
	if equal > 0 {
		// Every iteration's log-likelihood, as under the tolerance, which
		// no change in it meets: exactly equal iterations.
		def.Iterations, def.Tolerance = equal, math.SmallestNonzeroFloat64
	}
	fitDefault := func() (*clickmodels.Model, error) {
		m, err := clickmodels.Fit(ctx, d, kind, def)
		if err != nil {
			return nil, err
		}
		_, _, err = m.RelevanceDists()
		return m, err
	}
	m, err := fitDefault()
	if err != nil {
		return 0, 0, 0, err
	}
	c2 := cpuSeconds()
	fmt.Printf("%-5s pyclick --no-intervals %.2f CPU-s (%d iterations), default %.2f CPU-s (%d iterations): %.2fx\n",
		kind, c1-c0, mo.Iterations, c2-c1, m.Iterations, (c2-c1)/(c1-c0))
	if !accel {
		return c1 - c0, c2 - c1, 0, nil
	}
	def.Accelerate = false
	if m, err = fitDefault(); err != nil {
		return 0, 0, 0, err
	}
	c3 := cpuSeconds()
	fmt.Printf("%-5s default --accelerate=false %.2f CPU-s (%d iterations): %.2fx\n", kind, c3-c2, m.Iterations, (c3-c2)/(c1-c0))
	return c1 - c0, c2 - c1, c3 - c2, nil
}
