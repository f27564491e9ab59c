package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lovbench/lovbench/beam/lbbeam"
	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/shards"
)

// TestMain initialises Beam for the pipelines the tests run in process.
func TestMain(m *testing.M) { ptest.Main(m) }

// simulatedLog writes a clean Yandex log of n SERPs (UBM clicks, one
// user session per SERP, so that a small part size cuts it into many
// parts) to w.
func simulatedLog(t *testing.T, w io.Writer, n int) {
	t.Helper()
	sc := sim.DefaultSyntheticConfig()
	sc.Queries, sc.Seed = 300, 5
	src, err := sim.NewSyntheticSource(sc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.SimulateYandex(context.Background(), sim.Config{Kind: clickmodels.UBM, SERPs: n, Seed: 5, Source: src}, w); err != nil {
		t.Fatal(err)
	}
}

// simulatedLogFile writes simulatedLog's log of n SERPs to a file of
// its own and returns its path.
func simulatedLogFile(t *testing.T, n int) string {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "log.tsv")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	simulatedLog(t, f, n)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return logPath
}

// fitLogInMemory is what lovbench fit --log LOG writes with cfg:
// fit.Run's path for a Yandex log without a memory limit, the log
// loaded as PyClick reads it and fitted in memory. It returns the
// output directory.
func fitLogInMemory(t *testing.T, logPath string, cfg clickmodels.RunConfig) string {
	t.Helper()
	want := filepath.Join(t.TempDir(), "want")
	if err := os.MkdirAll(want, 0o755); err != nil {
		t.Fatal(err)
	}
	log, err := sessions.LoadForFit(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := clickmodels.RunInto(context.Background(), log, cfg, want); err != nil {
		t.Fatal(err)
	}
	return want
}

// sameFiles reports each of files that differs between the directories
// want (lovbench fit's, what) and got.
func sameFiles(t *testing.T, want, got, what string, files ...string) {
	t.Helper()
	for _, f := range files {
		a, err1 := os.ReadFile(filepath.Join(want, f))
		b, err2 := os.ReadFile(filepath.Join(got, f))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: %s differs from %s's (%v, %v)", got, f, what, err1, err2)
		}
	}
}

// lovbenchFitLog is what lovbench fit --log LOG --models ubm,dbn
// --iterations 4 writes (fitLogInMemory).
func lovbenchFitLog(t *testing.T, logPath string) string {
	t.Helper()
	// lovbench fit's defaults (fit.DefaultConfig: the exact estimator to
	// the tolerance, intervals from auto), as lovbench-beam fit's, with
	// --iterations 4.
	opt := clickmodels.DefaultEstimator.Options()
	opt.Intervals, opt.Iterations = clickmodels.IntervalsAuto, 4
	return fitLogInMemory(t, logPath, clickmodels.RunConfig{Kinds: []clickmodels.Kind{clickmodels.UBM, clickmodels.DBN}, Options: opt})
}

