package export

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/pqfile"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/ltr"
	"github.com/lovbench/lovbench/sampling"
)

// File names inside a dataset directory.
const (
	ManifestFile    = ltr.DatasetManifest
	ParquetFile     = "dataset.parquet"
	ArrowFile       = "dataset.arrow"
	QrelsFile       = "qrels.txt"
	GroundTruthFile = sampling.FileGroundTruth
)

// Output is one output file of a build, for the manifest.
type Output struct {
	Path   string `json:"path"` // slash path relative to the dataset directory
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
	Rows   int    `json:"rows"`
}

// PartitionInfo counts one partition.
type PartitionInfo struct {
	Partition int `json:"partition"`
	Queries   int `json:"queries"`
	Rows      int `json:"rows"`
}

// Parameters are the export parameters, as recorded in the manifest.
type Parameters struct {
	Folds    int    `json:"folds"`
	Seed     uint64 `json:"seed"`
	KeepJunk bool   `json:"keep_junk"`
	// LineOrder is the order of a query's rows in every file:
	// LineOrderShuffle (by LineKey of the seed). Absent in datasets
	// written before the label-free line order, whose order leaked the labels.
	LineOrder string `json:"line_order"`
	// FeatureSemantics is the semantics the features were computed with
	// ("reference": LOVBench's Java; "paper": the formulas as printed).
	FeatureSemantics string `json:"feature_semantics,omitempty"`
	// MinConfidence is --min-confidence (0: every label kept).
	MinConfidence float64 `json:"min_confidence,omitempty"`
	// MinQueryAgreement is --min-query-agreement (0: every query kept).
	MinQueryAgreement float64 `json:"min_query_agreement,omitempty"`
	// KeepConfident is --keep-confident (0: not applied), the stratified
	// filter's fraction of each label's rows.
	KeepConfident float64 `json:"keep_confident,omitempty"`
	// KeepAgreeing is --keep-agreeing-queries (0: not applied), the
	// fraction of the queries with an expected agreement kept whole.
	KeepAgreeing float64 `json:"keep_agreeing_queries,omitempty"`
}

// Manifest describes a dataset directory (docs/method.md section 7). It holds no
// wall-clock time, so that reruns with the same inputs are byte-identical.
type Manifest struct {
	Program        string           `json:"program"`
	Version        string           `json:"version"`
	Parameters     Parameters       `json:"parameters"`
	Inputs         []Input          `json:"inputs"`
	Rows           int              `json:"rows"`
	Queries        int              `json:"queries"`
	UnusedFeatures int              `json:"unused_feature_rows"` // feature rows without a ground-truth row
	Features       []Feature        `json:"features"`
	Partitions     []PartitionInfo  `json:"partitions"`
	Folds          []FoldSpec       `json:"folds"`
	Labels         []labels.DistRow `json:"label_distribution"`
	// Confidence is the distribution of the labels' confidence, per label
	// (ConfidenceDistribution of the rows written).
	Confidence []ConfidenceDist `json:"confidence_distribution"`
	// ConfidenceFilter says what --min-confidence, --min-query-agreement,
	// --keep-confident or --keep-agreeing-queries left out; nil without
	// them.
	ConfidenceFilter *ConfidenceFilter `json:"confidence_filter,omitempty"`
	// OrderAgreement sums up the expected agreement of the dataset's
	// queries' label order with the true order (the labels'
	// .query_order.csv, `--query-order`); nil without it.
	OrderAgreement *OrderAgreement `json:"order_agreement,omitempty"`
	Provenance     *Provenance     `json:"provenance,omitempty"`
	// FeatureOrigin is how the features were computed (semantics, corpus
	// SHA-256, program version) and where that is known from; absent in
	// datasets written before export recorded it.
	FeatureOrigin *FeatureOrigin `json:"feature_origin,omitempty"`
	// Publication is what the card, LICENSE.md and croissant.json say of
	// the inputs' licences and the publication; nil if nothing was stated.
	Publication *Publication `json:"publication,omitempty"`
	Outputs     []Output     `json:"outputs"`
}

// hashWriter counts and hashes what goes through it.
type hashWriter struct {
	w io.Writer
	h hash.Hash
	n int64
}

// Write implements io.Writer.
func (hw *hashWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	hw.n += int64(n)
	return n, err
}

// writeOut writes dir/rel atomically through fn and returns its Output.
func writeOut(dir, rel string, rows int, fn func(w io.Writer) error) (Output, error) {
	f, err := atomicfile.Create(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return Output{}, err
	}
	defer f.Abort()
	hw := &hashWriter{w: f, h: sha256.New()}
	if err := fn(hw); err != nil {
		return Output{}, fmt.Errorf("%s: %w", rel, err)
	}
	if err := f.Commit(); err != nil {
		return Output{}, err
	}
	return Output{Path: rel, SHA256: hex.EncodeToString(hw.h.Sum(nil)), Bytes: hw.n, Rows: rows}, nil
}

