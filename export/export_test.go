package export

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/lovbench/lovbench/internal/filehash"
	"github.com/lovbench/lovbench/internal/hashes"
	"github.com/lovbench/lovbench/internal/refdata"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/ltr"
	"github.com/lovbench/lovbench/sampling"
)

func TestFeatureListMatchesLOVBench(t *testing.T) {
	b, err := os.ReadFile(refdata.Path(t, "lovbench", "results", "feature_list.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	fl := FeatureList()
	if len(recs)-1 != len(fl) {
		t.Fatalf("%d features in feature_list.csv, %d here", len(recs)-1, len(fl))
	}
	for i, r := range recs[1:] {
		if strconv.Itoa(fl[i].ID) != r[0] || fl[i].Name != r[1] {
			t.Errorf("feature %d = %+v, feature_list.csv says %v", i, fl[i], r)
		}
	}
}

// The LETOR rotation (Qin et al. 2010): Fold1 trains on S1-S3, validates on
// S4, tests on S5; each later fold shifts by one.
func TestFoldsRotation(t *testing.T) {
	want := []FoldSpec{
		{1, []int{1, 2, 3}, 4, 5},
		{2, []int{2, 3, 4}, 5, 1},
		{3, []int{3, 4, 5}, 1, 2},
		{4, []int{1, 4, 5}, 2, 3},
		{5, []int{1, 2, 5}, 3, 4},
	}
	got := Folds(5)
	for i := range want {
		if got[i].Fold != want[i].Fold || got[i].Vali != want[i].Vali || got[i].Test != want[i].Test || !slices.Equal(got[i].Train, want[i].Train) {
			t.Errorf("fold %d = %+v, want %+v", i+1, got[i], want[i])
		}
	}
}

func TestPartitionQueries(t *testing.T) {
	qs := make([]string, 23)
	for i := range qs {
		qs[i] = fmt.Sprintf("query %02d", i)
	}
	p := PartitionQueries(qs, 5, 1)
	sizes := map[int]int{}
	for _, x := range p {
		sizes[x]++
	}
	// 23 queries in 5 partitions: sizes 5,5,5,4,4.
	got := []int{sizes[1], sizes[2], sizes[3], sizes[4], sizes[5]}
	slices.Sort(got)
	if !slices.Equal(got, []int{4, 4, 5, 5, 5}) {
		t.Errorf("partition sizes %v", sizes)
	}
	if !slices.Equal(p, PartitionQueries(qs, 5, 1)) {
		t.Error("not deterministic")
	}
	if slices.Equal(p, PartitionQueries(qs, 5, 2)) {
		t.Error("seed 2 gives the same partition as seed 1")
	}
}

// testInput makes nq queries of nt terms with 33 or 34 features whose values
// exercise the number printing: integers, negatives, tiny and huge values.
func testInput(nq, nt, nf int) ([]sampling.Row, []string, [][]float64) {
	var gt []sampling.Row
	var header []string
	header = append(header, "query", "term")
	for _, f := range FeatureList()[:nf] {
		header = append(header, f.Name)
	}
	var vals [][]float64
	x := uint64(1)
	for q := range nq {
		for tm := range nt {
			label := []int{4, 3, 2, 1, 0, 0, 0, -2}[(q+tm)%8]
			// Terms 4 and up have no confidence, as sampled terms; the
			// others eighths from 0 to 1.
			conf := labels.NoConfidence
			if tm < 4 {
				conf = float64((q*5+tm*3)%9) / 8
			}
			gt = append(gt, sampling.Row{Query: fmt.Sprintf("query %d", q), Term: fmt.Sprintf("http://example.org/v%d#T%d", q%7, tm), Label: label, Confidence: conf})
			v := make([]float64, nf)
			for j := range v {
				x = hashes.Mix(x)
				switch j % 5 {
				case 0:
					v[j] = float64(x % 7)
				case 1:
					v[j] = float64(x>>11) / (1 << 53)
				case 2:
					v[j] = -float64(x%1000) / 3
				case 3:
					v[j] = float64(x>>11) / (1 << 53) * 1e-9
				default:
					v[j] = float64(x%100000) * 1e12
				}
			}
			vals = append(vals, v)
		}
	}
	return gt, header, vals
}

func writeInputs(t testing.TB, dir string, gt []sampling.Row, header []string, vals [][]float64) (string, string) {
	t.Helper()
	gtp := filepath.Join(dir, "gt.csv")
	var b bytes.Buffer
	if err := sampling.WriteGroundTruth(&b, gt); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gtp, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	w := csv.NewWriter(&b)
	w.Write(header)
	for i, r := range gt {
		rec := []string{r.Query, r.Term}
		for _, v := range vals[i] {
			rec = append(rec, strconv.FormatFloat(v, 'g', -1, 64))
		}
		w.Write(rec)
	}
	w.Flush()
	fp := filepath.Join(dir, "features.csv")
	if err := os.WriteFile(fp, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return gtp, fp
}

func buildDir(t *testing.T, opts Options) (string, []sampling.Row, [][]float64) {
	t.Helper()
	in := t.TempDir()
	gt, header, vals := testInput(12, 6, 34)
	gtp, fp := writeInputs(t, in, gt, header, vals)
	out := filepath.Join(t.TempDir(), "dataset")
	if _, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: out, Options: opts}); err != nil {
		t.Fatal(err)
	}
	return out, gt, vals
}

type svmLine struct {
	label, qid int
	feats      map[int]float64
	query      string
	term       string
}

func readSVM(t *testing.T, p string) []svmLine {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []svmLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, comment, ok := strings.Cut(sc.Text(), " # ")
		if !ok {
			t.Fatalf("%s: no comment in %q", p, sc.Text())
		}
		fs := strings.Fields(data)
		l := svmLine{feats: map[int]float64{}}
		l.label, _ = strconv.Atoi(fs[0])
		l.qid, _ = strconv.Atoi(strings.TrimPrefix(fs[1], "qid:"))
		for _, kv := range fs[2:] {
			k, v, _ := strings.Cut(kv, ":")
			id, _ := strconv.Atoi(k)
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", p, kv, err)
			}
			l.feats[id] = x
		}
		i := strings.LastIndexByte(comment, ' ')
		l.query, l.term = comment[:i], comment[i+1:]
		out = append(out, l)
	}
	return out
}

