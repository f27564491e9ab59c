package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/refsim"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/pipeline/calibration"
)

// runBias prints, per log, DBN's bias taken apart (calibration.DBNBias):
// -bias with -sim ref (refsim, -queries queries), synthetic-sparse or
// synthetic-dense (-return for the sparse one's users coming back).
func runBias(serpList, queryList, simName string, seed uint64, ret float64) error {
	ctx := context.Background()
	ns, qs, err := logSizes(serpList, queryList)
	if err != nil {
		return err
	}
	fmt.Println("| simulator | SERPs | queries | pairs | continuation (truth) | iterations | fitted / true relevance by impressions (fitted freely; continuation at the truth) | evidence rate / truth by trials N (at the fitted values; at the true values) |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for i, n := range ns {
		q := qs[i]
		var (
			d        *clickmodels.Data
			truth    calibration.PairTruth
			trueCont float64
			err      error
		)
		switch simName {
		case "ref":
			cfg := refsim.Default(refsim.DBN, n, q, seed)
			d, truth, err = calibration.RefData(ctx, cfg)
			trueCont = cfg.Continuation
		case "synthetic-sparse", "synthetic-dense":
			var cfg sim.Config
			if cfg, err = simConfig(ctx, simName, clickmodels.DBN, n, seed, ret); err == nil {
				var tm *clickmodels.Model
				if d, truth, tm, err = calibration.SimData(ctx, cfg); err == nil {
					trueCont = tm.Global[0]
				}
			}
			q = max(1, n/100) // as simConfig
			if simName == "synthetic-sparse" {
				q = max(1, n/5)
			}
		default:
			err = fmt.Errorf("-sim %q: want ref, synthetic-dense or synthetic-sparse", simName)
		}
		if err != nil {
			return err
		}
		r, err := calibration.DBNBias(ctx, d, truth, trueCont)
		if err != nil {
			return err
		}
		var imp, tri []string
		for _, g := range r.ByImpressions {
			imp = append(imp, fmt.Sprintf("%g+: %.2f; %.2f", g.From, g.Fitted, g.AtTrueContinuation))
		}
		for _, g := range r.ByTrials {
			tri = append(tri, fmt.Sprintf("%g+: %.2f; %.2f", g.From, g.RateAtFit, g.RateAtTruth))
		}
		fmt.Printf("| %s | %d | %d | %d | %.4f (%.2f) | %d | %s | %s |\n", simName, n, q, r.Pairs, r.Continuation, r.TrueContinuation, r.Iterations,
			strings.Join(imp, " / "), strings.Join(tri, " / "))
	}
	return nil
}
