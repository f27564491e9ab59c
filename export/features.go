package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/internal/pqfile"
	"github.com/lovbench/lovbench/internal/textio"
)

// Feature is one ranking feature of LOVBench (paper Table 3), by the ID and
// name of data/lovbench-results/feature_list.csv.
type Feature struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// NumFeatures is the number of feature IDs, 1..34: the 33 features + the
// LabelSearch baseline (34).
const NumFeatures = 34

// FeatureList returns LOVBench's 33 features + the LabelSearch baseline (34),
// in ID order: 1..33 of paper Table 3, and 34, the baseline LabelSearch_T
// (BM25 on rdfs:label, docs/method.md section 6), named by features.FeatureName
// (feature_list.csv).
func FeatureList() []Feature {
	fs := make([]Feature, NumFeatures)
	for i := range fs {
		fs[i] = Feature{ID: i + 1, Name: features.FeatureName(i + 1)}
	}
	return fs
}

// RequiredFeatures is the number of features every dataset must have: 1..33
// (the LOVBench full configuration, paper Table 5). Feature 34, the
// baseline, is exported when the features file has it.
const RequiredFeatures = 33

// FeatureTable holds the feature vectors of a features file, row-major.
type FeatureTable struct {
	Features []Feature // the file's feature columns, in ID order
	Rows     int
	Values   []float64 // Rows x len(Features)
	// Origin is how the features were computed, as a Parquet features
	// file's key-value metadata records it (features.OriginFromMeta); nil
	// for a CSV file or one written before features recorded it.
	Origin *features.Origin
	index  map[pairKey]int
}

type pairKey struct{ q, t string }

// Lookup returns the feature vector of (query, term), or nil.
func (ft *FeatureTable) Lookup(query, term string) []float64 {
	i, ok := ft.index[pairKey{query, term}]
	if !ok {
		return nil
	}
	n := len(ft.Features)
	return ft.Values[i*n : (i+1)*n]
}

// columnOrder maps the header of a features file to feature IDs: the first
// two columns must be query and term, every other column a name of
// FeatureList (in any order), each at most once, and 1..RequiredFeatures
// must all be there. It returns the features in ID order and, per header
// column after term, the position of its feature in that order.
func columnOrder(name string, header []string) ([]Feature, []int, error) {
	if len(header) < 2 || header[0] != "query" || header[1] != "term" {
		return nil, nil, fmt.Errorf("%s: columns must start with query, term (got %s)", name, textio.Quote(strings.Join(header[:min(len(header), 3)], ",")))
	}
	byName := map[string]Feature{}
	for _, f := range FeatureList() {
		byName[f.Name] = f
	}
	have := map[int]bool{}
	for _, h := range header[2:] {
		f, ok := byName[h]
		if !ok {
			return nil, nil, fmt.Errorf("%s: column %s is not a LOVBench feature name (feature_list.csv)", name, textio.Quote(h))
		}
		if have[f.ID] {
			return nil, nil, fmt.Errorf("%s: column %s appears twice", name, textio.Quote(h))
		}
		have[f.ID] = true
	}
	var missing []string
	for id := 1; id <= RequiredFeatures; id++ {
		if !have[id] {
			missing = append(missing, FeatureList()[id-1].Name)
		}
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("%s: missing feature columns %s", name, strings.Join(missing, ", "))
	}
	var fs []Feature
	pos := map[int]int{}
	for _, f := range FeatureList() {
		if have[f.ID] {
			pos[f.ID] = len(fs)
			fs = append(fs, f)
		}
	}
	order := make([]int, len(header)-2)
	for i, h := range header[2:] {
		order[i] = pos[byName[h].ID]
	}
	return fs, order, nil
}

// ReadFeatures reads a features file of `lovbench features`: CSV (header
// query,term,<feature names>) or Parquet (recognised by its "PAR1" magic;
// string columns query and term, numeric feature columns). Every value must
// be a finite number; a bad value or a repeated (query, term) is an error
// naming the file, line (CSV) or row (Parquet), and field.
func ReadFeatures(ctx context.Context, path string) (*FeatureTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	magic := make([]byte, 4)
	if n, _ := io.ReadFull(f, magic); n == 4 && bytes.Equal(magic, []byte("PAR1")) {
		return readFeaturesParquet(ctx, f, path)
	}
	f.Close()
	tf, err := textio.Open(path) // CSV, plain or gzip
	if err != nil {
		return nil, err
	}
	defer tf.Close()
	return readFeaturesCSV(tf, path)
}

func readFeaturesCSV(r io.Reader, name string) (*FeatureTable, error) {
	rr := newRecordReader(textio.NewLineReader(r))
	h, _, err := rr.next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:1: empty file", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	header := make([]string, len(h))
	for i, f := range h {
		header[i] = string(f)
	}
	fs, order, err := columnOrder(name, header)
	if err != nil {
		return nil, err
	}
	ft := &FeatureTable{Features: fs, index: map[pairKey]int{}}
	nf := len(fs)
	for {
		rec, line, err := rr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(rec) != len(header) {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d", name, line, len(rec), len(header))
		}
		if len(rec[0]) == 0 || len(rec[1]) == 0 {
			return nil, fmt.Errorf("%s:%d: field query or term: empty", name, line)
		}
		k := pairKey{string(rec[0]), string(rec[1])}
		if _, dup := ft.index[k]; dup {
			return nil, fmt.Errorf("%s:%d: (%s, %s) appears twice", name, line, k.q, k.t)
		}
		ft.index[k] = ft.Rows
		// Every position of the row is written below (order is a
		// permutation), so the grown slice needs no clearing.
		base := len(ft.Values)
		ft.Values = slices.Grow(ft.Values, nf)[:base+nf]
		for i, b := range rec[2:] {
			v, err := strconv.ParseFloat(string(b), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s:%d: field %s: %s is not a finite number", name, line, header[i+2], textio.QuoteBytes(b))
			}
			ft.Values[base+order[i]] = v
		}
		ft.Rows++
	}
	return ft, nil
}

