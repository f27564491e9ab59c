// Package pqfile writes and reads the flat Parquet tables of lovbench
// (features.parquet of `lovbench features`, dataset.parquet of `lovbench
// export`; docs/method.md section 7) with parquet-go, column by column.
//
// The tables are flat: every column is a leaf, required (or optional where
// Column.Null says which rows are null), a string (BYTE_ARRAY
// with the STRING logical type and UTF8 converted type), a 32-bit signed
// integer (INT32, logical INT(32, signed), converted INT_32) or a double
// (DOUBLE, no logical type), in the order given — the schema arrow-go's
// pqarrow wrote for the same Arrow schema before lovbench moved every Parquet
// file to parquet-go (one Parquet library, no Arrow Flight, gRPC or compute
// kernels in the binary). Files are Snappy-compressed, data page version 1,
// created_by "lovbench" without a library version, so equal tables give
// byte-identical files.
package pqfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unsafe"

	"github.com/klauspost/compress/s2"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Kind is the type of a column.
type Kind int

// Column kinds.
const (
	String  Kind = iota + 1 // BYTE_ARRAY, STRING logical type
	Int32                   // INT32, INT(32, signed) logical type
	Float64                 // DOUBLE
)

// Column is one column to write: its name, kind, whether its values are
// dictionary-encoded, and its values: the slice of its kind when not nil
// (fastest), else the accessor of its kind that returns the value of row i.
type Column struct {
	Name     string
	Kind     Kind
	Dict     bool
	Strings  []string
	Int32s   []int32
	Float64s []float64
	String   func(i int) string
	Int32    func(i int) int32
	Float64  func(i int) float64
	// Null, when not nil, makes the column optional: row i is null where
	// Null[i] (its value is then not written). A nil Null is a required
	// column.
	Null []bool
}

// DefaultRowGroupRows is the largest row group Write writes (the value the
// arrow-go writer used before: 1 Mi rows).
const DefaultRowGroupRows = 1 << 20

// createdBy sets the file's created_by to exactly "lovbench" (parquet-go's
// CreatedBy option always adds a version and a build).
type createdBy string

// ConfigureWriter implements parquet.WriterOption.
func (c createdBy) ConfigureWriter(cfg *parquet.WriterConfig) { cfg.CreatedBy = string(c) }

// orderedGroup is a group whose fields keep the order they were given
// (parquet.Group sorts its fields by name).
type orderedGroup struct {
	parquet.Group
	fields []parquet.Field
}

// Fields implements parquet.Node.
func (g orderedGroup) Fields() []parquet.Field { return g.fields }

// Schema returns the Parquet schema of cols (see the package comment).
func Schema(cols []Column) (*parquet.Schema, error) {
	g := parquet.Group{}
	for _, c := range cols {
		var n parquet.Node
		switch c.Kind {
		case String:
			n = parquet.String()
		case Int32:
			n = parquet.Int(32)
		case Float64:
			n = parquet.Leaf(parquet.DoubleType)
		default:
			return nil, fmt.Errorf("pqfile: column %q: unknown kind %d", c.Name, c.Kind)
		}
		if c.Dict {
			n = parquet.Encoded(n, &parquet.RLEDictionary)
		} else {
			n = parquet.Encoded(n, &parquet.Plain)
		}
		if _, dup := g[c.Name]; dup {
			return nil, fmt.Errorf("pqfile: column %q appears twice", c.Name)
		}
		if c.Null != nil {
			g[c.Name] = parquet.Optional(n)
		} else {
			g[c.Name] = parquet.Required(n)
		}
	}
	byName := map[string]parquet.Field{}
	for _, f := range g.Fields() {
		byName[f.Name()] = f
	}
	og := orderedGroup{Group: g}
	for _, c := range cols {
		og.fields = append(og.fields, byName[c.Name])
	}
	return parquet.NewSchema("schema", og), nil
}

// chunk is the number of values handed to a column writer at once.
const chunk = 4096

// ChunkRows is the number of rows Write takes from the columns at a time:
// it calls a column's accessor for the rows of one chunk in increasing
// order, column by column, then moves to the next chunk, so an accessor
// backed by a stream needs to keep only the current chunk.
const ChunkRows = chunk

// Write writes rows rows of cols to w as one Parquet file, in row groups of
// at most rowGroupRows rows (<= 0: DefaultRowGroupRows).
func Write(w io.Writer, cols []Column, rows, rowGroupRows int) error {
	return WriteMeta(w, cols, rows, rowGroupRows, nil)
}

