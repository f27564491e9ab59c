package pipeline

import (
	"context"
	"io"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/lovbench/lovbench/report"
)

// BenchmarkDemo runs the whole demo pipeline (lovbench demo with its
// defaults: 40,000 simulated SERPs over 400 queries, every stage, the
// report) into a fresh work directory per iteration.
//
//	go test -run '^$' -bench Demo -benchtime 1x ./pipeline
func BenchmarkDemo(b *testing.B) {
	for i := 0; i < b.N; i++ {
		wd := filepath.Join(b.TempDir(), "demo"+strconv.Itoa(i))
		if _, err := Run(context.Background(), DemoConfig(wd, DemoDense, 40000, 400, 1), RunOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderReport renders the report of a demo work directory.
func BenchmarkRenderReport(b *testing.B) {
	wd := filepath.Join(b.TempDir(), "demo")
	if _, err := Run(context.Background(), DemoConfig(wd, DemoDense, 5000, 100, 1), RunOptions{}); err != nil {
		b.Fatal(err)
	}
	d, err := ReportFromWorkdir(wd)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := report.Render(io.Discard, &d); err != nil {
			b.Fatal(err)
		}
	}
}
