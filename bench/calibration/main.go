// Command calibration measures the relevance intervals and label
// confidences of `lovbench fit` and `lovbench label` against the known
// truth of simulated logs (docs/clickmodels.md, "Calibration"): the
// coverage of the intervals, the expected calibration error of the
// confidences over ten bins and their Brier skill.
//
//	go run ./bench/calibration -serps 100000,1000000
//
// Logs: synthetic (sim.SyntheticSource) and corpus-based
// (corpussim over the embedded demo corpus), each sparse (the demo's
// LOVBench profile: about 5 SERPs per query; for UBM examination 0.8 at
// the first rank falling by 0.4 per rank, and users coming back to the
// results page after every click) and dense (about 100 SERPs per query,
// the simulator's default parameters); clicks from UBM and from DBN, each
// fitted with the model that simulated it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/clickmodels/sim/corpussim"
	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/labels"
)

func main() {
	serps := flag.String("serps", "100000", "comma-separated numbers of simulated SERPs")
	models := flag.String("models", "ubm,dbn", "models that simulate and fit")
	logs := flag.String("logs", "synthetic-sparse,synthetic-dense,corpus-sparse,corpus-dense", "kinds of log")
	seed := flag.Uint64("seed", 1, "seed of the simulations")
	level := flag.Float64("level", clickmodels.DefaultLevel, "interval level")
	ret := flag.Float64("return", 1, "sparse logs: probability that a user comes back to the results page after a click (the demo's LOVBench profile: 1)")
	flag.Parse()
	if err := run(*serps, *models, *logs, *seed, *level, *ret); err != nil {
		fmt.Fprintln(os.Stderr, "calibration:", err)
		os.Exit(1)
	}
}

func run(serpList, modelList, logList string, seed uint64, level, ret float64) error {
	ctx := context.Background()
	kinds, err := clickmodels.ParseKinds(modelList)
	if err != nil {
		return err
	}
	fmt.Printf("| log | model | SERPs | pairs | coverage | label accuracy | mean confidence | ECE | Brier skill |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range strings.Split(serpList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("-serps: %w", err)
		}
		for _, logKind := range strings.Split(logList, ",") {
			for _, k := range kinds {
				cfg, err := simConfig(ctx, strings.TrimSpace(logKind), k, n, seed, ret)
				if err != nil {
					return err
				}
				c, err := labels.CalibrateSimulation(ctx, cfg, level)
				if err != nil {
					return err
				}
				fmt.Printf("| %s | %v | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f |\n", logKind, k, cfg.SERPs, c.Pairs, c.Coverage, c.Accuracy, c.MeanConfidence, c.ECE, c.BrierSkill)
			}
		}
	}
	return nil
}

// corpusQueries bounds the queries of a corpus-based log.
const corpusQueries = 500

// simConfig is the simulation of one kind of log (see the command's
// documentation).
func simConfig(ctx context.Context, logKind string, k clickmodels.Kind, n int, seed uint64, ret float64) (sim.Config, error) {
	cfg := sim.Config{Kind: k, SERPs: n, Seed: seed}
	perQuery := 100
	sparse := strings.HasSuffix(logKind, "-sparse")
	if sparse {
		perQuery = 5
		cfg.ReturnAfterClick = ret
		if k == clickmodels.UBM || k == clickmodels.PBM {
			g, err := sim.ExaminationGlobal(k, clickmodels.DefaultRanks, 0.8, 0.4)
			if err != nil {
				return cfg, err
			}
			cfg.Global = g
		}
	} else if !strings.HasSuffix(logKind, "-dense") {
		return cfg, fmt.Errorf("log %q: want synthetic-sparse, synthetic-dense, corpus-sparse or corpus-dense", logKind)
	}
	queries := max(1, n/perQuery)
	switch {
	case strings.HasPrefix(logKind, "synthetic-"):
		sc := sim.DefaultSyntheticConfig()
		sc.Queries, sc.Seed = queries, seed
		src, err := sim.NewSyntheticSource(sc)
		if err != nil {
			return cfg, err
		}
		cfg.Source = src
	case strings.HasPrefix(logKind, "corpus-"):
		// The embedded corpus has about 590 queries with a full SERP: its
		// logs keep the profile's SERPs per query over at most
		// corpusQueries queries.
		queries = min(queries, corpusQueries)
		cfg.SERPs = queries * perQuery
		src, err := corpussim.Load(ctx, nil, features.LoadOptions{}, corpussim.Options{Queries: queries, SERPSize: 10, ZipfS: 1.1, Seed: seed,
			SplitSatisfaction: k == clickmodels.DBN || k == clickmodels.SDBN})
		if err != nil {
			return cfg, err
		}
		cfg.Source = src
	default:
		return cfg, fmt.Errorf("log %q: want synthetic-sparse, synthetic-dense, corpus-sparse or corpus-dense", logKind)
	}
	return cfg, nil
}
