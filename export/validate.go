package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/filehash"
	"github.com/lovbench/lovbench/internal/par"
	"github.com/lovbench/lovbench/internal/pqfile"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/ltr"
	"github.com/lovbench/lovbench/sampling"
)

// MaxProblems caps the problems a Validation lists; the rest are counted.
const MaxProblems = 200

// Validation is the result of Validate.
type Validation struct {
	Dir      string   `json:"dir"`
	Valid    bool     `json:"valid"`
	Rows     int      `json:"rows"`
	Queries  int      `json:"queries"`
	Folds    int      `json:"folds"`
	Problems []string `json:"problems"`
	More     int      `json:"more_problems"` // problems beyond MaxProblems
	// Extreme counts the feature values of magnitude ExtremeThreshold or
	// more per column (ExtremeValues): valid, but a z-score over them
	// overflows.
	Extreme map[string]int `json:"extreme_values,omitempty"`
	// Constant lists the feature columns with one value in every row
	// (ConstantColumns): valid, but they cannot rank (a warning).
	Constant []features.Constant `json:"constant_features,omitempty"`
	// CroissantMissing lists the properties Croissant 1.0 requires that
	// croissant.json lacks because only publishing the dataset gives them
	// (url, creator, datePublished: export --url, --creator,
	// --date-published). The dataset is valid without them, but not ready
	// to be published.
	CroissantMissing []string `json:"croissant_missing,omitempty"`
	// Degenerate lists what the dataset has below DefaultMinimums, one
	// sentence per fold and minimum (minimumProblems): its files may be
	// sound (Valid), but it is too small to be a benchmark, and lovbench
	// validate fails on it, as run does, unless --allow-degenerate.
	Degenerate []string `json:"degenerate,omitempty"`

	// recorded holds the manifest's SHA-256 of every file it lists, by
	// slash path: croissant.json's checksums are checked against these
	// (the manifest's against the files), so no file is hashed twice and
	// one changed file is one problem.
	recorded map[string]string
}

func (v *Validation) addf(format string, args ...any) {
	if len(v.Problems) >= MaxProblems {
		v.More++
		return
	}
	v.Problems = append(v.Problems, fmt.Sprintf(format, args...))
}

// Columns is the content of dataset.parquet or dataset.arrow, by column.
type Columns struct {
	Query, Term           []string
	QID, Label, Partition []int32
	// Confidence is the confidence column, labels.NoConfidence for a null;
	// nil in datasets written before the column.
	Confidence   []float64
	FeatureNames []string
	Features     [][]float64 // per feature column
}

// confidenceAt says whether names has the confidence column after the base
// columns, and returns the index of the first feature column.
func confidenceAt(names []string) (bool, int) {
	n := len(baseColumns)
	if len(names) > n && names[n] == ConfidenceColumn {
		return true, n + 1
	}
	return false, n
}

// ReadParquetColumns reads a dataset.parquet with parquet-go (package
// pqfile), checking the column names and physical types of Schema.
func ReadParquetColumns(ctx context.Context, p string) (*Columns, error) {
	tab, err := pqfile.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	names := tab.Names()
	want := baseColumns
	if len(names) < len(want) || !slices.Equal(names[:len(want)], want) {
		return nil, fmt.Errorf("%s: columns %v do not start with %v", p, names[:min(len(names), len(want))], want)
	}
	hasConf, first := confidenceAt(names)
	for i, col := range tab.Columns {
		wantType := "DOUBLE" // the features'
		if i < first {
			wantType = physicalType[datasetColumns[i].typ.ID()]
		}
		if col.Physical != wantType {
			return nil, fmt.Errorf("%s: column %s: type %s, want %s", p, col.Name, col.Physical, wantType)
		}
		if col.Nulls > 0 && !(hasConf && i == colConfidence) {
			return nil, fmt.Errorf("%s: column %s: %d nulls", p, col.Name, col.Nulls)
		}
	}
	c := &Columns{
		Query: tab.Columns[colQuery].Strings, QID: tab.Columns[colQID].Int32s, Term: tab.Columns[colTerm].Strings,
		Label: tab.Columns[colLabel].Int32s, Partition: tab.Columns[colPartition].Int32s, FeatureNames: names[first:],
	}
	if hasConf {
		col := tab.Columns[colConfidence]
		c.Confidence = slices.Clone(col.Float64s)
		for i, null := range col.Null {
			if null {
				c.Confidence[i] = labels.NoConfidence
			}
		}
	}
	for _, col := range tab.Columns[first:] {
		c.Features = append(c.Features, col.Float64s)
	}
	return c, nil
}

