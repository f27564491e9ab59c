package features

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/textio"
)

// ReadPairs reads a CSV of (query, term) pairs: a header naming the columns
// "query" and "term" (other columns, such as "label", are ignored; a UTF-8
// BOM is allowed), then one pair per line with as many fields as the
// header. Errors name the file, line and field.
func ReadPairs(r io.Reader, name string) ([]Pair, error) {
	cr := csv.NewReader(textio.NewReader(r))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	h, err := cr.Read()
	head := slices.Clone(h) // ReuseRecord: the next Read overwrites h
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file (want a header with query and term)", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	qi, ti := -1, -1
	for i, h := range head {
		switch strings.TrimSpace(h) {
		case "query":
			qi = i
		case "term":
			ti = i
		}
	}
	if qi < 0 || ti < 0 {
		return nil, fmt.Errorf("%s:1: header %s lacks the columns query and term", name, textio.Quote(strings.Join(head, ",")))
	}
	var pairs []Pair
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(head) {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d (as the header)", name, line, len(rec), len(head))
		}
		q, t := rec[qi], strings.TrimSpace(rec[ti])
		if strings.TrimSpace(q) == "" {
			return nil, fmt.Errorf("%s:%d: field query: empty", name, line)
		}
		if t == "" {
			return nil, fmt.Errorf("%s:%d: field term: empty", name, line)
		}
		pairs = append(pairs, Pair{Query: q, Term: t, Line: line})
	}
	return pairs, nil
}

// ReadPairsFile reads a pairs CSV file (see ReadPairs).
func ReadPairsFile(path string) ([]Pair, error) {
	f, err := textio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadPairs(f, path)
}

// Header returns the output columns: query, term and the feature names.
func (t *Table) Header() []string {
	h := []string{"query", "term"}
	for _, f := range t.Features {
		h = append(h, FeatureName(f))
	}
	return h
}

// WriteCSV writes the table as CSV with a header; numbers use the shortest
// representation that reads back to the same float64.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header()); err != nil {
		return err
	}
	rec := make([]string, 2+len(t.Features))
	for _, r := range t.Rows {
		rec[0], rec[1] = r.Query, r.Term
		for j, v := range r.Values {
			rec[2+j] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteParquet writes the table as Parquet: query and term (utf8) and one
// float64 column per feature named as in feature_list.csv, in ID order;
// Snappy compression and a versionless created_by, so equal tables give
// equal files.
func (t *Table) WriteParquet(w io.Writer) error {
	fields := []arrow.Field{
		{Name: "query", Type: arrow.BinaryTypes.String},
		{Name: "term", Type: arrow.BinaryTypes.String},
	}
	for _, f := range t.Features {
		fields = append(fields, arrow.Field{Name: FeatureName(f), Type: arrow.PrimitiveTypes.Float64})
	}
	sc := arrow.NewSchema(fields, nil)
	mem := memory.DefaultAllocator
	rb := array.NewRecordBuilder(mem, sc)
	defer rb.Release()
	qb := rb.Field(0).(*array.StringBuilder)
	tb := rb.Field(1).(*array.StringBuilder)
	for _, r := range t.Rows {
		qb.Append(r.Query)
		tb.Append(r.Term)
		for j, v := range r.Values {
			rb.Field(2 + j).(*array.Float64Builder).Append(v)
		}
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	props := parquet.NewWriterProperties(
		parquet.WithCreatedBy("lovbench"),
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithMaxRowGroupLength(1<<20),
	)
	fw, err := pqarrow.NewFileWriter(sc, w, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	if err := fw.Write(rec); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}

// WriteFile writes the table atomically to path, as Parquet when the name
// ends in ".parquet" and as CSV when it ends in ".csv".
func (t *Table) WriteFile(path string) error {
	switch {
	case strings.HasSuffix(strings.ToLower(path), ".parquet"):
		return atomicfile.WriteFile(path, t.WriteParquet)
	case strings.HasSuffix(strings.ToLower(path), ".csv"):
		return atomicfile.WriteFile(path, t.WriteCSV)
	}
	return errors.New(path + ": output must end in .csv or .parquet")
}
