package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/sessions"
)

// examination is the probability that a user examines rank r (0-based)
// when nothing else is known: the position bias of the simulated PBM, and of
// UBM before the first click.
var examination = [...]float64{1, 0.85, 0.72, 0.62, 0.54, 0.47, 0.42, 0.38, 0.35, 0.33}

func examAt(r int) float64 {
	if r < len(examination) {
		return examination[r]
	}
	return examination[len(examination)-1]
}

// dbnContinue is the simulated DBN's probability gamma of going on to the
// next rank after an unsatisfying result.
const dbnContinue = 0.9

// ClickSimulator draws the clicks of one SERP given the hidden true
// relevance of its results. The models and their parameters:
//
//   - dctr: rank r is clicked with probability a_r = relevance.
//   - pbm: clicked with probability examination[r] * a_r.
//   - ubm: clicked with probability gamma(r, r') * a_r, where r' is the rank
//     of the previous click: gamma = examination[r - r' - 1] after a click,
//     examination[r] before the first one.
//   - dbn: the user examines ranks top-down; an examined result is clicked
//     with probability a_r = sqrt(relevance), a click satisfies with
//     probability s_r = sqrt(relevance) and ends the session, otherwise the
//     user goes on with probability 0.9. DBN's relevance a*s is then the
//     true relevance.
//
// In each case the model's relevance (SPEC.md section 3: attractiveness for
// DCTR, PBM and UBM, attractiveness x satisfaction for DBN) equals the true
// relevance, so a click model fitted on the log can recover it.
type ClickSimulator func(rng *rand.Rand, rel []float64) []int

// NewClickSimulator returns the simulator of a model name (dctr, pbm, ubm,
// dbn).
func NewClickSimulator(model string) (ClickSimulator, error) {
	switch strings.ToLower(model) {
	case "dctr":
		return func(rng *rand.Rand, rel []float64) []int {
			var out []int
			for r, a := range rel {
				if rng.Float64() < a {
					out = append(out, r)
				}
			}
			return out
		}, nil
	case "pbm":
		return func(rng *rand.Rand, rel []float64) []int {
			var out []int
			for r, a := range rel {
				if rng.Float64() < examAt(r)*a {
					out = append(out, r)
				}
			}
			return out
		}, nil
	case "ubm":
		return func(rng *rand.Rand, rel []float64) []int {
			var out []int
			prev := -1
			for r, a := range rel {
				g := examAt(r)
				if prev >= 0 {
					g = examAt(r - prev - 1)
				}
				if rng.Float64() < g*a {
					out = append(out, r)
					prev = r
				}
			}
			return out
		}, nil
	case "dbn":
		return func(rng *rand.Rand, rel []float64) []int {
			var out []int
			for r, x := range rel {
				a := math.Sqrt(x)
				if rng.Float64() < a {
					out = append(out, r)
					if rng.Float64() < a { // satisfied
						break
					}
				}
				if rng.Float64() >= dbnContinue {
					break
				}
			}
			return out
		}, nil
	}
	return nil, fmt.Errorf("simulate.model: %q, want one of dctr, pbm, ubm, dbn", model)
}

// simulateStage writes a simulated Yandex log over the corpus (SimLogFile)
// and the hidden true relevance of every shown pair (TruthFile).
func (r *runner) simulateStage() Stage {
	sc := *r.cfg.Simulate
	serpSize := r.cfg.Labels.SERPSize
	return Stage{
		Name: StageSimulate, Params: struct {
			SimulateConfig
			SERPSize int `json:"serp_size"`
		}{sc, serpSize}, Inputs: r.corpusInputs(),
		Run: func(ctx context.Context, env *StageEnv) error {
			c, err := r.loadCorpus(ctx)
			if err != nil {
				return err
			}
			clicks, err := NewClickSimulator(sc.Model)
			if err != nil {
				return err
			}
			search := func(q string, k int) []string {
				hits := c.Search(q, features.ByLOV, k)
				out := make([]string, len(hits))
				for i, h := range hits {
					out[i] = h.URI
				}
				return out
			}
			src, err := NewCorpusSource(ctx, c, search, CorpusSimOptions{Queries: sc.Queries, SERPSize: serpSize, ZipfS: sc.ZipfS, Seed: uint64(sc.Seed)})
			if err != nil {
				return err
			}
			serps, truth, err := SimulateLog(ctx, src, clicks, sc.Sessions, uint64(sc.Seed))
			if err != nil {
				return err
			}
			if err := atomicfile.WriteFile(filepath.Join(env.Dir, SimLogFile), func(w io.Writer) error {
				return sessions.WriteYandex(w, serps)
			}); err != nil {
				return err
			}
			env.Log.Info("simulated log", "serps", len(serps), "queries", len(src.Queries()), "model", sc.Model)
			return writeTruth(filepath.Join(env.Dir, TruthFile), truth)
		},
	}
}

// SimulateLog draws n SERPs from src with clicks from sim. SERPs are grouped
// into user sessions of one to three SERPs; a session's SERPs are 30 seconds
// apart and a click comes 5 seconds after the previous event. It returns the
// SERPs and the true relevance of every shown (query, term) pair.
func SimulateLog(ctx context.Context, src *CorpusSource, sim ClickSimulator, n int, seed uint64) ([]sessions.SERP, map[[2]string]float64, error) {
	rng := rand.New(rand.NewPCG(seed, 0x636c69636b73))
	truth := map[[2]string]float64{}
	serps := make([]sessions.SERP, 0, n)
	rel := make([]float64, 0, 16)
	session, left, idx := 0, 0, 0
	for i := 0; i < n; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		if left == 0 {
			session++
			left = 1 + rng.IntN(3)
			idx = 0
		}
		q, docs := src.Draw()
		rel = rel[:0]
		for _, d := range docs {
			k := [2]string{q, d}
			v, ok := truth[k]
			if !ok {
				v = src.TrueRelevance(q, d)
				truth[k] = v
			}
			rel = append(rel, v)
		}
		s := sessions.SERP{SessionID: "s" + strconv.Itoa(session), Index: idx, TimePassed: int64(30 * idx),
			Query: q, Region: "0", Results: docs}
		t := s.TimePassed
		for _, r := range sim(rng, rel) {
			t += 5
			s.Clicks = append(s.Clicks, sessions.Click{Rank: r, TimePassed: t})
		}
		serps = append(serps, s)
		left--
		idx++
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