// ReadArrowColumns reads a dataset.arrow (Arrow IPC file format).
func ReadArrowColumns(p string) (*Columns, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	defer r.Close()
	sc := r.Schema()
	names := make([]string, sc.NumFields())
	for i, fl := range sc.Fields() {
		names[i] = fl.Name
	}
	cols := make([][]arrow.Array, len(names))
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.RecordBatchAt(i)
		if err != nil {
			return nil, fmt.Errorf("%s: record %d: %w", p, i, err)
		}
		for c := range cols {
			col := rec.Column(c)
			col.Retain()
			cols[c] = append(cols[c], col)
		}
		rec.Release()
	}
	defer func() {
		for _, cs := range cols {
			for _, c := range cs {
				c.Release()
			}
		}
	}()
	c, err := toColumns(names, cols)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return c, nil
}

func toColumns(names []string, cols [][]arrow.Array) (*Columns, error) {
	want := baseColumns
	if len(names) < len(want) || !slices.Equal(names[:len(want)], want) {
		return nil, fmt.Errorf("columns %v do not start with %v", names[:min(len(names), len(want))], want)
	}
	hasConf, first := confidenceAt(names)
	c := &Columns{FeatureNames: names[first:]}
	strs := func(i int) ([]string, error) {
		var out []string
		for _, a := range cols[i] {
			s, err := stringColumn(a)
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", names[i], err)
			}
			out = append(out, s...)
		}
		return out, nil
	}
	ints := func(i int) ([]int32, error) {
		var out []int32
		for _, a := range cols[i] {
			ia, ok := a.(*array.Int32)
			if !ok {
				return nil, fmt.Errorf("column %s: type %s, want int32", names[i], a.DataType())
			}
			if ia.NullN() > 0 {
				return nil, fmt.Errorf("column %s: %d nulls", names[i], ia.NullN())
			}
			out = append(out, ia.Int32Values()...)
		}
		return out, nil
	}
	var err error
	if c.Query, err = strs(colQuery); err != nil {
		return nil, err
	}
	if c.QID, err = ints(colQID); err != nil {
		return nil, err
	}
	if c.Term, err = strs(colTerm); err != nil {
		return nil, err
	}
	if c.Label, err = ints(colLabel); err != nil {
		return nil, err
	}
	if c.Partition, err = ints(colPartition); err != nil {
		return nil, err
	}
	if hasConf {
		c.Confidence = []float64{}
		for _, a := range cols[colConfidence] {
			fa, ok := a.(*array.Float64)
			if !ok {
				return nil, fmt.Errorf("column %s: type %s, want float64", ConfidenceColumn, a.DataType())
			}
			for i := range fa.Len() {
				if fa.IsNull(i) {
					c.Confidence = append(c.Confidence, labels.NoConfidence)
				} else {
					c.Confidence = append(c.Confidence, fa.Value(i))
				}
			}
		}
	}
	for i := first; i < len(names); i++ {
		var vals []float64
		for _, a := range cols[i] {
			fa, ok := a.(*array.Float64)
			if !ok {
				return nil, fmt.Errorf("column %s: type %s, want float64", names[i], a.DataType())
			}
			if fa.NullN() > 0 {
				return nil, fmt.Errorf("column %s: %d nulls", names[i], fa.NullN())
			}
			vals = append(vals, fa.Float64Values()...)
		}
		c.Features = append(c.Features, vals)
	}
	return c, nil
}

// Validate re-reads a dataset directory written by Write and checks it:
// every output listed in the manifest exists with its SHA-256 and size and
// nothing else is there; the ground truth, Parquet, Arrow, qrels and fold
// files hold the same rows; the feature columns are complete (1..33 by
// name, every value finite); every query has one qid and one partition;
// the folds follow the LETOR rotation, train/vali/test are disjoint within a
// fold and cover all queries, and every query is in exactly one test fold.
// An unreadable manifest is itself a problem; the returned error is only
// for a cancelled context.
func Validate(ctx context.Context, dir string) (*Validation, error) {
	v := &Validation{Dir: dir}
	defer func() { v.Valid = len(v.Problems) == 0 && v.More == 0 }()
	m := validateManifest(v, dir)
	if m == nil {
		return v, nil
	}
	validateFiles(v, dir, m)
	validatePartitions(v, dir, m)
	if err := ctx.Err(); err != nil {
		return v, err
	}
	gt, pq := validateRows(ctx, v, dir, m)
	if err := ctx.Err(); err != nil || pq == nil {
		return v, err
	}
	qs := validateQueries(v, m, pq)
	v.Degenerate = minimumProblems(m.Parameters.Folds, pq, DefaultMinimums())
	if err := validateFolds(ctx, v, dir, m, pq, qs, len(gt)); err != nil {
		return v, err
	}
	checkQrels(v, filepath.Join(dir, QrelsFile), pq)
	return v, ctx.Err()
}

