package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogCutMidLine: a Yandex log whose copy stopped inside a URL of its
// last line (no final newline). That line still parses as a Q line whose
// last result is "http://schema.o"; it is quarantined as
// unterminated_final_line, counted, and not ingested: session B keeps only
// its first, complete SERP. By hand: 5 lines, 5 events; quarantined 1;
// kept 2 queries (A's and B's first) and 2 clicks.
func TestLogCutMidLine(t *testing.T) {
	log := "A\t0\tQ\tqa\t0\thttp://xmlns.com/foaf/0.1/Person\thttp://schema.org/Person\n" +
		"A\t1\tC\thttp://schema.org/Person\n" +
		"B\t0\tQ\tqb\t0\thttp://xmlns.com/foaf/0.1/Agent\thttp://schema.org/Thing\n" +
		"B\t1\tC\thttp://xmlns.com/foaf/0.1/Agent\n" +
		"B\t2\tQ\tqc\t0\thttp://xmlns.com/foaf/0.1/Agent\thttp://schema.o"
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	rep, err := Run(context.Background(), Config{KeepSessionIDs: true, Format: FormatYandex, Log: write(t, dir, "cut.tsv", []byte(log)), OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Check(); err != nil {
		t.Fatal(err)
	}
	if rep.InputLines != 5 || rep.InputEvents != 5 || rep.Quarantined[QUnterminated] != 1 || sum(rep.Quarantined) != 1 ||
		rep.KeptQueries != 2 || rep.KeptClicks != 2 {
		t.Errorf("lines %d, events %d, quarantined %v, kept %d queries %d clicks; want 5, 5, 1 %s, 2, 2",
			rep.InputLines, rep.InputEvents, rep.Quarantined, rep.KeptQueries, rep.KeptClicks, QUnterminated)
	}
	clean, _ := os.ReadFile(filepath.Join(out, YandexFile))
	if strings.Contains(string(clean), "http://schema.o\n") || strings.Contains(string(clean), "qc") {
		t.Errorf("the cut line was ingested:\n%s", clean)
	}
	quar, _ := os.ReadFile(filepath.Join(out, QuarantineFile))
	if want := `"line":5,"reason":"unterminated_final_line"`; !strings.Contains(string(quar), want) {
		t.Errorf("quarantine.jsonl lacks %s:\n%s", want, quar)
	}
	if d := DescribeQuarantine(QUnterminated); !strings.Contains(d, "cut") {
		t.Errorf("DescribeQuarantine(%s) = %q", QUnterminated, d)
	}
	// The same cut in the LOV format: the clicks file's last record is
	// complete JSON but has no line end; it is quarantined too, so the
	// session has no click left and nothing is kept (an error, as for any
	// log of which nothing is kept).
	rep, _, err = runLOV(t, []byte(okQuery+"\n"), []byte(okClick))
	if err == nil || rep.Format == "" || rep.Quarantined[QUnterminated] != 1 || rep.KeptClicks != 0 {
		t.Errorf("LOV clicks cut: err %v, report %+v", err, rep)
	}
	// A blank final line without a line end is a blank line, not a cut.
	rep, _, err = runLOV(t, []byte(okQuery+"\n"), []byte(okClick+"\n  "))
	if err != nil || rep.Quarantined[QUnterminated] != 0 || rep.BlankLines != 1 || rep.KeptClicks != 1 {
		t.Errorf("trailing blanks: err %v, report %+v", err, rep)
	}
}
