package sessions

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestYandexToParquet converts a hand-written Yandex log and checks every
// SERP read back: order, session, index within the session's run, query,
// results and clicks in file order with their TimePassed, from which the
// click order is read (a click on a document not shown and a click of
// another session are ignored, as ReadYandex ignores them). A
// malformed line is an error naming the file and line, and no output
// file is left.
func TestYandexToParquet(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "log.tsv")
	log := "s1\t0\tQ\tq1\t0\td1\td2\td3\n" +
		"s1\t1\tC\td3\n" +
		"s1\t2\tC\td1\n" +
		"s1\t3\tQ\tq2\t0\td4\td5\n" +
		"s1\t4\tC\td9\n" + // not on the SERP: ignored
		"s2\t0\tQ\tq1\t0\td2\td1\n" +
		"s1\t5\tC\td2\n" // another session's SERP: ignored
	if err := os.WriteFile(src, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "out", ParquetName)
	os.MkdirAll(filepath.Dir(dst), 0o755)
	st, err := YandexToParquet(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if st.Queries != 3 || st.Clicks != 2 || st.IgnoredClickDoc != 1 || st.IgnoredClickSess != 1 {
		t.Errorf("stats %+v", st)
	}
	got, err := ReadParquet(dst)
	if err != nil {
		t.Fatal(err)
	}
	want := []SERP{
		{SessionID: "s1", Index: 0, Query: "q1", Region: "0", Results: []string{"d1", "d2", "d3"}, Clicks: []Click{{Rank: 2, TimePassed: 1}, {Rank: 0, TimePassed: 2}}},
		{SessionID: "s1", Index: 1, Query: "q2", Region: "0", Results: []string{"d4", "d5"}},
		{SessionID: "s2", Index: 0, Query: "q1", Region: "0", Results: []string{"d2", "d1"}},
	}
	if len(got) != len(want) {
		t.Fatalf("%d SERPs, want %d", len(got), len(want))
	}
	for i := range want {
		g := got[i]
		if len(g.Clicks) == 0 {
			g.Clicks = nil
		}
		if !reflect.DeepEqual(g, want[i]) {
			t.Errorf("SERP %d: %+v, want %+v", i, g, want[i])
		}
	}
	if err := os.WriteFile(src, []byte(log+"garbage line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.parquet")
	if _, err := YandexToParquet(src, bad); err == nil || !strings.Contains(err.Error(), "log.tsv:8: ") {
		t.Errorf("malformed line: %v, want an error naming log.tsv:8", err)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a failed conversion left %s", bad)
	}
}
