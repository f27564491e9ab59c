package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/corpussim"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/sessions"
)

// simulateStage writes a simulated Yandex log over the corpus (SimLogFile)
// with its provenance (sessions.ProvenanceFile: simulated, how) and the hidden true relevance of every shown pair (TruthFile). The clicks
// come from sim.Simulate with the configured model, whose true
// per-pair parameters come from corpussim.Source.Truth and whose global
// parameters are sim.DefaultGlobal.
func (r *runner) simulateStage() Stage {
	sc := *r.cfg.Simulate
	serpSize := r.cfg.Labels.SERPSize
	return Stage{
		Name: StageSimulate, Params: struct {
			SimulateConfig
			SERPSize int `json:"serp_size"`
		}{sc, serpSize}, Inputs: r.corpusInputs(),
		Run: func(ctx context.Context, env *StageEnv) error {
			kind, err := clickmodels.ParseKind(sc.Model)
			if err != nil {
				return fmt.Errorf("simulate.model: %w", err)
			}
			c, err := r.loadCorpus(ctx)
			if err != nil {
				return err
			}
			src, err := corpussim.New(ctx, c, corpussim.LOVSearch(c), corpussim.Options{Queries: sc.Queries, SERPSize: serpSize, ZipfS: sc.ZipfS,
				Seed: uint64(sc.Seed), SplitSatisfaction: kind == clickmodels.DBN || kind == clickmodels.SDBN})
			if err != nil {
				return err
			}
			global, err := sc.global()
			if err != nil {
				return err
			}
			serps, truth, err := corpussim.Sessions(ctx, src, sim.Config{Kind: kind, SERPs: sc.Sessions, Seed: uint64(sc.Seed),
				Global: global, ReturnAfterClick: sc.ReturnAfterClick})
			if err != nil {
				return err
			}
			if err := atomicfile.WriteFile(filepath.Join(env.Dir, SimLogFile), func(w io.Writer) error {
				return sessions.WriteYandex(w, serps)
			}); err != nil {
				return err
			}
			// The log says it was simulated (its sidecar), so that what
			// is built from it by hand says so too (README, "Building a
			// benchmark by hand").
			distinct := sim.DistinctQueries(serps)
			if err := sessions.WriteProvenance(filepath.Join(env.Dir, SimLogFile), sessions.Provenance{Simulated: true,
				Simulation: fmt.Sprintf("%s; %d distinct queries appear", simulationSummary(&sc), distinct)}); err != nil {
				return err
			}
			env.Log.Info("simulated log", "serps", len(serps), "query_pool", len(src.Queries()), "distinct_queries", distinct, "model", kind.String())
			return writeTruth(filepath.Join(env.Dir, TruthFile), truth)
		},
	}
}

// writeTruth writes query<TAB>term<TAB>relevance sorted by query and term.
func writeTruth(path string, truth map[[2]string]float64) error {
	keys := make([][2]string, 0, len(truth))
	for k := range truth {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		bw.WriteString("query\tterm\trelevance\n")
		for _, k := range keys {
			fmt.Fprintf(bw, "%s\t%s\t%s\n", k[0], k[1], strconv.FormatFloat(truth[k], 'g', 17, 64))
		}
		return bw.Flush()
	})
}
