package pipeline

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/export"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/sampling"
)

// export.min_confidence in a run's configuration: adding it reruns export
// (and what follows) only, and the published dataset is the one
// `lovbench export --min-confidence` builds: every kept labelled row at
// the minimum or above, the filter's counts in the manifest.
func TestRunMinConfidence(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	wd := filepath.Join(base, "work")
	smallCorpus(t, filepath.Join(base, "vocabs")) // the filters do not depend on the corpus's size
	yaml := "simulate: {sessions: 1500, queries: 60, model: ubm, seed: 3}\ncorpus: {paths: [vocabs]}\nltr: {enabled: false}\n"
	run := func(extra string) *RunResult {
		t.Helper()
		cfg, err := ParseConfig([]byte(yaml+extra), "cfg.yaml", base)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Workdir = wd
		res, err := Run(context.Background(), cfg, RunOptions{AllowDegenerate: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	run("")
	res := run("export: {min_confidence: 0.3}\n")
	for _, s := range res.Stages {
		if want := s.Name == StageExport || s.Name == StageReport; s.Skipped == want {
			t.Errorf("stage %s: skipped %v", s.Name, s.Skipped)
		}
	}
	var m export.Manifest
	if err := textio.ReadJSON(filepath.Join(res.ReleaseDir, "dataset", export.ManifestFile), &m); err != nil {
		t.Fatal(err)
	}
	f := m.ConfidenceFilter
	if m.Parameters.MinConfidence != 0.3 || f == nil || f.Kept != m.Rows || f.Below == 0 || f.Rows != f.Kept+f.Below+f.WithQuery {
		t.Fatalf("manifest parameters %+v filter %+v rows %d", m.Parameters, f, m.Rows)
	}
	fh, err := os.Open(filepath.Join(res.ReleaseDir, "dataset", export.GroundTruthFile))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rows, err := sampling.ReadGroundTruth(fh, "ground_truth.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Confidence != labels.NoConfidence && r.Confidence < 0.3 {
			t.Fatalf("row %+v below the minimum", r)
		}
	}
	t.Logf("min_confidence 0.3: %d of %d rows, %d of %d queries", f.Kept, f.Rows, f.KeptQueries, f.Queries)
	// The report shows the order confidence and the label shares before
	// and after the filter, as the manifest has them.
	html, err := os.ReadFile(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Order confidence (what learning to rank uses of the labels)", "<th>share before</th><th>share after</th>"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// export.min_query_agreement: every query of the dataset has an
	// expected agreement (labels.query_order.csv, in the release) of at
	// least the minimum, and the manifest counts the rows it left out.
	res = run("export: {min_confidence: 0.3, min_query_agreement: 0.8}\n")
	qf, err := os.Open(filepath.Join(res.ReleaseDir, labels.QueryOrderPath(LabelsFile)))
	if err != nil {
		t.Fatal(err)
	}
	defer qf.Close()
	ag, err := labels.ReadQueryOrder(qf, "labels.query_order.csv")
	if err != nil {
		t.Fatal(err)
	}
	if err := textio.ReadJSON(filepath.Join(res.ReleaseDir, "dataset", export.ManifestFile), &m); err != nil {
		t.Fatal(err)
	}
	f = m.ConfidenceFilter
	if f == nil || f.MinQueryAgreement != 0.8 || f.QueryBelowAgreement == 0 || f.Rows != f.Kept+f.Below+f.WithQuery+f.QueryBelowAgreement {
		t.Fatalf("filter %+v", f)
	}
	gh, err := os.Open(filepath.Join(res.ReleaseDir, "dataset", export.GroundTruthFile))
	if err != nil {
		t.Fatal(err)
	}
	defer gh.Close()
	if rows, err = sampling.ReadGroundTruth(gh, "ground_truth.csv"); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !(ag[r.Query] >= 0.8) {
			t.Fatalf("query %q has expected agreement %v, below 0.8", r.Query, ag[r.Query])
		}
	}
	t.Logf("and min_query_agreement 0.8: %d of %d rows, %d of %d queries", f.Kept, f.Rows, f.KeptQueries, f.Queries)
	// export.keep_confident: the stratified filter (labels.Selection):
	// every label keeps 0.4 n of its n rows with a confidence, to within the
	// rounding (half a row), and the report shows the shares, the
	// thresholds and the recovery of the kept labels.
	res = run("export: {keep_confident: 0.4}\n")
	if err := textio.ReadJSON(filepath.Join(res.ReleaseDir, "dataset", export.ManifestFile), &m); err != nil {
		t.Fatal(err)
	}
	f = m.ConfidenceFilter
	if m.Parameters.KeepConfident != 0.4 || f == nil || f.KeepConfident != 0.4 || f.Kept != m.Rows {
		t.Fatalf("manifest parameters %+v filter %+v", m.Parameters, f)
	}
	for _, n := range f.ByLabel {
		if math.Abs(float64(n.KeptWithConfidence)-0.4*float64(n.WithConfidence)) > 0.5 {
			t.Errorf("label %d kept %d of %d rows with a confidence", n.Label, n.KeptWithConfidence, n.WithConfidence)
		}
		t.Logf("keep_confident 0.4: label %d share %.4f before, %.4f after", n.Label, n.ShareBefore, n.ShareAfter)
	}
	html, err = os.ReadFile(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<code>lovbench export --keep-confident</code>", "<th>lowest kept confidence</th>", "most confident 40.0% of each label"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// export.keep_agreeing_queries: whole queries (labels.Selection's
	// agreeing mode, with the label stage's order file), with
	// export.agreeing_share_tolerance 0.02: the manifest records the
	// target, the tolerance and the deviation, and the report prints
	// them, and the filter's row of the recovery table.
	res = run("export: {keep_agreeing_queries: 0.5, agreeing_share_tolerance: 0.02}\n")
	if err := textio.ReadJSON(filepath.Join(res.ReleaseDir, "dataset", export.ManifestFile), &m); err != nil {
		t.Fatal(err)
	}
	f = m.ConfidenceFilter
	if m.Parameters.KeepAgreeing != 0.5 || f == nil || f.Agreeing == nil || f.Agreeing.ShareTolerance != 0.02 || f.Kept != m.Rows || f.Rows != f.Kept+f.NotChosen || f.KeptQueries > f.Agreeing.TargetQueries {
		t.Fatalf("manifest parameters %+v filter %+v", m.Parameters, f)
	}
	t.Logf("keep_agreeing_queries 0.5: %d of %d queries (target %d), %d of %d rows, deviation %.4f", f.KeptQueries, f.Queries, f.Agreeing.TargetQueries, f.Kept, f.Rows, f.Agreeing.ShareDeviation)
	if html, err = os.ReadFile(res.Report); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<code>lovbench export --keep-agreeing-queries 0.5</code>", "the share tolerance 2.0%", "most agreeing 50.0% of the queries, label shares within their bounds, tolerance 0.02 (the export&#39;s)"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