// svmLines formats every row once, in the dataset's row order (qids
// ascending, each query's lines in the seeded line order): row i is
// buf[ends[i-1]:ends[i]].
func svmLines(ctx context.Context, ds *Dataset, keepJunk bool) (buf []byte, ends []int, err error) {
	ends = make([]int, len(ds.Rows))
	for i, r := range ds.Rows {
		if i%8192 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		buf = strconv.AppendInt(buf, int64(svmLabel(r.Label, keepJunk)), 10)
		buf = append(buf, " qid:"...)
		buf = strconv.AppendInt(buf, int64(r.QID), 10)
		for j, v := range ds.Vector(i) {
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(ds.Features[j].ID), 10)
			buf = append(buf, ':')
			buf = appendFloat(buf, v)
		}
		buf = append(buf, " # "...)
		buf = append(buf, commentSafe(r.Query)...)
		buf = append(buf, ' ')
		buf = append(buf, commentSafe(r.Term)...)
		buf = append(buf, '\n')
		ends[i] = len(buf)
	}
	return buf, ends, nil
}

// ConfidenceColumn is the column of dataset.parquet and dataset.arrow that
// holds the label's confidence (null where it is not known).
const ConfidenceColumn = "confidence"

// manifestFields are the columns of the dataset m describes: Schema's,
// less the confidence column for a manifest written before it
// (m.Confidence nil), whose dataset.parquet has none.
func manifestFields(m *Manifest) []arrow.Field {
	var out []arrow.Field
	for _, f := range Schema(m.Features).Fields() {
		if f.Name == ConfidenceColumn && m.Confidence == nil {
			continue
		}
		out = append(out, f)
	}
	return out
}

// Schema returns the Arrow schema of dataset.parquet and dataset.arrow:
// the fixed columns of datasetColumns (confidence the only nullable one),
// then one float64 column per feature, named by its feature name, in ID
// order.
func Schema(fs []Feature) *arrow.Schema {
	fields := make([]arrow.Field, 0, nFixedColumns+len(fs))
	for _, c := range datasetColumns {
		fields = append(fields, arrow.Field{Name: c.name, Type: c.typ, Nullable: c.nullable})
	}
	for _, f := range fs {
		fields = append(fields, arrow.Field{Name: f.Name, Type: arrow.PrimitiveTypes.Float64})
	}
	return arrow.NewSchema(fields, nil)
}

// record builds the dataset as one Arrow record batch.
func record(ds *Dataset) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	sc := Schema(ds.Features)
	n := len(ds.Rows)
	qb, tb := array.NewStringBuilder(mem), array.NewStringBuilder(mem)
	defer qb.Release()
	defer tb.Release()
	qids, labs, parts := make([]int32, n), make([]int32, n), make([]int32, n)
	qb.Reserve(n)
	tb.Reserve(n)
	for i, r := range ds.Rows {
		qb.Append(r.Query)
		tb.Append(r.Term)
		qids[i], labs[i], parts[i] = int32(r.QID), int32(r.Label), int32(r.Partition)
	}
	cb := array.NewFloat64Builder(mem)
	defer cb.Release()
	cb.Reserve(n)
	for _, r := range ds.Rows {
		if r.Confidence == labels.NoConfidence {
			cb.AppendNull()
		} else {
			cb.Append(r.Confidence)
		}
	}
	cols := make([]arrow.Array, nFixedColumns, nFixedColumns+len(ds.Features))
	cols[colQuery], cols[colQID], cols[colTerm] = qb.NewArray(), array.NewInt32Data(int32Data(qids)), tb.NewArray()
	cols[colLabel], cols[colPartition], cols[colConfidence] = array.NewInt32Data(int32Data(labs)), array.NewInt32Data(int32Data(parts)), cb.NewArray()
	nf := len(ds.Features)
	for j := range ds.Features {
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = ds.Values[i*nf+j]
		}
		cols = append(cols, array.NewFloat64Data(float64Data(vals)))
	}
	rec := array.NewRecordBatch(sc, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

func int32Data(v []int32) arrow.ArrayData {
	return array.NewData(arrow.PrimitiveTypes.Int32, len(v), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(v))}, nil, 0, 0)
}

func float64Data(v []float64) arrow.ArrayData {
	return array.NewData(arrow.PrimitiveTypes.Float64, len(v), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(v))}, nil, 0, 0)
}

