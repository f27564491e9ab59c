package features

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/internal/textio"
)

// Constant is a feature column that holds one value in every row of a
// table or dataset.
type Constant struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// ConstantFeatures returns the columns, in column order, whose value is the
// same in all rows rows: names[j] names column j and value(j, i) is its
// value in row i. With fewer than two rows nothing is constant (nil).
//
// It is the one home of "which features are constant": lovbench features
// warns with it (Table.Constant), validate and the report over a dataset's
// columns (export.Columns). A constant feature cannot rank; a feature that
// is 0 everywhere usually means that the corpus lacks what it measures
// (PageRank_OwlImports_O without owl:imports between the corpus'
// vocabularies, docs/features.md).
func ConstantFeatures(names []string, rows int, value func(col, row int) float64) []Constant {
	if rows < 2 {
		return nil
	}
	var out []Constant
	for j, name := range names {
		first := value(j, 0)
		same := true
		for i := 1; i < rows && same; i++ {
			x := value(j, i)
			same = x == first || (x != x && first != first) // NaN equals NaN here
		}
		if same {
			out = append(out, Constant{Name: name, Value: first})
		}
	}
	return out
}

// Constant returns the feature columns of t constant over all its rows
// (ConstantFeatures).
func (t *Table) Constant() []Constant {
	names := make([]string, len(t.Features))
	for j, id := range t.Features {
		names[j] = FeatureName(id)
	}
	return ConstantFeatures(names, len(t.Rows), func(col, row int) float64 { return t.Rows[row].Values[col] })
}

// ConstantNote says in one sentence which features are constant over rows
// rows and what that means; "" when cs is empty. features, validate and
// the report print it.
func ConstantNote(cs []Constant, rows int) string {
	if len(cs) == 0 {
		return ""
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Name + " = " + strconv.FormatFloat(c.Value, 'g', -1, 64)
	}
	note := fmt.Sprintf("%s constant over all %d rows and cannot rank: %s. A feature that is 0 everywhere usually means that the corpus lacks what it measures (for example owl:imports between its vocabularies for PageRank_OwlImports_O; docs/features.md).",
		textio.Count(len(cs), "feature is", "features are"), rows, strings.Join(parts, ", "))
	for _, c := range cs {
		if c.Name == FeatureName(FeatMinHub) && c.Value == 0 {
			note += " Min_Hub_O is 0 for almost every vocabulary under the reference semantics, as in LOVBench's Java (a term that is no node of the ontology graph counts as 0)."
		}
	}
	return note
}