// TestFitFromLog: lovbench-beam fit --log does what lovbench fit --log
// does (reads the log as it is, as PyClick does): the same relevance and
// parameter files, byte for byte, from a log cut into many parts; the
// cleaning flags are refused; the prepared shards are removed.
func TestFitFromLog(t *testing.T) {
	dir := t.TempDir()
	logPath := simulatedLogFile(t, 6000)
	out := filepath.Join(dir, "fit")
	setFlags(t, map[string]string{"log": logPath, "out": out, "shards": "3", "models": "ubm,dbn", "iterations": "4", "part-size": "20000"})
	if err := run(context.Background(), "fit"); err != nil {
		t.Fatal(err)
	}
	want := lovbenchFitLog(t, logPath)
	sameFiles(t, want, out, "lovbench fit --log", "UBM_relevance.tsv", "DBN_relevance.tsv", "UBM_params.json", "DBN_params.json")
	if _, err := os.Stat(filepath.Join(out, "shards", "report.json")); !os.IsNotExist(err) {
		t.Errorf("fit --log wrote a cleaning report (%v): it reads the log as it is", err)
	}
	if _, err := os.Stat(lbbeam.PreparedPath(filepath.Join(out, ".prepared"), 0)); !os.IsNotExist(err) {
		t.Errorf("prepared shards left behind: %v", err)
	}
	setFlags(t, map[string]string{"log": logPath, "out": filepath.Join(dir, "fit2"), "pii-salt": "k"})
	if err := run(context.Background(), "fit"); err == nil || !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "--pii-salt") {
		t.Errorf("fit --log --pii-salt: %v, want a usage error naming the flag", err)
	}
	setFlags(t, map[string]string{"log": logPath, "out": filepath.Join(dir, "fit3"), "drop-clickless": "true"})
	if err := run(context.Background(), "fit"); err == nil || !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "--drop-clickless") {
		t.Errorf("fit --log --drop-clickless: %v, want a usage error naming the flag", err)
	}
	setFlags(t, map[string]string{"log": logPath, "out": out, "shard-dir": filepath.Join(out, "shards")})
	if err := run(context.Background(), "fit"); err == nil || !errors.As(err, new(usageError)) {
		t.Errorf("--log with --shard-dir: %v, want a usage error", err)
	}
	setFlags(t, map[string]string{"log": logPath, "out": filepath.Join(dir, "fit4"), "intervals-from": "gibbs", "no-intervals": "true"})
	if err := run(context.Background(), "fit"); err == nil || !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "--intervals-from gibbs") || !strings.Contains(err.Error(), "--no-intervals") {
		t.Errorf("fit --intervals-from gibbs --no-intervals: %v, want a usage error naming both flags", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "fit4")); err == nil {
		t.Errorf("fit --intervals-from gibbs --no-intervals wrote %s", filepath.Join(dir, "fit4"))
	}
}

