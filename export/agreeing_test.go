package export

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/sampling"
)

// The agreeing filter by hand: queries a 0.9 (1, 1), b 0.8 (3, 1), c 0.8
// (1, 3), d 0.7 (1, 2), e 0.6 (2, 2) and z without an agreement (0, 7), as
// (label 1, label 0) rows: 8 of 24 rows label 1, 1/3. At 0.6 the target is
// floor(0.6 x 5 + 1/2) = 3 of the 5 queries with an agreement: a (1/2,
// deviation 1/6), not b (4 of 6, 1/3), c (2 of 6, 0), not b (5 of 10,
// 1/6), d (3 of 9, 0). Kept a, c, d whole: 9 rows, 3 of label 1 and 6 of
// label 0, the input's shares exactly; 15 rows (5 of label 1, 10 of
// label 0) left out with b, e and z.
func TestFilterAgreeingByHand(t *testing.T) {
	var gt []sampling.Row
	for _, m := range []struct {
		q      string
		l1, l0 int
	}{{"z", 0, 7}, {"e", 2, 2}, {"d", 1, 2}, {"c", 1, 3}, {"b", 3, 1}, {"a", 1, 1}} {
		for i := range m.l1 + m.l0 {
			r := sampling.Row{Query: m.q, Term: fmt.Sprint("t", i), Label: 1, Confidence: 0.5}
			if i >= m.l1 {
				r.Label, r.Confidence = 0, none
			}
			gt = append(gt, r)
		}
	}
	ag := map[string]float64{"a": 0.9, "b": 0.8, "c": 0.8, "d": 0.7, "e": 0.6, "z": math.NaN()}
	kept, f, err := FilterLabels(gt, labels.Selection{KeepAgreeing: 0.6, QueryAgreement: ag})
	if err != nil {
		t.Fatal(err)
	}
	var qs []string
	for _, r := range kept {
		if !slices.Contains(qs, r.Query) {
			qs = append(qs, r.Query)
		}
	}
	if !slices.Equal(qs, []string{"d", "c", "a"}) || len(kept) != 9 {
		t.Errorf("kept %d rows of %v, want 9 of d, c, a", len(kept), qs)
	}
	want := AgreeingChoice{EligibleQueries: 5, TargetQueries: 3, ShareTolerance: 0.01, ShareDeviation: 0}
	if f.Agreeing == nil || *f.Agreeing != want {
		t.Errorf("agreeing %+v, want %+v", f.Agreeing, want)
	}
	if f.Rows != 24 || f.Kept != 9 || f.NotChosen != 15 || f.KeptUnknown != 6 || f.Queries != 6 || f.KeptQueries != 3 || f.DroppedQueries != 3 ||
		!slices.Equal(f.DroppedExamples, []string{"b", "e", "z"}) || f.Below+f.WithQuery+f.QueryBelowAgreement+f.BeyondShare != 0 {
		t.Errorf("counts %+v", f)
	}
	for _, n := range f.ByLabel {
		var rows, keptN int
		switch n.Label {
		case 1:
			rows, keptN = 8, 3
		case 0:
			rows, keptN = 16, 6
		}
		// The bound: min(0.01, share/2), 0.01 for shares 1/3 and 2/3, 0
		// for the labels without rows.
		bound := 0.0
		if rows > 0 {
			bound = 0.01
		}
		if n.Rows != rows || n.Kept != keptN || n.NotChosen != rows-keptN || (rows > 0 && n.ShareAfter != n.ShareBefore) || n.ShareTolerance != bound {
			t.Errorf("label %d: %+v, want %d rows, %d kept, shares equal, bound %v", n.Label, n, rows, keptN, bound)
		}
	}
}

