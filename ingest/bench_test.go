package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkIngestYandex10M measures the ingest of a 10-million-event
// synthetic Yandex log (generated once per benchmark run into a temporary
// file) and reports events per second. Target: >= 1e6 events/s on 2 cores.
//
//	go test -run XXX -bench IngestYandex10M -benchtime 1x ./ingest
func BenchmarkIngestYandex10M(b *testing.B) { benchIngestYandex(b, 10_000_000) }

// BenchmarkIngestYandex1M is the same on 1 million events, for quick runs.
func BenchmarkIngestYandex1M(b *testing.B) { benchIngestYandex(b, 1_000_000) }

func benchIngestYandex(b *testing.B, events int) {
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
		rep, err := Run(context.Background(), Options{Format: FormatYandex, Log: in, OutDir: filepath.Join(dir, "out")})
		if err != nil {
			b.Fatal(err)
		}
		if rep.InputEvents != events {
			b.Fatalf("%d events read, want %d", rep.InputEvents, events)
		}
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
