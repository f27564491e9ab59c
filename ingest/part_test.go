package ingest_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/ingest/ingesttest"
	"github.com/lovbench/lovbench/sessions"
)

// partTestLog is AwkwardYandex's log of 20,000 synthetic lines.
func partTestLog(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := ingesttest.AwkwardYandex(&buf, 20000, 7); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCleanYandexPartsEqualRun cuts a log at the boundaries that
// YandexPartStart finds from many cut points, cleans the parts one by one
// and checks the merged report, the quarantine lines and the kept sessions
// against one Run over the whole log.
func TestCleanYandexPartsEqualRun(t *testing.T) {
	data := partTestLog(t)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log.tsv")
	if err := os.WriteFile(logPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	want, err := ingest.Run(context.Background(), ingest.Config{Format: ingest.FormatYandex, Log: logPath, OutDir: out, PIISalt: []byte("part test key")})
	if err != nil {
		t.Fatal(err)
	}
	wantSERPs, err := ingest.ReadSessions(filepath.Join(out, ingest.SessionsFile))
	if err != nil {
		t.Fatal(err)
	}
	wantQ, err := os.ReadFile(filepath.Join(out, ingest.QuarantineFile))
	if err != nil {
		t.Fatal(err)
	}
	total, err := ingest.CountLines(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if total != want.InputLines {
		t.Fatalf("CountLines = %d, Run read %d lines", total, want.InputLines)
	}
	size := int64(len(data))
	for _, step := range []int64{1 << 20, 40000, 7777, 1001} {
		var starts []int64
		for at := int64(0); at < size; at += step {
			b, err := ingest.YandexPartStart(bytes.NewReader(data), size, at, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(starts) == 0 || b > starts[len(starts)-1] {
				starts = append(starts, b)
			}
		}
		starts = append(starts, size)
		var (
			reps  []*ingest.Report
			got   []sessions.SERP
			quar  bytes.Buffer
			first = 1
		)
		for i := 0; i+1 < len(starts); i++ {
			part := data[starts[i]:starts[i+1]]
			rep, err := ingest.CleanYandexPart(context.Background(), bytes.NewReader(part),
				ingest.PartOptions{File: logPath, FirstLine: first, PIISalt: []byte("part test key")}, &quar, func(s []sessions.SERP) error {
					for _, sp := range s {
						sp.Results = append([]string(nil), sp.Results...)
						sp.Clicks = append([]sessions.Click(nil), sp.Clicks...)
						got = append(got, sp)
					}
					return nil
				})
			if err != nil {
				t.Fatalf("step %d part %d: %v", step, i, err)
			}
			n, _ := ingest.CountLines(bytes.NewReader(part))
			if n != rep.InputLines {
				t.Fatalf("step %d part %d: CountLines %d, cleaner read %d", step, i, n, rep.InputLines)
			}
			first += n
			reps = append(reps, rep)
		}
		merged, err := ingest.MergeReports(reps, want.Inputs)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*merged, want) {
			t.Errorf("step %d (%d parts): merged report differs from Run's:\n got %+v\nwant %+v", step, len(reps), merged, want)
		}
		if !bytes.Equal(quar.Bytes(), wantQ) {
			t.Errorf("step %d: quarantine lines differ from Run's", step)
		}
		if len(got) != len(wantSERPs) {
			t.Fatalf("step %d: %d SERPs, Run kept %d", step, len(got), len(wantSERPs))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], wantSERPs[i]) {
				t.Fatalf("step %d: SERP %d = %+v, Run kept %+v", step, i, got[i], wantSERPs[i])
			}
		}
		if step == 1001 && len(reps) < 100 {
			t.Errorf("only %d parts at step %d: the cut points were not exercised", len(reps), step)
		}
	}
}

// TestYandexPartStart checks boundaries on a hand-made log: a cut is
// placed before the first line whose session differs from that of an
// earlier session line after the cut point; bad lines do not count.
func TestYandexPartStart(t *testing.T) {
	log := "a\t0\tQ\tq\t0\tu1\n" +
		"a\t1\tC\tu1\n" +
		"bad line\n" +
		"b\t0\tQ\tq\t0\tu1\n" +
		"b\t2\tC\tu1\r\n" +
		"c\t0\tQ\tq\t0\tu2\r"
	off := func(prefix string) int64 { return int64(strings.Index(log, prefix)) }
	a2, bad, b1, b2, c1 := off("a\t1"), off("bad"), off("b\t0"), off("b\t2"), off("c\t0")
	size := int64(len(log))
	for _, c := range []struct{ at, want int64 }{
		{0, 0},
		{1, b1},      // lines from a2: a, (bad), b differs from a
		{a2, b1},     // the same lines
		{a2 + 1, c1}, // lines from bad: (bad), b, b, c differs
		{bad, c1},    // the same
		{b1, c1},     // b, b, c
		{b1 + 1, c1}, // b2 is the first session line, c differs
		{b2 - 1, c1}, // inside CRLF-free "b C" line: starts at b2
		{c1, size},   // c alone: no boundary follows
		{c1 + 1, size},
		{size, size},
	} {
		got, err := ingest.YandexPartStart(strings.NewReader(log), size, c.at, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("YandexPartStart(at %d) = %d, want %d", c.at, got, c.want)
		}
	}
	// A cut between CR and LF of a CRLF pair must not start a line at LF.
	crlf := "a\t0\tQ\tq\t0\tu1\r\nb\t0\tQ\tq\t0\tu1\r\nc\t0\tQ\tq\t0\tu1\n"
	lf := int64(strings.Index(crlf, "\n")) // the LF of the first CRLF
	got, err := ingest.YandexPartStart(strings.NewReader(crlf), int64(len(crlf)), lf, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(strings.Index(crlf, "c\t")); got != want {
		t.Errorf("cut inside CRLF: got %d, want %d", got, want)
	}
}

// TestClickBeforeQueryTime: rule 5 rebases times on the session's earliest
// kept event, so a click logged one second before its query (found by
// FuzzYandex) gets TimePassed 0 and its query 1, not -1 and 0.
func TestClickBeforeQueryTime(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log.tsv")
	if err := os.WriteFile(logPath, []byte("s\t5\tQ\tq\t0\tu1\tu2\ns\t4\tC\tu2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if _, err := ingest.Run(context.Background(), ingest.Config{Format: ingest.FormatYandex, Log: logPath, OutDir: out, KeepSessionIDs: true}); err != nil {
		t.Fatal(err)
	}
	serps, err := ingest.ReadSessions(filepath.Join(out, ingest.SessionsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(serps) != 1 || serps[0].TimePassed != 1 || len(serps[0].Clicks) != 1 || serps[0].Clicks[0].TimePassed != 0 {
		t.Fatalf("SERPs %+v, want one SERP at TimePassed 1 with one click at 0", serps)
	}
}