func TestSVMLightRoundTrip(t *testing.T) {
	dir, gt, vals := buildDir(t, Options{Folds: 5, Seed: 9})
	type key struct{ q, t string }
	in := map[key]int{}
	for i, r := range gt {
		in[key{r.Query, r.Term}] = i
	}
	testQueries := map[string]int{}
	qidOf := map[string]int{}
	for _, f := range Folds(5) {
		sets := map[string]map[int]bool{}
		rows := 0
		for _, set := range []string{"train", "vali", "test"} {
			sets[set] = map[int]bool{}
			lines := readSVM(t, filepath.Join(dir, ltr.FoldFile(f.Fold, set)))
			rows += len(lines)
			for _, l := range lines {
				i, ok := in[key{l.query, l.term}]
				if !ok {
					t.Fatalf("fold %d %s: unknown row %s %s", f.Fold, set, l.query, l.term)
				}
				want := gt[i].Label
				if want == -2 {
					want = 0 // junk written as 0 without --keep-junk
				}
				if l.label != want {
					t.Errorf("%s %s: label %d, want %d", l.query, l.term, l.label, want)
				}
				if len(l.feats) != 34 {
					t.Errorf("%d features", len(l.feats))
				}
				for j, v := range vals[i] {
					if l.feats[j+1] != v {
						t.Fatalf("%s %s feature %d: %v, want %v", l.query, l.term, j+1, l.feats[j+1], v)
					}
				}
				if q, ok := qidOf[l.query]; ok && q != l.qid {
					t.Errorf("query %q has qids %d and %d", l.query, q, l.qid)
				}
				qidOf[l.query] = l.qid
				sets[set][l.qid] = true
				if set == "test" {
					testQueries[l.query]++
				}
			}
		}
		if rows != len(gt) {
			t.Errorf("fold %d: %d rows, want %d", f.Fold, rows, len(gt))
		}
		for q := range sets["test"] {
			if sets["train"][q] || sets["vali"][q] {
				t.Errorf("fold %d: qid %d in test and train/vali", f.Fold, q)
			}
		}
		for q := range sets["vali"] {
			if sets["train"][q] {
				t.Errorf("fold %d: qid %d in vali and train", f.Fold, q)
			}
		}
	}
	// 72 rows / 6 per query = 12 queries, each tested exactly once.
	if len(testQueries) != 12 {
		t.Errorf("%d queries tested", len(testQueries))
	}
	for q, n := range testQueries {
		if n != 6 { // 6 rows of the query, in one test fold
			t.Errorf("query %q: %d test rows over all folds, want 6", q, n)
		}
	}
	// qids follow sorted query text: "query 0" < "query 1" < "query 10".
	if qidOf["query 0"] != 1 || qidOf["query 1"] != 2 || qidOf["query 10"] != 3 || qidOf["query 2"] != 5 {
		t.Errorf("qids %v", qidOf)
	}
}

