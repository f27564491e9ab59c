package ltr

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

const sample = `# a comment line
2 qid:7 1:0.5 3:-1.25 # foaf person foaf:Person

0 qid:7 2:3e-2 # foaf person foaf:Agent
1 qid:7 1:0.125
-2 qid:8 34:7 1:1
`

func TestReadSVMLight(t *testing.T) {
	ds, err := ReadSVMLight(strings.NewReader(sample), "s.txt")
	if err != nil {
		t.Fatal(err)
	}
	if ds.NumFeatures != 34 || len(ds.Queries) != 2 || ds.NumDocs() != 4 {
		t.Fatalf("got %d features, %d queries, %d docs; want 34, 2, 4", ds.NumFeatures, len(ds.Queries), ds.NumDocs())
	}
	q := ds.Queries[0]
	if q.ID != "7" || len(q.Docs) != 3 {
		t.Fatalf("query 0 = %s with %d docs, want qid 7 with 3", q.ID, len(q.Docs))
	}
	d := q.Docs[0]
	if d.Label != 2 || d.Feature(1) != 0.5 || d.Feature(2) != 0 || d.Feature(3) != -1.25 || d.Feature(34) != 0 || d.Feature(35) != 0 {
		t.Fatalf("doc 0 = %+v", d)
	}
	if d.Comment != "foaf person foaf:Person" || d.Term() != "foaf:Person" || d.Row != 1 {
		t.Fatalf("comment %q term %q row %d", d.Comment, d.Term(), d.Row)
	}
	if q.Docs[1].Feature(2) != float64(float32(0.03)) { // RankLib's Float.parseFloat
		t.Fatalf("3e-2 parsed as %v", q.Docs[1].Feature(2))
	}
	if q.Docs[2].Row != 3 || q.Docs[2].Line != 5 || q.Docs[2].Term() != "" {
		t.Fatalf("last doc row %d line %d term %q, want row 3, line 5 and no term", q.Docs[2].Row, q.Docs[2].Line, q.Docs[2].Term())
	}
	if b := ds.Queries[1].Docs[0]; b.Label != -2 || b.Feature(34) != 7 || b.Feature(1) != 1 {
		t.Fatalf("qid 8 doc = %+v", b)
	}
}

