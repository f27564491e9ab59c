package clickmodels

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/internal/refdata"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/sessions"
)

// pyclickMetrics is one entry of PyClick's reference metrics.json.
type pyclickMetrics struct {
	Model            string    `json:"model"`
	TrainSessions    int       `json:"train_sessions"`
	TestSessions     int       `json:"test_sessions"`
	FitSeconds       float64   `json:"fit_seconds_pyclick"`
	LogLikelihood    float64   `json:"test_loglikelihood"`
	Perplexity       float64   `json:"test_perplexity"`
	PerplexityAtRank []float64 `json:"test_perplexity_at_rank"`
}

func loadReference(t testing.TB) (*sessions.Log, string, []pyclickMetrics) {
	t.Helper()
	dir := refdata.Path(t, "pyclick")
	f, err := os.Open(filepath.Join(dir, "golden_ubm6k.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log, _, err := sessions.ReadYandex(f, "golden_ubm6k.tsv", true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "golden_ubm6k", "metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ms []pyclickMetrics
	if err := json.Unmarshal(b, &ms); err != nil {
		t.Fatal(err)
	}
	return log, filepath.Join(dir, "golden_ubm6k"), ms
}

// readRelevance reads a <MODEL>_relevance.tsv; NA values are NaN.
func readRelevance(t testing.TB, path string) map[[2]string]float64 {
	t.Helper()
	f, err := textio.Open(path) // plain or gzip
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[[2]string]float64{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			continue
		}
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 3 {
			t.Fatalf("%s:%d: %d fields", path, line, len(fs))
		}
		v := math.NaN()
		if fs[2] != "NA" {
			v, err = strconv.ParseFloat(fs[2], 64)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
		}
		out[[2]string{fs[0], fs[1]}] = v
	}
	return out
}

// TestPyClickEquivalence fits every model of PyClick's reference outputs on
// the shared 6,000-session log with the SPEC split and compares test
// log-likelihood, perplexity (overall and per rank) and every relevance with
// PyClick's own numbers, to 1e-6.
func TestPyClickEquivalence(t *testing.T) {
	log, dir, ref := loadReference(t)
	train, test := Split(log, 0.75)
	if train.Len() != 4500 || test.Len() != 1473 {
		t.Fatalf("split: %d train / %d test SERPs, PyClick's reference has 4500 / 1473", train.Len(), test.Len())
	}
	d, err := Prepare(train, 0)
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-6
	for _, rm := range ref {
		t.Run(rm.Model, func(t *testing.T) {
			kind, err := ParseKind(rm.Model)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Fit(context.Background(), d, kind, EstimatorPyClick.Options()) // fit --estimator pyclick
			if err != nil {
				t.Fatal(err)
			}
			got, err := Evaluate(m, test)
			if err != nil {
				t.Fatal(err)
			}
			if got.Sessions != rm.TestSessions {
				t.Errorf("test sessions %d, PyClick %d", got.Sessions, rm.TestSessions)
			}
			if math.Abs(got.LogLikelihood-rm.LogLikelihood) > tol {
				t.Errorf("log-likelihood %.12f, PyClick %.12f", got.LogLikelihood, rm.LogLikelihood)
			}
			if math.Abs(got.Perplexity-rm.Perplexity) > tol {
				t.Errorf("perplexity %.12f, PyClick %.12f", got.Perplexity, rm.Perplexity)
			}
			if len(got.PerplexityAtRank) != len(rm.PerplexityAtRank) {
				t.Fatalf("%d ranks, PyClick %d", len(got.PerplexityAtRank), len(rm.PerplexityAtRank))
			}
			for r, p := range rm.PerplexityAtRank {
				if math.Abs(got.PerplexityAtRank[r]-p) > tol {
					t.Errorf("perplexity at rank %d: %.12f, PyClick %.12f", r+1, got.PerplexityAtRank[r], p)
				}
			}
			rel := readRelevance(t, filepath.Join(dir, rm.Model+"_relevance.tsv.gz"))
			if len(rel) != m.NumPairs() {
				t.Errorf("%d pairs, PyClick %d", m.NumPairs(), len(rel))
			}
			bad := 0
			for k, want := range rel {
				p := m.Pair(k[0], k[1])
				if p < 0 {
					t.Fatalf("pair %v not in the model", k)
				}
				if math.IsNaN(want) {
					continue // PyClick's CM raises; nothing to compare
				}
				if g := m.PairRelevance(p); math.Abs(g-want) > tol {
					if bad++; bad <= 5 {
						t.Errorf("relevance of %v: %.10f, PyClick %.10f", k, g, want)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d relevances differ from PyClick", bad, len(rel))
			}
		})
	}
}
