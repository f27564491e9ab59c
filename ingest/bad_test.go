package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gz(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

const (
	tenTerms = "a:A,a:B,a:C,a:D,a:E,a:F,a:G,a:H,a:I,a:J"
	okQuery  = `{"date":"2019-01-13 10:00:00","sessionId":"S","searchWords":"thing","page":1,"nbResults":10,"results":"` + tenTerms + `"}`
	okClick  = `{"date":"2019-01-13 10:00:05","sessionId":"S","clickedTerm":"a:C"}`
)

func runLOV(t *testing.T, queries, clicks []byte) (Report, string, error) {
	t.Helper()
	dir := t.TempDir()
	q := write(t, dir, "q.jsonl", queries)
	c := write(t, dir, "c.jsonl", clicks)
	out := filepath.Join(dir, "out")
	// LOVBench's rule 1 as written (DropClickless): these tests count it.
	rep, err := Run(context.Background(), Config{KeepSessionIDs: true, DropClickless: true, Format: FormatLOV, Queries: q, Clicks: c, OutDir: out})
	if err == nil {
		if cerr := rep.Check(); cerr != nil {
			t.Fatal(cerr)
		}
	}
	return rep, out, err
}

func TestLOVGzipByMagic(t *testing.T) {
	// Gzip detected by content: the files are named .jsonl.
	rep, _, err := runLOV(t, gz(t, []byte(okQuery+"\n")), gz(t, []byte(okClick+"\n")))
	if err != nil {
		t.Fatal(err)
	}
	if rep.KeptQueries != 1 || rep.KeptClicks != 1 || rep.Sessions.Kept != 1 {
		t.Fatalf("kept %d queries, %d clicks", rep.KeptQueries, rep.KeptClicks)
	}
}

func TestLOVTruncatedGzip(t *testing.T) {
	data := gz(t, []byte(strings.Repeat(okQuery+"\n", 1000)))
	_, out, err := runLOV(t, data[:len(data)/2], []byte(okClick+"\n"))
	if err == nil || !strings.Contains(err.Error(), "q.jsonl") || !strings.Contains(err.Error(), "gzip") {
		t.Fatalf("err = %v, want a gzip error naming q.jsonl", err)
	}
	if _, serr := os.Stat(filepath.Join(out, ReportFile)); serr == nil {
		t.Error("report.json published despite the error")
	}
}

func TestUnreadableFiles(t *testing.T) {
	dir := t.TempDir()
	_, err := Run(context.Background(), Config{KeepSessionIDs: true, Format: FormatYandex, Log: filepath.Join(dir, "missing.tsv"), OutDir: filepath.Join(dir, "o")})
	if err == nil || !strings.Contains(err.Error(), "missing.tsv") {
		t.Fatalf("missing file: %v", err)
	}
	_, err = Run(context.Background(), Config{KeepSessionIDs: true, Format: FormatYandex, Log: dir, OutDir: filepath.Join(dir, "o")})
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("directory as log: %v", err)
	}
}

