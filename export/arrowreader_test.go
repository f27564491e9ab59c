package export

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/lovbench/lovbench/internal/pqfile"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/ltr"
)

// arrowRow is one row of a dataset Parquet file as Apache Arrow's reader
// gives it.
type arrowRow struct {
	query, term     string
	qid, partition  int32
	confidence      float64
	confidenceValid bool
}

// readWithArrow reads a Parquet file with Apache Arrow's Go Parquet reader
// (pqarrow), an implementation independent of parquet-go, which lovbench
// writes with; it returns the Arrow schema and the rows.
func readWithArrow(t *testing.T, p string) (*arrow.Schema, []arrowRow) {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tbl, err := pqarrow.ReadTable(context.Background(), f, parquet.NewReaderProperties(memory.DefaultAllocator),
		pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("%s: Arrow's reader: %v", p, err)
	}
	defer tbl.Release()
	col := map[string]int{}
	for i, fl := range tbl.Schema().Fields() {
		col[fl.Name] = i
	}
	rows := make([]arrowRow, tbl.NumRows())
	fill := func(name string, set func(r *arrowRow, a arrow.Array, i int)) {
		j, ok := col[name]
		if !ok {
			t.Fatalf("%s: no column %s", p, name)
		}
		k := 0
		for _, ch := range tbl.Column(j).Data().Chunks() {
			for i := 0; i < ch.Len(); i++ {
				set(&rows[k], ch, i)
				k++
			}
		}
	}
	fill("query", func(r *arrowRow, a arrow.Array, i int) { r.query = a.(*array.String).Value(i) })
	fill("term", func(r *arrowRow, a arrow.Array, i int) { r.term = a.(*array.String).Value(i) })
	fill("qid", func(r *arrowRow, a arrow.Array, i int) { r.qid = a.(*array.Int32).Value(i) })
	fill("partition", func(r *arrowRow, a arrow.Array, i int) { r.partition = a.(*array.Int32).Value(i) })
	fill(ConfidenceColumn, func(r *arrowRow, a arrow.Array, i int) {
		r.confidenceValid = a.IsValid(i)
		if r.confidenceValid {
			r.confidence = a.(*array.Float64).Value(i)
		}
	})
	return tbl.Schema(), rows
}

