package ingest

import (
	"context"
	"os"
	"testing"

	"github.com/lovbench/lovbench/internal/refdata"
	"github.com/lovbench/lovbench/sessions"
)

// TestKeepClickless ingests PyClick's reference log (6,000 SERPs; PyClick
// reads all of them, 581 without a click) with the defaults: every SERP
// that sessions.ReadYandex (PyClick's reading) gives reaches the sessions,
// in order, and the report counts both numbers: SERPs for the click models
// and SERPs that pass LOVBench's rule 1 (the reference's SERPs of sessions
// with a click, counted here from the reference).
func TestKeepClickless(t *testing.T) {
	r := ingestReference(t, Config{KeepSessionIDs: true})
	rep, ref, got := r.rep, r.ref, r.got
	if got.Len() != ref.Len() || rep.KeptQueries != ref.Len() {
		t.Fatalf("kept %d SERPs (report %d), PyClick reads %d", got.Len(), rep.KeptQueries, ref.Len())
	}
	for i := range ref.Len() {
		if got.Queries.Names[got.Query[i]] != ref.Queries.Names[ref.Query[i]] || got.Clicks[i] != ref.Clicks[i] || got.Ranks(i) != ref.Ranks(i) {
			t.Fatalf("SERP %d differs from PyClick's reading", i)
		}
	}
	clicked := map[int32]bool{}
	for i := range ref.Len() {
		clicked[ref.Session[i]] = clicked[ref.Session[i]] || ref.Clicks[i] != 0
	}
	rule1, without := 0, 0
	for i := range ref.Len() {
		if clicked[ref.Session[i]] {
			rule1++
		}
	}
	for _, c := range clicked {
		if !c {
			without++
		}
	}
	if rep.SERPsWithClickSession != rule1 || rep.KeptQueries-rep.SERPsWithoutClickSession != rule1 || rep.Sessions.KeptWithoutClick != without || rep.Sessions.DroppedNoClick != 0 {
		t.Errorf("report: %d SERPs, %d pass rule 1 (want %d), %d sessions kept without a click (want %d), %d dropped without",
			rep.KeptQueries, rep.KeptQueries-rep.SERPsWithoutClickSession, rule1, rep.Sessions.KeptWithoutClick, without, rep.Sessions.DroppedNoClick)
	}
	if err := rep.Check(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d SERPs for the click models, %d pass rule 1; %d sessions without a click kept", rep.KeptQueries, rule1, without)
}

// TestDropClickless: Config.DropClickless applies LOVBench's rule 1 as
// written: the sessions are exactly the reference's SERPs of sessions
// with a click (counted from PyClick's reading), in order, and the
// sessions without a click are counted as dropped.
func TestDropClickless(t *testing.T) {
	r := ingestReference(t, Config{KeepSessionIDs: true, DropClickless: true})
	rep, ref, got := r.rep, r.ref, r.got
	clicked := map[int32]bool{}
	for i := range ref.Len() {
		clicked[ref.Session[i]] = clicked[ref.Session[i]] || ref.Clicks[i] != 0
	}
	var want []int
	without := map[int32]bool{}
	for i := range ref.Len() {
		if clicked[ref.Session[i]] {
			want = append(want, i)
		} else {
			without[ref.Session[i]] = true
		}
	}
	if got.Len() != len(want) || rep.KeptQueries != len(want) || rep.SERPsWithClickSession != len(want) || rep.SERPsWithoutClickSession != 0 {
		t.Fatalf("kept %d SERPs (report %d, with a click %d, without %d), want %d", got.Len(), rep.KeptQueries, rep.SERPsWithClickSession, rep.SERPsWithoutClickSession, len(want))
	}
	for j, i := range want {
		if got.Queries.Names[got.Query[j]] != ref.Queries.Names[ref.Query[i]] || got.Clicks[j] != ref.Clicks[i] {
			t.Fatalf("SERP %d differs from the reference's SERP %d", j, i)
		}
	}
	if rep.Sessions.DroppedNoClick != len(without) || rep.Sessions.KeptWithoutClick != 0 {
		t.Errorf("report: %d sessions dropped without a click (want %d), %d kept without", rep.Sessions.DroppedNoClick, len(without), rep.Sessions.KeptWithoutClick)
	}
	if err := rep.Check(); err != nil {
		t.Fatal(err)
	}
}

// refIngest is ingestReference's result: ingest's report and output
// directory, PyClick's reading of the log (sessions.ReadYandex) with its
// statistics, and the sessions ingest wrote.
type refIngest struct {
	rep      *Report
	out      string
	ref, got *sessions.Log
	st       sessions.YandexStats
}

// ingestReference ingests PyClick's reference log with cfg (Format, Log
// and OutDir set here).
func ingestReference(t *testing.T, cfg Config) refIngest {
	t.Helper()
	in := refdata.Path(t, "pyclick", "golden_ubm6k.tsv")
	out := t.TempDir()
	cfg.Format, cfg.Log, cfg.OutDir = FormatYandex, in, out
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref, st, err := sessions.ReadYandex(f, in, true)
	if err != nil {
		t.Fatal(err)
	}
	got, err := sessions.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return refIngest{rep: &rep, out: out, ref: ref, got: got, st: st}
}
