package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	fitstage "github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/bytesize"
	"github.com/lovbench/lovbench/sessions/split"
	"github.com/lovbench/lovbench/shards"
)

// TestShardFitCLI: ingest a simulated log, fit it from sessions.parquet
// (in memory, and with a memory limit that forces sharding), from a Yandex
// log and from `lovbench shard` output: every relevance and parameter file
// is byte-identical (DBN's intervals from the counts, which the
// default takes above 300,000 training SERPs: the sampler's on these paths
// are TestFitIntervalsFromGibbsOutOfCore's); bad shard flags are usage
// errors.
func TestShardFitCLI(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "sim.tsv")
	if code, _, stderr := runCLI(t, "simulate", "--model", "dbn", "--sessions", "4000", "--queries", "80", "--seed", "2", "--out", logFile, "-q"); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	ing := filepath.Join(dir, "ingest")
	if code, _, stderr := runCLI(t, "ingest", "--format", "yandex", "--log", logFile, "--out", ing, "-q"); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	sh := filepath.Join(dir, "shards")
	if code, _, stderr := runCLI(t, "shard", "--sessions", ing, "--shards", "5", "--out", sh, "-q"); code != 0 {
		t.Fatalf("shard: exit %d: %s", code, stderr)
	}
	fit := func(name string, args ...string) string {
		out := filepath.Join(dir, name)
		args = append([]string{"fit", "--models", "dctr,ubm,dbn", "--iterations", "5", "--intervals-from", "counts", "--out", out, "-q"}, args...)
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("fit %v: exit %d: %s", args, code, stderr)
		}
		return out
	}
	// A limit that forces sharding this small log (1 MiB) is below what
	// the fit command's process holds, which the command refuses (see
	// TestFitMemoryLimitBelowProcess): those fits call what the command
	// calls, fit.Run, with the limit.
	fitLimit := func(name, path string) string {
		out := filepath.Join(dir, name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		kinds, err := clickmodels.ParseKinds("dctr,ubm,dbn")
		if err != nil {
			t.Fatal(err)
		}
		cfg := clickmodels.RunConfig{Kinds: kinds, TrainFraction: split.DefaultTrainFraction, Split: split.Spec, Seed: 1, MemoryLimit: bytesize.MinLimit}
		// The command's defaults (its estimator), with its --iterations
		// 5 and --intervals-from counts: the sampler's intervals on these
		// paths are TestFitIntervalsFromGibbsOutOfCore's.
		cfg.Options = fitstage.DefaultConfig().Options
		cfg.Iterations, cfg.Level, cfg.Intervals = 5, clickmodels.DefaultLevel, clickmodels.IntervalsCounts
		if _, err := fitstage.Run(context.Background(), fitstage.Config{Input: path, Dir: out, RunConfig: cfg}); err != nil {
			t.Fatalf("fit %s under 1MiB: %v", path, err)
		}
		return out
	}
	outs := []string{
		fit("mem", "--sessions", ing),
		fitLimit("limit", ing),
		fit("fit-shards", "--shards", sh),
		fit("parquet-file", "--sessions", filepath.Join(ing, "sessions.parquet")),
	}
	for _, f := range []string{"DCTR_relevance.tsv", "UBM_relevance.tsv", "UBM_params.json", "DBN_relevance.tsv", "DBN_params.json"} {
		want, err := os.ReadFile(filepath.Join(outs[0], f))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs[1:] {
			got, err := os.ReadFile(filepath.Join(o, f))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s of %s differs from the in-memory fit", f, filepath.Base(o))
			}
		}
	}
	ents, _ := os.ReadDir(outs[1])
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "lovbench-shards-") {
			t.Errorf("temporary shards %s left in --out", e.Name())
		}
	}
	// A Yandex log under a memory limit is streamed to Parquet, sharded
	// and fitted with its prepared shards spilled to files, never loaded:
	// the same files as loading it, and no temporary file left. And
	// since ingest keeps the SERPs without a click for the click models
	// (the simulated log has them; every SERP its own session), the fit
	// of the ingested sessions is the fit of the whole log as PyClick
	// reads it, file for file.
	rep, err := ingest.ReadReport(filepath.Join(ing, ingest.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if rep.SERPsWithoutClickSession == 0 || rep.KeptQueries != rep.RawQueries {
		t.Fatalf("ingest kept %d of %d SERPs, %d without a click: want every SERP, some without a click", rep.KeptQueries, rep.RawQueries, rep.SERPsWithoutClickSession)
	}
	logMem, logLim := fit("log-mem", "--log", logFile), fitLimit("log-limit", logFile)
	for _, f := range []string{"DCTR_relevance.tsv", "UBM_relevance.tsv", "UBM_params.json", "DBN_relevance.tsv", "DBN_params.json"} {
		want, err1 := os.ReadFile(filepath.Join(logMem, f))
		got, err2 := os.ReadFile(filepath.Join(logLim, f))
		if err1 != nil || err2 != nil || string(got) != string(want) {
			t.Errorf("fit --log --memory-limit: %s differs from the in-memory fit of the log (%v, %v)", f, err1, err2)
		}
		ses, err3 := os.ReadFile(filepath.Join(outs[0], f))
		if err3 != nil || string(ses) != string(want) {
			t.Errorf("fit --sessions: %s differs from fit --log on the whole log (%v)", f, err3)
		}
	}
	ents, _ = os.ReadDir(logLim)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") && e.Name() != atomicfile.IndexFile {
			t.Errorf("fit --log --memory-limit left %s in --out", e.Name())
		}
	}
	for _, bad := range [][]string{
		{"shard", "--sessions", ing, "--shards", "0", "--out", sh},
		{"shard", "--sessions", ing},
		{"shard", "--sessions", ing, "--out", sh, "--split", "weekly"},
		{"fit", "--shards", sh, "--sessions", ing, "--out", sh},
		{"fit", "--sessions", ing, "--memory-limit", "lots", "--out", sh},
	} {
		if code, _, _ := runCLI(t, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", bad, code)
		}
	}
	// A limit below the smallest that can work (bytesize.MinLimit, which
	// shards.MinMemoryLimit never goes below), one that overflows and one
	// that rounds to zero are usage errors of fit and label alike, naming
	// the flag and printing sizes in units that show them; nothing is
	// written.
	tiny := filepath.Join(dir, "tiny")
	for lim, want := range map[string]string{
		"1B":        "--memory-limit: a memory limit of 1B is too small: the smallest that can work is 1.0MiB",
		"1023KiB":   "--memory-limit: a memory limit of 1023.0KiB is too small: the smallest that can work is 1.0MiB",
		"9e9G":      `--memory-limit: size "9e9G" is too large`,
		"0.0000001": `--memory-limit: size "0.0000001" is less than one byte`,
	} {
		for _, args := range [][]string{
			{"fit", "--sessions", ing, "--out", tiny},
			{"label", "--relevance", filepath.Join(outs[0], "UBM_relevance.tsv"), "--sessions", ing, "--out", tiny},
		} {
			code, _, stderr := runCLI(t, append(args, "--memory-limit", lim, "-q")...)
			if code != 2 || !strings.Contains(stderr, args[0]+": "+want) {
				t.Errorf("%s --memory-limit %s: exit %d, stderr %q, want 2 saying %q", args[0], lim, code, stderr, want)
			}
			if _, err := os.Stat(tiny); err == nil {
				t.Fatalf("%s --memory-limit %s left an output", args[0], lim)
			}
		}
	}
	if got, want := shards.MinMemoryLimit(1), int64(bytesize.MinLimit); got != want {
		t.Errorf("shards.MinMemoryLimit(1) = %d, want bytesize.MinLimit (%d)", got, want)
	}
	// 4 x ceil(SERPs x 220 / 512) bytes from about 610,000 SERPs on: 4 x
	// ceil(3,000,000 x 220 / 512) = 5,156,252 bytes, 4.9MiB.
	if got := bytesize.Format(shards.MinMemoryLimit(3_000_000)); got != "4.9MiB" {
		t.Errorf("shards.MinMemoryLimit(3e6) = %s, want 4.9MiB", got)
	}
	if code, _, stderr := runCLI(t, "fit", "--shards", sh, "--split", "random", "--out", filepath.Join(dir, "x"), "-q"); code != 1 || !strings.Contains(stderr, "reshard") {
		t.Errorf("fit --shards with another split: exit %d, stderr %q", code, stderr)
	}
}