func TestKeepJunk(t *testing.T) {
	dir, gt, _ := buildDir(t, Options{Folds: 3, Seed: 1, KeepJunk: true})
	junk := 0
	for _, set := range []string{"train", "vali", "test"} {
		for _, l := range readSVM(t, filepath.Join(dir, ltr.FoldFile(1, set))) {
			if l.label == -2 {
				junk++
			}
		}
	}
	want := 0
	for _, r := range gt {
		if r.Label == -2 {
			want++
		}
	}
	if want == 0 || junk != want {
		t.Errorf("%d junk lines, want %d", junk, want)
	}
	q, err := os.ReadFile(filepath.Join(dir, QrelsFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(q), " -2\n") != want {
		t.Errorf("qrels: junk not kept as -2")
	}
}

// Parquet read back with parquet-go's row API and with ReadParquetColumns,
// Arrow read back with arrow-go, compared to the input rows.
func TestColumnarRoundTrip(t *testing.T) {
	dir, gt, vals := buildDir(t, Options{Seed: 4})
	m := readManifest(t, dir)
	qid := map[string]int32{}
	for i, q := range sortedQueries(gt) {
		qid[q] = int32(i + 1)
	}
	// Expected order: by qid, then within a query by the seeded key of
	// docs/dataset.md, splitmix64(splitmix64((seed ^ "line") ^ FNV(query)) ^
	// FNV(term)), written out here from the formula.
	key := func(r sampling.Row) uint64 {
		return hashes.Mix(hashes.Mix((4^0x6c696e65)^hashes.FNV1a(r.Query)) ^ hashes.FNV1a(r.Term))
	}
	order := make([]int, len(gt))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := int(qid[gt[a].Query] - qid[gt[b].Query]); c != 0 {
			return c
		}
		return cmp.Compare(key(gt[a]), key(gt[b]))
	})
	// The shuffle moved rows: the ground truth lists each query's terms T0..T5.
	moved := 0
	for k, i := range order {
		if k%6 != i%6 {
			moved++
		}
	}
	if moved == 0 {
		t.Error("line order equals the ground-truth order")
	}
	if m.Parameters.LineOrder != LineOrderShuffle {
		t.Errorf("manifest line_order %q", m.Parameters.LineOrder)
	}

	check := func(src string, c *Columns) {
		if len(c.Query) != len(gt) || len(c.FeatureNames) != 34 {
			t.Fatalf("%s: %d rows, %d features", src, len(c.Query), len(c.FeatureNames))
		}
		for k, i := range order {
			r := gt[i]
			if c.Query[k] != r.Query || c.Term[k] != r.Term || int(c.Label[k]) != r.Label || c.QID[k] != qid[r.Query] {
				t.Fatalf("%s row %d: (%s %s %d %d), want %+v qid %d", src, k, c.Query[k], c.Term[k], c.Label[k], c.QID[k], r, qid[r.Query])
			}
			if c.Confidence[k] != r.Confidence {
				t.Fatalf("%s row %d: confidence %v, want %v", src, k, c.Confidence[k], r.Confidence)
			}
			if c.Partition[k] < 1 || c.Partition[k] > 5 {
				t.Fatalf("%s row %d: partition %d", src, k, c.Partition[k])
			}
			for j := range c.Features {
				if c.FeatureNames[j] != FeatureList()[j].Name || c.Features[j][k] != vals[i][j] {
					t.Fatalf("%s row %d column %s: %v, want %v", src, k, c.FeatureNames[j], c.Features[j][k], vals[i][j])
				}
			}
		}
	}
	pq, err := ReadParquetColumns(context.Background(), filepath.Join(dir, ParquetFile))
	if err != nil {
		t.Fatal(err)
	}
	check("parquet (ReadParquetColumns)", pq)
	ar, err := ReadArrowColumns(filepath.Join(dir, ArrowFile))
	if err != nil {
		t.Fatal(err)
	}
	check("arrow", ar)
	check("parquet (parquet-go)", readParquetGo(t, filepath.Join(dir, ParquetFile)))
	if m.Rows != len(gt) || m.Queries != 12 {
		t.Errorf("manifest rows %d queries %d", m.Rows, m.Queries)
	}
}

