package sessions

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestScanParquetResults checks the query/results reader against the hand
// log and against ScanParquet on a file of many row groups (several pages
// per column chunk) with empty and long result lists.
func TestScanParquetResults(t *testing.T) {
	type rec struct {
		q string
		r []string
	}
	scan := func(p string) []rec {
		var got []rec
		err := ScanParquetResults(p, func(q []byte, rs [][]byte) error {
			r := []string{}
			for _, x := range rs {
				r = append(r, string(x))
			}
			got = append(got, rec{string(q), r})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	write := func(p string, rowGroup int, serps []SERP) {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w := NewParquetWriter(f, rowGroup)
		for i := range serps {
			if err := w.Write(&serps[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "hand.parquet")
	write(p, 0, testSERPs())
	want := []rec{
		{"person", []string{"foaf:Person", "schema:Person", "dbo:Person"}},
		{"name", []string{"foaf:name", "schema:name"}},
		{"event", []string{"schema:Event", "event:Event"}},
	}
	if got := scan(p); !reflect.DeepEqual(got, want) {
		t.Fatalf("hand log:\n got %q\nwant %q", got, want)
	}

	// 5,000 SERPs in row groups of 1,024 rows; SERP i has i%13 results
	// (0 included) of names long enough to need several pages.
	var serps []SERP
	want = nil
	for i := range 5000 {
		s := SERP{SessionID: fmt.Sprint("s", i), Query: fmt.Sprintf("q%d", i%97), Region: "0"}
		for r := range i % 13 {
			s.Results = append(s.Results, fmt.Sprintf("d%d-%s", (i*7+r)%501, strings.Repeat("x", i%40)))
		}
		if len(s.Results) > 0 {
			s.Clicks = []Click{{Rank: len(s.Results) - 1, TimePassed: int64(i)}}
		}
		serps = append(serps, s)
		want = append(want, rec{s.Query, append([]string{}, s.Results...)})
	}
	p = filepath.Join(dir, "many.parquet")
	write(p, 1024, serps)
	if got := scan(p); !reflect.DeepEqual(got, want) {
		t.Fatal("many row groups: records differ from those written")
	}
	// An error of fn stops the scan (here in the third row group).
	stopErr := fmt.Errorf("stop")
	n := 0
	err := ScanParquetResults(p, func([]byte, [][]byte) error {
		if n++; n == 2500 {
			return stopErr
		}
		return nil
	})
	if err != stopErr || n != 2500 {
		t.Fatalf("after an error of fn: %d rows, error %v", n, err)
	}
	var full []rec
	if err := ScanParquet(p, func(s *SERP) error {
		full = append(full, rec{s.Query, append([]string{}, s.Results...)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(full, want) {
		t.Fatal("ScanParquet disagrees with the records written")
	}
}