// TestFitGibbsFromLog: lovbench-beam fit --log --shards 3 --models
// dbn,sdbn --intervals-from gibbs (the Gibbs sampler's intervals, the
// real setting clickmodels.GibbsIntervals: 30 + 100 sweeps, one pipeline
// stage a pass) writes the relevance and parameter files lovbench fit
// --log --models dbn,sdbn --intervals-from gibbs writes
// (clickmodels.RunInto with Options.Intervals gibbs, the whole log in
// memory), byte for byte; the counts' relevance file differs. Beside
// 2,000 simulated SERPs the log starts with three SERPs of a query of its
// own, repeated 230 times each (records of weight 230 in training, the
// spec split's first 75%: the grouped walks, from weight 16; and its
// pairs shown in 690 SERPs, so held at their fit, GibbsSetting.HoldShown,
// their records not swept). So does the same fit with --shard-cache 0,
// every pass reading its shard's chain from its chain file.
func TestFitGibbsFromLog(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log.tsv")
	var b bytes.Buffer
	// First in the file, so in training (the spec split's first 75%).
	for i := range 690 {
		id := 1_000_000 + i
		fmt.Fprintf(&b, "%d\t0\tQ\tgrouped\t0\tg1\tg2\tg3\tg4\tg5\tg6\tg7\tg8\n", id)
		switch i % 3 {
		case 1:
			fmt.Fprintf(&b, "%d\t1\tC\tg2\n", id)
		case 2:
			fmt.Fprintf(&b, "%d\t1\tC\tg1\n%d\t2\tC\tg4\n", id, id)
		}
	}
	simulatedLog(t, &b, 2000)
	if err := os.WriteFile(logPath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "fit")
	setFlags(t, map[string]string{"log": logPath, "out": out, "shards": "3", "models": "dbn,sdbn", "intervals-from": "gibbs"})
	if err := run(context.Background(), "fit"); err != nil {
		t.Fatal(err)
	}
	fitInto := func(m clickmodels.IntervalMethod) string {
		opt := clickmodels.DefaultEstimator.Options()
		opt.Intervals = m
		return fitLogInMemory(t, logPath, clickmodels.RunConfig{Kinds: []clickmodels.Kind{clickmodels.DBN, clickmodels.SDBN}, Options: opt})
	}
	want := fitInto(clickmodels.IntervalsGibbs)
	// Without the worker's cache every pass reads its shard's chain
	// from the chain file the pass before wrote: the same bits.
	noCache := filepath.Join(dir, "fit-nocache")
	setFlags(t, map[string]string{"log": logPath, "out": noCache, "shards": "3", "models": "dbn,sdbn", "intervals-from": "gibbs", "shard-cache": "0"})
	if err := run(context.Background(), "fit"); err != nil {
		t.Fatal(err)
	}
	for _, got := range []string{out, noCache} {
		sameFiles(t, want, got, "lovbench fit --intervals-from gibbs", "DBN_relevance.tsv", "SDBN_relevance.tsv", "DBN_params.json", "SDBN_params.json")
		if _, err := os.Stat(filepath.Join(got, ".prepared")); !os.IsNotExist(err) {
			t.Errorf("%s: prepared shards or chain files left behind: %v", got, err)
		}
	}
	if m, err := os.ReadFile(filepath.Join(out, "metrics.json")); err != nil || !bytes.Contains(m, []byte("gibbs-hierarchical-cascade")) {
		t.Errorf("metrics.json names no Gibbs sampler (%v): %s", err, m)
	}
	counts := fitInto(clickmodels.IntervalsCounts)
	a, err1 := os.ReadFile(filepath.Join(counts, "DBN_relevance.tsv"))
	g, err2 := os.ReadFile(filepath.Join(out, "DBN_relevance.tsv"))
	if err1 != nil || err2 != nil || bytes.Equal(a, g) {
		t.Errorf("DBN_relevance.tsv: the sampler's is the counts' (%v, %v)", err1, err2)
	}
}

