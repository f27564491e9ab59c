package sessions

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// testSERPs is a hand-made log: two sessions, the first with two SERPs.
func testSERPs() []SERP {
	return []SERP{
		{SessionID: "s1", Index: 0, TimePassed: 0, Query: "person", Region: "0",
			Results: []string{"foaf:Person", "schema:Person", "dbo:Person"},
			Clicks:  []Click{{Rank: 1, TimePassed: 4}, {Rank: 1, TimePassed: 9}}},
		{SessionID: "s1", Index: 1, TimePassed: 20, Query: "name", Region: "0",
			Results: []string{"foaf:name", "schema:name"}},
		{SessionID: "s2", Index: 0, TimePassed: 0, Query: "event", Region: "0",
			Results: []string{"schema:Event", "event:Event"},
			Clicks:  []Click{{Rank: 0, TimePassed: 2}}},
	}
}

func TestParquetRoundTrip(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ParquetName)
	var buf bytes.Buffer
	if err := WriteParquet(&buf, testSERPs()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadParquet(p)
	if err != nil {
		t.Fatal(err)
	}
	want := testSERPs()
	want[1].Clicks = []Click{} // read back as empty, not nil
	for i := range got {
		if got[i].Clicks == nil {
			got[i].Clicks = []Click{}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
	// A second write gives identical bytes (no timestamps in the file).
	var buf2 bytes.Buffer
	if err := WriteParquet(&buf2, testSERPs()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
		t.Fatal("two writes of the same SERPs differ")
	}
}

func TestParquetManyRowGroups(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := NewParquetWriter(f, 1000)
	const n = 5000
	for i := 0; i < n; i++ {
		s := SERP{SessionID: "x", Index: i, Query: "q", Results: []string{"a:A", "b:b"}, Clicks: []Click{{Rank: i % 2, TimePassed: int64(i)}}}
		if err := w.Write(&s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	k := 0
	err = ScanParquet(p, func(s *SERP) error {
		if s.Index != k || s.Clicks[0].Rank != k%2 || s.Clicks[0].TimePassed != int64(k) {
			t.Fatalf("row %d: %+v", k, s)
		}
		k++
		return nil
	})
	if err != nil || k != n {
		t.Fatalf("read %d rows, err %v", k, err)
	}
}

// checkLog compares a loaded Log with testSERPs: clicks become a bit mask, so
// the double click on rank 1 of the first SERP counts once (PyClick).
func checkLog(t *testing.T, l *Log) {
	t.Helper()
	if l.Len() != 3 {
		t.Fatalf("Len = %d, want 3", l.Len())
	}
	wantMasks := []uint64{0b010, 0, 0b01}
	wantQ := []string{"person", "name", "event"}
	wantSess := []string{"s1", "s1", "s2"}
	for i := 0; i < 3; i++ {
		if l.Clicks[i] != wantMasks[i] {
			t.Errorf("SERP %d mask %b, want %b", i, l.Clicks[i], wantMasks[i])
		}
		if l.Queries.Names[l.Query[i]] != wantQ[i] || l.Sessions.Names[l.Session[i]] != wantSess[i] {
			t.Errorf("SERP %d query/session wrong", i)
		}
	}
	if d := l.SERPDocs(0); l.Docs.Names[d[2]] != "dbo:Person" {
		t.Errorf("SERP 0 rank 2 = %s", l.Docs.Names[d[2]])
	}
}

func TestLoadDirParquetAndYandex(t *testing.T) {
	dir := t.TempDir()
	var pq bytes.Buffer
	if err := WriteParquet(&pq, testSERPs()); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ParquetName), pq.Bytes(), 0o644)
	var y bytes.Buffer
	if err := WriteYandex(&y, testSERPs()); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "log.tsv"), y.Bytes(), 0o644)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(y.Bytes())
	zw.Close()
	os.WriteFile(filepath.Join(dir, "log.data"), gz.Bytes(), 0o644) // gzip without .gz
	for _, p := range []string{dir, filepath.Join(dir, ParquetName), filepath.Join(dir, "log.tsv"), filepath.Join(dir, "log.data")} {
		l, err := Load(p)
		if err != nil {
			t.Fatalf("Load(%s): %v", p, err)
		}
		checkLog(t, l)
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("Load of an empty directory: no error")
	}
	// Truncated gzip: an error naming the file.
	trunc := filepath.Join(dir, "trunc.gz")
	os.WriteFile(trunc, gz.Bytes()[:len(gz.Bytes())-12], 0o644)
	if _, err := Load(trunc); err == nil || !bytes.Contains([]byte(err.Error()), []byte("trunc.gz")) {
		t.Errorf("Load(truncated gzip) = %v, want an error naming the file", err)
	}
}
