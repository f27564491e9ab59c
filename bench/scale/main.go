// Command scale is the Yandex-scale benchmark: it simulates a
// click log of -serps SERPs over -queries queries (DBN clicks, the built-in
// synthetic source) to disk, then runs the pipeline's log stages one by one
// as child processes of a freshly built lovbench binary,
//
//	ingest -> fit -models (--memory-limit) -> label (the first model's relevance)
//
// and prints, per stage, wall-clock time, CPU time (user + system), peak
// resident set size in MiB (the child's rusage, so the figure is honest) and the
// load average before and after (the machine is shared: wall time is
// inflated by other work, CPU time much less). Targets on the 2-core
// development machine at 35 M SERPs / 2 M queries: ingest + fit + label
// under 10 minutes, every stage under 4 GiB.
//
//	go run ./bench/scale                     # 35 M SERPs, 2 M queries
//	go run ./bench/scale -serps 3500000 -queries 200000
//	go run ./bench/scale -memory-limit 1GiB -models dctr,ubm,dbn,pscm -iterations default
//
// Run it from the module root. The simulated log is kept in -dir and
// reused when its parameters match (simulation is not part of the target).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

type stage struct {
	name       string
	wall       time.Duration
	user, sys  time.Duration
	maxRSS     int64 // bytes
	loadBefore string
	loadAfter  string
}

func main() {
	serps := flag.Int("serps", 35_000_000, "SERPs to simulate")
	queries := flag.Int("queries", 2_000_000, "distinct queries")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "lovbench-scale"), "work directory (the simulated log is kept and reused)")
	memLimit := flag.String("memory-limit", "3GiB", "fit --memory-limit")
	models := flag.String("models", "dctr,ubm,dbn", "fit --models")
	iters := flag.String("iterations", "50", "fit --iterations; \"default\": fit's own (the estimator's: exact, to the tolerance, at most 200)")
	flag.Parse()
	if err := run(*serps, *queries, *dir, *memLimit, *models, *iters); err != nil {
		fmt.Fprintln(os.Stderr, "scale bench:", err)
		os.Exit(1)
	}
}

// rss prints a peak resident set in MiB, so that one just under or over
// a 1 GiB (1024 MiB) limit reads as such.
func rss(bytes int64) string { return fmt.Sprintf("%.1f MiB", float64(bytes)/(1<<20)) }

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// child runs bin with args and measures it.
func child(name, bin string, args ...string) (stage, error) {
	st := stage{name: name, loadBefore: loadavg()}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	t0 := time.Now()
	err := cmd.Run()
	st.wall = time.Since(t0)
	st.loadAfter = loadavg()
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			st.user = time.Duration(ru.Utime.Nano())
			st.sys = time.Duration(ru.Stime.Nano())
			st.maxRSS = ru.Maxrss * 1024 // kilobytes on Linux
		}
	}
	if err != nil {
		return st, fmt.Errorf("%s: %s %s: %w", name, bin, strings.Join(args, " "), err)
	}
	fmt.Fprintf(os.Stderr, "scale bench: %s done: %.1f s wall, %.1f s CPU, peak RSS %s\n", name, st.wall.Seconds(), (st.user + st.sys).Seconds(), rss(st.maxRSS))
	return st, nil
}

func run(serps, queries int, dir, memLimit, models string, iters string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	bin := filepath.Join(dir, "lovbench")
	build := exec.Command("go", "build", "-o", bin, "./cmd/lovbench")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build ./cmd/lovbench (run from the module root): %w", err)
	}
	logFile := filepath.Join(dir, "sim.tsv")
	stamp := filepath.Join(dir, "sim.params")
	want := fmt.Sprintf("dbn serps=%d queries=%d seed=1\n", serps, queries)
	var stages []stage
	if b, err := os.ReadFile(stamp); err != nil || string(b) != want {
		os.Remove(stamp)
		st, err := child("simulate (not in the target)", bin, "simulate", "-q", "--model", "dbn", "--sessions", fmt.Sprint(serps), "--queries", fmt.Sprint(queries), "--seed", "1", "--out", logFile)
		if err != nil {
			return err
		}
		stages = append(stages, st)
		if err := os.WriteFile(stamp, []byte(want), 0o644); err != nil {
			return err
		}
	}
	ing, fit := filepath.Join(dir, "ingest"), filepath.Join(dir, "fit")
	// The label stage reads the relevance of the first model fitted (the
	// file name fit writes: the model's name in capitals).
	labelModel := strings.ToUpper(strings.TrimSpace(strings.Split(models, ",")[0]))
	fitArgs := []string{"fit", "-q", "--sessions", ing, "--models", models, "--memory-limit", memLimit, "--out", fit}
	if iters != "default" {
		fitArgs = append(fitArgs, "--iterations", iters)
	}
	steps := []struct {
		name string
		args []string
	}{
		{"ingest", []string{"ingest", "-q", "--format", "yandex", "--log", logFile, "--out", ing}},
		{"fit " + models, fitArgs},
		{"label (" + labelModel + ")", []string{"label", "-q", "--relevance", filepath.Join(fit, labelModel+"_relevance.tsv"), "--sessions", ing, "--memory-limit", memLimit, "--out", filepath.Join(dir, "labels.csv")}},
	}
	var total stage
	total.name = "ingest + fit + label"
	total.loadBefore = loadavg()
	for _, s := range steps {
		st, err := child(s.name, bin, s.args...)
		if err != nil {
			return err
		}
		stages = append(stages, st)
		total.wall += st.wall
		total.user += st.user
		total.sys += st.sys
		total.maxRSS = max(total.maxRSS, st.maxRSS)
	}
	total.loadAfter = loadavg()
	stages = append(stages, total)

	var reps []struct {
		Model         string  `json:"model"`
		TrainSessions int     `json:"train_sessions"`
		FitSeconds    float64 `json:"fit_seconds"`
		PrepSeconds   float64 `json:"prepare_seconds"`
	}
	if b, err := os.ReadFile(filepath.Join(fit, "metrics.json")); err == nil {
		json.Unmarshal(b, &reps)
	}
	fmt.Printf("log: %d SERPs, %d queries (simulated DBN); fit --memory-limit %s, iterations %s\n\n", serps, queries, memLimit, iters)
	fmt.Println("| stage | wall (s) | CPU user+sys (s) | peak RSS | load before | load after |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, st := range stages {
		fmt.Printf("| %s | %.1f | %.1f | %s | %s | %s |\n", st.name, st.wall.Seconds(), (st.user + st.sys).Seconds(), rss(st.maxRSS), st.loadBefore, st.loadAfter)
	}
	for _, r := range reps {
		fmt.Printf("\nfit %s: prepare %.1f s, fit %.1f s (wall)", r.Model, r.PrepSeconds, r.FitSeconds)
	}
	if len(reps) > 0 && reps[0].TrainSessions > 0 {
		for _, st := range stages {
			if strings.HasPrefix(st.name, "fit") {
				fmt.Printf("\nfit peak RSS per training SERP: %.0f bytes (%d training SERPs)\n", float64(st.maxRSS)/float64(reps[0].TrainSessions), reps[0].TrainSessions)
			}
		}
	}
	return nil
}
