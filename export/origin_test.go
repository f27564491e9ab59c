package export

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/features"
)

// writeFeaturesParquet writes the test features as the Parquet file of
// lovbench features, with origin o in its metadata (none when o is zero).
func writeFeaturesParquet(t *testing.T, dir string, header []string, vals [][]float64, gtQuery, gtTerm []string, o features.Origin) string {
	t.Helper()
	tab := &features.Table{Origin: o}
	for j := range header[2:] {
		tab.Features = append(tab.Features, j+1)
	}
	for i := range vals {
		tab.Rows = append(tab.Rows, features.Row{Query: gtQuery[i], Term: gtTerm[i], Values: vals[i]})
	}
	p := filepath.Join(dir, "features.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := tab.WriteParquet(f); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFeatureOriginFromFile: export takes the semantics, the corpus
// SHA-256 and the version from the features file's metadata into the
// manifest and the card; a stated semantics that disagrees fails with a
// message naming the file and both semantics (features computed with
// paper are not published as reference); a file without metadata takes
// the stated semantics as a claim, said so, or records none.
func TestFeatureOriginFromFile(t *testing.T) {
	const corpus = "8a8298f8913ff24673ed873176bdb38354d14699aaafcfc252dfc40aec430e5a"
	in := t.TempDir()
	gt, header, vals := testInput(12, 6, 34)
	gtp, csvp := writeInputs(t, in, gt, header, vals)
	var qs, ts []string
	for _, r := range gt {
		qs, ts = append(qs, r.Query), append(ts, r.Term)
	}
	pq := writeFeaturesParquet(t, in, header, vals, qs, ts, features.Origin{Semantics: features.SemanticsPaper, CorpusSHA256: corpus, Version: "v0.9.0"})
	run := func(features, stated string) (Report, string, error) {
		out := filepath.Join(t.TempDir(), "dataset")
		m, err := Run(context.Background(), Config{GroundTruth: gtp, Features: features, Out: out, Options: Options{Seed: 3, FeatureSemantics: stated}})
		return m, out, err
	}

	m, out, err := run(pq, "")
	if err != nil {
		t.Fatal(err)
	}
	want := FeatureOrigin{Origin: features.Origin{Semantics: "paper", CorpusSHA256: corpus, Version: "v0.9.0"}, Source: OriginFeaturesFile}
	if m.Parameters.FeatureSemantics != "paper" || m.FeatureOrigin == nil || *m.FeatureOrigin != want {
		t.Errorf("manifest semantics %q origin %+v, want paper %+v", m.Parameters.FeatureSemantics, m.FeatureOrigin, want)
	}
	card, _ := os.ReadFile(filepath.Join(out, CardFile))
	for _, s := range []string{"paper (the formulas as the LOVBench paper prints them: not comparable", corpus, "v0.9.0", "recorded in the features file"} {
		if !strings.Contains(string(card), s) {
			t.Errorf("card lacks %q", s)
		}
	}
	if v, err := Validate(context.Background(), out); err != nil || !v.Valid {
		t.Fatalf("rejected: %v %v", err, v.Problems)
	}
	if _, _, err := run(pq, "paper"); err != nil {
		t.Errorf("agreeing statement refused: %v", err)
	}
	_, _, err = run(pq, "reference")
	if err == nil || !strings.Contains(err.Error(), "features.parquet") || !strings.Contains(err.Error(), `"paper"`) || !strings.Contains(err.Error(), `"reference"`) {
		t.Errorf("disagreeing statement: %v; want an error naming the file and both semantics", err)
	}

	// No metadata: the statement is recorded as such; nothing stated,
	// nothing recorded.
	m, out, err = run(csvp, "paper")
	if err != nil {
		t.Fatal(err)
	}
	if m.FeatureOrigin.Source != OriginStated || m.Parameters.FeatureSemantics != "paper" {
		t.Errorf("CSV stated paper: %+v", m.FeatureOrigin)
	}
	card, _ = os.ReadFile(filepath.Join(out, CardFile))
	if !strings.Contains(string(card), "stated at export, not recorded in the features file") {
		t.Error("card does not say the semantics are only stated")
	}
	m, _, err = run(csvp, "")
	if err != nil || m.FeatureOrigin.Source != OriginUnknown || m.Parameters.FeatureSemantics != "" {
		t.Errorf("CSV, nothing stated: %+v %v", m.FeatureOrigin, err)
	}
}
