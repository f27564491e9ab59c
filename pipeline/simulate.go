package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/sessions"
)

// simulateStage writes a simulated Yandex log over the corpus (SimLogFile)
// and the hidden true relevance of every shown pair (TruthFile). The clicks
// come from clickmodels.Simulate with the configured model, whose true
// per-pair parameters come from CorpusSource.Truth and whose global
// parameters are clickmodels.DefaultGlobal.
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
			src, err := NewCorpusSource(ctx, c, LOVSearch(c), CorpusSimOptions{Queries: sc.Queries, SERPSize: serpSize, ZipfS: sc.ZipfS,
				Seed: uint64(sc.Seed), SplitSatisfaction: kind == clickmodels.DBN || kind == clickmodels.SDBN})
			if err != nil {
				return err
			}
			serps, truth, err := SimulateSessions(ctx, src, kind, sc.Sessions, uint64(sc.Seed))
			if err != nil {
				return err
			}
			if err := atomicfile.WriteFile(filepath.Join(env.Dir, SimLogFile), func(w io.Writer) error {
				return sessions.WriteYandex(w, serps)
			}); err != nil {
				return err
			}
			env.Log.Info("simulated log", "serps", len(serps), "queries", len(src.Queries()), "model", kind.String())
			return writeTruth(filepath.Join(env.Dir, TruthFile), truth)
		},
	}
}

// SimulateSessions draws n SERPs from src with clicks from the click model kind
// (clickmodels.Simulate) and returns them with the true relevance
// (src.TrueRelevance) of every shown (query, term) pair. SERPs are grouped
// into user sessions of one to three SERPs, 30 seconds apart, a click
// coming 5 seconds after the previous event; the grouping uses its own
// seeded generator, so the clicks are those of clickmodels.Simulate.
func SimulateSessions(ctx context.Context, src *CorpusSource, kind clickmodels.Kind, n int, seed uint64) ([]sessions.SERP, map[[2]string]float64, error) {
	rng := rand.New(rand.NewPCG(seed, 0x73657373696f6e73))
	truth := map[[2]string]float64{}
	serps := make([]sessions.SERP, 0, n)
	session, left, idx := 0, 0, 0
	_, err := clickmodels.Simulate(ctx, clickmodels.SimConfig{Kind: kind, SERPs: n, Seed: seed, Source: src}, func(ss *clickmodels.SimSERP) error {
		if left == 0 {
			session++
			left = 1 + rng.IntN(3)
			idx = 0
		}
		docs := append([]string(nil), ss.Docs...)
		for _, d := range docs {
			k := [2]string{ss.Query, d}
			if _, ok := truth[k]; !ok {
				truth[k] = src.TrueRelevance(ss.Query, d)
			}
		}
		s := sessions.SERP{SessionID: "s" + strconv.Itoa(session), Index: idx, TimePassed: int64(30 * idx),
			Query: ss.Query, Region: "0", Results: docs}
		t := s.TimePassed
		for r := range docs {
			if ss.Clicks&(1<<uint(r)) != 0 {
				t += 5
				s.Clicks = append(s.Clicks, sessions.Click{Rank: r, TimePassed: t})
			}
		}
		serps = append(serps, s)
		left--
		idx++
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return serps, truth, nil
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
