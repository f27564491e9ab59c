package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Control characters in queries (NUL, ESC, DEL, C1,
// U+202E) never reach the outputs; the report counts, per kind, the query
// events that held them, and the accounting still adds up.
func TestControlCharactersRemovedAndCounted(t *testing.T) {
	for in, want := range map[string]string{
		"per\x00son":            "person",
		"\x1b[31mred\x1b[0m":    "red",
		"del\x7fete":            "delete",
		"c1\u0085next\u009b":    "c1 next", // NEL is white space, CSI (U+009B) a C1 control
		"\u202egnp.exe":         "gnp.exe",
		"a\u2066b\u2069 \u200e": "ab",
		"tab\tstays space":      "tab stays space",
	} {
		if got := NormalizeQuery(in); got != want {
			t.Errorf("NormalizeQuery(%q) = %q, want %q", in, got, want)
		}
	}
	// Three SERPs of 3 results, each with a click: NUL + ESC, DEL + U+202E,
	// a plain one; and a query of controls only (empty after rule 2).
	rep, b, out := ingestControls(t, "s1\t0\tQ\tper\x00son\x1b\t0\tu1\tu2\tu3\ns1\t1\tC\tu1\n"+
		"s2\t0\tQ\tdel\x7fe\u202ete\t0\tu1\tu2\tu3\ns2\t1\tC\tu2\n"+
		"s3\t0\tQ\tplain\t0\tu1\tu2\tu3\ns3\t1\tC\tu3\n"+
		"s4\t0\tQ\t\x00\x00\t0\tu1\tu2\tu3\ns4\t1\tC\tu3\n",
		map[string]int{ControlC0: 2, ControlDEL: 1, ControlC1: 0, ControlBidi: 1, ControlEscape: 0})
	if rep.KeptQueries != 3 || rep.Dropped[DropEmptyQuery] != 1 {
		t.Errorf("kept %d queries, %d empty, want 3 and 1", rep.KeptQueries, rep.Dropped[DropEmptyQuery])
	}
	for _, c := range []string{"\x00", "\x1b", "\x7f", "\u202e"} {
		if strings.Contains(b, c) {
			t.Errorf("clean.yandex.tsv holds %q:\n%s", c, b)
		}
	}
	if !strings.Contains(b, "\tperson\t") || !strings.Contains(b, "\tdelete\t") {
		t.Errorf("clean.yandex.tsv:\n%s", b)
	}
	disk, err := ReadReport(filepath.Join(out, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if disk.ControlCharacters[ControlC0] != 2 {
		t.Errorf("report.json: %v", disk.ControlCharacters)
	}
}

// Terminal escape sequences in queries are removed whole, not only their
// ESC byte (which left "[31m" behind, a word of its own), and the report
// counts the query events that held them. The expected strings are what a
// terminal would show of each query.
func TestEscapeSequencesRemovedWhole(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[31mred\x1b[0m":                        "red",                       // SGR colour on and off
		"\x1b[1;4;38;5;196mperson\x1b[m":            "person",                    // several parameters, empty reset
		"\x1b]8;;http://e.org/\x07link\x1b]8;;\x07": "link",                      // OSC 8 hyperlink, BEL-terminated
		"\x1b]0;title\x1b\\agent":                   "agent",                     // OSC window title, ST-terminated
		"\u009b1mbold\u009b0m":                      "bold",                      // C1 CSI (U+009B)
		"\x1b(Bfoaf\x1b7":                           "foaf",                      // charset designation, save cursor
		"red\x1b[31":                                "red",                       // CSI cut short by the end of the query
		"a\x1b[12\u00e9b":                           "a\u00e9b",                  // CSI cut short by another byte
		"x\x1bPdcs data\x1b\\y":                     "xy",                        // DCS string
		"title\x1b]2;never ends":                    "title",                     // unterminated OSC: to the end
		"time\x1b":                                  "time",                      // a lone ESC is a C0 control
		"caf\u00e9 \u00bfqu\u00e9?":                 "caf\u00e9 \u00bfqu\u00e9?", // U+00BF, U+00E9: no C1 control
	} {
		if got := NormalizeQuery(in); got != want {
			t.Errorf("NormalizeQuery(%q) = %q, want %q", in, got, want)
		}
	}
	// Two SERPs whose queries hold escape sequences, one with a lone ESC,
	// one plain; all four kept. The first two become the plain query "red".
	rep, b, _ := ingestControls(t, "s1\t0\tQ\t\x1b[31mred\x1b[0m\t0\tu1\tu2\tu3\ns1\t1\tC\tu1\n"+
		"s2\t0\tQ\t\x1b]8;;http://e.org/\x07red\x1b]8;;\x07\t0\tu1\tu2\tu3\ns2\t1\tC\tu2\n"+
		"s3\t0\tQ\tblue\x1b\t0\tu1\tu2\tu3\ns3\t1\tC\tu3\n"+
		"s4\t0\tQ\tred\t0\tu1\tu2\tu3\ns4\t1\tC\tu3\n",
		map[string]int{ControlC0: 1, ControlDEL: 0, ControlC1: 0, ControlBidi: 0, ControlEscape: 2})
	if rep.KeptQueries != 4 {
		t.Errorf("kept %d queries, want 4", rep.KeptQueries)
	}
	if n := strings.Count(b, "\tred\t"); n != 3 || strings.Contains(b, "[") || strings.Contains(b, "http") {
		t.Errorf("clean.yandex.tsv has %d queries \"red\" (want 3) or a rest of a sequence:\n%s", n, b)
	}
}

// ingestControls ingests a Yandex log held in text, checks that the
// report adds up and counts controls per kind as want, and returns the
// report, the clean log and the output directory.
func ingestControls(t *testing.T, log string, want map[string]int) (Report, string, string) {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "log.tsv")
	if err := os.WriteFile(in, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	rep, err := Run(context.Background(), Config{Format: FormatYandex, Log: in, OutDir: out, KeepSessionIDs: true})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range want {
		if rep.ControlCharacters[k] != v {
			t.Errorf("control characters %s: %d, want %d (%v)", k, rep.ControlCharacters[k], v, rep.ControlCharacters)
		}
	}
	if err := rep.Check(); err != nil {
		t.Error(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "clean.yandex.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	return rep, string(b), out
}
