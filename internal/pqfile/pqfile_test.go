package pqfile

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// Write then Read gives back the columns, in the given order (not sorted by
// name), over several row groups.
func TestRoundTrip(t *testing.T) {
	n := 10_000
	cols := []Column{
		{Name: "zeta", Kind: String, Dict: true, String: func(i int) string { return []string{"a", "bé", ""}[i%3] }},
		{Name: "alpha", Kind: Int32, Int32: func(i int) int32 { return int32(i - 5000) }},
		{Name: "mid", Kind: Float64, Float64: func(i int) float64 { return float64(i) / 8 }},
	}
	var b bytes.Buffer
	if err := Write(&b, cols, n, 3000); err != nil {
		t.Fatal(err)
	}
	tab, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tab.Names(), ","); got != "zeta,alpha,mid" || tab.Rows != n {
		t.Fatalf("columns %s, %d rows", got, tab.Rows)
	}
	for i := range n {
		if tab.Columns[0].Strings[i] != cols[0].String(i) || tab.Columns[1].Int32s[i] != cols[1].Int32(i) || tab.Columns[2].Float64s[i] != cols[2].Float64(i) {
			t.Fatalf("row %d differs", i)
		}
	}
	if tab.Columns[0].Physical != "BYTE_ARRAY" || tab.Columns[1].Physical != "INT32" || tab.Columns[2].Physical != "DOUBLE" {
		t.Errorf("physical types %s %s %s", tab.Columns[0].Physical, tab.Columns[1].Physical, tab.Columns[2].Physical)
	}
	// Equal input, equal bytes.
	var b2 bytes.Buffer
	Write(&b2, cols, n, 3000)
	if !bytes.Equal(b.Bytes(), b2.Bytes()) {
		t.Error("two writes of the same table differ")
	}
}

// Nulls of an optional column (files of other tools) are counted, with the
// row of the first; a truncated file is an error, not a panic.
func TestReadNullsAndCorrupt(t *testing.T) {
	type row struct {
		Q string   `parquet:"query"`
		V *float64 `parquet:"v,optional"`
	}
	one := 1.0
	var b bytes.Buffer
	if err := parquet.Write(&b, []row{{"a", &one}, {"b", nil}, {"c", &one}}); err != nil {
		t.Fatal(err)
	}
	tab, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if c := tab.Columns[1]; c.Nulls != 1 || c.FirstNul != 2 || len(c.Float64s) != 3 {
		t.Errorf("nulls %d first %d values %v", c.Nulls, c.FirstNul, c.Float64s)
	}
	cut := b.Bytes()[:b.Len()-30]
	if _, err := Read(bytes.NewReader(cut), int64(len(cut))); err == nil {
		t.Error("truncated file: no error")
	}
}

// Select writes the chosen rows, slices and accessors alike: rows 1 and 3
// of a four-row table are ("b", 20, 0.5) and ("d", 40, 2.5), and the file
// equals one written from those two rows directly.
func TestSelect(t *testing.T) {
	cols := []Column{
		{Name: "s", Kind: String, Dict: true, Strings: []string{"a", "b", "c", "d"}},
		{Name: "t", Kind: String, String: func(i int) string { return []string{"w", "x", "y", "z"}[i] }},
		{Name: "i", Kind: Int32, Int32s: []int32{10, 20, 30, 40}},
		{Name: "j", Kind: Int32, Int32: func(i int) int32 { return int32(i) }},
		{Name: "f", Kind: Float64, Float64s: []float64{0, 0.5, 1.5, 2.5}},
		{Name: "g", Kind: Float64, Float64: func(i int) float64 { return -float64(i) }},
	}
	var b bytes.Buffer
	if err := Write(&b, Select(cols, []int{1, 3}), 2, 0); err != nil {
		t.Fatal(err)
	}
	tab, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	c := tab.Columns
	if tab.Rows != 2 || c[0].Strings[1] != "d" || c[1].Strings[0] != "x" || c[2].Int32s[0] != 20 || c[3].Int32s[1] != 3 || c[4].Float64s[1] != 2.5 || c[5].Float64s[0] != -1 {
		t.Errorf("selected rows %+v", c)
	}
	direct := []Column{
		{Name: "s", Kind: String, Dict: true, Strings: []string{"b", "d"}},
		{Name: "t", Kind: String, Strings: []string{"x", "z"}},
		{Name: "i", Kind: Int32, Int32s: []int32{20, 40}},
		{Name: "j", Kind: Int32, Int32s: []int32{1, 3}},
		{Name: "f", Kind: Float64, Float64s: []float64{0.5, 2.5}},
		{Name: "g", Kind: Float64, Float64s: []float64{-1, -3}},
	}
	var d bytes.Buffer
	if err := Write(&d, direct, 2, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), d.Bytes()) {
		t.Error("selected rows give another file than the rows written directly")
	}
}

