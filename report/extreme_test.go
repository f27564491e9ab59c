package report

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/export"
)

// TestExtremeValuesNote: the report's note counts the Double.MAX_VALUE
// values of Min_Hub_O (2 of the 10 rows written here) and says nothing for
// a dataset without any; its warning names the feature constant over the
// dataset (PageRank_OwlImports_O, 0 in every row).
func TestExtremeValuesNote(t *testing.T) {
	t.Parallel()
	for _, extreme := range []int{0, 2} {
		in := t.TempDir()
		var gt, feats strings.Builder
		gt.WriteString("query,term,label\n")
		feats.WriteString("query,term")
		for _, f := range export.FeatureList() {
			feats.WriteString("," + f.Name)
		}
		feats.WriteString("\n")
		for i := range 10 {
			q, term := fmt.Sprintf("q%d", i%5), fmt.Sprintf("http://ex.org/t%d", i)
			fmt.Fprintf(&gt, "%s,%s,%d\n", q, term, i%3)
			fmt.Fprintf(&feats, "%s,%s", q, term)
			for _, f := range export.FeatureList() {
				v := float64(i + f.ID)
				if f.Name == "Min_Hub_O" && i < extreme {
					v = math.MaxFloat64
				}
				if f.Name == "PageRank_OwlImports_O" {
					v = 0 // constant: the report warns
				}
				fmt.Fprintf(&feats, ",%v", v)
			}
			feats.WriteString("\n")
		}
		gtp, fp := filepath.Join(in, "gt.csv"), filepath.Join(in, "f.csv")
		os.WriteFile(gtp, []byte(gt.String()), 0o644)
		os.WriteFile(fp, []byte(feats.String()), 0o644)
		out := filepath.Join(t.TempDir(), "ds")
		if _, err := export.Run(context.Background(), export.Config{GroundTruth: gtp, Features: fp, Out: out, Options: export.Options{Seed: 1}}); err != nil {
			t.Fatal(err)
		}
		note, constant, err := columnNotes(filepath.Join(out, export.ParquetFile))
		if err != nil {
			t.Fatal(err)
		}
		// The one constant column, 0 in all 10 rows, is named with its value.
		if want := "1 feature is constant over all 10 rows and cannot rank: PageRank_OwlImports_O = 0."; !strings.HasPrefix(constant, want) {
			t.Errorf("constant-feature warning %q, want it to start with %q", constant, want)
		}
		switch {
		case extreme == 0 && note != "":
			t.Errorf("note without extreme values: %q", note)
		case extreme > 0 && !strings.Contains(note, "2 in Min_Hub_O"):
			t.Errorf("note %q does not count 2 in Min_Hub_O", note)
		}
	}
}
