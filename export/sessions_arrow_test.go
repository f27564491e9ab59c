package export

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/lovbench/lovbench/sessions"
)

// TestSessionsParquetReadableByArrow checks that sessions.parquet is
// standard Parquet: the Apache Arrow reader (an independent implementation)
// reads the rows, the list columns and the Snappy pages back. It is a test
// of the sessions package kept among export's tests, which link arrow-go's
// Parquet reader anyway: in sessions' own test binary that reader (with the
// Arrow compute kernels, Flight and gRPC it brings) was about half of the
// link, 1.9 CPU-s at every go test.
func TestSessionsParquetReadableByArrow(t *testing.T) {
	serps := []sessions.SERP{
		{SessionID: "s1", Index: 0, TimePassed: 0, Query: "person", Region: "0",
			Results: []string{"foaf:Person", "schema:Person", "dbo:Person"},
			Clicks:  []sessions.Click{{Rank: 1, TimePassed: 4}, {Rank: 1, TimePassed: 9}}},
		{SessionID: "s1", Index: 1, TimePassed: 20, Query: "name", Region: "0",
			Results: []string{"foaf:name", "schema:name"}},
		{SessionID: "s2", Index: 0, TimePassed: 0, Query: "event", Region: "0",
			Results: []string{"schema:Event", "event:Event"},
			Clicks:  []sessions.Click{{Rank: 0, TimePassed: 2}}},
	}
	var buf bytes.Buffer
	if err := sessions.WriteParquet(&buf, serps); err != nil {
		t.Fatal(err)
	}
	tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(buf.Bytes()), parquet.NewReaderProperties(memory.DefaultAllocator),
		pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != 3 {
		t.Fatalf("%d rows, want 3", tbl.NumRows())
	}
	var names []string
	for _, f := range tbl.Schema().Fields() {
		names = append(names, f.Name)
	}
	want := []string{"session_id", "serp_index", "time_passed", "query", "region", "results", "click_ranks", "click_times"}
	if len(names) != len(want) {
		t.Fatalf("columns %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("columns %v, want %v", names, want)
		}
	}
	// results of row 0: foaf:Person schema:Person dbo:Person.
	col := tbl.Column(5).Data().Chunk(0).(*array.List)
	vals := col.ListValues().(*array.String)
	start, end := col.ValueOffsets(0)
	if end-start != 3 || vals.Value(int(start)+2) != "dbo:Person" {
		t.Fatalf("results[0] = offsets %d..%d", start, end)
	}
	// click_ranks of row 0: [1 1].
	cr := tbl.Column(6).Data().Chunk(0).(*array.List)
	ranks := cr.ListValues().(*array.Int32)
	s, e := cr.ValueOffsets(0)
	if e-s != 2 || ranks.Value(int(s)) != 1 || ranks.Value(int(s)+1) != 1 {
		t.Fatalf("click_ranks[0] wrong")
	}
}