func TestLOVBadRecords(t *testing.T) {
	// Each line below is one bad record; its reason is in the map. The last
	// query/click pair is good, so one session survives.
	bad := []struct{ line, reason string }{
		{`{"date":"2019-01-13 09:00:00","sessionId":"S","page":1,"results":"` + tenTerms + `"}`, QMissingWords},
		{`{"date":"2019-01-13 09:00:01","sessionId":"S","searchWords":"x"}`, QMissingResults},
		{`{"date":"2019-01-13 09:00:02","sessionId":"S","searchWords":7,"results":"` + tenTerms + `"}`, QBadWords},
		{`{"date":"2019-01-13 09:00:03","sessionId":"S","searchWords":"x","results":5}`, QBadResults},
		{`{"date":"2019-01-13 09:00:04","sessionId":"S","searchWords":"x","results":"` + tenTerms + `","page":"2b"}`, QBadPage},
		{`{"date":"2019-01-13 09:00:05","sessionId":"S","searchWords":"x","results":"` + tenTerms + `","nbResults":"many"}`, QBadNbResults},
		{`{"date":"2019-01-13 09:00:06","sessionId":42,"searchWords":"x","results":"` + tenTerms + `"}`, QBadSessionID},
		{`{"date":"13/01/2019","sessionId":"S","searchWords":"x","results":"` + tenTerms + `"}`, QBadDate},
		{`{"date":"2019-01-13 09:00:07","sessionId":"S\tT","searchWords":"x","results":"` + tenTerms + `"}`, QBadSessionID},
		{`[1,2,3]`, QInvalidJSON},
		{`{"date":`, QInvalidJSON},
		{`{"date":"2019-01-13 09:00:08","sessionId":"S","searchWords":"x","results":"` + strings.Repeat("a:b,", 70) + `a:c"}`, QTooManyResults},
	}
	var q strings.Builder
	for _, b := range bad {
		q.WriteString(b.line + "\r") // lone CR line endings
	}
	q.WriteString(okQuery + "\r")
	rep, out, err := runLOV(t, []byte(q.String()), []byte(okClick+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, b := range bad {
		want[b.reason]++
	}
	for r, n := range want {
		if rep.Quarantined[r] != n {
			t.Errorf("quarantined[%s] = %d, want %d", r, rep.Quarantined[r], n)
		}
	}
	if rep.KeptQueries != 1 || rep.KeptClicks != 1 || rep.InputEvents != len(bad)+2 {
		t.Errorf("kept %d/%d of %d events", rep.KeptQueries, rep.KeptClicks, rep.InputEvents)
	}
	qb, _ := os.ReadFile(filepath.Join(out, QuarantineFile))
	if n := bytes.Count(qb, []byte("\n")); n != len(bad) {
		t.Errorf("quarantine.jsonl has %d records, want %d", n, len(bad))
	}
	if !bytes.Contains(qb, []byte(`"line":5,"reason":"bad_field_page"`)) {
		t.Errorf("quarantine.jsonl lacks line 5:\n%s", qb)
	}
}

func TestLOVHugeLine(t *testing.T) {
	// A 10 MB line (a JSON string that never ends) is quarantined as too
	// long; the events around it are read normally.
	huge := `{"date":"2019-01-13 09:00:00","sessionId":"S","searchWords":"` + strings.Repeat("x", 10<<20) + `"}`
	rep, _, err := runLOV(t, []byte(huge+"\n"+okQuery+"\n"), []byte(okClick+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Quarantined[QLineTooLong] != 1 || rep.KeptQueries != 1 || rep.KeptClicks != 1 {
		t.Fatalf("line_too_long %d, kept %d/%d", rep.Quarantined[QLineTooLong], rep.KeptQueries, rep.KeptClicks)
	}
}

func TestLOVVocabKind(t *testing.T) {
	// Vocabulary search: a full SERP has 15 results, clicks are clickedVoc,
	// and results are prefixes without a colon.
	vocs := "foaf,schema,dc,dcterms,skos,owl,rdfs,prov,org,vcard,geo,time,event,bibo,sioc"
	q := `{"date":"2019-01-13 10:00:00","sessionId":"S","searchWords":"people","filterTags":"","filterLangs":"","nbResults":15,"results":"` + vocs + `"}` + "\n" +
		`{"date":"2019-01-13 10:01:00","sessionId":"S","searchWords":"people","filterLangs":"fr","nbResults":15,"results":"` + vocs + `"}` + "\n" +
		`{"date":"2019-01-13 10:02:00","sessionId":"S","searchWords":"people","nbResults":14,"results":"` + vocs + `"}` + "\n"
	c := `{"date":"2019-01-13 10:00:05","sessionId":"S","clickedVoc":"schema"}` + "\n"
	dir := t.TempDir()
	rep, err := Run(context.Background(), Config{KeepSessionIDs: true, Format: FormatLOV, Kind: KindVocab,
		Queries: write(t, dir, "q", []byte(q)), Clicks: write(t, dir, "c", []byte(c)), OutDir: filepath.Join(dir, "o")})
	if err != nil {
		t.Fatal(err)
	}
	if rep.KeptQueries != 1 || rep.KeptClicks != 1 || rep.Dropped[DropFilterSet] != 1 || rep.Dropped[DropShortSERP] != 1 || rep.FullSERP != 15 {
		t.Fatalf("report %+v", rep)
	}
}

// yandexIn is a hand-written Yandex log. Expected, line by line:
//
//	1-3  session 1: Q with 3 URLs, two clicks: kept (times rebased: 0, 2, 3... see below)
//	4    blank
//	5    "2\tx\tQ..." TimePassed not an integer: quarantine bad_field_TimePassed
//	6    "2\t1\tZ\t9" neither Q nor C: quarantine malformed_yandex_line
//	7    "\t1\tC\t9" empty SessionID: rule 1 no_session_id
//	8    session 3: C before any Q: rule 1 click_without_query
//	9    session 3: Q, query "Q7" -> "q7", kept
//	10   session 3: same line again: quarantine duplicate_event
//	11   session 3: click on u9, not in the SERP: rule 4, session 3 dropped (events 9, 11)
//	12   session 4: Q with an empty URL field: rule 3 malformed_results
//	13   session 4: C after it: rule 3 click_after_dropped_query; session 4 has no click
//	14   session 5: Q only: rule 1 session_without_click (1 event)
//	15-16 session 6: Q at time 100, C at 104: kept as times 0 and 4; CRLF ending
const yandexIn = "1\t10\tQ\tQ1\t5\tu1\tu2\tu3\n1\t12\tC\tu2\n1\t13\tC\tu3\n\n" +
	"2\tx\tQ\tq\t0\tu1\n2\t1\tZ\t9\n\t1\tC\t9\n" +
	"3\t0\tC\tu1\n3\t1\tQ\tQ7\t0\tu1\tu2\n3\t1\tQ\tQ7\t0\tu1\tu2\n3\t2\tC\tu9\n" +
	"4\t0\tQ\tq\t0\tu1\t\tu3\n4\t1\tC\tu1\n" +
	"5\t0\tQ\tq5\t0\tu1\n" +
	"6\t100\tQ\tq6\t0\tu4\tu5\r\n6\t104\tC\tu5\r\n"

func TestYandexHandWritten(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "log.tsv", []byte(yandexIn))
	out := filepath.Join(dir, "out")
	rep, err := Run(context.Background(), Config{KeepSessionIDs: true, DropClickless: true, Format: FormatYandex, Log: in, OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Check(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(out, YandexFile))
	// Session 1 rebased on its first kept event (time 10); the region 5 is kept.
	want := "1\t0\tQ\tq1\t5\tu1\tu2\tu3\n1\t2\tC\tu2\n1\t3\tC\tu3\n6\t0\tQ\tq6\t0\tu4\tu5\n6\t4\tC\tu5\n"
	if string(got) != want {
		t.Errorf("clean.yandex.tsv:\n%q\nwant\n%q", got, want)
	}
	checks := map[string]int{
		"input_lines": rep.InputLines, "blank": rep.BlankLines, "events": rep.InputEvents,
		QBadTimePassed: rep.Quarantined[QBadTimePassed], QMalformedYandex: rep.Quarantined[QMalformedYandex],
		QDuplicate: rep.Quarantined[QDuplicate], DropNoSessionID: rep.Dropped[DropNoSessionID],
		DropClickWithoutQuery: rep.Dropped[DropClickWithoutQuery], DropMultiTab: rep.Dropped[DropMultiTab],
		DropMalformedResults: rep.Dropped[DropMalformedResults], DropClickAfterDropped: rep.Dropped[DropClickAfterDropped],
		DropSessionNoClick: rep.Dropped[DropSessionNoClick], "kept_q": rep.KeptQueries, "kept_c": rep.KeptClicks,
		"sessions_seen": rep.Sessions.Seen, "sessions_kept": rep.Sessions.Kept,
		"raw_q": rep.RawQueries, "raw_c": rep.RawClicks,
	}
	wantN := map[string]int{
		"input_lines": 16, "blank": 1, "events": 15,
		QBadTimePassed: 1, QMalformedYandex: 1, QDuplicate: 1, DropNoSessionID: 1,
		DropClickWithoutQuery: 1, DropMultiTab: 2, DropMalformedResults: 1, DropClickAfterDropped: 1,
		DropSessionNoClick: 1, "kept_q": 2, "kept_c": 3,
		// Sessions 1, 3, 4, 5, 6 (session 2's lines were all quarantined
		// before a session was opened).
		"sessions_seen": 5, "sessions_kept": 2,
		// Well-formed Q lines 1, 9, 10, 12, 14, 15; C lines 2, 3, 7, 8, 11, 13, 16.
		"raw_q": 6, "raw_c": 7,
	}
	for k, v := range wantN {
		if checks[k] != v {
			t.Errorf("%s = %d, want %d", k, checks[k], v)
		}
	}
	// sessions.Load reads the output directory: same SERPs as the TSV.
	l, err := sessions.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 2 || l.Clicks[0] != 0b110 || l.Clicks[1] != 0b10 {
		t.Fatalf("Load: %d SERPs, masks %b", l.Len(), l.Clicks)
	}
}

func TestYandexTruncatedGzip(t *testing.T) {
	dir := t.TempDir()
	data := gz(t, []byte(strings.Repeat("1\t0\tQ\tq\t0\tu1\n1\t1\tC\tu1\n", 5000)))
	in := write(t, dir, "log.tsv.gz", data[:len(data)-40])
	_, err := Run(context.Background(), Config{KeepSessionIDs: true, Format: FormatYandex, Log: in, OutDir: filepath.Join(dir, "o")})
	if err == nil || !strings.Contains(err.Error(), "log.tsv.gz") {
		t.Fatalf("err = %v, want an error naming log.tsv.gz", err)
	}
}

func TestContextCancel(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := SyntheticYandex(&b, 200000, 3); err != nil {
		t.Fatal(err)
	}
	in := write(t, dir, "log.tsv", b.Bytes())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, Config{KeepSessionIDs: true, Format: FormatYandex, Log: in, OutDir: filepath.Join(dir, "o")}); err == nil {
		t.Fatal("cancelled context: no error")
	}
}

func TestYandexBadLines(t *testing.T) {
	// A 10 MB line, invalid UTF-8, 65 URLs, then a good session.
	var in strings.Builder
	in.WriteString("1\t0\tQ\tq\t0\t" + strings.Repeat("u", 10<<20) + "\n")
	in.WriteString("2\t0\tQ\tq\xff\t0\tu1\n")
	in.WriteString("3\t0\tQ\tq\t0" + strings.Repeat("\tu", 65) + "\n")
	in.WriteString("4\t0\tQ\tq\t0\tu1\tu2\n4\t1\tC\tu2\n")
	dir := t.TempDir()
	rep, err := Run(context.Background(), Config{KeepSessionIDs: true, Format: FormatYandex, Log: write(t, dir, "log", []byte(in.String())), OutDir: filepath.Join(dir, "o")})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Check(); err != nil {
		t.Fatal(err)
	}
	if rep.Quarantined[QLineTooLong] != 1 || rep.Quarantined[QInvalidUTF8] != 1 || rep.Quarantined[QTooManyResults] != 1 ||
		rep.KeptQueries != 1 || rep.KeptClicks != 1 {
		t.Fatalf("report: quarantined %v, kept %d/%d", rep.Quarantined, rep.KeptQueries, rep.KeptClicks)
	}
}

// A UTF-8 BOM at the start of a file (plain or inside the
// gzip stream) is not part of the first record: the LOV query is kept, not
// quarantined as invalid JSON, and the Yandex SessionID is "1", not
// "\ufeff1" (which would split session 1 and drop its click).
func TestBOMIsNotData(t *testing.T) {
	bom := "\xef\xbb\xbf"
	for _, z := range []bool{false, true} {
		enc := func(s string) []byte {
			if z {
				return gz(t, []byte(s))
			}
			return []byte(s)
		}
		rep, _, err := runLOV(t, enc(bom+okQuery+"\n"), enc(bom+okClick+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if rep.KeptQueries != 1 || rep.KeptClicks != 1 || rep.Quarantined[QInvalidJSON] != 0 {
			t.Errorf("LOV with BOM (gzip %v): kept %d/%d, invalid_json %d; want 1/1/0", z, rep.KeptQueries, rep.KeptClicks, rep.Quarantined[QInvalidJSON])
		}
		dir := t.TempDir()
		in := write(t, dir, "log.tsv", enc(bom+"1\t0\tQ\tq1\t0\tu1\tu2\n1\t1\tC\tu2\n"))
		out := filepath.Join(dir, "out")
		yrep, err := Run(context.Background(), Config{KeepSessionIDs: true, Format: FormatYandex, Log: in, OutDir: out})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(out, YandexFile))
		if want := "1\t0\tQ\tq1\t0\tu1\tu2\n1\t1\tC\tu2\n"; string(got) != want || yrep.KeptClicks != 1 {
			t.Errorf("Yandex with BOM (gzip %v): %q, want %q", z, got, want)
		}
	}
}

// Ingest and fit --log share sessions.ParseYandexLine; a
// negative TimePassed (a time before the session start) is quarantined as
// bad_field_TimePassed, on Q and C lines.
func TestYandexNegativeTimePassed(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "log.tsv", []byte("1\t0\tQ\tq1\t0\tu1\tu2\n1\t-5\tC\tu2\n1\t3\tC\tu1\n2\t-1\tQ\tq2\t0\tu1\n"))
	rep, err := Run(context.Background(), Config{KeepSessionIDs: true, Format: FormatYandex, Log: in, OutDir: filepath.Join(dir, "o")})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Quarantined[QBadTimePassed] != 2 || rep.KeptClicks != 1 {
		t.Errorf("bad_field_TimePassed %d (want 2), kept clicks %d (want 1)", rep.Quarantined[QBadTimePassed], rep.KeptClicks)
	}
}
