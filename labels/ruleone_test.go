package labels

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRunRuleOne: label chooses first SERPs among the SERPs of sessions
// with a click only (LOVBench's rule 1), though the sessions (ingest's
// default) hold sessions without a click for the click models. By hand:
//
//	s1: qa [a b c], a clicked          session with a click
//	s2: qb [x y z]                     no click: qb is shown nowhere else
//	s3: qa [d e f], qc [a b c], b clicked on qc: a session with a click
//	s4: qa [d e f]                     no click
//	s5: qa [d e f]                     no click
//
// Among the sessions with a click qa shows [a b c] once and [d e f] once
// (the tie goes to the list shown first: [a b c]); counting s4 and s5 too
// would make [d e f] its first SERP. qb gets no label
// (only_sessions_without_click), its rows query_not_labelled. c, shown
// but clicked in no session, gets a label as every result of a first
// SERP does (paper section 5.2): relevance 0.3, label 0.
func TestRunRuleOne(t *testing.T) {
	dir := t.TempDir()
	lp, rp := filepath.Join(dir, "log.tsv"), filepath.Join(dir, "rel.tsv")
	log := "s1\t0\tQ\tqa\t0\ta\tb\tc\ns1\t1\tC\ta\n" +
		"s2\t0\tQ\tqb\t0\tx\ty\tz\n" +
		"s3\t0\tQ\tqa\t0\td\te\tf\ns3\t5\tQ\tqc\t0\ta\tb\tc\ns3\t6\tC\tb\n" +
		"s4\t0\tQ\tqa\t0\td\te\tf\n" +
		"s5\t0\tQ\tqa\t0\td\te\tf\n"
	rel := RelevanceHeader + "\n" +
		"qa\ta\t0.8\nqa\tb\t0.55\nqa\tc\t0.3\nqa\td\t0.9\nqa\te\t0.9\nqa\tf\t0.9\n" +
		"qb\tx\t0.9\nqb\ty\t0.9\nqb\tz\t0.9\n" +
		"qc\ta\t0.65\nqc\tb\t0.8\nqc\tc\t0.1\n"
	if err := os.WriteFile(lp, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rp, []byte(rel), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "labels.csv")
	rep, err := Run(context.Background(), Config{Relevance: rp, Sessions: lp, Out: out, Options: Options{SERPSize: 3}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := LabelsHeader + "\n" +
		"qa,a,4,0.8,\nqa,b,2,0.55,\nqa,c,0,0.3,\n" +
		"qc,a,3,0.65,\nqc,b,4,0.8,\nqc,c,-2,0.1,\n"
	if string(got) != want {
		t.Errorf("labels\n%s\nwant\n%s", got, want)
	}
	if rep.LogQueries != 3 || rep.LabelledQueries != 2 || rep.QuerySkips.Counts[ReasonOnlyWithoutClick] != 1 ||
		rep.RowSkips.Counts[ReasonQueryDropped] != 3 || rep.RowSkips.Counts[ReasonNotOnFirstSERP] != 3 {
		t.Errorf("report: %d log queries, %d labelled, query skips %v, row skips %v; want 3, 2, 1 %s, 3 %s and 3 %s",
			rep.LogQueries, rep.LabelledQueries, rep.QuerySkips.Counts, rep.RowSkips.Counts, ReasonOnlyWithoutClick, ReasonQueryDropped, ReasonNotOnFirstSERP)
	}
}