// WriteMeta is Write with key-value metadata in the file footer, written
// in the order given.
func WriteMeta(w io.Writer, cols []Column, rows, rowGroupRows int, meta [][2]string) error {
	for _, c := range cols {
		if (c.Strings != nil && len(c.Strings) < rows) || (c.Int32s != nil && len(c.Int32s) < rows) || (c.Float64s != nil && len(c.Float64s) < rows) || (c.Null != nil && len(c.Null) < rows) {
			return fmt.Errorf("pqfile: column %q has fewer than %d values", c.Name, rows)
		}
	}
	sc, err := Schema(cols)
	if err != nil {
		return err
	}
	if rowGroupRows <= 0 {
		rowGroupRows = DefaultRowGroupRows
	}
	opts := []parquet.WriterOption{
		sc,
		createdBy("lovbench"),
		parquet.Compression(FastSnappy{}),
		parquet.DataPageVersion(1),
		parquet.MaxRowsPerRowGroup(int64(rowGroupRows)),
		parquet.PageBufferSize(1 << 20),
	}
	for _, kv := range meta {
		opts = append(opts, parquet.KeyValueMetadata(kv[0], kv[1]))
	}
	for _, c := range cols {
		if c.Kind == String {
			// Min/max bounds of long strings cost time and help no reader.
			opts = append(opts, parquet.SkipPageBounds(c.Name))
		}
	}
	pw := parquet.NewWriter(w, opts...)
	// Chunks of rows, all columns per chunk: the accessors of row-major
	// tables (features, export) then read memory that is still in cache.
	// Values of a required flat column need no levels or column index (the
	// column writer takes them as they are; the output is the same).
	buf := make([]parquet.Value, chunk)
	for lo := 0; lo < rows; lo += rowGroupRows {
		hi := min(lo+rowGroupRows, rows)
		cws := pw.ColumnWriters()
		for s := lo; s < hi; s += chunk {
			e := min(s+chunk, hi)
			vs := buf[:e-s]
			for ci, c := range cols {
				switch {
				case c.Kind == String && c.Strings != nil:
					for i, x := range c.Strings[s:e] {
						vs[i] = parquet.ByteArrayValue(unsafeBytes(x))
					}
				case c.Kind == String:
					for i := range vs {
						vs[i] = parquet.ByteArrayValue(unsafeBytes(c.String(s + i)))
					}
				case c.Kind == Int32 && c.Int32s != nil:
					for i, x := range c.Int32s[s:e] {
						vs[i] = parquet.Int32Value(x)
					}
				case c.Kind == Int32:
					for i := range vs {
						vs[i] = parquet.Int32Value(c.Int32(s + i))
					}
				case c.Kind == Float64 && c.Float64s != nil:
					for i, x := range c.Float64s[s:e] {
						vs[i] = parquet.DoubleValue(x)
					}
				case c.Kind == Float64:
					for i := range vs {
						vs[i] = parquet.DoubleValue(c.Float64(s + i))
					}
				}
				if c.Null != nil {
					// An optional column's values carry their definition
					// level: 1 for a value, 0 for a null.
					for i := range vs {
						if c.Null[s+i] {
							vs[i] = parquet.NullValue().Level(0, 0, ci)
						} else {
							vs[i] = vs[i].Level(0, 1, ci)
						}
					}
				}
				if _, err := cws[ci].WriteRowValues(vs); err != nil {
					return fmt.Errorf("column %s: %w", c.Name, err)
				}
			}
		}
		if err := pw.Flush(); err != nil {
			return err
		}
	}
	return pw.Close()
}

// FastSnappy is the Parquet SNAPPY codec with the fast block encoder of
// klauspost/compress/s2 (standard Snappy output; parquet-go's own codec uses
// the slower "better" encoder), used by every Parquet file lovbench writes
// but the shard files.
type FastSnappy struct{}

// String names the codec.
func (FastSnappy) String() string { return "SNAPPY" }

// CompressionCodec is Parquet's SNAPPY.
func (FastSnappy) CompressionCodec() format.CompressionCodec { return format.Snappy }

// Encode compresses a page with s2's Snappy-compatible fast encoder.
func (FastSnappy) Encode(dst, src []byte) ([]byte, error) {
	n := s2.MaxEncodedLen(len(src))
	if n < 0 {
		return nil, fmt.Errorf("snappy: page of %d bytes too large", len(src))
	}
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	return s2.EncodeSnappy(dst[:n], src), nil
}

// Decode decompresses a page.
func (FastSnappy) Decode(dst, src []byte) ([]byte, error) { return s2.Decode(dst[:cap(dst)], src) }

