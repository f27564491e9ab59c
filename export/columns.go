package export

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// The fixed columns of dataset.parquet and dataset.arrow, by position:
// the feature columns follow them. These constants index datasetColumns
// and the columns of a dataset's files.
const (
	colQuery = iota
	colQID
	colTerm
	colLabel
	colPartition
	colConfidence
	nFixedColumns
)

// datasetColumn is one of the columns before the features.
type datasetColumn struct {
	name     string
	typ      arrow.DataType
	nullable bool
	// description says what the column holds (croissant.json's field
	// description).
	description string
}

// datasetColumns are the fixed columns of dataset.parquet and
// dataset.arrow, in file order: the one list Schema, the Parquet writer,
// the readers, the card and croissant.json derive theirs from (the table
// of docs/dataset.md is checked against it by TestDocsColumnTable).
// Datasets written before labels had a confidence lack colConfidence.
var datasetColumns = [nFixedColumns]datasetColumn{
	colQuery:      {name: "query", typ: arrow.BinaryTypes.String, description: "The keyword query."},
	colQID:        {name: "qid", typ: arrow.PrimitiveTypes.Int32, description: "The query's number, 1-based, in sorted query order."},
	colTerm:       {name: "term", typ: arrow.BinaryTypes.String, description: "The full URI of the ranked ontology term (class or property)."},
	colLabel:      {name: "label", typ: arrow.PrimitiveTypes.Int32, description: "Graded relevance label: -2 junk, 0 to 4 (LOVBench paper, Table 4)."},
	colPartition:  {name: "partition", typ: arrow.PrimitiveTypes.Int32, description: "The query's partition, 1-based; the folds record set says which partitions make each fold's splits."},
	colConfidence: {name: ConfidenceColumn, typ: arrow.PrimitiveTypes.Float64, nullable: true, description: "The label's confidence (the ground truth's column), null where it is not known (a sampled term, always label 0); not a feature: training on it leaks the label."},
}

// baseColumns are the columns every dataset.parquet and dataset.arrow
// starts with; ConfidenceColumn follows them in datasets written since
// labels have a confidence, then the feature columns.
var baseColumns = func() []string {
	var out []string
	for _, c := range datasetColumns[:colConfidence] {
		out = append(out, c.name)
	}
	return out
}()

// fixedColumnNames lists the fixed columns of the dataset m describes,
// comma-separated (the card's and croissant.json's prose).
func fixedColumnNames(m *Manifest) string {
	var names []string
	for _, f := range manifestFields(m)[:len(manifestFields(m))-len(m.Features)] {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// columnDescription describes a column of dataset.parquet.
func columnDescription(name string) string {
	for _, c := range datasetColumns {
		if c.name == name {
			return c.description
		}
	}
	if strings.Contains(name, "_") {
		return "Feature " + name + " (LOVBench paper, Table 3; docs/features.md)."
	}
	return name
}

// physicalType is the Parquet physical type of each Arrow type of
// datasetColumns (docs/dataset.md's table).
var physicalType = map[arrow.Type]string{
	arrow.STRING:  "BYTE_ARRAY",
	arrow.INT32:   "INT32",
	arrow.FLOAT64: "DOUBLE",
}
