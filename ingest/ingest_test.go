package ingest

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/ingest/pii"
	"github.com/lovbench/lovbench/sessions"
)

func readBlacklist(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bl, err := pii.ReadBlacklist(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return bl
}

// TestGoldenLOV ingests the hand-written log in testdata/lov and compares
// every output with files written by hand. The expected outcome, event by
// event (q = queries.jsonl line, c = clicks.jsonl line, CRLF endings; the
// files are merged by date, a query before a click at the same second):
//
//	q1  A 10:00:00 "  Person "          rule 2 -> "person", kept (A SERP 0, t=0)
//	c1  A 10:00:10 schema:Person        rank 1 of SERP 0, kept (t=10)
//	q2  A 10:00:30 "&quot;Name&quot;"   rule 2 -> "name", nbResults "45" >= 10, kept (t=30)
//	c2  A 10:00:40 foaf:name            rank 0, kept (t=40)
//	q3  B page 2                        rule 3 page_not_first
//	c3  B click after q3                rule 3 click_after_dropped_query
//	q4  B filterTypes "class"           rule 3 filter_set
//	q5  B 10:01:20 "Event"              kept (B: t=0)
//	c4  B 10:01:25 schema:Event         rank 0, kept (t=5)
//	q6  C "   "                         rule 3 empty_query
//	q7  C results ""                    rule 3 empty_results
//	q8  C nbResults 3                   rule 3 short_serp (< 10)
//	q9  C an e-mail address             rule 3 pii_email
//	q10 C "Secret  Project"             rule 2 -> "secret project": pii_blacklist
//	q11 C results with an empty item    rule 3 malformed_results
//	c5  C click after q11               rule 3 click_after_dropped_query
//	q12 no sessionId                    rule 1 no_session_id
//	q13 "not json at all"               quarantine invalid_json
//	q14 page "two"                      quarantine bad_field_page
//	q15 no date                         quarantine missing_field_date
//	c6  H, a session with no query      rule 1 click_without_query (+ quarantine note)
//	q16 D 10:04:00 "label"              kept (D: t=0)
//	q17 same line as q16                quarantine duplicate_event
//	c7  D 10:04:05 rdfs:label           rank 0, kept (t=5)
//	q18 E "time"                        kept for now
//	c8  E foaf:knows, not in E's SERP   rule 4: E is multi-tab
//	c9  E time:Instant                  in SERP, but E is dropped: rule 4 counts q18, c8, c9 = 3
//	c10 invalid UTF-8 byte              quarantine invalid_utf8
//	c11 no clickedTerm                  quarantine missing_field_clicked
//	q19 F "place"                       kept, but F gets no click: rule 1 session_without_click (1)
//	q20 blank line                      blank
//	q21 G 10:07:00 "creator"            kept (G: t=0)
//	c12 G 10:07:10 dcterms:creator      rank 0, kept (t=10)
//	q22 G 11:00:00 "Creator"            more than 30 min after G's last event: every open
//	                                    session closes (in order of last activity: A B C H D E F G)
//	                                    and G reopens as "G~2"; kept (t=0)
//	c13 G 11:00:05 dc:creator           rank 1, kept (G~2: t=5)
//	c14 G 10:59:00                      earlier than c13: quarantine date_out_of_order
//	c15 "}"                             quarantine invalid_json
//
// Sessions: A, B, D, G, G~2 kept (5); C, H, F without click (3); E
// multi-tab (1); 9 seen. Events: 36 (37 lines, 1 blank) = 9 quarantined
// records of which 8 quarantine reasons (the click_without_query note is
// counted in dropped) + 16 dropped (1+1+1+1+1+1+1+1+1+1+1+2+3) + 6 kept
// queries + 6 kept clicks. 8 + 16 + 12 = 36. Raw (well-formed) events:
// queries q1-q12, q16-q19, q21, q22 = 18; clicks c1-c9, c12, c13 = 11.
func TestGoldenLOV(t *testing.T) {
	out := t.TempDir()
	var logBuf bytes.Buffer
	rep, err := Run(context.Background(), Config{KeepSessionIDs: true, DropClickless: true,
		Logger:    slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Format:    FormatLOV,
		Queries:   "testdata/lov/queries.jsonl",
		Clicks:    "testdata/lov/clicks.jsonl",
		Kind:      KindTerm,
		Blacklist: readBlacklist(t, "testdata/lov/blacklist.txt"),
		OutDir:    out,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ got, want string }{
		{ReportFile, "expected.report.json"},
		{YandexFile, "expected.clean.yandex.tsv"},
		{QuarantineFile, "expected.quarantine.jsonl"},
	} {
		got, err := os.ReadFile(filepath.Join(out, f.got))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("testdata/lov", f.want))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", f.got, f.want, got, want)
		}
	}
	if err := rep.Check(); err != nil {
		t.Error(err)
	}
	// sessions.parquet holds the same SERPs as clean.yandex.tsv.
	serps, err := ReadSessions(filepath.Join(out, SessionsFile))
	if err != nil {
		t.Fatal(err)
	}
	var y bytes.Buffer
	if err := sessions.WriteYandex(&y, serps); err != nil {
		t.Fatal(err)
	}
	tsv, _ := os.ReadFile(filepath.Join(out, YandexFile))
	if !bytes.Equal(y.Bytes(), tsv) {
		t.Errorf("parquet and TSV differ:\n%s\nvs\n%s", y.Bytes(), tsv)
	}
	wantIdx := []int{0, 1, 0, 0, 0, 0}
	for i, s := range serps {
		if s.Index != wantIdx[i] {
			t.Errorf("SERP %d index %d, want %d", i, s.Index, wantIdx[i])
		}
	}
	// The Yandex output reads back with identical SERPs.
	log, st, err := sessions.ReadYandex(bytes.NewReader(tsv), YandexFile, true)
	if err != nil || log.Len() != 6 || st.Clicks != 6 {
		t.Fatalf("ReadYandex: %d SERPs, %d clicks, %v", log.Len(), st.Clicks, err)
	}
	// Removed personal data appears in no output.
	assertNoLeak(t, out, "john.doe", "example.org", "secret project")
	if err := os.WriteFile(filepath.Join(out, "log.txt"), logBuf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if logBuf.Len() == 0 {
		t.Error("nothing logged")
	}
	assertNoLeak(t, out, "john.doe", "example.org", "secret project") // now with the log
	os.Remove(filepath.Join(out, "log.txt"))
	// A second run gives byte-identical files.
	out2 := t.TempDir()
	if _, err := Run(context.Background(), Config{KeepSessionIDs: true, DropClickless: true, Format: FormatLOV, Queries: "testdata/lov/queries.jsonl",
		Clicks: "testdata/lov/clicks.jsonl", Blacklist: readBlacklist(t, "testdata/lov/blacklist.txt"), OutDir: out2}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{SessionsFile, YandexFile, ReportFile, QuarantineFile} {
		a, _ := os.ReadFile(filepath.Join(out, f))
		b, _ := os.ReadFile(filepath.Join(out2, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", f)
		}
	}
}

// assertNoLeak fails if any file in dir contains one of the secrets
// (case-insensitively).
func assertNoLeak(t *testing.T, dir string, secrets ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets {
			if bytes.Contains(bytes.ToLower(b), []byte(strings.ToLower(s))) {
				t.Errorf("%s contains removed personal data %q", e.Name(), s)
			}
		}
	}
}

func TestNormalizeQuery(t *testing.T) {
	for in, want := range map[string]string{
		"person":                  "person",
		"  Person ":               "person",
		"&quot;foaf Person&quot;": "foaf person",
		"&QUOT;x&quot;":           "x",
		"a\tb\r\nc":               "a b c",
		"ÉVÉNEMENT":               "événement",
		"":                        "",
		"   ":                     "",
		"two  spaces":             "two spaces",
	} {
		if got := NormalizeQuery(in); got != want {
			t.Errorf("NormalizeQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReportJSONRoundTrip(t *testing.T) {
	rep, err := ReadReport("testdata/lov/expected.report.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Check(); err != nil {
		t.Fatal(err)
	}
	want := newReport()
	if len(rep.Dropped) != len(want.Dropped) || len(rep.Quarantined) != len(want.Quarantined) {
		t.Fatal("expected report lacks some rule or reason")
	}
	if !reflect.DeepEqual(rep.Sessions, SessionCounts{Seen: 9, Kept: 5, DroppedNoClick: 3, DroppedMultiTab: 1}) {
		t.Fatal(rep.Sessions)
	}
}

func TestLOVFieldDecoders(t *testing.T) {
	for raw, want := range map[string]int{`1`: 1, `"1"`: 1, `" 2 "`: 2, `1.0`: 1, `"-3"`: -3} {
		if got, ok := intField([]byte(raw)); !ok || got != want {
			t.Errorf("intField(%s) = %d, %v; want %d", raw, got, ok, want)
		}
	}
	for _, raw := range []string{`1.5`, `"x"`, `""`, `true`, `[1]`, `"1e3"`} {
		if _, ok := intField([]byte(raw)); ok {
			t.Errorf("intField(%s) accepted", raw)
		}
	}
	for raw, want := range map[string]string{`"a b"`: "a b", `"a\"b"`: `a"b`, `"\u00e9"`: "é", `""`: ""} {
		if got, ok := stringField([]byte(raw)); !ok || got != want {
			t.Errorf("stringField(%s) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	// 2019-01-13 12:22:05 UTC is 1547382125 s after the Unix epoch
	// (17,909 days * 86,400 + 12*3,600 + 22*60 + 5).
	for _, raw := range []string{`"2019-01-13 12:22:05"`, `"2019-01-13T12:22:05Z"`, `"2019-01-13T12:22:05.000Z"`, `{"$date":"2019-01-13T12:22:05Z"}`, `{"$date":1547382125000}`} {
		if got, ok := parseDate([]byte(raw)); !ok || got != 1547382125 {
			t.Errorf("parseDate(%s) = %d, %v", raw, got, ok)
		}
	}
}

// Session IDs are pseudonymised with
// hex(HMAC-SHA256(salt, ID)[:12]); LOV's reopening suffix is kept. The
// expected pseudonyms were computed outside the code under test, with
// Python: hmac.new(b"salt", b"A", hashlib.sha256).hexdigest()[:24].
func TestSessionIDPseudonyms(t *testing.T) {
	want := map[string]string{
		"A": "f948bf2c04be76f7ba5e24d2", "G": "7537cec4d0f61fdf7632a940", "G~2": "7537cec4d0f61fdf7632a940~2",
	}
	ids := func(dir string) map[string]bool {
		b, err := os.ReadFile(filepath.Join(dir, YandexFile))
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]bool{}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			m[strings.SplitN(l, "\t", 2)[0]] = true
		}
		return m
	}
	run := func(salt string) string {
		out := t.TempDir()
		if _, err := Run(context.Background(), Config{Format: FormatLOV, Queries: "testdata/lov/queries.jsonl",
			Clicks: "testdata/lov/clicks.jsonl", PIISalt: []byte(salt), OutDir: out}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	o1, o2 := run("salt"), run("salt")
	got := ids(o1)
	for raw, p := range want {
		if !got[p] || got[raw] {
			t.Errorf("session %s: pseudonym %s present %v, raw ID present %v", raw, p, got[p], got[raw])
		}
	}
	for _, f := range []string{SessionsFile, YandexFile} {
		a, _ := os.ReadFile(filepath.Join(o1, f))
		b, _ := os.ReadFile(filepath.Join(o2, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs with the same salt", f)
		}
	}
	// Without a salt the key is random: same sessions, other pseudonyms.
	r1, r2 := ids(run("")), ids(run(""))
	if len(r1) != len(got) || len(r2) != len(got) || r1[want["A"]] {
		t.Errorf("random key: %d and %d sessions (want %d), salted pseudonym reused %v", len(r1), len(r2), len(got), r1[want["A"]])
	}
	for id := range r1 {
		if r2[id] {
			t.Errorf("two runs without a salt share the pseudonym %s", id)
		}
	}
	// Yandex: an IP address used as session ID reaches neither output.
	dir := t.TempDir()
	in := write(t, dir, "log.tsv", []byte("203.0.113.7\t0\tQ\tq\t0\tu1\tu2\n203.0.113.7\t1\tC\tu2\n"))
	out := filepath.Join(dir, "o")
	if _, err := Run(context.Background(), Config{Format: FormatYandex, Log: in, PIISalt: []byte("salt"), OutDir: out}); err != nil {
		t.Fatal(err)
	}
	assertNoLeak(t, out, "203.0.113.7")
	if y := ids(out); !y["549fe5bec61ee86fc9e958ee"] {
		t.Errorf("Yandex pseudonyms %v, want 549fe5bec61ee86fc9e958ee", y)
	}
}
