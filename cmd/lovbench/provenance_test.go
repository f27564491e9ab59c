package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// The by-hand recipe of the README on a simulated log, without a flag:
// simulate writes the log's provenance beside it, ingest, label and
// sample carry it, and export's card and croissant.json say the log was
// simulated, never that the labels come from "the clicks of a vocabulary
// search engine's users" (issue 34: "simulated" appeared 0 times). The
// same chain from a copy of the log without its sidecar (a log of unknown
// origin) gives the card of a real log; export --simulated-log still says
// "simulated" of it.
func TestSimulatedLogProvenanceTravels(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	smallCorpus(t, corpus) // provenance does not depend on the corpus's size
	log := filepath.Join(dir, "log.tsv")
	if code, _, errs := runCLI(t, "-q", "simulate", "--model", "ubm", "--corpus", corpus, "--sessions", "600", "--queries", "60", "--seed", "3", "--out", log); code != 0 {
		t.Fatalf("simulate: code %d: %s", code, errs)
	}
	if p, err := sessions.ReadProvenance(log); err != nil || p == nil || !p.Simulated || !strings.Contains(p.Simulation, "600 SERPs") {
		t.Fatalf("simulate's provenance: %+v %v", p, err)
	}
	plain := filepath.Join(dir, "plain.tsv")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// chain runs the recipe from ingest to sample into dir/name, and
	// features unless withFeatures is false; export then writes
	// dir/name/OUT.
	chain := func(name, log string, withFeatures bool) {
		w := filepath.Join(dir, name)
		steps := [][]string{
			{"ingest", "--format", "yandex", "--log", log, "--out", filepath.Join(w, "ingest")},
			{"fit", "--sessions", filepath.Join(w, "ingest"), "--models", "ubm", "--out", filepath.Join(w, "fit")},
			{"label", "--relevance", filepath.Join(w, "fit", "UBM_relevance.tsv"), "--sessions", filepath.Join(w, "ingest"), "--out", filepath.Join(w, "labels.csv")},
			{"sample", "--labels", filepath.Join(w, "labels.csv"), "--corpus", corpus, "--seed", "1", "--out", filepath.Join(w, "gt.csv")},
		}
		if withFeatures {
			steps = append(steps, []string{"features", "--corpus", corpus, "--pairs", filepath.Join(w, "gt.csv"), "--out", filepath.Join(w, "features.parquet")})
		}
		for _, s := range steps {
			if code, _, errs := runCLI(t, append([]string{"-q"}, s...)...); code != 0 {
				t.Fatalf("%s: %s: code %d: %s", name, s[0], code, errs)
			}
		}
	}
	export := func(name, out string, flags ...string) (card, croissant string, m map[string]any) {
		w := filepath.Join(dir, name)
		args := append([]string{"-q", "export", "--ground-truth", filepath.Join(w, "gt.csv"), "--features", filepath.Join(w, "features.parquet"), "--out", filepath.Join(w, out)}, flags...)
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("%s: export: code %d: %s", name, code, errs)
		}
		read := func(p string) string {
			b, err := os.ReadFile(filepath.Join(w, out, p))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		if err := json.Unmarshal([]byte(read("manifest.json")), &m); err != nil {
			t.Fatal(err)
		}
		return read("README.md"), read("croissant.json"), m
	}
	users := "the clicks of a vocabulary search engine's users"
	chain("sim", log, true)
	card, cr, m := export("sim", "dataset")
	pub, _ := m["publication"].(map[string]any)
	if strings.Contains(card, users) || !strings.Contains(card, "This dataset's search log was simulated") ||
		!strings.Contains(card, "600 SERPs with queries drawn from a pool of 60 (Zipf exponent 1.1), clicks from UBM") || !strings.Contains(cr, "Simulated: no engine's users took part") ||
		pub["simulated_log"] != true {
		t.Errorf("simulated log: card says users %v, simulated %v; croissant simulated %v; manifest publication %v",
			strings.Contains(card, users), strings.Contains(card, "simulated"), strings.Contains(cr, "Simulated"), pub)
	}
	for _, f := range []string{"ingest/sessions.parquet", "ingest/clean.yandex.tsv", "labels.csv", "gt.csv"} {
		if p, err := sessions.ReadProvenance(filepath.Join(dir, "sim", f)); err != nil || p == nil || !p.Simulated {
			t.Errorf("%s: provenance %+v %v", f, p, err)
		}
	}
	// The plain log's chain up to the sample: the provenance (here its
	// absence) travels through ingest, label and sample into the ground
	// truth, which is all export reads of it. The features file carries
	// none: the sim chain's serves, since the two ground truths hold the
	// same pairs (the same log's bytes, the same seed), checked here.
	chain("plain", plain, false)
	simGT, err := os.ReadFile(filepath.Join(dir, "sim", "gt.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if plainGT, err := os.ReadFile(filepath.Join(dir, "plain", "gt.csv")); err != nil || !bytes.Equal(plainGT, simGT) {
		t.Fatalf("the plain log's ground truth differs from the simulated log's (%v): the features file cannot be shared", err)
	}
	if err := os.Link(filepath.Join(dir, "sim", "features.parquet"), filepath.Join(dir, "plain", "features.parquet")); err != nil {
		t.Fatal(err)
	}
	card, _, _ = export("plain", "dataset")
	if !strings.Contains(card, users) || strings.Contains(card, "simulated") {
		t.Errorf("log without provenance: card says users %v, simulated %v", strings.Contains(card, users), strings.Contains(card, "simulated"))
	}
	card, _, _ = export("plain", "flagged", "--simulated-log")
	if strings.Contains(card, users) || !strings.Contains(card, "This dataset's search log was simulated") {
		t.Errorf("--simulated-log: card says users %v", strings.Contains(card, users))
	}
}