// validateManifest reads the manifest and checks its parameters; nil when
// it cannot be read or has too few folds to check the rest.
func validateManifest(v *Validation, dir string) *Manifest {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		v.addf("manifest: %v", err)
		return nil
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		v.addf("%s: %v", ManifestFile, err)
		return nil
	}
	v.Folds, v.Rows, v.Queries = m.Parameters.Folds, m.Rows, m.Queries
	if m.Parameters.Folds < MinFolds {
		v.addf("%s: %d folds; a dataset has at least %d", ManifestFile, m.Parameters.Folds, MinFolds)
		return nil
	}
	if m.Parameters.LineOrder != LineOrderShuffle {
		if m.Parameters.LineOrder == "" {
			v.addf("%s: no parameters.line_order: written before lines were shuffled within each query, so the line order may leak the labels; export again", ManifestFile)
		} else {
			v.addf("%s: parameters.line_order %q, want %q", ManifestFile, m.Parameters.LineOrder, LineOrderShuffle)
		}
	}
	return &m
}

// validateFiles checks that every output the manifest lists exists with
// its SHA-256, that nothing else is in the directory, that every expected
// file is listed, and the dataset card.
func validateFiles(v *Validation, dir string, m *Manifest) {
	// The index of every output directory (see atomicfile.CreateDir) is
	// not the dataset's, nor is the mark of a directory still being built
	// (atomicfile.StagingFile: the pipeline's export stage validates its
	// output before the stage is committed).
	listed := map[string]bool{ManifestFile: true, atomicfile.IndexFile: true, atomicfile.StagingFile: true}
	for _, o := range m.Outputs {
		if !filepath.IsLocal(filepath.FromSlash(o.Path)) {
			v.addf("%s: output path %s leaves the dataset directory", ManifestFile, textio.Quote(o.Path))
			continue
		}
		listed[o.Path] = true
		if v.recorded == nil {
			v.recorded = map[string]string{}
		}
		v.recorded[o.Path] = o.SHA256
		sum, err := filehash.SHA256(filepath.Join(dir, filepath.FromSlash(o.Path)))
		switch {
		case err != nil:
			v.addf("%s: %v", o.Path, err)
		case sum != o.SHA256:
			v.addf("%s: SHA-256 %s, manifest says %s", o.Path, sum, o.SHA256)
		}
	}
	checkCard(v, dir, m, listed[CardFile])
	checkDescriptions(v, dir, m, listed)
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if !listed[filepath.ToSlash(rel)] {
			v.addf("%s: not listed in the manifest", filepath.ToSlash(rel))
		}
		return nil
	})
	var want []string
	for _, f := range Folds(m.Parameters.Folds) {
		for _, s := range ltr.FoldSets() {
			want = append(want, ltr.FoldFile(f.Fold, s))
		}
	}
	want = append(want, ArrowFile, ParquetFile, QrelsFile, GroundTruthFile)
	for _, w := range want {
		if !listed[w] {
			v.addf("manifest does not list %s", w)
		}
	}
}