// readFeaturesParquet reads a Parquet features file with parquet-go
// (package pqfile): string columns query and term, numeric (DOUBLE, FLOAT,
// INT32, INT64) feature columns; a null is an error naming the row.
func readFeaturesParquet(ctx context.Context, f *os.File, name string) (*FeatureTable, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	tab, err := pqfile.Read(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	header := tab.Names()
	fs, order, err := columnOrder(name, header)
	if err != nil {
		return nil, err
	}
	origin, recorded, err := features.OriginFromMeta(tab.Meta)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for c := range 2 {
		col := tab.Columns[c]
		if col.Strings == nil && tab.Rows > 0 {
			return nil, fmt.Errorf("%s: column %s: type %s is not a string", name, col.Name, col.Physical)
		}
		if col.Nulls > 0 {
			return nil, fmt.Errorf("%s: column %s: row %d is null", name, col.Name, col.FirstNul)
		}
	}
	nf := len(fs)
	ft := &FeatureTable{Features: fs, index: make(map[pairKey]int, tab.Rows), Values: make([]float64, tab.Rows*nf)}
	if recorded {
		ft.Origin = &origin
	}
	for c := 2; c < len(header); c++ {
		col := tab.Columns[c]
		if col.Float64s == nil && tab.Rows > 0 {
			return nil, fmt.Errorf("%s: column %s: type %s is not numeric", name, col.Name, col.Physical)
		}
		if col.Nulls > 0 {
			return nil, fmt.Errorf("%s: row %d: field %s: null is not a finite number", name, col.FirstNul, col.Name)
		}
		for i, v := range col.Float64s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: row %d: field %s: %v is not a finite number", name, i+1, header[c], v)
			}
			ft.Values[i*nf+order[c-2]] = v
		}
	}
	qs, ts := tab.Columns[0].Strings, tab.Columns[1].Strings
	for i := range tab.Rows {
		k := pairKey{qs[i], ts[i]}
		if k.q == "" || k.t == "" {
			return nil, fmt.Errorf("%s: row %d: field query or term: empty", name, i+1)
		}
		if _, dup := ft.index[k]; dup {
			return nil, fmt.Errorf("%s: row %d: (%s, %s) appears twice", name, i+1, k.q, k.t)
		}
		ft.index[k] = i
		ft.Rows++
	}
	return ft, nil
}

// stringColumn returns the values of a string column (plain, large or
// dictionary-encoded); nulls are an error.
func stringColumn(a arrow.Array) ([]string, error) {
	out := make([]string, a.Len())
	for i := range out {
		if a.IsNull(i) {
			return nil, fmt.Errorf("row %d is null", i+1)
		}
	}
	switch c := a.(type) {
	case *array.String:
		for i := range out {
			out[i] = strings.Clone(c.Value(i))
		}
	case *array.LargeString:
		for i := range out {
			out[i] = strings.Clone(c.Value(i))
		}
	case *array.Binary:
		for i := range out {
			out[i] = string(c.Value(i))
		}
	case *array.Dictionary:
		d, err := stringColumn(c.Dictionary())
		if err != nil {
			return nil, err
		}
		for i := range out {
			out[i] = d[c.GetValueIndex(i)]
		}
	default:
		return nil, fmt.Errorf("type %s is not a string", a.DataType())
	}
	return out, nil
}

// Where the feature semantics of a dataset come from
// (FeatureOrigin.Source).
const (
	// OriginFeaturesFile: the features file's metadata recorded them.
	OriginFeaturesFile = "recorded in the features file"
	// OriginStated: the features file records nothing (a CSV file, or a
	// Parquet file written before lovbench recorded it); the semantics
	// are what export was told (Options.FeatureSemantics), unchecked.
	OriginStated = "stated at export, not recorded in the features file"
	// OriginUnknown: neither the features file nor export knew them.
	OriginUnknown = "not recorded"
)

// FeatureOrigin is how the features of a dataset were computed, for the
// manifest, the dataset card and croissant.json: the features file's
// features.Origin and where it comes from (Source, one of OriginFeaturesFile,
// OriginStated, OriginUnknown).
type FeatureOrigin struct {
	features.Origin
	Source string `json:"source"`
}

// ResolveFeatureOrigin decides the feature origin of a dataset from the
// features file ft (named name) and the semantics export was told
// (stated, "" if none). A file that records its origin wins; stated, if
// not empty, must agree with it, or the error says why. A file that
// records nothing takes stated as an unchecked claim (OriginStated), or
// is OriginUnknown.
func ResolveFeatureOrigin(ft *FeatureTable, name, stated string) (FeatureOrigin, error) {
	if ft.Origin != nil {
		if stated != "" && stated != string(ft.Origin.Semantics) {
			return FeatureOrigin{}, fmt.Errorf("export: feature semantics %q were stated, but %s was computed with %q semantics (its Parquet metadata %s); state %q or none, or compute the features again with the semantics wanted",
				stated, name, ft.Origin.Semantics, features.MetaSemantics, ft.Origin.Semantics)
		}
		return FeatureOrigin{Origin: *ft.Origin, Source: OriginFeaturesFile}, nil
	}
	if stated == "" {
		return FeatureOrigin{Source: OriginUnknown}, nil
	}
	sem, err := features.ParseSemantics(stated)
	if err != nil {
		return FeatureOrigin{}, fmt.Errorf("export: %w", err)
	}
	return FeatureOrigin{Origin: features.Origin{Semantics: sem}, Source: OriginStated}, nil
}
