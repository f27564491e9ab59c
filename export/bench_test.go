package export

import (
	"context"
	"io"
	"path/filepath"
	"syscall"
	"testing"
)

// benchInput is 8,000 queries x 25 terms = 200,000 rows with 33 features,
// about LOVBench's size (184,224 pairs).
func benchInput(b *testing.B) (string, string) {
	b.Helper()
	gt, header, vals := testInput(8000, 25, 33)
	return writeInputs(b, b.TempDir(), gt, header, vals)
}

// benchDataset is the dataset export builds from benchInput's files.
func benchDataset(b *testing.B) *Dataset {
	b.Helper()
	gt, header, vals := testInput(8000, 25, 33)
	_, fp := writeInputs(b, b.TempDir(), gt, header, vals)
	ft, err := ReadFeatures(context.Background(), fp)
	if err != nil {
		b.Fatal(err)
	}
	ds, _, err := Build(gt, ft, Options{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	return ds
}

// BenchmarkExport200k is `lovbench export` on 200,000 rows x 33 features:
// read the ground truth and features CSV, join, write the 15 fold files,
// Parquet, Arrow, qrels, ground truth and manifest.
func BenchmarkExport200k(b *testing.B) {
	gtp, fp := benchInput(b)
	out := filepath.Join(b.TempDir(), "ds")
	for b.Loop() {
		if _, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: out, Options: Options{Seed: 1}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate200k is `lovbench validate` on the directory of
// BenchmarkExport200k.
func BenchmarkValidate200k(b *testing.B) {
	gtp, fp := benchInput(b)
	out := filepath.Join(b.TempDir(), "ds")
	if _, err := Run(context.Background(), Config{GroundTruth: gtp, Features: fp, Out: out, Options: Options{Seed: 1}}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		v, err := Validate(context.Background(), out)
		if err != nil || !v.Valid {
			b.Fatal(err, v.Problems)
		}
	}
}

// BenchmarkWriteColumnar200k writes only dataset.arrow, dataset.parquet,
// qrels.txt and ground_truth.csv of BenchmarkExport200k's dataset (the part
// of export that the Parquet library decides).
func BenchmarkWriteColumnar200k(b *testing.B) {
	ds := benchDataset(b)
	out := b.TempDir()
	b.ResetTimer()
	for b.Loop() {
		if _, err := writeColumnar(context.Background(), out, ds); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuSeconds is this process's user+system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// BenchmarkParquet200k writes only dataset.parquet of BenchmarkExport200k's
// dataset, to io.Discard, and reports CPU seconds per file (cpu-s/op) besides
// wall time, since the machine is shared.
func BenchmarkParquet200k(b *testing.B) {
	ds := benchDataset(b)
	rec := record(ds)
	defer rec.Release()
	b.ResetTimer()
	start := cpuSeconds()
	for b.Loop() {
		if err := writeParquetTo(io.Discard, ds, rec); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds()-start)/float64(b.N), "cpu-s/op")
}