// validateRows reads the ground truth, Parquet and Arrow files and checks
// that they hold the same rows. It returns the ground truth and the
// Parquet columns, pq nil when a file cannot be read or the columns are
// incomplete, so that the per-query checks cannot run.
func validateRows(ctx context.Context, v *Validation, dir string, m *Manifest) ([]sampling.Row, *Columns) {
	var gt []sampling.Row
	if f, err := os.Open(filepath.Join(dir, GroundTruthFile)); err != nil {
		v.addf("%s: %v", GroundTruthFile, err)
	} else {
		gt, err = sampling.ReadGroundTruth(f, GroundTruthFile)
		f.Close()
		if err != nil {
			v.addf("%v", err)
		}
	}
	pq, err := recovered(func() (*Columns, error) { return ReadParquetColumns(ctx, filepath.Join(dir, ParquetFile)) })
	if err != nil {
		v.addf("%s: %v", ParquetFile, err)
	}
	ar, err := recovered(func() (*Columns, error) { return ReadArrowColumns(filepath.Join(dir, ArrowFile)) })
	if err != nil {
		v.addf("%s: %v", ArrowFile, err)
	}
	if pq == nil || ar == nil || gt == nil {
		return gt, nil
	}
	n := len(gt)
	if n != m.Rows {
		v.addf("%s: %d rows, manifest says %d", GroundTruthFile, n, m.Rows)
	}
	for _, c := range []struct {
		name string
		c    *Columns
	}{{ParquetFile, pq}, {ArrowFile, ar}} {
		checkColumns(v, c.name, c.c, gt)
	}
	compareColumns(v, pq, ar)
	checkConfidenceManifest(v, m, gt)
	v.Extreme = ExtremeValues(pq)
	v.Constant = ConstantColumns(pq)
	if len(pq.Query) != n || len(pq.Features) == 0 {
		return gt, nil
	}
	return gt, pq
}

// queryIndex is what validateQueries learns of the queries: the query of
// each qid, the partition of each qid and the row of each (qid, term).
type queryIndex struct {
	qidQuery map[int32]string
	qidPart  map[int32]int32
	rowOf    map[rowKey]int
}

// validateQueries checks, on the Parquet rows, the line order, that every
// query has one qid and one partition, and the query and partition counts
// of the manifest.
func validateQueries(v *Validation, m *Manifest, pq *Columns) queryIndex {
	n := len(pq.Query)
	qs := queryIndex{qidQuery: map[int32]string{}, qidPart: map[int32]int32{}, rowOf: make(map[rowKey]int, n)}
	queryQID := map[string]int32{}
	partRows := map[int32]int{}
	badOrder, firstBad := 0, 0
	var prevKey uint64
	for i := range n {
		q, id, p := pq.Query[i], pq.QID[i], pq.Partition[i]
		// Line order: qids ascending, then LineKey ascending (ties by term).
		key := LineKey(m.Parameters.Seed, q, pq.Term[i])
		if i > 0 && (id < pq.QID[i-1] || id == pq.QID[i-1] && (key < prevKey || key == prevKey && pq.Term[i] < pq.Term[i-1])) {
			if badOrder++; badOrder == 1 {
				firstBad = i + 1
			}
		}
		prevKey = key
		if prev, ok := qs.qidQuery[id]; ok && prev != q {
			v.addf("%s: row %d: qid %d is query %s and %s", ParquetFile, i+1, id, textio.Quote(prev), textio.Quote(q))
		}
		if prev, ok := queryQID[q]; ok && prev != id {
			v.addf("%s: row %d: query %s has qids %d and %d", ParquetFile, i+1, textio.Quote(q), prev, id)
		}
		if prev, ok := qs.qidPart[id]; ok && prev != p {
			v.addf("%s: row %d: query %s is split across partitions %d and %d", ParquetFile, i+1, textio.Quote(q), prev, p)
		}
		if p < 1 || int(p) > m.Parameters.Folds {
			v.addf("%s: row %d: partition %d outside 1..%d", ParquetFile, i+1, p, m.Parameters.Folds)
		}
		qs.qidQuery[id], queryQID[q], qs.qidPart[id] = q, id, p
		partRows[p]++
		qs.rowOf[rowKey{id, pq.Term[i]}] = i
	}
	if badOrder > 0 {
		v.addf("%s: %d rows out of the %s line order (qid, then the seeded key of each term), the first at row %d", ParquetFile, badOrder, LineOrderShuffle, firstBad)
	}
	if len(qs.qidQuery) != m.Queries {
		v.addf("%d queries, manifest says %d", len(qs.qidQuery), m.Queries)
	}
	for _, pi := range m.Partitions {
		if partRows[int32(pi.Partition)] != pi.Rows {
			v.addf("partition %d: %d rows, manifest says %d", pi.Partition, partRows[int32(pi.Partition)], pi.Rows)
		}
	}
	return qs
}