// parquetColumns are the columns of dataset.parquet, in the order and with
// the types of Schema, taken from the Arrow record of the same rows: the
// string columns (query and term) dictionary-encoded, the others plain
// (feature values rarely repeat enough), the nullable one optional.
func parquetColumns(ds *Dataset, rec arrow.RecordBatch) []pqfile.Column {
	cols := make([]pqfile.Column, 0, rec.NumCols())
	for c, f := range rec.Schema().Fields() {
		switch a := rec.Column(c).(type) {
		case *array.String:
			cols = append(cols, pqfile.Column{Name: f.Name, Kind: pqfile.String, Dict: true, String: a.Value})
		case *array.Int32:
			cols = append(cols, pqfile.Column{Name: f.Name, Kind: pqfile.Int32, Int32s: a.Int32Values()})
		case *array.Float64:
			if f.Nullable {
				cols = append(cols, nullableColumn(f.Name, a))
			} else {
				cols = append(cols, pqfile.Column{Name: f.Name, Kind: pqfile.Float64, Float64s: a.Float64Values()})
			}
		default:
			panic(fmt.Sprintf("export: column %s of type %s has no Parquet encoding", f.Name, f.Type))
		}
	}
	return cols
}

// Write writes the dataset directory dir (created if missing): the fold
// files, dataset.parquet, dataset.arrow, qrels.txt, ground_truth.csv and,
// last, manifest.json. Every file is written atomically.
func Write(ctx context.Context, dir string, ds *Dataset, inputs []Input, unused int, opts Options) (*Manifest, error) {
	m := &Manifest{
		Program:        "lovbench",
		Version:        opts.Version,
		Parameters:     Parameters{Folds: ds.Folds, Seed: opts.Seed, KeepJunk: opts.KeepJunk, LineOrder: LineOrderShuffle, FeatureSemantics: opts.FeatureSemantics, MinConfidence: opts.MinConfidence, MinQueryAgreement: opts.MinQueryAgreement, KeepConfident: opts.KeepConfident, KeepAgreeing: opts.KeepAgreeing},
		Inputs:         inputs,
		Rows:           len(ds.Rows),
		Queries:        len(ds.Queries),
		UnusedFeatures: unused,
		Provenance:     opts.Provenance,
		FeatureOrigin:  opts.FeatureOrigin,
		Publication:    opts.Publication,
		Features:       ds.Features,
		Folds:          Folds(ds.Folds),
	}
	// The columnar files (mostly encoding) are written in the background
	// while the SVMlight text is formatted and the fold files (mostly disk
	// writes) are written; outputs are sorted by path after.
	var (
		wg      sync.WaitGroup
		colOuts []Output
		colErr  error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		colOuts, colErr = writeColumnar(ctx, dir, ds)
	}()
	buf, ends, err := svmLines(ctx, ds, opts.KeepJunk)
	if err != nil {
		wg.Wait()
		return nil, err
	}
	qcount, counts := make([]int, ds.Folds), make([]int, ds.Folds)
	for _, p := range ds.Parts {
		qcount[p-1]++
	}
	for _, r := range ds.Rows {
		counts[r.Partition-1]++
	}
	for p := range ds.Folds {
		m.Partitions = append(m.Partitions, PartitionInfo{Partition: p + 1, Queries: qcount[p], Rows: counts[p]})
	}
	ls := make([]int, len(ds.Rows))
	for i, r := range ds.Rows {
		ls[i] = r.Label
	}
	m.Labels = labels.Distribution(ls)
	m.Confidence = rowsConfidence(ds.Rows)
	m.ConfidenceFilter = opts.confidenceFilter
	if opts.queryAgreement != nil {
		m.OrderAgreement = orderAgreementOf(ds, opts.queryAgreement)
	}

	foldOuts, foldErr := writeFolds(ctx, dir, m.Folds, ds, buf, ends, counts)
	wg.Wait()
	if foldErr != nil {
		return nil, foldErr
	}
	if colErr != nil {
		return nil, colErr
	}
	m.Outputs = append(foldOuts, colOuts...)
	sort.Slice(m.Outputs, func(i, j int) bool { return m.Outputs[i].Path < m.Outputs[j].Path })
	// The descriptions, each rendered from the manifest as it stands
	// (croissant.json lists the SHA-256 of every file before it).
	for _, d := range descriptions {
		b := d.render(m)
		o, err := writeOut(dir, d.path, 0, func(w io.Writer) error {
			_, err := w.Write(b)
			return err
		})
		if err != nil {
			return nil, err
		}
		m.Outputs = append(m.Outputs, o)
		sort.Slice(m.Outputs, func(i, j int) bool { return m.Outputs[i].Path < m.Outputs[j].Path })
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, ManifestFile), append(b, '\n')); err != nil {
		return nil, err
	}
	return m, nil
}