// TestFitGibbsSubsetFromLog: lovbench-beam fit --log --shards 3 --models
// dbn --intervals-from gibbs-subset writes the relevance and parameter
// files lovbench fit --log --models dbn --intervals-from gibbs-subset
// writes (clickmodels.RunInto, the whole log in memory), byte for byte,
// and metrics.json the subset's setting and its maps: without
// --gibbs-subset-serps the subset of about 50,000 training SERPs, which
// on a log this small holds every query (its rate, from the shard
// manifest's training SERPs, is 1); with --gibbs-subset-serps 400, 400 of
// the 1,125 training SERPs, as lovbench fit --gibbs-subset-serps 400
// (Options.SubsetSERPs 400). --gibbs-subset-serps 0, or with
// --intervals-from counts, is a usage error naming the flag.
func TestFitGibbsSubsetFromLog(t *testing.T) {
	logPath := simulatedLogFile(t, 1500)
	for _, bad := range []map[string]string{{"gibbs-subset-serps": "0"}, {"gibbs-subset-serps": "400", "intervals-from": "counts"}} {
		flags := map[string]string{"log": logPath, "out": filepath.Join(t.TempDir(), "fit"), "shards": "3", "models": "dbn", "intervals-from": "gibbs-subset"}
		maps.Copy(flags, bad)
		setFlags(t, flags)
		var ue usageError
		if err := run(context.Background(), "fit"); !errors.As(err, &ue) || !strings.Contains(err.Error(), "--gibbs-subset-serps") {
			t.Errorf("%v: %v, want a usage error naming --gibbs-subset-serps", bad, err)
		}
	}
	for _, c := range []struct {
		serps string  // the flag's value ("": not given)
		size  float64 // Options.SubsetSERPs
		rate  float64 // metrics.json's
	}{{"", 0, 1}, {"400", 400, 400.0 / 1125}} {
		out := filepath.Join(t.TempDir(), "fit")
		flags := map[string]string{"log": logPath, "out": out, "shards": "3", "models": "dbn", "intervals-from": "gibbs-subset"}
		if c.serps != "" {
			flags["gibbs-subset-serps"] = c.serps
		}
		setFlags(t, flags)
		if err := run(context.Background(), "fit"); err != nil {
			t.Fatal(err)
		}
		opt := clickmodels.DefaultEstimator.Options()
		opt.Intervals, opt.SubsetSERPs = clickmodels.IntervalsGibbsSubset, c.size
		want := fitLogInMemory(t, logPath, clickmodels.RunConfig{Kinds: []clickmodels.Kind{clickmodels.DBN}, Options: opt})
		sameFiles(t, want, out, "lovbench fit --intervals-from gibbs-subset --gibbs-subset-serps "+c.serps, "DBN_relevance.tsv", "DBN_params.json")
		m, err := os.ReadFile(filepath.Join(out, "metrics.json"))
		if err != nil {
			t.Fatal(err)
		}
		var reps []clickmodels.Report
		if err := json.Unmarshal(m, &reps); err != nil || len(reps) != 1 {
			t.Fatalf("metrics.json: %d reports (%v)", len(reps), err)
		}
		size := c.size
		if size == 0 {
			size = clickmodels.GibbsSubsetSERPs
		}
		if u := reps[0].Uncertainty; u == nil || u.Gibbs == nil || u.Gibbs.Subset != size || u.Gibbs.SubsetRate != c.rate || len(u.GibbsTransfer) == 0 {
			var g *clickmodels.GibbsSetting
			if u != nil {
				g = u.Gibbs
			}
			t.Errorf("--gibbs-subset-serps %q: metrics.json: DBN's sampler setting %+v, want the subset's (%v SERPs, rate %v) and its maps", c.serps, g, size, c.rate)
		}
		if _, err := os.Stat(filepath.Join(out, ".prepared")); !os.IsNotExist(err) {
			t.Errorf("prepared shards or chain files left behind: %v", err)
		}
	}
}

// TestFitPSCMAuthors: lovbench-beam fit --log --models pscm
// --pscm-authors writes what lovbench fit --log --models pscm
// --pscm-authors writes (clickmodels.RunInto with Options.PSCMAuthors, as
// fit.Run does for a log), byte for byte, on a log where every other SERP
// with two clicks or more is clicked bottom-up (its click lines reversed,
// times 1, 2, ...), and something else than without the flag.
func TestFitPSCMAuthors(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	simulatedLog(t, &b, 3000)
	var log bytes.Buffer
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	multi := 0
	for i := 0; i < len(lines); {
		log.WriteString(lines[i] + "\n")
		j := i + 1
		for j < len(lines) && strings.Split(lines[j], "\t")[2] == "C" {
			j++
		}
		clicks := lines[i+1 : j]
		if len(clicks) > 1 {
			multi++
		}
		for k := range clicks {
			c := clicks[k]
			if len(clicks) > 1 && multi%2 == 0 {
				c = clicks[len(clicks)-1-k]
			}
			f := strings.Split(c, "\t")
			f[1] = strconv.Itoa(k + 1)
			log.WriteString(strings.Join(f, "\t") + "\n")
		}
		i = j
	}
	if multi < 100 {
		t.Fatalf("%d SERPs with two clicks or more, want some hundreds", multi)
	}
	logPath := filepath.Join(dir, "log.tsv")
	if err := os.WriteFile(logPath, log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := clickmodels.DefaultEstimator.Options()
	opt.Iterations, opt.PSCMAuthors = 4, true
	want := fitLogInMemory(t, logPath, clickmodels.RunConfig{Kinds: []clickmodels.Kind{clickmodels.PSCM}, Options: opt})
	files := []string{"PSCM_relevance.tsv", "PSCM_params.json"}
	for _, authors := range []bool{true, false} {
		out := filepath.Join(dir, fmt.Sprint("fit-", authors))
		setFlags(t, map[string]string{"log": logPath, "out": out, "shards": "3", "models": "pscm", "iterations": "4", "part-size": "20000",
			"pscm-authors": strconv.FormatBool(authors)})
		if err := run(context.Background(), "fit"); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			a, err1 := os.ReadFile(filepath.Join(want, f))
			g, err2 := os.ReadFile(filepath.Join(out, f))
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if same := bytes.Equal(a, g); same != authors {
				t.Errorf("--pscm-authors=%v: %s equal to lovbench fit --pscm-authors's: %v, want %v", authors, f, same, authors)
			}
		}
		met, err := os.ReadFile(filepath.Join(out, clickmodels.MetricsFile))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(met), `"pscm_authors"`); got != authors {
			t.Errorf("--pscm-authors=%v: metrics.json says pscm_authors %v", authors, got)
		}
	}
}