func sortedQueries(gt []sampling.Row) []string {
	var qs []string
	for _, r := range gt {
		qs = append(qs, r.Query)
	}
	slices.Sort(qs)
	return slices.Compact(qs)
}

// readParquetGo reads dataset.parquet with parquet-go's row API.
func readParquetGo(t *testing.T, p string) *Columns {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	paths := pf.Schema().Columns()
	c := &Columns{}
	col := map[string]int{}
	for i, p := range paths {
		col[p[0]] = i
		if i >= 6 {
			c.FeatureNames = append(c.FeatureNames, p[0])
			c.Features = append(c.Features, nil)
		}
	}
	if !slices.Equal([]string{paths[0][0], paths[1][0], paths[2][0], paths[3][0], paths[4][0], paths[5][0]}, []string{"query", "qid", "term", "label", "partition", "confidence"}) {
		t.Fatalf("parquet-go columns %v", paths)
	}
	buf := make([]parquet.Row, 1024)
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, row := range buf[:n] {
				for _, v := range row {
					switch ci := v.Column(); {
					case ci == col["query"]:
						c.Query = append(c.Query, string(v.ByteArray()))
					case ci == col["qid"]:
						c.QID = append(c.QID, v.Int32())
					case ci == col["term"]:
						c.Term = append(c.Term, string(v.ByteArray()))
					case ci == col["label"]:
						c.Label = append(c.Label, v.Int32())
					case ci == col["partition"]:
						c.Partition = append(c.Partition, v.Int32())
					case ci == col["confidence"] && v.IsNull():
						c.Confidence = append(c.Confidence, labels.NoConfidence)
					case ci == col["confidence"]:
						c.Confidence = append(c.Confidence, v.Double())
					default:
						c.Features[ci-6] = append(c.Features[ci-6], v.Double())
					}
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		rows.Close()
	}
	return c
}

func readManifest(t *testing.T, dir string) *Manifest {
	t.Helper()
	v, err := Validate(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Valid {
		t.Fatalf("invalid: %v", v.Problems)
	}
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return &m
}

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestByteIdenticalReruns(t *testing.T) {
	in := t.TempDir()
	gt, header, vals := testInput(10, 5, 33)
	gtp, fp := writeInputs(t, in, gt, header, vals)
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for _, d := range []string{a, b, a} { // a twice: a rerun over an existing directory
		if _, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: d, Options: Options{Seed: 3, Version: "test"}}); err != nil {
			t.Fatal(err)
		}
	}
	ta, tb := readTree(t, a), readTree(t, b)
	// 5 folds x 3 files + parquet, arrow, qrels, ground truth, 5
	// partition files, card, LICENSE.md, croissant.json, manifest and the
	// index of the directory (atomicfile.IndexFile).
	if len(ta) != 29 || len(tb) != 29 {
		t.Fatalf("%d and %d files", len(ta), len(tb))
	}
	for k, v := range ta {
		if !bytes.Equal(v, tb[k]) {
			t.Errorf("%s differs between reruns", k)
		}
	}
	// Another seed gives other partitions (so the check above can fail).
	c := filepath.Join(t.TempDir(), "c")
	if _, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: c, Options: Options{Seed: 4, Version: "test"}}); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(readTree(t, c)["Fold1/test.txt"], ta["Fold1/test.txt"]) {
		t.Error("seed 4 gives the same Fold1 test set as seed 3")
	}
}