// validateFolds checks the fold rotation of the manifest and every fold
// file against the Parquet rows (in parallel, problems merged in file
// order): train, vali and test disjoint, together all n rows, every query
// in exactly one test fold.
func validateFolds(ctx context.Context, v *Validation, dir string, m *Manifest, pq *Columns, qs queryIndex, n int) error {
	if !slices.EqualFunc(m.Folds, Folds(m.Parameters.Folds), func(a, b FoldSpec) bool {
		return a.Fold == b.Fold && a.Vali == b.Vali && a.Test == b.Test && slices.Equal(a.Train, b.Train)
	}) {
		v.addf("manifest folds %v are not the rotation %v", m.Folds, Folds(m.Parameters.Folds))
	}
	// Feature columns by ID, for comparing SVMlight values.
	byID := map[int][]float64{}
	for j, name := range pq.FeatureNames {
		for _, f := range FeatureList() {
			if f.Name == name {
				byID[f.ID] = pq.Features[j]
			}
		}
	}
	type job struct {
		fold int
		set  string
		rel  string
		part []int
	}
	var jobs []job
	for _, f := range Folds(m.Parameters.Folds) {
		jobs = append(jobs, job{f.Fold, ltr.SetTrain, ltr.FoldFile(f.Fold, ltr.SetTrain), f.Train},
			job{f.Fold, ltr.SetVali, ltr.FoldFile(f.Fold, ltr.SetVali), []int{f.Vali}},
			job{f.Fold, ltr.SetTest, ltr.FoldFile(f.Fold, ltr.SetTest), []int{f.Test}})
	}
	results := make([]svmResult, len(jobs))
	err := par.Each(ctx, len(jobs), 0, func(_ context.Context, i int) error {
		j := jobs[i]
		results[i] = checkSVM(filepath.Join(dir, filepath.FromSlash(j.rel)), j.rel, j.part, qs.qidPart, qs.rowOf, byID, pq.Label, m.Parameters.KeepJunk)
		return nil
	})
	if err != nil {
		return err
	}
	testFolds := map[int32]int{}
	for k := 0; k < len(jobs); k += 3 {
		sets := map[string]map[int32]bool{}
		total := 0
		for i := k; i < k+3; i++ {
			for _, p := range results[i].problems {
				v.addf("%s", p)
			}
			sets[jobs[i].set] = results[i].qids
			total += results[i].rows
			if jobs[i].set == ltr.SetTest {
				for q := range results[i].qids {
					testFolds[q]++
				}
			}
		}
		fold := jobs[k].fold
		for _, pair := range [][2]string{{ltr.SetTrain, ltr.SetVali}, {ltr.SetTrain, ltr.SetTest}, {ltr.SetVali, ltr.SetTest}} {
			var both []int32
			for q := range sets[pair[0]] {
				if sets[pair[1]][q] {
					both = append(both, q)
				}
			}
			slices.Sort(both)
			for _, q := range both {
				v.addf("%s: qid %d is in both %s and %s", ltr.FoldDir(fold), q, pair[0], pair[1])
			}
		}
		if total != n {
			v.addf("%s: %d rows in train+vali+test, dataset has %d", ltr.FoldDir(fold), total, n)
		}
	}
	ids := make([]int32, 0, len(qs.qidQuery))
	for id := range qs.qidQuery {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if testFolds[id] != 1 {
			v.addf("query %s (qid %d) is in %d test folds, want exactly 1", textio.Quote(qs.qidQuery[id]), id, testFolds[id])
		}
	}
	return nil
}

// recovered runs read and turns a panic of the Arrow or Parquet decoders on
// a corrupt file into an error.
func recovered(read func() (*Columns, error)) (c *Columns, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("corrupt file: %v", r)
		}
	}()
	return read()
}