// setFlags sets the command's own flags for one run: those in set to
// their values, the others to their defaults.
func setFlags(t *testing.T, set map[string]string) {
	t.Helper()
	for _, name := range []string{"log", "shards", "out", "part-size", "pii-blacklist", "full-serp", "max-line", "shard-dir",
		"models", "iterations", "pii-salt", "keep-session-ids", "drop-clickless", "tolerance", "exact", "pscm-authors", "empirical-prior", "split", "train-fraction", "seed", "cpuprofile", "intervals-from", "no-intervals"} {
		f := flag.Lookup(name)
		v, ok := set[name]
		if !ok {
			v = f.DefValue
		}
		if err := flag.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	// -gibbs-subset-serps given or not, as set says.
	subsetSERPs = givenInt{n: clickmodels.GibbsSubsetSERPs}
	if v, ok := set["gibbs-subset-serps"]; ok {
		if err := flag.Set("gibbs-subset-serps", v); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFitFromLogMemfs: `lovbench-beam fit --log` with the log and the
// output directory on Beam's in-memory file system (memfs://, reached
// through Beam's file-system layer as gs:// and s3:// are) gives the
// files lovbench fit gives on the same shards, byte for byte, and removes
// its prepared shards from the store.
func TestFitFromLogMemfs(t *testing.T) {
	ctx := context.Background()
	var buf bytes.Buffer
	simulatedLog(t, &buf, 6000)
	root := "memfs://TestFitFromLogMemfs"
	memfs.Write(root+"/log.tsv", buf.Bytes())
	out := root + "/fit"
	setFlags(t, map[string]string{"log": root + "/log.tsv", "out": out, "shards": "3", "models": "ubm,dbn", "iterations": "4"})
	if err := run(ctx, "fit"); err != nil {
		t.Fatal(err)
	}
	fsys := memfs.New(ctx)
	// The shards Beam wrote, copied to a local directory, open.
	shardDir := filepath.Join(t.TempDir(), "shards")
	if err := os.MkdirAll(shardDir, 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := fsys.List(ctx, out+"/shards/*")
	if err != nil || len(files) != 3+1 { // 3 shards and the manifest
		t.Fatalf("shard directory holds %q (%v)", files, err)
	}
	for _, f := range files {
		b, err := filesystem.Read(ctx, fsys, f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(shardDir, f[strings.LastIndex(f, "/")+1:]), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := shards.Open(shardDir); err != nil {
		t.Fatal(err)
	}
	// lovbench fit --log on a local copy of the log.
	local := filepath.Join(t.TempDir(), "log.tsv")
	if err := os.WriteFile(local, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want := lovbenchFitLog(t, local)
	for _, f := range []string{"UBM_relevance.tsv", "DBN_relevance.tsv", "UBM_params.json", "DBN_params.json"} {
		a, err1 := os.ReadFile(filepath.Join(want, f))
		b, err2 := filesystem.Read(ctx, fsys, out+"/"+f)
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs from lovbench fit --log's (%v, %v)", f, err1, err2)
		}
	}
	if left, err := fsys.List(ctx, out+"/.prepared/*"); err != nil || len(left) != 0 {
		t.Errorf("prepared shards left behind: %q (%v)", left, err)
	}
}

// TestUnknownScheme: a path of a scheme no file system serves is a usage
// error naming the path, before anything runs.
func TestUnknownScheme(t *testing.T) {
	const bad = "hdfs://cluster/logs/day1.tsv"
	for _, set := range []map[string]string{
		{"log": bad, "out": t.TempDir()},
		{"log": "memfs://TestUnknownScheme/log.tsv", "out": "hdfs://cluster/logs/day1.tsv"},
		{"shard-dir": bad, "out": t.TempDir()},
		{"log": "memfs://TestUnknownScheme/log.tsv", "out": t.TempDir(), "pii-blacklist": bad},
	} {
		memfs.Write("memfs://TestUnknownScheme/log.tsv", []byte("1\t0\tQ\t7\t0\t10,11\n"))
		setFlags(t, set)
		cmd := "shard"
		if set["shard-dir"] != "" {
			cmd = "fit"
		}
		err := run(context.Background(), cmd)
		var ue usageError
		if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "hdfs://") {
			t.Errorf("%v: error %v, want one naming %s", set, err, bad)
		}
		if set["pii-blacklist"] == "" && !errors.As(err, &ue) {
			t.Errorf("%v: %v is no usage error", set, err)
		}
	}
}

// TestHelpOwnFlagsFirst: --help shows the commands and every flag of
// lovbench-beam, in lovbench's style, before Beam's pipeline options, and
// lists Beam's runner among those options.
func TestHelpOwnFlagsFirst(t *testing.T) {
	var b bytes.Buffer
	usage(&b, flag.CommandLine)
	help := b.String()
	beamAt := strings.Index(help, "\nBeam pipeline options")
	if beamAt < 0 || !strings.HasPrefix(help, "lovbench-beam ") {
		t.Fatalf("help has no Beam section or does not start with the command:\n%s", help)
	}
	for _, want := range []string{"Usage:\n", "Available Commands:\n  shard ", "\n  fit ", "\nFlags:\n"} {
		if i := strings.Index(help, want); i < 0 || i > beamAt {
			t.Errorf("%q missing or after Beam's options", want)
		}
	}
	n := 0
	flag.VisitAll(func(f *flag.Flag) {
		i := strings.Index(help, "\n  --"+f.Name+" ")
		switch {
		case i < 0:
			t.Errorf("--%s missing from the help", f.Name)
		case ownFlags[f.Name] && i > beamAt:
			t.Errorf("own flag --%s listed among Beam's options", f.Name)
		case !ownFlags[f.Name] && i < beamAt:
			t.Errorf("Beam's --%s listed among lovbench-beam's flags", f.Name)
		}
		if ownFlags[f.Name] {
			n++
		}
	})
	if n != len(ownFlags) {
		t.Errorf("%d of the %d own flags are defined", n, len(ownFlags))
	}
	if i := strings.Index(help, "\n  --runner "); i < beamAt {
		t.Errorf("--runner not among Beam's options")
	}
}

// treeFiles returns every file under the local directory dir or the memfs
// prefix dir, by slash path relative to it, with its content.
func treeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if strings.HasPrefix(dir, "memfs://") {
		ctx := context.Background()
		fsys := memfs.New(ctx)
		glob := dir
		for range 4 {
			glob += "/*"
			files, err := fsys.List(ctx, glob)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				b, err := filesystem.Read(ctx, fsys, f)
				if err != nil {
					t.Fatal(err)
				}
				out[strings.TrimPrefix(f, dir+"/")] = string(b)
			}
		}
		return out
	}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// putFile writes a user's file into a local directory or a memfs prefix.
func putFile(t *testing.T, path, content string) {
	t.Helper()
	if strings.HasPrefix(path, "memfs://") {
		memfs.Write(path, []byte(content))
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// smallLog writes a log of 1500 SERPs locally and to memfs and returns
// both paths.
func smallLog(t *testing.T, name string) (local, mem string) {
	t.Helper()
	var buf bytes.Buffer
	simulatedLog(t, &buf, 1500)
	local = filepath.Join(t.TempDir(), "log.tsv")
	putFile(t, local, buf.String())
	mem = "memfs://" + name + "/log.tsv"
	putFile(t, mem, buf.String())
	return local, mem
}

// TestUserPreparedDirSurvives: fit into an OUT whose .prepared directory
// holds a user's file refuses (a usage error naming OUT and the file)
// before anything runs, and the file stays, locally and on memfs. (The
// fit used to prepare its shards into that directory and remove it
// whole at the end.)
func TestUserPreparedDirSurvives(t *testing.T) {
	local, mem := smallLog(t, "TestUserPreparedDirSurvives")
	for _, c := range []struct{ log, out string }{
		{local, filepath.Join(t.TempDir(), "fit")},
		{mem, "memfs://TestUserPreparedDirSurvives/fit"},
	} {
		mine := lbbeam.JoinPath(lbbeam.JoinPath(c.out, ".prepared"), "notes.txt")
		putFile(t, mine, "mine")
		setFlags(t, map[string]string{"log": c.log, "out": c.out, "shards": "2", "models": "ubm", "iterations": "2"})
		err := run(context.Background(), "fit")
		if err == nil || !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), c.out) || !strings.Contains(err.Error(), ".prepared") {
			t.Errorf("%s: %v, want a usage error naming it and .prepared", c.out, err)
		}
		got := treeFiles(t, c.out)
		if len(got) != 1 || got[".prepared/notes.txt"] != "mine" {
			t.Errorf("%s holds %d files after the refusal, want only the user's: %v", c.out, len(got), keys(got))
		}
	}
}

// TestUserFileInOutRefused: shard into an OUT that holds a user's file,
// or into an earlier output to which a user added one, refuses with a
// usage error naming OUT and the file, and leaves OUT as it was, locally
// and on memfs.
func TestUserFileInOutRefused(t *testing.T) {
	local, mem := smallLog(t, "TestUserFileInOutRefused")
	for _, c := range []struct{ log, out string }{
		{local, filepath.Join(t.TempDir(), "shards")},
		{mem, "memfs://TestUserFileInOutRefused/shards"},
	} {
		set := map[string]string{"log": c.log, "out": c.out, "shards": "2", "pii-salt": "k"}
		// A directory of other files.
		putFile(t, lbbeam.JoinPath(c.out, "shard-00000-of-00002.parquet"), "mine")
		setFlags(t, set)
		err := run(context.Background(), "shard")
		if err == nil || !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), c.out) {
			t.Errorf("%s: %v, want a usage error naming it", c.out, err)
		}
		if got := treeFiles(t, c.out); len(got) != 1 || got["shard-00000-of-00002.parquet"] != "mine" {
			t.Errorf("%s: the user's file is gone or changed: %v", c.out, keys(got))
		}
	}
	for _, c := range []struct{ log, out string }{
		{local, filepath.Join(t.TempDir(), "shards")},
		{mem, "memfs://TestUserFileInOutRefused/shards2"},
	} {
		// An earlier output with a user's file added.
		setFlags(t, map[string]string{"log": c.log, "out": c.out, "shards": "2", "pii-salt": "k"})
		if err := run(context.Background(), "shard"); err != nil {
			t.Fatal(err)
		}
		putFile(t, lbbeam.JoinPath(c.out, "notes.txt"), "mine")
		before := treeFiles(t, c.out)
		err := run(context.Background(), "shard")
		if err == nil || !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), c.out) || !strings.Contains(err.Error(), "added: notes.txt") {
			t.Errorf("%s: %v, want a usage error naming it and the added file", c.out, err)
		}
		if after := treeFiles(t, c.out); !maps.Equal(before, after) {
			t.Errorf("%s changed by the refused run: %v, was %v", c.out, keys(after), keys(before))
		}
	}
}

