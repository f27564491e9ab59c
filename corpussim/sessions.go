package corpussim

import (
	"context"
	"math/rand/v2"
	"strconv"

	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/sessions"
)

// Sessions draws cfg.SERPs SERPs from src with clicks from the click model
// cfg.Kind (sim.Simulate with cfg, its Source set to src) and
// returns them with the true relevance (src.TrueRelevance) of every shown
// (query, term) pair. SERPs are grouped into user sessions of one to three
// SERPs, 30 seconds apart, a click coming 5 seconds after the previous
// event; the grouping uses its own generator seeded with cfg.Seed, so the
// clicks are those of sim.Simulate.
func Sessions(ctx context.Context, src *Source, cfg sim.Config) ([]sessions.SERP, map[[2]string]float64, error) {
	n, seed := cfg.SERPs, cfg.Seed
	cfg.Source = src
	rng := rand.New(rand.NewPCG(seed, 0x73657373696f6e73))
	truth := map[[2]string]float64{}
	serps := make([]sessions.SERP, 0, n)
	session, left, idx := 0, 0, 0
	_, err := sim.Simulate(ctx, cfg, func(ss *sim.SERP) error {
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
