package features

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/pqfile"
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

// WriteParquet writes the table as Parquet (package pqfile): query and term
// (required strings) and one required double column per feature named as in
// feature_list.csv, in ID order, query and term dictionary-encoded, the rest plain; Snappy compression and a
// versionless created_by, so equal tables give equal files. The file's
// key-value metadata records t.Origin (MetaSemantics, MetaCorpusSHA256,
// MetaVersion; the fields that are set).
func (t *Table) WriteParquet(w io.Writer) error {
	cols := []pqfile.Column{
		{Name: "query", Kind: pqfile.String, Dict: true, String: func(i int) string { return t.Rows[i].Query }},
		{Name: "term", Kind: pqfile.String, Dict: true, String: func(i int) string { return t.Rows[i].Term }},
	}
	for j, f := range t.Features {
		cols = append(cols, pqfile.Column{Name: FeatureName(f), Kind: pqfile.Float64, Float64: func(i int) float64 { return t.Rows[i].Values[j] }})
	}
	return pqfile.WriteMeta(w, cols, len(t.Rows), 0, t.Origin.Meta())
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