// checkColumns checks one columnar file against the ground truth: row count,
// query/term/label per row, feature columns 1..33 present by name, known
// names only, every value finite.
func checkColumns(v *Validation, name string, c *Columns, gt []sampling.Row) {
	if len(c.Query) != len(gt) {
		v.addf("%s: %d rows, %s has %d", name, len(c.Query), GroundTruthFile, len(gt))
		return
	}
	bad := 0
	for i, r := range gt {
		if c.Query[i] != r.Query || c.Term[i] != r.Term || int(c.Label[i]) != r.Label {
			if bad++; bad <= 5 {
				v.addf("%s: row %d is (%s, %s, %d), %s row %d is (%s, %s, %d)", name, i+1, c.Query[i], c.Term[i], c.Label[i], GroundTruthFile, i+2, r.Query, r.Term, r.Label)
			}
		}
	}
	if bad > 5 {
		v.addf("%s: %d more rows differ from %s", name, bad-5, GroundTruthFile)
	}
	checkConfidenceColumn(v, name, c.Confidence, gt)
	known := map[string]int{}
	for _, f := range FeatureList() {
		known[f.Name] = f.ID
	}
	have := map[int]bool{}
	for j, fn := range c.FeatureNames {
		id, ok := known[fn]
		if !ok {
			v.addf("%s: column %s is not a feature name", name, textio.Quote(fn))
			continue
		}
		have[id] = true
		for i, x := range c.Features[j] {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				v.addf("%s: row %d: feature %s is %v", name, i+1, fn, x)
				break
			}
		}
	}
	for id := 1; id <= RequiredFeatures; id++ {
		if !have[id] {
			v.addf("%s: feature column %d (%s) is missing", name, id, FeatureList()[id-1].Name)
		}
	}
}

// compareColumns checks that the Parquet and Arrow files hold the same data.
func compareColumns(v *Validation, a, b *Columns) {
	if a == nil || b == nil {
		return
	}
	if !slices.Equal(a.FeatureNames, b.FeatureNames) {
		v.addf("%s and %s have different feature columns", ParquetFile, ArrowFile)
		return
	}
	same := slices.Equal(a.Query, b.Query) && slices.Equal(a.Term, b.Term) && slices.Equal(a.QID, b.QID) &&
		slices.Equal(a.Label, b.Label) && slices.Equal(a.Partition, b.Partition) &&
		(a.Confidence == nil) == (b.Confidence == nil) && slices.Equal(a.Confidence, b.Confidence)
	for j := range a.Features {
		same = same && slices.Equal(a.Features[j], b.Features[j])
	}
	if !same {
		v.addf("%s and %s differ", ParquetFile, ArrowFile)
	}
}

// rowKey identifies a dataset row by qid and term.
type rowKey struct {
	qid  int32
	term string
}

// svmResult is what checkSVM found in one fold file.
type svmResult struct {
	problems []string
	qids     map[int32]bool
	rows     int
}

// nextField returns the space-separated field of b at i and the index after
// it.
func nextField(b []byte, i int) ([]byte, int) {
	for i < len(b) && b[i] == ' ' {
		i++
	}
	j := i
	for j < len(b) && b[j] != ' ' {
		j++
	}
	return b[i:j], j
}