// TestRerunReplacesOwnOutput: a rerun of fit --log onto its own earlier
// output succeeds and leaves the same files, byte for byte, with the
// index of them (.lovbench-files.json) that makes the rerun possible,
// locally and on memfs.
func TestRerunReplacesOwnOutput(t *testing.T) {
	local, mem := smallLog(t, "TestRerunReplacesOwnOutput")
	for _, c := range []struct{ log, out string }{
		{local, filepath.Join(t.TempDir(), "fit")},
		{mem, "memfs://TestRerunReplacesOwnOutput/fit"},
	} {
		setFlags(t, map[string]string{"log": c.log, "out": c.out, "shards": "2", "models": "ubm", "iterations": "2"})
		if err := run(context.Background(), "fit"); err != nil {
			t.Fatal(err)
		}
		first := treeFiles(t, c.out)
		if err := run(context.Background(), "fit"); err != nil {
			t.Fatalf("%s: rerun onto its own output: %v", c.out, err)
		}
		second := treeFiles(t, c.out)
		if !maps.Equal(first, second) {
			t.Errorf("%s: the rerun's files differ: %v, first %v", c.out, keys(second), keys(first))
		}
		idx := second[".lovbench-files.json"]
		for _, f := range []string{"UBM_relevance.tsv", "metrics.json", "shards/manifest.json", "shards/shard-00001-of-00002.parquet"} {
			if _, ok := second[f]; !ok || !strings.Contains(idx, `"path": "`+f+`"`) {
				t.Errorf("%s: %s missing, or not in the index:\n%s", c.out, f, idx)
			}
		}
		for f := range second {
			if strings.HasPrefix(f, ".prepared") {
				t.Errorf("%s: scratch file %s left", c.out, f)
			}
		}
	}
}

