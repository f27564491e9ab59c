package export

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// The footer of dataset.parquet, column by column. The expected schema was
// read from the file arrow-go's pqarrow wrote before every Parquet file moved
// the writer to parquet-go: required columns; strings as BYTE_ARRAY with the
// STRING logical and UTF8 converted type; int32 as INT32 with logical
// INT(32, signed) and converted INT_32; features as DOUBLE without logical
// type; Snappy; query and term dictionary-encoded; created_by "lovbench".
// Issue 26 added the optional DOUBLE confidence column after partition.
func TestParquetSchemaUnchanged(t *testing.T) {
	dir, _, _ := buildDir(t, Options{Seed: 4})
	f, err := os.Open(filepath.Join(dir, ParquetFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	md := pf.Metadata()
	if md.CreatedBy != "lovbench" {
		t.Errorf("created_by %q, want lovbench", md.CreatedBy)
	}
	want := []string{
		`schema group 40`,
		`query BYTE_ARRAY REQUIRED STRING conv=UTF8`,
		`qid INT32 REQUIRED INT(32,true) conv=INT_32`,
		`term BYTE_ARRAY REQUIRED STRING conv=UTF8`,
		`label INT32 REQUIRED INT(32,true) conv=INT_32`,
		`partition INT32 REQUIRED INT(32,true) conv=INT_32`,
		`confidence DOUBLE OPTIONAL <nil> conv=none`,
	}
	for _, fe := range FeatureList() {
		want = append(want, fe.Name+` DOUBLE REQUIRED <nil> conv=none`)
	}
	var got []string
	for i, e := range md.Schema {
		if i == 0 {
			got = append(got, fmt.Sprintf("%s group %d", e.Name, e.NumChildren.V))
			continue
		}
		// Converted types by their number in parquet.thrift: UTF8 = 0,
		// INT_32 = 17.
		conv := "none"
		if c, ok := e.ConvertedType.Get(); ok {
			conv = map[int]string{0: "UTF8", 17: "INT_32"}[int(c)]
			if conv == "" {
				conv = fmt.Sprint(int(c))
			}
		}
		got = append(got, fmt.Sprintf("%s %v %v %v conv=%s", e.Name, e.Type.V, e.RepetitionType.V, e.LogicalType.Value, conv))
	}
	if !slices.Equal(got, want) {
		t.Errorf("schema\n got %q\nwant %q", got, want)
	}
	for _, rg := range md.RowGroups {
		for _, c := range rg.Columns {
			if c.MetaData.Codec.String() != "SNAPPY" {
				t.Errorf("%s: codec %v", c.MetaData.PathInSchema[0], c.MetaData.Codec)
			}
		}
	}
}