func TestValidateAcceptsAndRejects(t *testing.T) {
	dir, _, _ := buildDir(t, Options{Seed: 5})
	v, err := Validate(context.Background(), dir)
	if err != nil || !v.Valid || v.Rows != 72 || v.Queries != 12 || v.Folds != 5 {
		t.Fatalf("valid dataset rejected: %+v %v", v, err)
	}

	// Byte tampering: the checksum no longer matches.
	p := filepath.Join(dir, "Fold2", "vali.txt")
	orig, _ := os.ReadFile(p)
	tampered := bytes.Replace(orig, []byte(" 1:"), []byte(" 1:9"), 1)
	os.WriteFile(p, tampered, 0o644)
	v, _ = Validate(context.Background(), dir)
	if v.Valid || !hasProblem(v, "Fold2/vali.txt: SHA-256") || !hasProblem(v, "feature 1 is") {
		t.Errorf("tampered vali file accepted: %v", v.Problems)
	}
	os.WriteFile(p, orig, 0o644)

	// Semantic tampering with a consistent manifest: move Fold1's first test
	// line into its training file and fix the checksums.
	testP, trainP := filepath.Join(dir, "Fold1", "test.txt"), filepath.Join(dir, "Fold1", "train.txt")
	test, _ := os.ReadFile(testP)
	train, _ := os.ReadFile(trainP)
	nl := bytes.IndexByte(test, '\n') + 1
	os.WriteFile(trainP, append(slices.Clone(train), test[:nl]...), 0o644)
	os.WriteFile(testP, test[nl:], 0o644)
	fixManifest(t, dir)
	v, _ = Validate(context.Background(), dir)
	if v.Valid || !hasProblem(v, "in both train and test") || !hasProblem(v, "not in this file's partitions") {
		t.Errorf("query split across train and test accepted: %v", v.Problems)
	}
	os.WriteFile(trainP, train, 0o644)
	os.WriteFile(testP, test, 0o644)
	fixManifest(t, dir)
	if v, _ = Validate(context.Background(), dir); !v.Valid {
		t.Fatalf("restored dataset rejected: %v", v.Problems)
	}

	// Two lines of one query swapped in a test file (checksums fixed): the
	// order no longer follows the seeded line order.
	test, _ = os.ReadFile(testP)
	ls := bytes.SplitAfter(test, []byte("\n"))
	ls[0], ls[1] = ls[1], ls[0] // each query has 6 lines: lines 1 and 2 share a qid
	os.WriteFile(testP, bytes.Join(ls, nil), 0o644)
	fixManifest(t, dir)
	v, _ = Validate(context.Background(), dir)
	if v.Valid || !hasProblem(v, "Fold1/test.txt:2:") || !hasProblem(v, "line order") {
		t.Errorf("swapped lines accepted: %v", v.Problems)
	}
	os.WriteFile(testP, test, 0o644)
	fixManifest(t, dir)

	// A manifest without line_order (a dataset of an older lovbench).
	mb, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	os.WriteFile(filepath.Join(dir, ManifestFile), bytes.Replace(mb, []byte(`"line_order": "seeded-shuffle"`), []byte(`"line_order": ""`), 1), 0o644)
	v, _ = Validate(context.Background(), dir)
	if v.Valid || !hasProblem(v, "no parameters.line_order") {
		t.Errorf("manifest without line order accepted: %v", v.Problems)
	}
	os.WriteFile(filepath.Join(dir, ManifestFile), mb, 0o644)

	// Truncated columnar files (checksums fixed): reported, no panic.
	for _, name := range []string{ParquetFile, ArrowFile} {
		p := filepath.Join(dir, name)
		orig, _ := os.ReadFile(p)
		os.WriteFile(p, orig[:len(orig)/2], 0o644)
		fixManifest(t, dir)
		v, err := Validate(context.Background(), dir)
		if err != nil || v.Valid || !hasProblem(v, name+":") {
			t.Errorf("truncated %s accepted: %v %v", name, v.Problems, err)
		}
		os.WriteFile(p, orig, 0o644)
		fixManifest(t, dir)
	}

	// A stray file and a missing one.
	os.WriteFile(filepath.Join(dir, "Fold6.txt"), []byte("x"), 0o644)
	os.Remove(filepath.Join(dir, ArrowFile))
	v, _ = Validate(context.Background(), dir)
	if v.Valid || !hasProblem(v, "Fold6.txt: not listed") || !hasProblem(v, "dataset.arrow") {
		t.Errorf("stray/missing files accepted: %v", v.Problems)
	}
	// No manifest.
	v, _ = Validate(context.Background(), t.TempDir())
	if v.Valid || !hasProblem(v, "manifest") {
		t.Errorf("empty directory accepted: %v", v.Problems)
	}
}