// writeFolds writes FoldK/{train,vali,test}.txt: the lines of svmLines
// whose partition is one of the file's, in that order, so that every file
// lists its queries in ascending qid order (as XGBoost's ranker and
// scikit-learn's grouped loaders require) even when it joins several
// partitions.
func writeFolds(ctx context.Context, dir string, folds []FoldSpec, ds *Dataset, buf []byte, ends []int, counts []int) ([]Output, error) {
	var outs []Output
	for _, f := range folds {
		for _, set := range []struct {
			name  string
			parts []int
		}{{ltr.SetTrain, f.Train}, {ltr.SetVali, []int{f.Vali}}, {ltr.SetTest, []int{f.Test}}} {
			in := make([]bool, ds.Folds+1)
			for _, p := range set.parts {
				in[p] = true
			}
			rows := 0
			for _, p := range set.parts {
				rows += counts[p-1]
			}
			o, err := writeOut(dir, ltr.FoldFile(f.Fold, set.name), rows, func(w io.Writer) error {
				// Runs of consecutive rows of the file's partitions (whole
				// queries) are written in one call each.
				start := -1
				for i, r := range ds.Rows {
					switch {
					case in[r.Partition] && start < 0:
						start = i
					case !in[r.Partition] && start >= 0:
						if err := writeRows(w, buf, ends, start, i); err != nil {
							return err
						}
						start = -1
					}
				}
				if start >= 0 {
					return writeRows(w, buf, ends, start, len(ds.Rows))
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			outs = append(outs, o)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	return outs, nil
}

// writeRows writes the lines of rows [lo, hi) of svmLines' buffer.
func writeRows(w io.Writer, buf []byte, ends []int, lo, hi int) error {
	from := 0
	if lo > 0 {
		from = ends[lo-1]
	}
	_, err := w.Write(buf[from:ends[hi-1]])
	return err
}

// writeParquetTo writes the dataset.parquet content of ds (whose Arrow
// record is rec) to w.
func writeParquetTo(w io.Writer, ds *Dataset, rec arrow.RecordBatch) error {
	return pqfile.Write(w, parquetColumns(ds, rec), len(ds.Rows), 0)
}

// writeColumnar writes dataset.arrow, dataset.parquet, qrels.txt,
// ground_truth.csv and the partition files (writePartitions).
func writeColumnar(ctx context.Context, dir string, ds *Dataset) ([]Output, error) {
	var outs []Output
	add := func(o Output, err error) error {
		if err != nil {
			return err
		}
		outs = append(outs, o)
		return ctx.Err()
	}
	rec := record(ds)
	defer rec.Release()
	if err := add(writeOut(dir, ArrowFile, len(ds.Rows), func(w io.Writer) error {
		fw, err := ipc.NewFileWriter(w, ipc.WithSchema(rec.Schema()))
		if err != nil {
			return err
		}
		if err := fw.Write(rec); err != nil {
			return err
		}
		return fw.Close()
	})); err != nil {
		return nil, err
	}
	if err := add(writeOut(dir, ParquetFile, len(ds.Rows), func(w io.Writer) error {
		return writeParquetTo(w, ds, rec)
	})); err != nil {
		return nil, err
	}
	if err := add(writeOut(dir, QrelsFile, len(ds.Rows), func(w io.Writer) error {
		var b []byte
		for i, r := range ds.Rows {
			b = strconv.AppendInt(b, int64(r.QID), 10)
			b = append(b, " 0 "...)
			b = append(b, r.Term...)
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(r.Label), 10)
			b = append(b, '\n')
			if len(b) > 64<<10 || i == len(ds.Rows)-1 {
				if _, err := w.Write(b); err != nil {
					return err
				}
				b = b[:0]
			}
		}
		return nil
	})); err != nil {
		return nil, err
	}
	if err := add(writeOut(dir, GroundTruthFile, len(ds.Rows), func(w io.Writer) error {
		rows := make([]sampling.Row, len(ds.Rows))
		for i, r := range ds.Rows {
			rows[i] = sampling.Row{Query: r.Query, Term: r.Term, Label: r.Label, Confidence: r.Confidence}
		}
		return sampling.WriteGroundTruth(w, rows)
	})); err != nil {
		return nil, err
	}
	parts, err := writePartitions(ctx, dir, ds, rec)
	if err != nil {
		return nil, err
	}
	return append(outs, parts...), nil
}