func TestSVMLightRoundTrip(t *testing.T) {
	ds, err := Synthetic(SyntheticOptions{Queries: 20, DocsPerQuery: 6, Features: 12, Noise: 0.2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Make some values sparse and awkward.
	ds.Queries[0].Docs[0].Features[3] = 0
	ds.Queries[0].Docs[1].Features[4] = 1e-30
	ds.Queries[1].Docs[0].Features[5] = -123456.789
	// Values are read as float32 (RankLib's), so the round trip keeps
	// float32 values.
	for qi := range ds.Queries {
		for di := range ds.Queries[qi].Docs {
			for i, v := range ds.Queries[qi].Docs[di].Features {
				ds.Queries[qi].Docs[di].Features[i] = float64(float32(v))
			}
		}
	}
	var buf bytes.Buffer
	if err := WriteSVMLight(&buf, ds); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSVMLight(bytes.NewReader(buf.Bytes()), "rt")
	if err != nil {
		t.Fatal(err)
	}
	if back.NumFeatures != ds.NumFeatures || len(back.Queries) != len(ds.Queries) {
		t.Fatalf("shape changed")
	}
	for qi := range ds.Queries {
		if back.Queries[qi].ID != ds.Queries[qi].ID {
			t.Fatalf("qid %s != %s", back.Queries[qi].ID, ds.Queries[qi].ID)
		}
		for di := range ds.Queries[qi].Docs {
			a, b := ds.Queries[qi].Docs[di], back.Queries[qi].Docs[di]
			if a.Label != b.Label || a.Comment != b.Comment || !reflect.DeepEqual(a.Features, b.Features) {
				t.Fatalf("query %d doc %d: %+v != %+v", qi, di, b, a)
			}
		}
	}
	var again bytes.Buffer
	if err := WriteSVMLight(&again, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Fatal("second write differs from the first")
	}
}

// RankLib sizes a line's feature vector by the line's last feature id
// (DenseDataPoint), so every written line must end with the highest feature
// id even when its value is 0; other zeros stay omitted.
func TestWriteSVMLightKeepsHighestFeature(t *testing.T) {
	ds := &Dataset{Name: "w", NumFeatures: 5, Queries: []Query{{ID: "3", Docs: []Doc{
		{Label: 1, Features: []float64{0.5, 0, 2, 0, 0}, Comment: "q t1"},
		{Label: 0, Features: []float64{0, 0, 0, 0, 0}},
		{Label: 2, Features: []float64{0, 1, 0, 0, -3}},
		{Label: 0, Features: []float64{1, 0}}, // shorter than NumFeatures
	}}}}
	var b bytes.Buffer
	if err := WriteSVMLight(&b, ds); err != nil {
		t.Fatal(err)
	}
	want := "1 qid:3 1:0.5 3:2 5:0 # q t1\n" +
		"0 qid:3 5:0\n" +
		"2 qid:3 2:1 5:-3\n" +
		"0 qid:3 1:1 5:0\n"
	if b.String() != want {
		t.Fatalf("wrote\n%s\nwant\n%s", b.String(), want)
	}
}

// A qid that reappears after another qid is rejected with file:line, the
// field, both qids and where the first run ended.
func TestSVMLightReappearingQID(t *testing.T) {
	in := "1 qid:7 1:1\n0 qid:7 1:2\n# c\n1 qid:8 1:1\n\n2 qid:7 1:3\n"
	_, err := ReadSVMLight(strings.NewReader(in), "re.txt")
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v, want a ParseError", err)
	}
	want := `re.txt:6: field 2 "qid:7": qid 7 reappears after qid 8 (its lines end at line 2): the lines of a query must be contiguous`
	if err.Error() != want {
		t.Fatalf("error\n%s\nwant\n%s", err, want)
	}
	// Contiguous lines of one qid are fine, and so is the same qid in a
	// later file.
	if ds, err := ReadSVMLight(strings.NewReader("1 qid:7 1:1\n0 qid:7 1:2\n1 qid:8 1:1\n"), "ok.txt"); err != nil || len(ds.Queries) != 2 {
		t.Fatalf("contiguous: %v", err)
	}
}

func TestSVMLightErrors(t *testing.T) {
	cases := []struct {
		line        string
		field       int
		wantInError string
	}{
		{"x qid:1 1:2", 1, "label"},
		{"nan qid:1 1:2", 1, "label"},
		{"1 1:2 2:3", 2, "qid"},
		{"1 qid: 1:2", 2, "empty qid"},
		{"1 qid:3 1:abc", 3, "value"},
		{"1 qid:3 1:inf", 3, "value"},
		{"1 qid:3 0:1", 3, "positive integer"},
		{"1 qid:3 a:1", 3, "positive integer"},
		{"1 qid:3 1:1 2", 4, "fid:value"},
		{"1 qid:3 1:1 1:2", 4, "twice"},
		{"1 qid:3 99999999:1", 3, "too large"},
	}
	for _, c := range cases {
		_, err := ReadSVMLight(strings.NewReader("0 qid:1 1:1\n"+c.line+"\n"), "bad.txt")
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %v, want a ParseError", c.line, err)
			continue
		}
		if pe.File != "bad.txt" || pe.Line != 2 || pe.Field != c.field || !strings.Contains(pe.Error(), c.wantInError) {
			t.Errorf("%q: %v (line %d field %d), want line 2 field %d mentioning %q", c.line, err, pe.Line, pe.Field, c.field, c.wantInError)
		}
		if !strings.HasPrefix(pe.Error(), "bad.txt:2: ") {
			t.Errorf("%q: message %q does not start with file:line", c.line, pe.Error())
		}
	}
	if _, err := ReadSVMLight(strings.NewReader("3\n"), "short.txt"); err == nil || !strings.Contains(err.Error(), "short.txt:1: missing qid") {
		t.Errorf("label only: %v", err)
	}
}