func hasProblem(v *Validation, s string) bool {
	for _, p := range v.Problems {
		if strings.Contains(p, s) {
			return true
		}
	}
	return false
}

// fixManifest recomputes the output checksums as an attacker would.
func fixManifest(t *testing.T, dir string) {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for i, o := range m.Outputs {
		sum, err := filehash.SHA256(filepath.Join(dir, o.Path))
		if err != nil {
			t.Fatal(err)
		}
		m.Outputs[i].SHA256 = sum
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), mustJSON(t, m), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	gt, header, vals := testInput(6, 2, 33)
	gtp, fp := writeInputs(t, dir, gt, header, vals)
	run := func(gtPath, fPath string) error {
		_, err := Run(context.Background(), Config{GroundTruth: gtPath, Features: fPath, Out: filepath.Join(dir, "out")})
		return err
	}
	fb, _ := os.ReadFile(fp)
	lines := strings.SplitAfter(string(fb), "\n")

	// A NaN value: file, line and field.
	bad := slices.Clone(lines)
	fields := strings.Split(bad[3], ",")
	fields[2] = "NaN" // Boolean_Match_T of line 4
	bad[3] = strings.Join(fields, ",")
	nanP := filepath.Join(dir, "nan.csv")
	os.WriteFile(nanP, []byte(strings.Join(bad, "")), 0o644)
	if err := run(gtp, nanP); err == nil || !strings.Contains(err.Error(), "nan.csv:4: field Boolean_Match_T") {
		t.Errorf("NaN: %v", err)
	}
	// A missing feature column.
	cut := filepath.Join(dir, "cut.csv")
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(header[:len(header)-1])
	w.Flush()
	os.WriteFile(cut, b.Bytes(), 0o644)
	if err := run(gtp, cut); err == nil || !strings.Contains(err.Error(), "missing feature columns Superproperties_T") {
		t.Errorf("missing column: %v", err)
	}
	// A ground-truth row without features.
	short := filepath.Join(dir, "short.csv")
	os.WriteFile(short, []byte(strings.Join(lines[:len(lines)-2], "")), 0o644)
	if err := run(gtp, short); err == nil || !strings.Contains(err.Error(), "1 ground-truth rows have no features") {
		t.Errorf("missing features: %v", err)
	}
	// Too few queries for the folds.
	if _, _, err := Build(gt[:2], &FeatureTable{}, Options{}); err == nil {
		t.Error("1 query in 5 partitions: no error")
	}
}

