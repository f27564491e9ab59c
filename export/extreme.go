package export

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/lovbench/lovbench/features"
)

// ExtremeThreshold is the magnitude from which Validate counts a feature
// value as extreme. LOVBench's Java gives Min_Hub_O the value
// Double.MAX_VALUE (1.8e308) for an ontology without terms, and the
// reference features reproduce it (docs/features.md); a z-score over such a
// column overflows, so the count is reported for whoever normalises.
const ExtremeThreshold = 1e300

// ExtremeValues counts, per feature column of c, the values whose
// magnitude is ExtremeThreshold or more; columns without any are left out
// (nil when there are none).
func ExtremeValues(c *Columns) map[string]int {
	var out map[string]int
	for j, name := range c.FeatureNames {
		n := 0
		for _, x := range c.Features[j] {
			if math.Abs(x) >= ExtremeThreshold {
				n++
			}
		}
		if n > 0 {
			if out == nil {
				out = map[string]int{}
			}
			out[name] = n
		}
	}
	return out
}

// ExtremeNote says in one sentence which columns of ext (ExtremeValues)
// hold extreme values and why; "" when there are none. validate prints it
// and the report shows it.
func ExtremeNote(ext map[string]int) string {
	if len(ext) == 0 {
		return ""
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(ext)) {
		parts = append(parts, fmt.Sprintf("%d in %s", ext[name], name))
	}
	return fmt.Sprintf("Extreme feature values (%g or more in magnitude): %s. LOVBench's Java gives Min_Hub_O the value Double.MAX_VALUE for an ontology without terms, and the reference features keep it (docs/features.md); a z-score over such a column overflows.",
		ExtremeThreshold, strings.Join(parts, ", "))
}

// ConstantColumns returns the feature columns of c with one value in every
// row (features.ConstantFeatures, the one home of the rule): validate warns
// about them and the report shows them.
func ConstantColumns(c *Columns) []features.Constant {
	rows := 0
	if len(c.Features) > 0 {
		rows = len(c.Features[0])
	}
	return features.ConstantFeatures(c.FeatureNames, rows, func(col, row int) float64 { return c.Features[col][row] })
}