func keys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// TestOutputOverInputRefused: an --out that holds an input (a local
// directory, or a memfs prefix), or a --cpuprofile that is the input log,
// is a usage error before anything is written, and the input stays.
func TestOutputOverInputRefused(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log.tsv")
	putFile(t, logPath, "1\t0\tQ\t7\t0\t10,11\n")
	const memLog = "memfs://TestOutputOverInputRefused/run/log.tsv"
	putFile(t, memLog, "1\t0\tQ\t7\t0\t10,11\n")
	for _, c := range []struct {
		cmd string
		set map[string]string
	}{
		{"shard", map[string]string{"log": logPath, "out": dir}},
		{"shard", map[string]string{"log": memLog, "out": "memfs://TestOutputOverInputRefused/run/"}},
		{"fit", map[string]string{"shard-dir": filepath.Join(dir, "fit", "shards"), "out": filepath.Join(dir, "fit")}},
		{"shard", map[string]string{"log": logPath, "out": filepath.Join(dir, "out"), "cpuprofile": logPath}},
	} {
		setFlags(t, c.set)
		if c.set["shard-dir"] != "" {
			putFile(t, filepath.Join(c.set["shard-dir"], "manifest.json"), "{}")
		}
		err := run(context.Background(), c.cmd)
		if err == nil || !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "input") {
			t.Errorf("%s %v: %v, want a usage error about the input", c.cmd, c.set, err)
		}
	}
	for _, p := range []string{logPath, memLog} {
		if got := treeFiles(t, p[:strings.LastIndex(p, "/")]); got["log.tsv"] != "1\t0\tQ\t7\t0\t10,11\n" {
			t.Errorf("%s changed: %q", p, got["log.tsv"])
		}
	}
}