// checkSVM checks one fold file: every line parses, its qid belongs to one of
// the file's partitions, its label is the dataset label (junk as 0 unless
// keepJunk), it has features 1..33, all finite and equal to the dataset's.
// At most 5 problems per file are listed, then a count of the rest.
func checkSVM(p, rel string, parts []int, qidPart map[int32]int32, rowOf map[rowKey]int, byID map[int][]float64, label []int32, keepJunk bool) svmResult {
	res := svmResult{qids: map[int32]bool{}}
	f, err := os.Open(p)
	if err != nil {
		res.problems = append(res.problems, fmt.Sprintf("%s: %v", rel, err))
		return res
	}
	defer f.Close()
	maxID := 0
	for id := range byID {
		maxID = max(maxID, id)
	}
	cols := make([][]float64, max(maxID, RequiredFeatures)+1)
	for id, c := range byID {
		cols[id] = c
	}
	seen := make([]bool, len(cols))
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	lines, bad := 0, 0
	prevQID, prevRow := int32(-1), -1
	report := func(format string, args ...any) {
		if bad++; bad <= 5 {
			res.problems = append(res.problems, fmt.Sprintf(format, args...))
		}
	}
	for sc.Scan() {
		lines++
		line := sc.Bytes()
		hash := bytes.Index(line, []byte(" # "))
		if hash < 0 {
			report("%s:%d: no \"# query term\" comment", rel, lines)
			continue
		}
		comment := line[hash+3:]
		term := string(comment[bytes.LastIndexByte(comment, ' ')+1:])
		data := line[:hash]
		labF, i := nextField(data, 0)
		qidF, i := nextField(data, i)
		lab, err1 := strconv.Atoi(string(labF))
		if !bytes.HasPrefix(qidF, []byte("qid:")) {
			report("%s:%d: want `label qid:N id:value ...`", rel, lines)
			continue
		}
		qid64, err2 := strconv.ParseInt(string(qidF[4:]), 10, 32)
		if err1 != nil || err2 != nil {
			report("%s:%d: bad label or qid", rel, lines)
			continue
		}
		qid := int32(qid64)
		res.qids[qid] = true
		part, ok := qidPart[qid]
		if !ok {
			report("%s:%d: qid %d is not in the dataset", rel, lines, qid)
			continue
		}
		if !slices.Contains(parts, int(part)) {
			report("%s:%d: qid %d is in partition %d, not in this file's partitions %v", rel, lines, qid, part, parts)
		}
		row, ok := rowOf[rowKey{qid, term}]
		if !ok {
			report("%s:%d: (qid %d, %s) is not a dataset row", rel, lines, qid, term)
			continue
		}
		switch {
		case qid < prevQID:
			report("%s:%d: qid %d after qid %d: the queries of a fold file must be in ascending qid order", rel, lines, qid, prevQID)
		case qid == prevQID && row <= prevRow:
			report("%s:%d: (qid %d, %s) comes before the previous line in the dataset's line order", rel, lines, qid, term)
		}
		prevQID, prevRow = qid, row
		if want := svmLabel(int(label[row]), keepJunk); lab != want {
			report("%s:%d: label %d, dataset says %d", rel, lines, lab, want)
		}
		clear(seen)
		for {
			var fv []byte
			fv, i = nextField(data, i)
			if len(fv) == 0 {
				break
			}
			c := bytes.IndexByte(fv, ':')
			if c < 0 {
				report("%s:%d: bad feature %s", rel, lines, textio.QuoteBytes(fv))
				continue
			}
			id, err := strconv.Atoi(string(fv[:c]))
			x, err2 := strconv.ParseFloat(string(fv[c+1:]), 64)
			switch {
			case err != nil || err2 != nil:
				report("%s:%d: bad feature %s", rel, lines, textio.QuoteBytes(fv))
			case math.IsNaN(x) || math.IsInf(x, 0):
				report("%s:%d: feature %d is %v", rel, lines, id, x)
			case id <= 0 || id >= len(cols) || cols[id] == nil:
				report("%s:%d: feature %d is not a dataset column", rel, lines, id)
			case seen[id]:
				report("%s:%d: feature %d appears twice", rel, lines, id)
			default:
				seen[id] = true
				if cols[id][row] != x {
					report("%s:%d: feature %d is %v, dataset says %v", rel, lines, id, x, cols[id][row])
				}
			}
		}
		for id := 1; id <= RequiredFeatures; id++ {
			if !seen[id] {
				report("%s:%d: feature %d missing", rel, lines, id)
				break
			}
		}
	}
	if err := sc.Err(); err != nil {
		res.problems = append(res.problems, fmt.Sprintf("%s: %v", rel, err))
	}
	if bad > 5 {
		res.problems = append(res.problems, fmt.Sprintf("%s: %d more problems", rel, bad-5))
	}
	res.rows = lines
	return res
}

// checkQrels checks qrels.txt line by line against the dataset rows.
func checkQrels(v *Validation, p string, c *Columns) {
	f, err := os.Open(p)
	if err != nil {
		v.addf("%s: %v", QrelsFile, err)
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	i := 0
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if i >= len(c.Query) {
			i++
			continue
		}
		want := []string{strconv.Itoa(int(c.QID[i])), "0", c.Term[i], strconv.Itoa(int(c.Label[i]))}
		if !slices.Equal(fs, want) {
			v.addf("%s:%d: %s, want %s", QrelsFile, i+1, textio.Quote(sc.Text()), textio.Quote(strings.Join(want, " ")))
			return
		}
		i++
	}
	if i != len(c.Query) {
		v.addf("%s: %d lines, dataset has %d rows", QrelsFile, i, len(c.Query))
	}
}

// checkCard checks that the dataset card agrees with the manifest: it is
// the card RenderCard makes of the manifest, byte for byte. A dataset
// written before export wrote cards has none listed and is not checked.
func checkCard(v *Validation, dir string, m *Manifest, listed bool) {
	if !listed {
		return
	}
	b, err := os.ReadFile(filepath.Join(dir, CardFile))
	if err != nil {
		return // reported with the checksums
	}
	if !bytes.Equal(b, RenderCard(m)) {
		v.addf("%s: the dataset card does not agree with %s (export again to rewrite it)", CardFile, ManifestFile)
	}
}