// svmQIDs returns the qids of a RankLib/SVMlight file, each once.
func svmQIDs(t *testing.T, p string) map[int32]bool {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int32]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 2 || !strings.HasPrefix(fs[1], "qid:") {
			t.Fatalf("%s: line %q has no qid", p, sc.Text())
		}
		q, err := strconv.Atoi(strings.TrimPrefix(fs[1], "qid:"))
		if err != nil {
			t.Fatal(err)
		}
		out[int32(q)] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The dataset read by an independent reader (Apache Arrow's Go Parquet
// reader, not parquet-go, which writes it): dataset.parquet and every
// partitions/partition-K.parquet have one schema, field for field with
// the same types and nullability (confidence nullable); confidence is null
// exactly where the ground truth given to export has no confidence (the
// sampled terms 4 and 5 of every query, see testInput), in the whole
// dataset and in each partition; each partition file holds the rows of
// dataset.parquet in that partition; and each fold's train, vali and test
// files hold the qids of the partitions LETOR's rotation gives them
// (fold k: train k, k+1, k+2, vali k+3, test k+4, modulo 5).
func TestDatasetReadByArrow(t *testing.T) {
	dir, gt, _ := buildDir(t, Options{Seed: 4})
	schema, all := readWithArrow(t, filepath.Join(dir, ParquetFile))
	if len(all) != len(gt) {
		t.Fatalf("%d rows, ground truth %d", len(all), len(gt))
	}
	conf := schema.Field(schema.FieldIndices(ConfidenceColumn)[0])
	if !conf.Nullable || conf.Type.ID() != arrow.FLOAT64 {
		t.Errorf("dataset.parquet: confidence %v, want a nullable float64", conf)
	}
	wantNull := map[[2]string]bool{}
	for _, r := range gt {
		wantNull[[2]string{r.Query, r.Term}] = r.Confidence == labels.NoConfidence
	}
	checkNulls := func(name string, rows []arrowRow) {
		nulls := 0
		for _, r := range rows {
			if !r.confidenceValid {
				nulls++
			}
			if w, ok := wantNull[[2]string{r.query, r.term}]; !ok || w == r.confidenceValid {
				t.Errorf("%s: (%s, %s): confidence null %v, ground truth null %v", name, r.query, r.term, !r.confidenceValid, w)
			}
		}
		if nulls == 0 {
			t.Errorf("%s: no null confidence", name)
		}
	}
	checkNulls(ParquetFile, all)
	partQIDs := map[int32]map[int32]bool{}
	for p := int32(1); p <= 5; p++ {
		rel := PartitionFile(int(p))
		ps, rows := readWithArrow(t, filepath.Join(dir, filepath.FromSlash(rel)))
		if !ps.Equal(schema) {
			t.Errorf("%s: schema\n%v\ndataset.parquet's\n%v", rel, ps, schema)
		}
		var want []arrowRow
		for _, r := range all {
			if r.partition == p {
				want = append(want, r)
			}
		}
		if fmt.Sprint(rows) != fmt.Sprint(want) {
			t.Errorf("%s: rows\n%v\nwant the rows of dataset.parquet in partition %d\n%v", rel, rows, p, want)
		}
		checkNulls(rel, rows)
		partQIDs[p] = map[int32]bool{}
		for _, r := range rows {
			partQIDs[p][r.qid] = true
		}
	}
	mod := func(k int) int32 { return int32((k-1)%5 + 1) }
	for k := 1; k <= 5; k++ {
		for set, parts := range map[string][]int32{
			"train": {mod(k), mod(k + 1), mod(k + 2)}, "vali": {mod(k + 3)}, "test": {mod(k + 4)},
		} {
			want := map[int32]bool{}
			for _, p := range parts {
				for q := range partQIDs[p] {
					want[q] = true
				}
			}
			got := svmQIDs(t, filepath.Join(dir, ltr.FoldFile(k, set)))
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("Fold%d/%s.txt: qids %v, want those of partitions %v: %v", k, set, got, parts, want)
			}
		}
	}
}

// validate compares each partition file's schema with dataset.parquet's:
// a partition written with a required confidence column (0 for the
// nulls, as export wrote them before) is a problem.
func TestValidatePartitionSchema(t *testing.T) {
	dir, _, _ := buildDir(t, Options{Seed: 4})
	v, err := Validate(context.Background(), dir)
	if err != nil || !v.Valid {
		t.Fatalf("fresh dataset: %v %v", err, v.Problems)
	}
	rewritePartitionRequired(t, dir, 1)
	fixManifest(t, dir)
	v, err = Validate(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if v.Valid || !hasProblem(v, "partitions/partition-1.parquet: column confidence is required DOUBLE, dataset.parquet has optional DOUBLE") {
		t.Errorf("required confidence in a partition: valid %v, problems %q", v.Valid, v.Problems)
	}
}

// rewritePartitionRequired writes partition p again with every column
// required, nulls as 0: the partition files of export before issue 34.
func rewritePartitionRequired(t *testing.T, dir string, p int) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(PartitionFile(p)))
	tab, err := pqfile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cols []pqfile.Column
	for _, c := range tab.Columns {
		switch c.Physical {
		case "BYTE_ARRAY":
			cols = append(cols, pqfile.Column{Name: c.Name, Kind: pqfile.String, Strings: c.Strings})
		case "INT32":
			cols = append(cols, pqfile.Column{Name: c.Name, Kind: pqfile.Int32, Int32s: c.Int32s})
		default:
			cols = append(cols, pqfile.Column{Name: c.Name, Kind: pqfile.Float64, Float64s: c.Float64s})
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pqfile.Write(f, cols, tab.Rows, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
