package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/internal/refdata"
)

// readRelevance reads the query, doc and relevance columns of a relevance
// file (gzip if the name ends in .gz).
func readRelevance(t *testing.T, path string) map[[2]string]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sc *bufio.Scanner
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		sc = bufio.NewScanner(z)
	} else {
		sc = bufio.NewScanner(f)
	}
	out := map[[2]string]float64{}
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if c[0] == "query" {
			continue
		}
		v, err := strconv.ParseFloat(c[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		out[[2]string{c[0], c[1]}] = v
	}
	return out
}

// TestFitEstimator: fit --estimator pyclick equals PyClick's DBN on its
// reference log (every relevance to 1e-6, 50 iterations); the default
// estimator is the exact one, run to the tolerance, and differs from
// PyClick (its continuation is not PyClick's).
func TestFitEstimator(t *testing.T) {
	log := refdata.Path(t, "pyclick", "golden_ubm6k.tsv")
	want := readRelevance(t, refdata.Path(t, "pyclick", "golden_ubm6k", "DBN_relevance.tsv.gz"))
	dir := t.TempDir()
	metrics := func(out string) map[string]any {
		b, err := os.ReadFile(filepath.Join(out, "metrics.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m []map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m[0]
	}
	py := filepath.Join(dir, "pyclick")
	mustRun(t, "-q", "fit", "--log", log, "--models", "dbn", "--estimator", "pyclick", "--no-intervals", "--out", py)
	got := readRelevance(t, filepath.Join(py, "DBN_relevance.tsv"))
	if len(got) != len(want) {
		t.Fatalf("%d pairs, PyClick %d", len(got), len(want))
	}
	for k, v := range want {
		if math.Abs(got[k]-v) > 1e-6 {
			t.Fatalf("pair %v: %v, PyClick %v", k, got[k], v)
		}
	}
	if m := metrics(py); m["iterations"] != 50.0 || m["exact_estep"] != nil {
		t.Errorf("--estimator pyclick: iterations %v, exact_estep %v; want 50 and absent", m["iterations"], m["exact_estep"])
	}
	def := filepath.Join(dir, "default")
	mustRun(t, "-q", "fit", "--log", log, "--models", "dbn", "--no-intervals", "--out", def)
	m := metrics(def)
	if m["exact_estep"] != true || m["iterations"] == 50.0 || m["iterations"].(float64) >= 200 {
		t.Errorf("default: exact_estep %v, iterations %v; want the exact E-step stopped by the tolerance before 200", m["exact_estep"], m["iterations"])
	}
	diff := 0
	for k, v := range readRelevance(t, filepath.Join(def, "DBN_relevance.tsv")) {
		if math.Abs(want[k]-v) > 1e-3 {
			diff++
		}
	}
	if diff < len(want)/2 {
		t.Errorf("the default estimator differs from PyClick on %d of %d pairs only", diff, len(want))
	}
	if code, _, stderr := runCLI(t, "fit", "--log", log, "--estimator", "pyclick", "--exact", "--out", filepath.Join(dir, "x")); code != 2 || !strings.Contains(stderr, "--exact") {
		t.Errorf("--exact with --estimator pyclick: exit %d, %s", code, stderr)
	}
	t.Logf("default: %v iterations", m["iterations"])
}
