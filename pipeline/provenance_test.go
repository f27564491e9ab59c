package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProvenance: the facts of the dataset card come from the reports as
// written by the stages (hand-made here), zero counts left out.
func TestProvenance(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ing := write("report.json", `{"format":"yandex","input_lines":157379,"input_events":157379,"raw_queries":40000,"raw_clicks":117379,
		"quarantined":{"invalid_json":0,"bad_field_date":2},"dropped":{"rule1_session_without_click":619,"rule3_pii_email":0},
		"kept_queries":39381,"kept_clicks":117377,"sessions":{"seen":19990,"kept":19418}}`)
	fit := write("metrics.json", `{"train_fraction":0.75,"models":[{"model":"DCTR","test_loglikelihood":-0.4405,"test_perplexity":1.5644},
		{"model":"UBM","test_loglikelihood":-0.427,"test_perplexity":1.5637}],"selected":"UBM","selected_by":"test log-likelihood"}`)
	lab := write("label_report.json", `{"thresholds":"0.2,0.45,0.5,0.6,0.7","first_serp":"most-frequent","serp_size":10,"log_queries":400,
		"labelled_queries":398,"labels":3980,"query_skips":{"counts":{"serp_too_short":2,"no_relevance":0}}}`)
	cfg := DefaultConfig()
	cfg.Simulate = &SimulateConfig{Sessions: 40000, Queries: 400, Model: "ubm", Seed: 1, ZipfS: 1.1}
	pv, err := Provenance(ing, fit, lab, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range pv.Collection {
		got = append(got, f.Name+"="+f.Value)
	}
	for _, f := range pv.Labelling {
		got = append(got, f.Name+"="+f.Value)
	}
	for _, f := range pv.Configuration {
		got = append(got, f.Name+"="+f.Value)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"input events=157379 (40000 queries and 117379 clicks well-formed)",
		"quarantined (malformed)=2",
		"dropped: rule1_session_without_click=619",
		"kept SERPs=39381", "sessions kept=19418 of 19990",
		"click models fitted=DCTR (test log-likelihood -0.4405, perplexity 1.5644); UBM (test log-likelihood -0.4270, perplexity 1.5637), trained on the first 75% of the SERPs",
		"labels from=UBM (selected by test log-likelihood)",
		"thresholds (junk, 0, 1, 2, 3, 4)=0.2,0.45,0.5,0.6,0.7",
		"queries=400 in the log, 398 labelled", "queries left out: serp_too_short=2", "labels=3980",
		"simulated log=40000 SERPs with queries drawn from a pool of 400 (Zipf exponent 1.1), clicks from UBM, seed 1",
		"sampling=26 rows per query, seed 1", "folds=5, seed 1, junk kept false",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("provenance lacks %q:\n%s", want, all)
		}
	}
	for _, no := range []string{"rule3_pii_email", "no_relevance"} {
		if strings.Contains(all, no) {
			t.Errorf("provenance lists %s, which counted 0", no)
		}
	}
}

// TestConfigPublication: a run on a simulated log over the embedded demo
// corpus tells export so (the card's Motivation and Collection sections
// and croissant.json then say the log is simulated) and states the demo
// corpus' licence; a configured corpus has no licence unless configured;
// a malformed date_published is a configuration error.
func TestConfigPublication(t *testing.T) {
	c := DefaultConfig()
	c.Simulate = &SimulateConfig{Sessions: 300, Queries: 20, Model: "ubm", ZipfS: 1.1, Seed: 4}
	p := c.publication()
	if !p.SimulatedLog || p.Simulation != "300 SERPs with queries drawn from a pool of 20 (Zipf exponent 1.1), clicks from UBM, seed 4" || p.CorpusLicense != DemoCorpusLicense {
		t.Errorf("demo publication %+v", p)
	}
	c = DefaultConfig()
	c.Corpus.Paths = []string{"vocabs/"}
	c.Export.LogLicense, c.Export.URL = "cc-by-4.0", "https://example.org/d"
	if p := c.publication(); p.SimulatedLog || p.CorpusLicense != "" || p.LogLicense != "cc-by-4.0" || p.URL != "https://example.org/d" {
		t.Errorf("configured publication %+v", p)
	}
	_, err := ParseConfig([]byte("log: {path: x.tsv}\nexport: {date_published: 26.11.2026}\n"), "c.yaml", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "YYYY-MM-DD") {
		t.Errorf("bad date_published: %v", err)
	}
}
