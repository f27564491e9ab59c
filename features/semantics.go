package features

import "fmt"

// Semantics selects which definition of the features a corpus computes.
//
// LOVBench's published features were produced by its Java code; in several
// places that code differs from the formulas printed in the paper. The
// reference semantics reproduce the Java, quirks included (the default, as
// the click models reproduce PyClick by default); the paper semantics
// compute the formulas as printed. docs/features.md lists, feature by
// feature, both definitions and the Java class and method each follows.
type Semantics string

const (
	// SemanticsReference reproduces LOVBench's Java feature code.
	SemanticsReference Semantics = "reference"
	// SemanticsPaper computes the formulas as the LOVBench paper prints them.
	SemanticsPaper Semantics = "paper"
)

// DefaultSemantics is the semantics used when none is given.
const DefaultSemantics = SemanticsReference

// ParseSemantics parses "reference" or "paper"; the empty string gives
// DefaultSemantics.
func ParseSemantics(s string) (Semantics, error) {
	switch Semantics(s) {
	case "":
		return DefaultSemantics, nil
	case SemanticsReference, SemanticsPaper:
		return Semantics(s), nil
	}
	return "", fmt.Errorf("unknown feature semantics %q (want reference or paper)", s)
}

// Description says in words what s computes and whether its values compare
// with the published LOVBench features: the one text the command's help,
// the dataset card, croissant.json and the pipeline's report show ("" for
// an unknown semantics).
func (s Semantics) Description() string {
	switch s {
	case SemanticsReference:
		return "what LOVBench's Java code computed for the published benchmark, quirks included: comparable with the published LOVBench features"
	case SemanticsPaper:
		return "the formulas as the LOVBench paper prints them: not comparable column by column with the published LOVBench features"
	}
	return ""
}
