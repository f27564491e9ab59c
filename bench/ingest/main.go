// Command ingest-bench measures the throughput and peak memory of
// lovbench ingest on a synthetic Yandex log (docs/ingest.md, "Performance"):
// it writes a log of -events lines to a temporary directory, ingests it, and
// prints events per second (wall clock and per CPU second) and the peak
// resident set size.
//
//	go run ./bench/ingest -events 10000000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/lovbench/lovbench/ingest"
)

func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

func main() {
	events := flag.Int("events", 10_000_000, "events (lines) in the synthetic log")
	keep := flag.Bool("keep", false, "keep the temporary directory")
	flag.Parse()
	dir, err := os.MkdirTemp("", "lovbench-ingest-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if !*keep {
		defer os.RemoveAll(dir)
	}
	in := filepath.Join(dir, "log.tsv")
	f, err := os.Create(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := ingest.SyntheticYandex(f, *events, 1); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f.Close()
	st, _ := os.Stat(in)

	cpu0 := cpuSeconds()
	t0 := time.Now()
	rep, err := ingest.Run(context.Background(), ingest.Config{Format: ingest.FormatYandex, Log: in, OutDir: filepath.Join(dir, "out")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	wall := time.Since(t0).Seconds()
	cpu := cpuSeconds() - cpu0
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Printf("input: %d events, %.0f MB; kept %d sessions, %d SERPs, %d clicks\n",
		rep.InputEvents, float64(st.Size())/1e6, rep.Sessions.Kept, rep.KeptQueries, rep.KeptClicks)
	fmt.Printf("wall %.2f s: %.0f events/s\n", wall, float64(rep.InputEvents)/wall)
	fmt.Printf("cpu  %.2f s: %.0f events per CPU second\n", cpu, float64(rep.InputEvents)/cpu)
	fmt.Printf("peak RSS %.0f MiB\n", float64(ru.Maxrss)/1024) // Linux: KiB
}