// export --keep-agreeing-queries on twelve queries of six rows whose
// agreements are 0.5 + 0.04 q (none for query 11, TestExportQueryAgreement's
// file): the manifest's counts add up to the input, the card and
// validate agree, and a manifest whose deviation, target or left-out
// rows were changed fails. Without --query-order it is an error.
func TestExportKeepAgreeing(t *testing.T) {
	in := t.TempDir()
	gt, header, vals := testInput(12, 6, 34)
	gtp, fp := writeInputs(t, in, gt, header, vals)
	qp := writeQueryOrder(t, in)
	out := filepath.Join(t.TempDir(), "ds")
	m, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: out, QueryOrder: qp, Options: Options{Seed: 4, KeepAgreeing: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	f := m.ConfidenceFilter
	if f == nil || f.Agreeing == nil || m.Parameters.KeepAgreeing != 0.5 || f.Rows != 72 || f.Queries != 12 || f.Kept+f.NotChosen != 72 || f.Kept != m.Rows ||
		f.Agreeing.EligibleQueries != 11 || f.Agreeing.TargetQueries != 6 || f.KeptQueries > 6 || m.OrderAgreement == nil || m.OrderAgreement.WithPairs != m.Queries {
		t.Fatalf("manifest %+v, filter %+v", m.Parameters, f)
	}
	for _, n := range f.ByLabel {
		if n.Rows != n.Kept+n.NotChosen {
			t.Errorf("label %d: %d rows, %d kept + %d not chosen", n.Label, n.Rows, n.Kept, n.NotChosen)
		}
	}
	if v, err := Validate(context.Background(), out); err != nil || !v.Valid {
		t.Fatalf("validate: %v %v", err, v.Problems)
	}
	card, _ := os.ReadFile(filepath.Join(out, CardFile))
	if !strings.Contains(string(card), "`--keep-agreeing-queries 0.5`") || !strings.Contains(string(card), fmt.Sprintf("is %.2f points", 100*f.Agreeing.ShareDeviation)) {
		t.Errorf("card lacks the agreeing filter:\n%s", card)
	}
	rows := readDatasetGroundTruth(t, out)
	for _, c := range []struct {
		change func(*Manifest)
		want   string
	}{
		{func(m *Manifest) { m.ConfidenceFilter.Agreeing.ShareDeviation += 0.001 }, "share_deviation"},
		{func(m *Manifest) { m.ConfidenceFilter.Agreeing.TargetQueries-- }, "target"},
		{func(m *Manifest) { m.ConfidenceFilter.Agreeing.ToleranceRatio += 0.1 }, "tolerance_ratio"},
		{func(m *Manifest) { m.ConfidenceFilter.ByLabel[3].ShareTolerance /= 2 }, "share_tolerance"},
		{func(m *Manifest) { m.ConfidenceFilter.Agreeing.ShareTolerance = 1 }, "not in (0, 1)"},
		// A manifest of d5ceeeb (no ratio, no bounds per label) is checked
		// by its deviation alone.
		{func(m *Manifest) {
			legacyManifest(m)
			m.ConfidenceFilter.Agreeing.ShareDeviation += 0.001
		}, "share_deviation"},
		{func(m *Manifest) {
			m.ConfidenceFilter.NotChosen--
			m.ConfidenceFilter.Below++
			m.ConfidenceFilter.ByLabel[0].NotChosen--
			m.ConfidenceFilter.ByLabel[0].Below++
		}, "other than whole queries"},
	} {
		mf := readManifest(t, out)
		var vv Validation
		checkConfidenceManifest(&vv, mf, rows)
		if len(vv.Problems) != 0 {
			t.Fatalf("written manifest: %q", vv.Problems)
		}
		c.change(mf)
		checkConfidenceManifest(&vv, mf, rows)
		if !strings.Contains(strings.Join(vv.Problems, "\n"), c.want) {
			t.Errorf("changed manifest: %q, want %q", vv.Problems, c.want)
		}
	}
	mf := readManifest(t, out)
	legacyManifest(mf)
	var vv Validation
	if checkConfidenceManifest(&vv, mf, rows); len(vv.Problems) != 0 {
		t.Errorf("a manifest of d5ceeeb's agreeing filter: %q", vv.Problems)
	}
	if _, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: filepath.Join(t.TempDir(), "x"), Options: Options{KeepAgreeing: 0.5}}); err == nil {
		t.Error("--keep-agreeing-queries without --query-order: no error")
	}
}

// legacyManifest takes from m what export wrote only after d5ceeeb: the
// agreeing filter's tolerance_ratio and each label's share_tolerance.
func legacyManifest(m *Manifest) {
	m.ConfidenceFilter.Agreeing.ToleranceRatio = 0
	for i := range m.ConfidenceFilter.ByLabel {
		m.ConfidenceFilter.ByLabel[i].ShareTolerance = 0
	}
}