// unsafeBytes returns the bytes of s without copying; parquet-go copies
// byte-array values into its column buffers and never writes to them.
func unsafeBytes(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// ReadColumn is one column of a file read by Read. Strings holds a
// BYTE_ARRAY column, Float64s a numeric column (DOUBLE, FLOAT, INT32 or
// INT64, converted), Int32s an INT32 column as well.
type ReadColumn struct {
	Name     string
	Physical string // Parquet physical type: BYTE_ARRAY, DOUBLE, INT32, ...
	Optional bool   // the column is optional (nullable), not required
	Strings  []string
	Int32s   []int32
	Float64s []float64
	Nulls    int    // null values (only optional columns have them)
	FirstNul int    // 1-based row of the first null, 0 if none
	Null     []bool // Null[i]: row i is null (its value reads as zero); nil when there is no null
}

// Table is a flat Parquet file read whole.
type Table struct {
	Rows    int
	Columns []ReadColumn
	// Meta is the file's key-value metadata.
	Meta map[string]string
}

// Names returns the column names in file order.
func (t *Table) Names() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

// ReadFile reads a flat Parquet file (see Read).
func ReadFile(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return Read(f, st.Size())
}

// Read reads every column of a flat Parquet file (no nested or repeated
// columns) of the given size. A panic of the decoder on a corrupt file is
// returned as an error.
func Read(r io.ReaderAt, size int64) (t *Table, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("corrupt Parquet file: %v", p)
		}
	}()
	pf, err := parquet.OpenFile(r, size, &parquet.FileConfig{SkipPageIndex: true, SkipBloomFilters: true})
	if err != nil {
		return nil, err
	}
	leaves := pf.Schema().Fields()
	t = &Table{Rows: int(pf.NumRows()), Meta: map[string]string{}}
	for _, kv := range pf.Metadata().KeyValueMetadata {
		t.Meta[kv.Key] = kv.Value
	}
	for _, f := range leaves {
		if !f.Leaf() || f.Repeated() {
			return nil, fmt.Errorf("column %q is nested or repeated; want a flat table", f.Name())
		}
		t.Columns = append(t.Columns, ReadColumn{Name: f.Name(), Physical: kindName(f.Type().Kind()), Optional: f.Optional()})
	}
	buf := make([]parquet.Value, chunk)
	row := make([]int, len(leaves))
	for _, rg := range pf.RowGroups() {
		for ci, cc := range rg.ColumnChunks() {
			col := &t.Columns[ci]
			kind := leaves[ci].Type().Kind()
			pages := cc.Pages()
			for {
				p, err := pages.ReadPage()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					pages.Close()
					return nil, fmt.Errorf("column %s: %w", col.Name, err)
				}
				vr := p.Values()
				for {
					n, err := vr.ReadValues(buf)
					for _, v := range buf[:n] {
						row[ci]++
						if v.IsNull() {
							col.Nulls++
							if col.FirstNul == 0 {
								col.FirstNul = row[ci]
								col.Null = make([]bool, t.Rows)
							}
							if row[ci] <= t.Rows {
								col.Null[row[ci]-1] = true
							}
							v = parquet.ValueOf(nil)
						}
						switch kind {
						case parquet.ByteArray, parquet.FixedLenByteArray:
							col.Strings = append(col.Strings, string(v.ByteArray()))
						case parquet.Double:
							col.Float64s = append(col.Float64s, v.Double())
						case parquet.Float:
							col.Float64s = append(col.Float64s, float64(v.Float()))
						case parquet.Int32:
							col.Int32s = append(col.Int32s, v.Int32())
							col.Float64s = append(col.Float64s, float64(v.Int32()))
						case parquet.Int64:
							col.Float64s = append(col.Float64s, float64(v.Int64()))
						}
					}
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						parquet.Release(p)
						pages.Close()
						return nil, fmt.Errorf("column %s: %w", col.Name, err)
					}
				}
				parquet.Release(p)
			}
			pages.Close()
		}
	}
	for ci, c := range t.Columns {
		if row[ci] != t.Rows {
			return nil, fmt.Errorf("column %s: %d values, file has %d rows", c.Name, row[ci], t.Rows)
		}
	}
	return t, nil
}

func kindName(k parquet.Kind) string {
	switch k {
	case parquet.ByteArray:
		return "BYTE_ARRAY"
	case parquet.FixedLenByteArray:
		return "FIXED_LEN_BYTE_ARRAY"
	}
	return strings.ToUpper(k.String())
}

// Select returns the columns of the rows idx of cols, for Write: row i of
// the result is row idx[i] of cols (idx ascending keeps the accessors'
// increasing order). Names, kinds, encodings and optionality stay as they
// are: an optional column stays optional, null where cols is, even when
// none of the rows idx is null.
func Select(cols []Column, idx []int) []Column {
	out := make([]Column, len(cols))
	for j, c := range cols {
		s := Column{Name: c.Name, Kind: c.Kind, Dict: c.Dict}
		if c.Null != nil {
			s.Null = make([]bool, len(idx))
			for i, k := range idx {
				s.Null[i] = c.Null[k]
			}
		}
		switch {
		case c.Strings != nil:
			s.String = func(i int) string { return c.Strings[idx[i]] }
		case c.String != nil:
			s.String = func(i int) string { return c.String(idx[i]) }
		case c.Int32s != nil:
			s.Int32 = func(i int) int32 { return c.Int32s[idx[i]] }
		case c.Int32 != nil:
			s.Int32 = func(i int) int32 { return c.Int32(idx[i]) }
		case c.Float64s != nil:
			s.Float64 = func(i int) float64 { return c.Float64s[idx[i]] }
		case c.Float64 != nil:
			s.Float64 = func(i int) float64 { return c.Float64(idx[i]) }
		}
		out[j] = s
	}
	return out
}