// TestLabelMemoryLimitFlag: label --memory-limit takes a size (the soft
// limit changes collection work, not the labels) and rejects anything
// else as a usage error.
func TestLabelMemoryLimitFlag(t *testing.T) {
	if code, _, _ := runCLI(t, "label", "--relevance", "r.tsv", "--sessions", "s", "--out", "o.csv", "--memory-limit", "lots"); code != 2 {
		t.Errorf("--memory-limit lots: exit %d, want 2", code)
	}
	dir := t.TempDir()
	logFile := filepath.Join(dir, "sim.tsv")
	if code, _, stderr := runCLI(t, "simulate", "--model", "ubm", "--sessions", "3000", "--queries", "40", "--seed", "3", "--out", logFile, "-q"); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	fit := filepath.Join(dir, "fit")
	if code, _, stderr := runCLI(t, "fit", "--log", logFile, "--models", "ubm", "--iterations", "3", "--out", fit, "-q"); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	var outs [2][]byte
	for i, lim := range []string{"", "64MiB"} {
		out := filepath.Join(dir, "labels"+lim+".csv")
		args := []string{"label", "--relevance", filepath.Join(fit, "UBM_relevance.tsv"), "--sessions", logFile, "--out", out}
		if lim != "" {
			args = append(args, "--memory-limit", lim)
		}
		code, _, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("label %v: exit %d: %s", args, code, stderr)
		}
		// The limited path ran: the command set Go's soft limit to 15/16
		// of 64 MiB (membudget.SoftLimit), and only with the flag.
		if set := strings.Contains(stderr, "go_soft_limit_bytes=62914560"); set != (lim != "") {
			t.Errorf("label %v: soft limit logged %v, want %v; log:\n%s", args, set, lim != "", stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = b
	}
	if len(outs[0]) == 0 || string(outs[0]) != string(outs[1]) {
		t.Errorf("labels with --memory-limit differ from labels without (%d vs %d bytes)", len(outs[1]), len(outs[0]))
	}
}
