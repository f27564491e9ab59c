package ingest

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"
)

// BenchmarkIngestYandex10M measures the ingest of a 10-million-event
// synthetic Yandex log (generated once per benchmark run into a temporary
// file) and reports events per second. Target: >= 1e6 events/s on 2 cores.
//
//	go test -run XXX -bench IngestYandex10M -benchtime 1x ./ingest
func BenchmarkIngestYandex10M(b *testing.B) { benchIngestYandex(b, 10_000_000) }

// BenchmarkIngestYandex1M is the same on 1 million events, for quick runs.
func BenchmarkIngestYandex1M(b *testing.B) { benchIngestYandex(b, 1_000_000) }

// BenchmarkIngestYandex1MKeepIDs is BenchmarkIngestYandex1M without the
// session-ID pseudonymisation, to measure what the HMAC costs.
func BenchmarkIngestYandex1MKeepIDs(b *testing.B) { benchIngestYandexOpts(b, 1_000_000, true) }

func benchIngestYandex(b *testing.B, events int) { benchIngestYandexOpts(b, events, false) }

func benchIngestYandexOpts(b *testing.B, events int, keepIDs bool) {
	dir := b.TempDir()
	in := filepath.Join(dir, "log.tsv")
	f, err := os.Create(in)
	if err != nil {
		b.Fatal(err)
	}
	if err := SyntheticYandex(f, events, 1); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Run(context.Background(), Config{Format: FormatYandex, Log: in, OutDir: filepath.Join(dir, "out"), KeepSessionIDs: keepIDs})
		if err != nil {
			b.Fatal(err)
		}
		if rep.InputEvents != events {
			b.Fatalf("%d events read, want %d", rep.InputEvents, events)
		}
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkIngestLOV measures the LOV path (JSON parsing, merge by date,
// idle-window sessions) on 200,000 synthetic events.
//
//	go test -run XXX -bench IngestLOV -benchtime 1x ./ingest
func BenchmarkIngestLOV(b *testing.B) {
	const sessionsN = 40000 // 3 queries and 2 clicks each: 200,000 events
	dir := b.TempDir()
	type ev struct {
		t    int64
		line []byte
	}
	var qs, cs []ev
	base := int64(1546300800) // 2019-01-01
	for s := 0; s < sessionsN; s++ {
		t0 := base + int64(s)*7
		for k := 0; k < 3; k++ {
			t := t0 + int64(k)*60
			q := append([]byte(`{"date":"`), time.Unix(t, 0).UTC().Format("2006-01-02 15:04:05")...)
			q = append(q, `","sessionId":"s`...)
			q = strconv.AppendInt(q, int64(s), 10)
			q = append(q, `","searchWords":"Term `...)
			q = strconv.AppendInt(q, int64(s%500), 10)
			q = append(q, `","filterTypes":"","filterTags":"","filterVocs":"","page":"1","nbResults":120,"results":"`+tenTerms+`","__v":0}`+"\n"...)
			qs = append(qs, ev{t, q})
			if k < 2 {
				c := append([]byte(`{"date":"`), time.Unix(t+5, 0).UTC().Format("2006-01-02 15:04:05")...)
				c = append(c, `","sessionId":"s`...)
				c = strconv.AppendInt(c, int64(s), 10)
				c = append(c, `","clickedTerm":"a:C"}`+"\n"...)
				cs = append(cs, ev{t + 5, c})
			}
		}
	}
	// The LOV files are in date order.
	var q, c []byte
	for _, x := range []struct {
		evs []ev
		out *[]byte
	}{{qs, &q}, {cs, &c}} {
		sort.SliceStable(x.evs, func(i, j int) bool { return x.evs[i].t < x.evs[j].t })
		for _, e := range x.evs {
			*x.out = append(*x.out, e.line...)
		}
	}
	qp := filepath.Join(dir, "q.jsonl")
	cp := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(qp, q, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(cp, c, 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Run(context.Background(), Config{Format: FormatLOV, Queries: qp, Clicks: cp, OutDir: filepath.Join(dir, "out")})
		if err != nil {
			b.Fatal(err)
		}
		if rep.InputEvents != 5*sessionsN || rep.Sessions.Kept != sessionsN {
			b.Fatalf("%d events, %d sessions kept", rep.InputEvents, rep.Sessions.Kept)
		}
	}
	b.ReportMetric(float64(5*sessionsN)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