// writeSyntheticFolds writes five folds of a synthetic dataset (25
// queries, 4 documents each, 9 features) as Fold1..Fold5 under dir and
// returns them.
func writeSyntheticFolds(t *testing.T, dir string) []Fold {
	t.Helper()
	ds, _ := Synthetic(SyntheticOptions{Queries: 25, DocsPerQuery: 4, Features: 9, Noise: 0.1, Seed: 1})
	folds := MakeFolds(ds, 9)
	for _, f := range folds {
		for part, d := range map[string]*Dataset{"train.txt": f.Train, "vali.txt": f.Vali, "test.txt": f.Test} {
			var b bytes.Buffer
			if err := WriteSVMLight(&b, d); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, f.Name, part)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return folds
}

func TestReadFolds(t *testing.T) {
	dir := t.TempDir()
	folds := writeSyntheticFolds(t, dir)
	got, err := ReadFolds(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("%d folds, want 5", len(got))
	}
	seen := map[string]int{}
	for k, f := range got {
		if len(f.Train.Queries) != 15 || len(f.Vali.Queries) != 5 || len(f.Test.Queries) != 5 {
			t.Fatalf("fold %d sizes %d/%d/%d, want 15/5/5", k+1, len(f.Train.Queries), len(f.Vali.Queries), len(f.Test.Queries))
		}
		for _, q := range f.Test.Queries {
			seen[q.ID]++
		}
		if f.Test.Queries[0].ID != folds[k].Test.Queries[0].ID {
			t.Fatalf("fold %d test differs from what was written", k+1)
		}
	}
	if len(seen) != 25 {
		t.Fatalf("%d distinct test queries over the folds, want all 25 exactly once", len(seen))
	}
	if _, err := ReadFolds(t.TempDir()); err == nil || !strings.Contains(err.Error(), "Fold1") {
		t.Fatalf("empty dir: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "Fold3", "vali.txt"), []byte("1 qid:1 1:x\n"), 0o644)
	if _, err := ReadFolds(dir); err == nil || !strings.Contains(err.Error(), filepath.Join("Fold3", "vali.txt")+":1: field 3") {
		t.Fatalf("bad fold file: %v", err)
	}
}

// FuzzReadSVMLight: arbitrary input never panics; whatever parses writes
// back to text that parses to the same data.
func FuzzReadSVMLight(f *testing.F) {
	f.Add(sample)
	f.Add("1 qid:1 1:1e308 2:-0\n")
	f.Add("0 qid:a#b\n# only\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		ds, err := ReadSVMLight(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := WriteSVMLight(&b, ds); err != nil {
			t.Fatal(err)
		}
		back, err := ReadSVMLight(bytes.NewReader(b.Bytes()), "fuzz2")
		if err != nil {
			t.Fatalf("re-read: %v\n%s", err, b.String())
		}
		if len(back.Queries) != len(ds.Queries) || back.NumDocs() != ds.NumDocs() {
			t.Fatalf("shape changed")
		}
		for qi := range ds.Queries {
			for di := range ds.Queries[qi].Docs {
				a, c := ds.Queries[qi].Docs[di], back.Queries[qi].Docs[di]
				if a.Label != c.Label || a.Comment != c.Comment {
					t.Fatalf("doc changed: %+v vs %+v", a, c)
				}
				for j := 1; j <= ds.NumFeatures; j++ {
					if a.Feature(j) != c.Feature(j) {
						t.Fatalf("feature %d changed", j)
					}
				}
			}
		}
	})
}

// TestReadSVMLightKeepsNoLine checks that a Doc does not keep its whole
// input line alive through its comment or its query's id: 2,000 lines of
// about 4 KB (a long feature value) with a short comment must not cost
// the heap 8 MB once read. Reading LOVBench-sized folds used to hold every
// line (1.9 GB of RSS for lovbench ltr on the bench/ltr folds).
func TestReadSVMLightKeepsNoLine(t *testing.T) {
	var b strings.Builder
	long := "0." + strings.Repeat("0", 4000) + "1"
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "1 qid:%d 1:%s # q%d doc%d\n", i/20, long, i/20, i)
	}
	in := b.String()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ds, err := ReadSVMLight(strings.NewReader(in), "long.txt")
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(in)
	if got := ds.Queries[99].Docs[19].Comment; got != "q99 doc1999" {
		t.Fatalf("comment %q", got)
	}
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if grown > 2<<20 {
		t.Errorf("reading 2,000 lines of 4 KB keeps %d bytes on the heap; the lines themselves are 8 MB", grown)
	}
	runtime.KeepAlive(ds)
	runtime.KeepAlive(in) // so that its 8 MB stay counted in both figures
}