// A Parquet features file with its feature columns in another order is
// read by name. It is written by parquet-go's reflection API (an independent
// writer): a struct type with query, term and features 33..1, optional.
func TestReadFeaturesParquet(t *testing.T) {
	gt, _, vals := testInput(3, 2, 33)
	fl := FeatureList()
	fields := []reflect.StructField{
		{Name: "Query", Type: reflect.TypeOf(""), Tag: `parquet:"query"`},
		{Name: "Term", Type: reflect.TypeOf(""), Tag: `parquet:"term"`},
	}
	for j := 32; j >= 0; j-- {
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("F%d", j+1), Type: reflect.TypeOf((*float64)(nil)), Tag: reflect.StructTag(`parquet:"` + fl[j].Name + `,optional"`)})
	}
	typ := reflect.StructOf(fields)
	sc := parquet.SchemaOf(reflect.New(typ).Elem().Interface())
	p := filepath.Join(t.TempDir(), "features.parquet")
	f, _ := os.Create(p)
	w := parquet.NewWriter(f, sc)
	for i, r := range gt {
		row := reflect.New(typ).Elem()
		row.Field(0).SetString(r.Query)
		row.Field(1).SetString(r.Term)
		for j := 32; j >= 0; j-- {
			v := vals[i][j]
			row.Field(2 + 32 - j).Set(reflect.ValueOf(&v))
		}
		if err := w.Write(row.Interface()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if cols := sc.Columns(); cols[2][0] != fl[32].Name {
		t.Fatalf("columns %v: the test wants the features in reverse order", cols)
	}
	ft, err := ReadFeatures(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	// A truncated copy is an error naming the file.
	b, _ := os.ReadFile(p)
	cut := filepath.Join(t.TempDir(), "cut.parquet")
	os.WriteFile(cut, b[:len(b)-40], 0o644)
	if _, err := ReadFeatures(context.Background(), cut); err == nil || !strings.Contains(err.Error(), "cut.parquet") {
		t.Errorf("truncated Parquet: %v", err)
	}
	if ft.Rows != len(gt) || len(ft.Features) != 33 || ft.Features[0].Name != "Boolean_Match_T" {
		t.Fatalf("rows %d features %v", ft.Rows, ft.Features)
	}
	for i, r := range gt {
		if !slices.Equal(ft.Lookup(r.Query, r.Term), vals[i]) {
			t.Fatalf("row %d: %v, want %v", i, ft.Lookup(r.Query, r.Term), vals[i])
		}
	}
}

func TestAppendFloat(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -3, 999999, 1e6, -1e6, 0.1, 1.0 / 3, 1e-9, 123456789012345, 5e300, math.SmallestNonzeroFloat64} {
		if got, want := string(appendFloat(nil, v)), strconv.FormatFloat(v, 'g', -1, 64); got != want {
			t.Errorf("appendFloat(%v) = %q, strconv 'g' -1 gives %q", v, got, want)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestManifestFeatureSemantics: the features' semantics is
// recorded in parameters.feature_semantics, and left out when unknown.
func TestManifestFeatureSemantics(t *testing.T) {
	dir, _, _ := buildDir(t, Options{Seed: 1, FeatureSemantics: "paper"})
	if m := readManifest(t, dir); m.Parameters.FeatureSemantics != "paper" {
		t.Errorf("feature_semantics = %q, want paper", m.Parameters.FeatureSemantics)
	}
	raw, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(`"feature_semantics": "paper"`)) {
		t.Errorf("manifest.json lacks \"feature_semantics\": \"paper\":\n%s", raw)
	}
	dir2, _, _ := buildDir(t, Options{Seed: 1})
	raw2, _ := os.ReadFile(filepath.Join(dir2, ManifestFile))
	if bytes.Contains(raw2, []byte("feature_semantics")) {
		t.Error("feature_semantics written although unknown")
	}
}

// TestDefaultConfig: the export stage's defaults are LOVBench's five folds
// (docs/method.md section 7) of a partition seeded by 1, as lovbench
// export --help states, with the program's version in the manifest.
func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	if c.Options.Folds != 5 || c.Options.Seed != 1 || c.Options.KeepJunk || c.Options.MinConfidence != 0 || c.Options.Version == "" {
		t.Errorf("DefaultConfig options %+v", c.Options)
	}
}
