package sessions

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/internal/refdata"
)

func TestReadYandexPyClickSemantics(t *testing.T) {
	in := "s1\t0\tQ\tq1\t0\ta\tb\tc\r\n" +
		"s1\t3\tC\tb\n" +
		"s1\t4\tC\tb\n" + // repeated click on one rank counts once
		"s1\t5\tC\tz\n" + // not in SERP: ignored
		"s2\t0\tQ\tq2\t0\tc\ta\n" +
		"s1\t9\tC\ta\n" + // session differs from the latest Q: ignored
		"s2\t1\tC\ta\n" +
		"garbage\n"
	log, st, err := ReadYandex(strings.NewReader(in), "t", false)
	if err != nil {
		t.Fatal(err)
	}
	want := YandexStats{Lines: 8, Queries: 2, Clicks: 3, IgnoredClickDoc: 1, IgnoredClickSess: 1, Malformed: 1,
		Order: OrderCounts{RepeatedClicks: 1}}
	if st != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
	if log.Len() != 2 || log.Clicks[0] != 0b010 || log.Clicks[1] != 0b10 {
		t.Fatalf("clicks %b", log.Clicks)
	}
	if got := log.Docs.Names[log.SERPDocs(1)[0]]; got != "c" {
		t.Fatalf("doc %q", got)
	}
	if _, _, err := ReadYandex(strings.NewReader(in), "t.tsv", true); err == nil || !strings.Contains(err.Error(), "t.tsv:8") {
		t.Fatalf("strict error should name file and line, got %v", err)
	}
}

func TestYandexRoundTrip(t *testing.T) {
	serps := []SERP{{SessionID: "7", TimePassed: 2, Query: "person", Results: []string{"foaf:Person", "schema:Person"},
		Clicks: []Click{{Rank: 1, TimePassed: 5}}}}
	var buf bytes.Buffer
	if err := WriteYandex(&buf, serps); err != nil {
		t.Fatal(err)
	}
	want := "7\t2\tQ\tperson\t0\tfoaf:Person\tschema:Person\n7\t5\tC\tschema:Person\n"
	if buf.String() != want {
		t.Fatalf("got %q", buf.String())
	}
	log, _, err := ReadYandex(&buf, "x", true)
	if err != nil || log.Len() != 1 || !log.Clicked(0, 1) || log.Clicked(0, 0) {
		t.Fatalf("round trip: %v", err)
	}
}

// The PyClick reference log has 6,000 sessions (its PROVENANCE.md).
func TestReadYandexSharedReference(t *testing.T) {
	p := refdata.Path(t, "pyclick", "golden_ubm6k.tsv")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log, st, err := ReadYandex(f, p, true)
	if err != nil {
		t.Fatal(err)
	}
	if log.Len() != 6000 || st.Malformed != 0 {
		t.Fatalf("got %d SERPs, stats %+v", log.Len(), st)
	}
}

// ReadYandex ignores a leading BOM.
func TestReadYandexBOM(t *testing.T) {
	log, _, err := ReadYandex(strings.NewReader("\xef\xbb\xbf1\t0\tQ\tq\t0\tu1\tu2\n1\t1\tC\tu2\n"), "y", true)
	if err != nil {
		t.Fatal(err)
	}
	if log.Len() != 1 || log.Clicks[0] != 0b10 || log.Sessions.Names[log.Session[0]] != "1" {
		t.Errorf("BOM: %d SERPs, mask %b", log.Len(), log.Clicks)
	}
}

// Fit --log (ReadYandex, strict) rejects the lines ingest
// quarantines, with the same reason, naming file and line: a TimePassed
// that is negative or not an integer (on C lines too), a line over
// MaxYandexLine bytes, a wrong column count.
func TestReadYandexValidatesLikeIngest(t *testing.T) {
	good := "1\t0\tQ\tq\t0\tu1\tu2\n"
	for _, c := range []struct{ in, want string }{
		{good + "1\t-5\tC\tu1\n", "y:2: bad_field_TimePassed"},
		{good + "1\tNaN\tC\tu1\n", "y:2: bad_field_TimePassed"},
		{"1\t-1\tQ\tq\t0\tu1\n", "y:1: bad_field_TimePassed"},
		{"1\t1e3\tQ\tq\t0\tu1\n", "y:1: bad_field_TimePassed"},
		{good + "1\t1\tC\tu1\textra\n", "y:2: malformed_yandex_line"},
		{good + "1\t1\tX\tu1\n", "y:2: malformed_yandex_line"},
		{good + "1\t1\tQ\tq\t0\t" + strings.Repeat("u", MaxYandexLine) + "\n", "y:2: line_too_long"},
		{good + "1\t1\tC\t\xff\n", "y:2: invalid_utf8"},
	} {
		_, _, err := ReadYandex(strings.NewReader(c.in), "y", true)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%.60q: err %v, want prefix %q", c.in, err, c.want)
		}
	}
	// Non-strict: the same lines are counted as malformed and skipped.
	log, st, err := ReadYandex(strings.NewReader(good+"1\t-5\tC\tu1\n1\t1\tC\tu2\n"), "y", false)
	if err != nil || st.Malformed != 1 || log.Clicks[0] != 0b10 {
		t.Errorf("non-strict: %v, stats %+v", err, st)
	}
}

func FuzzParseYandexLine(f *testing.F) {
	f.Add([]byte("1\t0\tQ\tq\t0\tu1\tu2"))
	f.Add([]byte("1\t5\tC\tu1"))
	f.Add([]byte("1\t-5\tC\tu1"))
	f.Add([]byte("\t+7\tQ\t\t\t"))
	f.Fuzz(func(t *testing.T, line []byte) {
		l, reason := ParseYandexLine(nil, line)
		if reason != "" {
			return
		}
		if !bytes.Equal(bytes.Join(l.Fields, []byte("\t")), line) {
			t.Fatalf("fields %q do not join to the line %q", l.Fields, line)
		}
		if l.Time < 0 {
			t.Fatalf("negative time %d accepted", l.Time)
		}
		if l.Click != (string(l.Fields[2]) == "C") || (l.Click && len(l.Fields) != 4) || (!l.Click && (len(l.Fields) < 5 || len(l.Fields)-5 > MaxRanks)) {
			t.Fatalf("bad shape accepted: %q", l.Fields)
		}
	})
}