// An optional column (Column.Null) writes nulls that parquet-go's own row
// reader sees as nil pointers, and Read gives them back in Null; the
// required columns stay required.
func TestWriteOptionalColumn(t *testing.T) {
	n := 5000 // more than one chunk
	vals := make([]float64, n)
	null := make([]bool, n)
	for i := range vals {
		vals[i] = float64(i) / 8
		null[i] = i%3 == 1 || i == n-1
	}
	cols := []Column{
		{Name: "q", Kind: String, String: func(i int) string { return "q" }},
		{Name: "c", Kind: Float64, Float64s: vals, Null: null},
	}
	var b bytes.Buffer
	if err := Write(&b, cols, n, 3000); err != nil {
		t.Fatal(err)
	}
	type row struct {
		Q string   `parquet:"q"`
		C *float64 `parquet:"c,optional"`
	}
	rows, err := parquet.Read[row](bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n {
		t.Fatalf("%d rows, want %d", len(rows), n)
	}
	for i, r := range rows {
		if null[i] != (r.C == nil) || (r.C != nil && *r.C != float64(i)/8) || r.Q != "q" {
			t.Fatalf("row %d: %q %v, want null %v value %v", i, r.Q, r.C, null[i], float64(i)/8)
		}
	}
	tab, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	c := tab.Columns[1]
	if c.Nulls != n/3+1 || c.FirstNul != 2 || !slices.Equal(c.Null, null) || tab.Columns[0].Null != nil {
		t.Errorf("nulls %d (want %d), first %d, mask equal %v", c.Nulls, n/3+1, c.FirstNul, slices.Equal(c.Null, null))
	}
	pf, err := parquet.OpenFile(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if !pf.Schema().Fields()[1].Optional() || !pf.Schema().Fields()[0].Required() {
		t.Error("c is not optional or q not required")
	}
}

// Select keeps an optional column optional with its nulls, also when none
// of the chosen rows is null: rows 1 and 2 of c = (1, null, 3, null) are
// (null, 3), and rows 0 and 2 are (1, 3), still an optional column.
func TestSelectKeepsNulls(t *testing.T) {
	cols := []Column{
		{Name: "c", Kind: Float64, Float64s: []float64{1, 0, 3, 0}, Null: []bool{false, true, false, true}},
		{Name: "r", Kind: Int32, Int32s: []int32{1, 2, 3, 4}},
	}
	for _, tc := range []struct {
		idx  []int
		null []bool
		vals []float64
	}{
		{[]int{1, 2}, []bool{true, false}, []float64{0, 3}},
		{[]int{0, 2}, nil, []float64{1, 3}},
	} {
		var b bytes.Buffer
		if err := Write(&b, Select(cols, tc.idx), len(tc.idx), 0); err != nil {
			t.Fatal(err)
		}
		tab, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()))
		if err != nil {
			t.Fatal(err)
		}
		c := tab.Columns[0]
		if !c.Optional || tab.Columns[1].Optional {
			t.Errorf("rows %v: optional %v and %v, want true and false", tc.idx, c.Optional, tab.Columns[1].Optional)
		}
		if !slices.Equal(c.Null, tc.null) || !slices.Equal(c.Float64s, tc.vals) {
			t.Errorf("rows %v: values %v nulls %v, want %v and %v", tc.idx, c.Float64s, c.Null, tc.vals, tc.null)
		}
	}
}
