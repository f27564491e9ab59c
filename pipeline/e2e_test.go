package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/corpussim"
	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/features/democorpus"
	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/internal/browsertest"
	"github.com/lovbench/lovbench/internal/refdata"
	"github.com/lovbench/lovbench/internal/testsize"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/workdir"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// lovbenchBinary builds cmd/lovbench once per test binary run, into the
// directory the checkout's tests keep their executables in
// (testsize.ToolDir), so that a run with unchanged sources finds it up to
// date and skips the link (about 1.5 CPU-s); without that directory, into
// the package's temporary directory.
func lovbenchBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := testsize.ToolDir("crashtest")
		if err != nil {
			dir = testTemp
		}
		binPath = filepath.Join(dir, "lovbench")
		// -s -w: no symbol table and no DWARF, which nothing here reads;
		// the link takes about 0.5 CPU-s less, and each run hashes a
		// smaller executable for its stage fingerprints.
		out, err := exec.Command("go", "build", "-tags", "lovbench_crashtest", "-ldflags=-s -w", "-o", binPath, "github.com/lovbench/lovbench/cmd/lovbench").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// e2eSERPs is the log size of the end-to-end runs whose checks hold at
// any size (TestKillAnywhereThenRerun, TestReaderNeverSeesPartialOutput,
// TestReleasesDiffAndReport): 300 SERPs by default (over 60 queries, the
// size the cmd/lovbench tests run the demo at, which still meets a
// benchmark's minimums; 600 until 2026-11-30: 0.3 CPU-s more over the
// three tests), 3,000 at the full size (LOVBENCH_FULL=1). A run's cost is
// mostly fixed (1.1 CPU-s at 600, 1.45 at 3,000).
func e2eSERPs() int { return testsize.Pick(300, 3000) }

// smallConfig writes a configuration for a small, fast, complete run:
// every stage, both rankers on one feature configuration with 2 training
// iterations (the tests that use it check the work directory's plumbing,
// not the rankers; 0.15 CPU-s less per learning-to-rank stage than two
// configurations at 5 iterations), and DBN's intervals from the counts
// (nor the intervals: the Gibbs sampler, the default on these logs, is
// about 0.18 CPU-s of a fit at 600 SERPs, and the kill test runs the
// fit stage several times). At the full size (LOVBENCH_FULL=1), two
// configurations at 5 iterations and the default intervals, as before.
// At the default size the corpus is smallCorpus's.
func smallConfig(t *testing.T, dir string, serps int) string {
	t.Helper()
	ltrCfg := testsize.Pick("configs: [light], iterations: 2", "configs: [full, light], iterations: 5")
	fitCfg := testsize.Pick("click_models: {intervals_from: counts}\n", "")
	if !testsize.Full() {
		fitCfg += "corpus: {paths: [vocabs]}\n"
		smallCorpus(t, filepath.Join(dir, "vocabs"))
	}
	cfg := fmt.Sprintf(`simulate: {sessions: %d, queries: 60, model: ubm, seed: 3}
ltr: {algorithms: [ranknet, adarank], `+ltrCfg+`, permutations: 200}
report: {title: e2e}
`+fitCfg, serps)
	p := filepath.Join(dir, "lovbench.yaml")
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// smallCorpus writes the embedded demo corpus without schema.org, half
// its bytes, to dir: a run of smallConfig that needs the corpus
// (simulate, sample, features) takes about 0.17 CPU-s less (a whole
// `lovbench run` of smallConfig at 300 SERPs: 0.63-0.65 -> 0.45-0.47
// CPU-s, three runs each), and the other 15 vocabularies still meet a
// benchmark's minimums.
func smallCorpus(t *testing.T, dir string) {
	t.Helper()
	if _, err := democorpus.Materialize(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "schema.nq.gz")); err != nil {
		t.Fatal(err)
	}
}

// snapshot maps every visible file of a work directory (stage outputs through
// their links, the latest release) to its SHA-256. Staging directories and
// the lock file are not visible outputs.
func snapshot(t *testing.T, wd string) map[string]string {
	t.Helper()
	out := map[string]string{}
	add := func(prefix, link string) {
		dir, err := filepath.EvalSymlinks(link)
		if err != nil {
			t.Errorf("%s: dangling link: %v", link, err)
			return
		}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Errorf("read %s: %v", p, err)
				return nil
			}
			s := sha256.Sum256(b)
			out[prefix+"/"+filepath.ToSlash(rel)] = hex.EncodeToString(s[:])
			return nil
		})
	}
	ents, _ := os.ReadDir(filepath.Join(wd, "stages"))
	for _, e := range ents {
		// Hidden entries (.tmp-*: staging directories, links being
		// swapped) are not outputs.
		if e.Type()&os.ModeSymlink != 0 && !strings.HasPrefix(e.Name(), ".") {
			add("stages/"+e.Name(), filepath.Join(wd, "stages", e.Name()))
		}
	}
	if _, err := os.Stat(filepath.Join(wd, "releases", "latest")); err == nil {
		add("release", filepath.Join(wd, "releases", "latest"))
	}
	return out
}

// checkVisible asserts that every visible output of a (possibly killed)
// work directory is complete: each stage output and the release are
// byte-identical to the reference run's, file for file.
func checkVisible(t *testing.T, wd string, ref map[string]string, when string) {
	t.Helper()
	got := snapshot(t, wd)
	groups := map[string]bool{}
	for k := range got {
		groups[strings.Join(strings.SplitN(k, "/", 3)[:2], "/")] = true
		if strings.HasPrefix(k, "release/") {
			groups["release"] = true
		}
	}
	for k, v := range got {
		if ref[k] != v {
			t.Errorf("%s: visible file %s differs from the uninterrupted run (partial or different output)", when, k)
		}
	}
	// A visible stage or release must hold all its files, not a subset.
	for k := range ref {
		g := strings.Join(strings.SplitN(k, "/", 3)[:2], "/")
		if strings.HasPrefix(k, "release/") {
			g = "release"
		}
		if groups[g] {
			if _, ok := got[k]; !ok {
				t.Errorf("%s: %s is visible without its file %s", when, g, k)
			}
		}
	}
}

// runUntilKilled starts a run, waits for the log line of stage target
// starting ("" = no wait), sleeps delay, and kills it with SIGKILL. It
// returns the stage whose start was the last one logged before the kill, or
// "" when the run finished (or died) before being killed.
func runUntilKilled(t *testing.T, bin, cfg, target string, delay time.Duration) string {
	t.Helper()
	cmd := exec.Command(bin, "-v", "run", "--config", cfg) // -v: the "stage running" lines
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	last := ""
	seen := make(chan struct{})
	done := make(chan struct{})
	stageRe := regexp.MustCompile(`msg="stage running" stage=(\S+)`)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		signalled := target == ""
		if signalled {
			close(seen)
		}
		for sc.Scan() {
			m := stageRe.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			mu.Lock()
			last = m[1]
			mu.Unlock()
			if !signalled && m[1] == target {
				signalled = true
				close(seen)
			}
		}
		if !signalled {
			close(seen)
		}
	}()
	<-seen
	time.Sleep(delay)
	mu.Lock()
	_ = cmd.Process.Signal(syscall.SIGKILL)
	at := last
	mu.Unlock()
	<-done
	_ = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return at
	}
	return ""
}

// TestKillAnywhereThenRerun kills `lovbench run` with SIGKILL at every
// crash point of every stage's commit protocol (and of the publication)
// and, at the full size (LOVBENCH_FULL=1), at random points of every
// stage too, checks after each kill that no visible output is partial, and
// checks that the run then finishes with outputs byte-identical to an
// uninterrupted run.
func TestKillAnywhereThenRerun(t *testing.T) {
	t.Parallel()
	bin := lovbenchBinary(t)
	// Reference: an uninterrupted run, with each stage's duration: the
	// fresh run of TestReaderNeverSeesPartialOutput (sharedWatchedRuns),
	// whose work directory this test takes over once both its runs are done.
	w := sharedWatchedRuns(t)
	if w.err != nil {
		t.Fatalf("reference run: %v", w.err)
	}
	base, cfg, wd, res, total, ref := w.base, w.cfg, w.wd, w.res, w.runs[0].wall, w.ref
	if len(ref) < 20 {
		t.Fatalf("reference run left only %d files", len(ref))
	}
	// The killed runs use the same work directory path (outputs may record
	// input paths), starting afresh in every round.
	cfgW := filepath.Join(base, "lovbench-w.yaml")
	b, _ := os.ReadFile(cfg)
	os.WriteFile(cfgW, append(b, []byte("workdir: work\n")...), 0o644)
	done := func(stage string) bool {
		_, err := os.Stat(filepath.Join(wd, "stages", stage, stampName))
		return err == nil
	}
	finish := func(round int) {
		if out, err := exec.Command(bin, "run", "--config", cfgW, "--quiet").CombinedOutput(); err != nil {
			t.Fatalf("round %d: final run: %v\n%s", round, err, out)
		}
		got := snapshot(t, wd)
		if len(got) != len(ref) {
			t.Errorf("round %d: final run has %d visible files, uninterrupted run %d", round, len(got), len(ref))
		}
		for k, v := range ref {
			if got[k] != v {
				t.Errorf("round %d: after kills and a rerun, %s differs from the uninterrupted run", round, k)
			}
		}
	}

	// Deterministic part: the run kills itself at every crash point of the
	// commit protocol of every stage and of the release, one after the
	// other in the same work directory, as a cron job killed over and over
	// would. Each point must be reached, and after each kill nothing
	// visible may be partial.
	if err := os.RemoveAll(wd); err != nil {
		t.Fatal(err)
	}
	killedIn := map[string]int{}
	kills := 0
	crash := func(stage, point string) {
		cmd := exec.Command(bin, "run", "--config", cfgW, "--quiet")
		cmd.Env = append(os.Environ(), "LOVBENCH_TEST_CRASH_AT="+stage+":"+point)
		out, err := cmd.CombinedOutput()
		ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("crash point %s:%s was not reached (err %v)\n%s", stage, point, err, out)
			return
		}
		kills++
		killedIn[stage]++
		checkVisible(t, wd, ref, fmt.Sprintf("after a crash at %s:%s", stage, point))
	}
	// At the default size each stage is killed at one crash point, the
	// points taken in turn so that every point is reached in some stage
	// (a stage is redone whole after each kill, so every point of every
	// stage costs a stage run each); at the full size every stage at
	// every point.
	points := workdir.CrashPoints()
	for i, st := range res.Stages {
		if testsize.Full() {
			for _, point := range points {
				crash(st.Name, point)
			}
			continue
		}
		crash(st.Name, points[i%len(points)])
	}
	if !testsize.Full() && len(res.Stages) < len(points) {
		t.Fatalf("%d stages cannot reach the %d crash points one each", len(res.Stages), len(points))
	}
	crash("release", "copied")
	crash("release", "renamed")
	finish(1)

	// Random part (at the full size only, LOVBENCH_FULL=1: the crash
	// points above already reach every stage and the release): kills at
	// random times within each stage's reference duration, then at random
	// times from the start. Short stages are often missed by a timer; the
	// crash points above cover them for certain.
	if testsize.Full() {
		randomKills(t, bin, cfgW, wd, res, total, done, killedIn, &kills, ref, finish)
	}
	for _, st := range res.Stages {
		if killedIn[st.Name] == 0 {
			t.Errorf("no run was killed during stage %s (kills per stage: %v)", st.Name, killedIn)
		}
	}
	// No staging leftovers after a completed run.
	for _, sub := range []string{"stages", "releases"} {
		ents, _ := os.ReadDir(filepath.Join(wd, sub))
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".tmp-") {
				t.Errorf("staging leftover %s/%s after a completed run", sub, e.Name())
			}
		}
	}
	t.Logf("%d runs killed (per stage: %v); reference run %v", kills, killedIn, total)
}

// randomKills is TestKillAnywhereThenRerun's random part: runs killed at
// random times within each stage, then within the whole run, each
// followed by the check that nothing visible is partial, and reruns that
// must end with the uninterrupted run's files.
func randomKills(t *testing.T, bin, cfgW, wd string, res RunResult, total time.Duration, done func(string) bool,
	killedIn map[string]int, kills *int, ref map[string]string, finish func(int)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(42, 7))
	if err := os.RemoveAll(wd); err != nil {
		t.Fatal(err)
	}
	for _, st := range res.Stages {
		for attempt := 0; attempt < 2 && !done(st.Name); attempt++ {
			d := time.Duration(rng.Float64() * st.Seconds * float64(time.Second))
			at := runUntilKilled(t, bin, cfgW, st.Name, d)
			if at != "" {
				*kills++
				killedIn[at]++
			}
			checkVisible(t, wd, ref, fmt.Sprintf("after a kill %v into stage %s (landed in %q)", d, st.Name, at))
		}
	}
	finish(2)
	os.RemoveAll(wd)
	for i := 0; i < 4; i++ {
		d := time.Duration(rng.Float64() * float64(total))
		if at := runUntilKilled(t, bin, cfgW, "", d); at != "" {
			*kills++
			killedIn[at]++
		}
		checkVisible(t, wd, ref, fmt.Sprintf("after a kill %v into a run", d))
	}
	finish(0)
}

// TestConcurrentRunRefused starts two runs on one work directory: the second
// exits with status 1 and the lock message while the first holds the lock.
func TestConcurrentRunRefused(t *testing.T) {
	t.Parallel()
	bin := lovbenchBinary(t)
	base := t.TempDir()
	cfg := smallConfig(t, base, 20000)
	wd := filepath.Join(base, "work")
	first := exec.Command(bin, "-v", "run", "--config", cfg, "--workdir", wd) // -v: the "stage running" lines
	stderr, _ := first.StderrPipe()
	first.Stdout = io.Discard
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		first.Process.Kill()
		first.Wait()
	}()
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `msg="stage running"`) {
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	second := exec.Command(bin, "run", "--config", cfg, "--workdir", wd)
	var errb bytes.Buffer
	second.Stderr = &errb
	err := second.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("second run: %v, want exit status 1; stderr %s", err, errb.String())
	}
	msg := errb.String()
	want := regexp.MustCompile(`work directory is locked by another lovbench run: .*\.lovbench\.lock is held by pid ` + strconv.Itoa(first.Process.Pid))
	if !want.MatchString(msg) {
		t.Errorf("second run's message %q does not name the lock and the first run's pid %d", msg, first.Process.Pid)
	}
}

// TestDemoEndToEnd takes the run of the demo's configuration (sharedDemo,
// run once for the package's tests: `lovbench demo` with its defaults, the
// README's first command, at the full size; the demo's configuration with
// a lighter learning-to-rank stage by default),
// checks the published release, that its label shares are
// within 5 points of LOVBench's Table 4, that the report renders every chart in headless
// Chromium without errors, and that a second demo run changes nothing.
func TestDemoEndToEnd(t *testing.T) {
	t.Parallel()
	bin := lovbenchBinary(t)
	dm := sharedDemo(t)
	wd, res := dm.wd, dm.res
	t.Logf("demo wall time %v", dm.wall)
	if !res.Published || res.Report == "" {
		t.Fatalf("demo published nothing: %+v", res)
	}
	for _, f := range []string{"ground_truth.csv", "labels.csv", "click_models.json", "report.html", "release.json",
		"dataset/manifest.json", "dataset/dataset.parquet", "dataset/dataset.arrow", "dataset/qrels.txt",
		"dataset/Fold1/train.txt", "dataset/Fold5/test.txt", "ltr/results.json"} {
		if _, err := os.Stat(filepath.Join(res.ReleaseDir, f)); err != nil {
			t.Errorf("release lacks %s", f)
		}
	}
	// The fit stage holds its own summary under its own name, and not
	// lovbench fit's metrics.json, whose schema (and timings) differ.
	var sum struct {
		Selected string `json:"selected"`
	}
	if b, err := os.ReadFile(filepath.Join(wd, "stages", "fit", "fit_summary.json")); err != nil || json.Unmarshal(b, &sum) != nil || sum.Selected == "" {
		t.Errorf("stages/fit/fit_summary.json: %v, selected %q", err, sum.Selected)
	}
	if _, err := os.Stat(filepath.Join(wd, "stages", "fit", "metrics.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stages/fit holds metrics.json (%v): the stage's summary is fit_summary.json", err)
	}
	val := exec.Command(bin, "validate", filepath.Join(res.ReleaseDir, "dataset"))
	if b, err := val.CombinedOutput(); err != nil {
		t.Errorf("lovbench validate on the release: %v\n%s", err, b)
	}
	d, err := ReportFromWorkdir(wd)
	if err != nil {
		t.Fatal(err)
	}
	if d.Recovery == nil || d.Recovery.Pairs < 1000 {
		t.Fatalf("no label recovery over enough pairs: %+v", d.Recovery)
	}
	if d.FeatureSemantics != "reference" {
		t.Errorf("the demo's features were built with %q semantics, want reference", d.FeatureSemantics)
	}
	// The section "How sure are the labels" covers every label of labels.csv.
	if c := d.Confidence; c == nil || c.Pairs != d.Recovery.Pairs || c.Known != c.Pairs || c.Prior == nil || len(c.Recovery) == 0 {
		t.Errorf("confidence section %+v, want one over the %d labelled pairs, all with a confidence", c, d.Recovery.Pairs)
	} else if c.Reached != nil {
		t.Logf("labels with confidence >= %v recover the truth at Pearson %.3f, Kendall tau-b %.3f: %d pairs, %d queries",
			c.Reached.Min, c.Reached.Pearson, c.Reached.Kendall, c.Reached.Pairs, c.Reached.Queries)
	}
	t.Logf("label recovery: %d pairs, Pearson %.3f, Kendall tau-b %.3f, exact label agreement %.1f%%",
		d.Recovery.Pairs, d.Recovery.Pearson, d.Recovery.Kendall, 100*d.Recovery.Agreement)
	// The default (lovbench) profile is calibrated to LOVBench's label
	// shares: paper Table 4, labelled plus sampled pairs, in percent.
	table4 := map[int]float64{4: 0.34, 3: 1.63, 2: 7.26, 1: 24.10, 0: 66.59, -2: 0.06}
	var total int64
	for _, l := range d.Labels {
		total += l.Count
	}
	got := map[int]float64{}
	for _, l := range d.Labels {
		got[l.Label] = 100 * float64(l.Count) / float64(total)
	}
	for lab, want := range table4 {
		if math.Abs(got[lab]-want) > 5 {
			t.Errorf("label %d: %.2f%% of the demo's pairs, LOVBench's Table 4 %.2f%%: more than 5 points apart", lab, got[lab], want)
		}
	}
	t.Logf("label shares (label: demo / Table 4): %v / %v", got, table4)
	if len(d.Models) != 3 || len(d.LTR) == 0 || len(d.Cleaning) == 0 || d.Log == nil {
		t.Errorf("report data incomplete: %d models, %d LTR rows, %d cleaning counts", len(d.Models), len(d.LTR), len(d.Cleaning))
	}
	best := d.Models[0]
	for _, m := range d.Models {
		if m.LogLikelihood > best.LogLikelihood {
			best = m
		}
	}
	if !best.Selected {
		t.Errorf("the selected model is not the one with the best test log-likelihood (%s)", best.Name)
	}

	if chromium := browsertest.Find(); chromium == "" {
		t.Log("chromium not found (Debian package chromium; .ci/run installs it): browser rendering check skipped")
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		r, err := browsertest.Check(ctx, chromium, res.Report, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		// 8, and the chart of the labels' confidence.
		if r.Charts != 9 || r.Rendered != r.Charts {
			t.Errorf("chromium rendered %d of %d charts of the demo report, want 9 of 9", r.Rendered, r.Charts)
		}
		if r.Errors != 0 || len(r.Console) != 0 {
			t.Errorf("demo report: page errors %d, console %q", r.Errors, r.Console)
		}
	}

	res2, err := dm.again()
	if err != nil {
		t.Fatal(err)
	}
	if res2.Published || res2.Release != res.Release {
		t.Errorf("unchanged rerun published %q (first %q)", res2.Release, res.Release)
	}
	for _, s := range res2.Stages {
		if !s.Skipped {
			t.Errorf("unchanged rerun ran stage %s", s.Name)
		}
	}
}

// TestDemoDenseRecovery runs `lovbench demo --profile dense`, the log with
// many clicks per result, and checks that its labels recover the hidden
// relevance: Pearson 0.8 or more and Kendall's tau-b 0.5 or more between
// the inferred probability and the true relevance. At the default size it
// runs the demo's configuration in-process at half size up to the label
// stage, the last one the check reads (the stages after it, learning to
// rank above all, are the default demo's tests'); at the full size
// (LOVBENCH_FULL=1) the whole `lovbench demo --profile dense`.
func TestDemoDenseRecovery(t *testing.T) {
	t.Parallel()
	wd := filepath.Join(t.TempDir(), "dense")
	if testsize.Full() {
		bin := lovbenchBinary(t)
		cmd := exec.Command(bin, "demo", "--out", wd, "--profile", "dense", "--quiet")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("demo --profile dense: %v\n%s", err, b)
		}
	} else {
		// Half the dense profile's queries and SERPs: the same 100 SERPs
		// per query, the density the property is about, and still 2,000
		// labelled pairs. Seed 1, demo's default.
		serps, queries := DemoDense.DemoSize()
		cfg := DemoConfig(wd, DemoDense, serps/2, queries/2, 1)
		// The relevance column, which the labels are cut from, is the
		// EM fit's whatever the intervals' method; the counts' intervals
		// spare the Gibbs sampler's DBN run (the default on this log,
		// 4,000 training SERPs), which only the labels' confidence reads.
		cfg.ClickModels.IntervalsFrom = string(clickmodels.IntervalsCounts)
		if _, err := Run(context.Background(), cfg, RunOptions{until: StageLabel}); err != nil {
			t.Fatalf("the dense demo's configuration: %v", err)
		}
	}
	d, err := ReportFromWorkdir(wd)
	if err != nil {
		t.Fatal(err)
	}
	if d.Recovery == nil || d.Recovery.Pairs < 1000 {
		t.Fatalf("no label recovery over enough pairs: %+v", d.Recovery)
	}
	t.Logf("label recovery: %d pairs, Pearson %.3f, Kendall tau-b %.3f, exact label agreement %.1f%%",
		d.Recovery.Pairs, d.Recovery.Pearson, d.Recovery.Kendall, 100*d.Recovery.Agreement)
	if d.Recovery.Pearson < 0.8 || d.Recovery.Kendall < 0.5 {
		t.Errorf("inferred labels recover the hidden relevance poorly: Pearson %.3f, Kendall %.3f", d.Recovery.Pearson, d.Recovery.Kendall)
	}
}

// TestReleasesDiffAndReport publishes two releases that differ in the
// label thresholds and checks `lovbench diff` and `lovbench report`.
func TestReleasesDiffAndReport(t *testing.T) {
	t.Parallel()
	bin := lovbenchBinary(t)
	base := t.TempDir()
	cfg := smallConfig(t, base, e2eSERPs())
	wd := filepath.Join(base, "work")
	if b, err := exec.Command(bin, "run", "--config", cfg, "--workdir", wd, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("run 1: %v\n%s", err, b)
	}
	rels, _ := workdir.Releases(wd)
	time.Sleep(1100 * time.Millisecond) // release names have one-second resolution
	b, _ := os.ReadFile(cfg)
	cfg2 := filepath.Join(base, "lovbench2.yaml")
	os.WriteFile(cfg2, append(b, []byte("labels: {thresholds: [0.1, 0.3, 0.5, 0.6, 0.8]}\n")...), 0o644)
	out, err := exec.Command(bin, "-v", "run", "--config", cfg2, "--workdir", wd).Output() // -v: the stage table
	if err != nil {
		t.Fatalf("run 2: %v\n%s", err, out)
	}
	for _, want := range []string{"simulate  unchanged", "fit       unchanged", "label     ran", "published release"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("run 2 output lacks %q:\n%s", want, out)
		}
	}
	rels2, _ := workdir.Releases(wd)
	if len(rels) != 1 || len(rels2) != 2 {
		t.Fatalf("releases %v then %v", rels, rels2)
	}
	dj, err := exec.Command(bin, "diff", "--workdir", wd, rels2[0], "latest", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var d DiffResult
	if err := json.Unmarshal(dj, &d); err != nil {
		t.Fatal(err)
	}
	if d.Changed == 0 {
		t.Errorf("new thresholds changed no label: %+v", d)
	}
	direct, err := Diff(filepath.Join(wd, "releases", rels2[0]), filepath.Join(wd, "releases", rels2[1]))
	if err != nil || direct.Changed != d.Changed || direct.Added != d.Added || direct.Removed != d.Removed {
		t.Errorf("CLI diff %+v differs from Diff %+v (%v)", d, direct, err)
	}
	txt, _ := exec.Command(bin, "diff", "--workdir", wd, rels2[0], rels2[1]).Output()
	if !strings.Contains(string(txt), "relabelled") || !strings.Contains(string(txt), "~ ") {
		t.Errorf("diff text output:\n%.500s", txt)
	}
	rep := filepath.Join(base, "r.html")
	if b, err := exec.Command(bin, "report", "--workdir", wd, "--out", rep).CombinedOutput(); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	html, _ := os.ReadFile(rep)
	// 8 charts and the labels' confidence.
	if !strings.Contains(string(html), "<h1>e2e</h1>") || strings.Count(string(html), "<svg ") != 9 {
		t.Errorf("lovbench report wrote an unexpected page (%d charts)", strings.Count(string(html), "<svg "))
	}
	// Exit statuses: usage errors 2, bad input 1.
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"run"}, 2},
		{[]string{"run", "--config", cfg, "--workdir", wd, "--force", "nosuchstage"}, 2},
		{[]string{"run", "--config", filepath.Join(base, "missing.yaml"), "--workdir", wd}, 1},
		{[]string{"diff", "a"}, 2},
		{[]string{"diff", filepath.Join(base, "nope1"), filepath.Join(base, "nope2")}, 1},
		{[]string{"report"}, 2},
		{[]string{"report", "--workdir", base}, 1},
		{[]string{"demo"}, 2},
	} {
		err := exec.Command(bin, tc.args...).Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != tc.code {
			t.Errorf("lovbench %v: exit %d, want %d", tc.args, code, tc.code)
		}
	}
}

// TestRunOnYandexLog runs the pipeline in-process on a Yandex log file and a
// corpus directory (the inputs of a real run), without the LTR stage, and
// checks that changing the log's content reruns ingest while an identical
// copy at another path does not.
func TestRunOnYandexLog(t *testing.T) {
	t.Parallel()
	// The log's SERPs and the run's corpus: smallCorpus's vocabularies
	// (the corpus's size is not what the checks are about).
	base := t.TempDir()
	corpusDir := filepath.Join(base, "vocabs")
	smallCorpus(t, corpusDir)
	src, err := corpussim.Load(context.Background(), []string{corpusDir}, features.LoadOptions{}, corpussim.Options{Queries: 50, ZipfS: 1.1, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	serps, _, err := corpussim.Sessions(context.Background(), src, sim.Config{Kind: clickmodels.UBM, SERPs: 1000, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(base, "log.tsv")
	writeYandex(t, logPath, serps)
	// DBN's intervals from the counts: the checks below are the run's
	// inputs, reruns and salt, which the default's Gibbs sampler (about
	// 0.3 CPU-s over the test's two fits) does not touch.
	cfgText := fmt.Sprintf("log: {path: %s}\ncorpus: {paths: [vocabs]}\nclick_models: {intervals_from: counts}\nltr: {enabled: false}\nworkdir: work\n", "log.tsv")
	os.WriteFile(filepath.Join(base, "c.yaml"), []byte(cfgText), 0o644)
	cfg, err := LoadConfig(filepath.Join(base, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), cfg, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := StageNames(cfg)
	if strings.Join(names, ",") != "ingest,fit,label,sample,features,export,report" {
		t.Errorf("stages %v", names)
	}
	if !res.Published || res.Report == "" {
		t.Fatalf("no release: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(res.ReleaseDir, "ltr")); !os.IsNotExist(err) {
		t.Error("release has ltr/ with ltr disabled")
	}
	// The session IDs are pseudonymised with the work
	// directory's private salt, which no stage output or release holds.
	salt, err := os.ReadFile(filepath.Join(base, "work", PIISaltFile))
	if err != nil || len(salt) != 64 {
		t.Fatalf("work directory salt: %q, %v", salt, err)
	}
	if st, _ := os.Stat(filepath.Join(base, "work", PIISaltFile)); st.Mode().Perm() != 0o600 {
		t.Errorf("salt file mode %v, want 0600", st.Mode().Perm())
	}
	clean, err := os.ReadFile(filepath.Join(base, "work", "stages", StageIngest, "clean.yandex.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if first := strings.SplitN(string(clean), "\t", 2)[0]; len(first) != 24 || strings.Contains(string(clean), serps[0].SessionID+"\t") {
		t.Errorf("session IDs not pseudonymised: first %q, raw %q", first, serps[0].SessionID)
	}
	filepath.WalkDir(filepath.Join(base, "work"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(p) != PIISaltFile {
			if b, _ := os.ReadFile(p); bytes.Contains(b, salt) {
				t.Errorf("%s holds the PII salt", p)
			}
		}
		return nil
	})
	// The same content at another path: nothing reruns.
	moved := filepath.Join(base, "moved.tsv")
	writeYandex(t, moved, serps)
	cfg.Log.Path = moved
	res2, err := Run(context.Background(), cfg, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res2.Stages {
		if !s.Skipped {
			t.Errorf("stage %s reran although the log's content is unchanged", s.Name)
		}
	}
	// Different content: ingest and everything after it rerun.
	writeYandex(t, moved, serps[:800])
	res3, err := Run(context.Background(), cfg, RunOptions{Force: []string{"report"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res3.Stages {
		if s.Skipped {
			t.Errorf("stage %s skipped although the log changed", s.Name)
		}
	}
	if !res3.Published || res3.Release == res.Release && !strings.Contains(res3.Release, "-") {
		t.Errorf("changed log published no new release: %+v", res3)
	}
	if _, err := Run(context.Background(), cfg, RunOptions{Force: []string{"nosuch"}}); !errors.Is(err, ErrUnknownStage) {
		t.Errorf("--force nosuch: %v", err)
	}
}

func writeYandex(t *testing.T, path string, serps []sessions.SERP) {
	t.Helper()
	var b bytes.Buffer
	if err := sessions.WriteYandex(&b, serps); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExpertAgreement labels a simulated log with the CBRBench expert
// judgments given (labels.expert) and checks that the report's click-model
// table gets every model's pooled correlation with the experts.
func TestExpertAgreement(t *testing.T) {
	t.Parallel()
	expert := refdata.Path(t, "lovbench", "cbrbench", "CBRBenchGroundTruth.csv.gz")
	base := t.TempDir()
	// At the default size a tenth of the full size's SERPs over the same
	// pool of 500 queries: 10 expert pairs per model match (21 at 5,000
	// SERPs), twice the 5 the check needs.
	// DBN's intervals from the counts: the agreement is the relevance
	// column's, which the default's Gibbs sampler leaves as it is.
	serps := testsize.Pick(2000, 20000)
	cfgText := fmt.Sprintf("simulate: {sessions: %d, queries: 500, seed: 2}\nclick_models: {intervals_from: counts}\nlabels: {expert: %s}\nltr: {enabled: false}\nworkdir: work\n", serps, expert)
	os.WriteFile(filepath.Join(base, "c.yaml"), []byte(cfgText), 0o644)
	cfg, err := LoadConfig(filepath.Join(base, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// Up to the label stage, which matches the expert judgments; the
	// report's data below is built from the stages run.
	if _, err := Run(context.Background(), cfg, RunOptions{until: StageLabel}); err != nil {
		t.Fatal(err)
	}
	var ag []ModelAgreement
	if err := textio.ReadJSON(filepath.Join(base, "work", "stages", StageLabel, ExpertAgreementFile), &ag); err != nil {
		t.Fatal(err)
	}
	if len(ag) != 3 {
		t.Fatalf("agreement for %d models, want 3", len(ag))
	}
	d, err := ReportFromWorkdir(filepath.Join(base, "work"))
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range d.Models {
		t.Logf("%s: %d expert pairs, Pearson %s, Kendall %s", m.Name, ag[i].Pairs, fmtPtr(m.ExpertPearson), fmtPtr(m.ExpertKendall))
		if ag[i].Pairs < 5 || m.ExpertPearson == nil || m.ExpertKendall == nil {
			t.Errorf("%s: no expert correlation in the report (%d matched pairs)", m.Name, ag[i].Pairs)
		} else if *m.ExpertPearson < -1 || *m.ExpertPearson > 1 {
			t.Errorf("%s: Pearson %g", m.Name, *m.ExpertPearson)
		}
	}
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "undefined"
	}
	return strconv.FormatFloat(*p, 'f', 3, 64)
}

// verifiedTrees keeps, per output directory, the signature of its files
// (treeSignature: every file's path, inode, size, modification and change
// times) at which the directory was last verified whole against its
// manifest. A poll that finds the same signature counts the directory as
// verified again without reading its manifest or its files; a file
// written, replaced, added or removed since (the manifest included)
// changes the signature (its ctime at least), and the directory is read
// and verified again.
type verifiedTrees map[string]string

// seen returns dir's signature now and whether dir was verified at it.
func (v verifiedTrees) seen(dir string) (sig string, ok bool, err error) {
	if sig, err = treeSignature(dir); err != nil {
		return "", false, err
	}
	last, ok := v[dir]
	return sig, ok && last == sig, nil
}

// mark records dir as verified at sig (its signature before it was read),
// if nothing changed while it was read.
func (v verifiedTrees) mark(dir, sig string) {
	if after, err := treeSignature(dir); err == nil && after == sig {
		v[dir] = sig
	}
}

// treeSignature is the signature verifiedTrees keys on.
func treeSignature(dir string) (string, error) {
	var b []byte
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !ok {
			return fmt.Errorf("%s: no inode", p)
		}
		b = append(b, p...)
		for _, n := range []int64{int64(sys.Ino), st.Size(), sys.Mtim.Sec, sys.Mtim.Nsec, sys.Ctim.Sec, sys.Ctim.Nsec} {
			b = strconv.AppendInt(append(b, ' '), n, 10)
		}
		b = append(b, '\n')
		return nil
	})
	return string(b), err
}

// verifyVisible checks, as a reader would, every output visible through the
// links of a work directory: each stage output holds its .stage.json and
// every file it lists with that SHA-256 and nothing else; the latest
// release likewise with its release.json. It returns the number of outputs
// checked. Outputs whose directory vanished while being read (replaced by a
// newer one) are skipped. A directory whose files have not changed since
// it was last verified whole counts as verified without being read again
// (verifiedTrees; nil: every directory is read).
func verifyVisible(wd string, verified verifiedTrees) (int, error) {
	n := 0
	check := func(dir, manifest string, files func([]byte) (map[string]string, error)) error {
		var sig string
		if verified != nil {
			s, ok, err := verified.seen(dir)
			if err != nil {
				if _, statErr := os.Stat(dir); os.IsNotExist(statErr) {
					return nil // superseded and removed while we looked
				}
				return err
			}
			if ok {
				n++
				return nil
			}
			sig = s
		}
		b, err := os.ReadFile(filepath.Join(dir, manifest))
		if os.IsNotExist(err) {
			if _, statErr := os.Stat(dir); os.IsNotExist(statErr) {
				return nil // superseded and removed while we looked
			}
			return fmt.Errorf("%s is visible without its %s", dir, manifest)
		}
		if err != nil {
			return err
		}
		want, err := files(b)
		if err != nil {
			return fmt.Errorf("%s/%s: %v", dir, manifest, err)
		}
		got, err := workdir.HashTree(dir)
		if err != nil {
			if _, statErr := os.Stat(dir); os.IsNotExist(statErr) {
				return nil
			}
			return err
		}
		delete(got, manifest)
		if len(got) != len(want) {
			return fmt.Errorf("%s holds %d files, its %s lists %d", dir, len(got), manifest, len(want))
		}
		for f, h := range want {
			if got[f] != h {
				return fmt.Errorf("%s/%s is not the file its %s lists (partial?)", dir, f, manifest)
			}
		}
		if verified != nil {
			verified.mark(dir, sig)
		}
		n++
		return nil
	}
	ents, _ := os.ReadDir(filepath.Join(wd, "stages"))
	for _, e := range ents {
		if e.Type()&os.ModeSymlink == 0 || strings.HasPrefix(e.Name(), ".") {
			continue // hidden entries (.tmp-*) are not outputs
		}
		link := filepath.Join(wd, "stages", e.Name())
		dir, err := filepath.EvalSymlinks(link)
		if err != nil {
			return n, fmt.Errorf("stages/%s: dangling link", e.Name())
		}
		if err := check(dir, stampName, func(b []byte) (map[string]string, error) {
			var s Stamp
			err := json.Unmarshal(b, &s)
			return s.Files, err
		}); err != nil {
			// An output superseded (link swapped) and being deleted while
			// we read it is not a partial output.
			if now, _ := filepath.EvalSymlinks(link); now != dir {
				continue
			}
			return n, err
		}
	}
	if dir, err := filepath.EvalSymlinks(filepath.Join(wd, "releases", "latest")); err == nil {
		if err := check(dir, "release.json", func(b []byte) (map[string]string, error) {
			var m workdir.ReleaseManifest
			err := json.Unmarshal(b, &m)
			return m.Files, err
		}); err != nil {
			return n, err
		}
	} else if !os.IsNotExist(err) {
		return n, fmt.Errorf("releases/latest: %v", err)
	}
	return n, nil
}

// TestReaderNeverSeesPartialOutput reads the work directory continuously
// while `lovbench run` builds it (twice: from scratch, then with every stage
// forced), checking every visible output against its own manifest.
func TestReaderNeverSeesPartialOutput(t *testing.T) {
	t.Parallel()
	w := sharedWatchedRuns(t)
	if w.err != nil {
		t.Fatal(w.err)
	}
	for _, r := range w.runs {
		if r.readerErr != nil {
			t.Fatalf("%v, poll %d: a reader saw %v", r.args, r.polls, r.readerErr)
		}
		if r.finalErr != nil || r.final != len(smallStages)+1 {
			t.Fatalf("after %v: %d outputs verified (%v), want %d", r.args, r.final, r.finalErr, len(smallStages)+1)
		}
		t.Logf("%v: %d polls, %d outputs verified while running", r.args[len(r.args)-1], r.polls, r.checked)
		if r.polls < 20 {
			t.Errorf("only %d polls during the run: the check saw too little of it", r.polls)
		}
	}
}

// watchedRun is one `lovbench run` of sharedWatchedRuns and what a reader
// polling its work directory meanwhile saw.
type watchedRun struct {
	args           []string
	wall           time.Duration // the run's wall time
	polls, checked int           // polls, and outputs verified whole by them
	readerErr      error         // what the reader saw that it must not (the first)
	final          int           // outputs verified whole after the run
	finalErr       error
}

// watchedRuns is TestReaderNeverSeesPartialOutput's runs: smallConfig in
// base/work, fresh and then again with --force all, each watched by a
// reader; the fresh run is also TestKillAnywhereThenRerun's reference (its
// --json result and the snapshot of the work directory right after it),
// one whole run instead of two. The runs and their checks are made once
// per test binary run; each test asserts on what was recorded.
type watchedRuns struct {
	base, cfg, wd string
	runs          [2]watchedRun
	res           RunResult         // the fresh run's --json result
	ref           map[string]string // snapshot of wd after the fresh run
	err           error             // a run that failed, or a result that did not parse
}

var (
	watchedOnce sync.Once
	watched     watchedRuns
)

// sharedWatchedRuns makes the watched runs once and returns them.
func sharedWatchedRuns(t *testing.T) *watchedRuns {
	t.Helper()
	watchedOnce.Do(func() {
		bin := lovbenchBinary(t)
		w := &watched
		w.base = filepath.Join(testTemp, "watched")
		if w.err = os.MkdirAll(w.base, 0o755); w.err != nil {
			return
		}
		w.cfg = smallConfig(t, w.base, e2eSERPs())
		w.wd = filepath.Join(w.base, "work")
		w.runs[0].args = []string{"run", "--config", w.cfg, "--workdir", w.wd, "--json", "--quiet"}
		w.runs[1].args = []string{"run", "--config", w.cfg, "--workdir", w.wd, "--quiet", "--force", "all"}
		for i := range w.runs {
			r := &w.runs[i]
			var stdout bytes.Buffer
			cmd := exec.Command(bin, r.args...)
			cmd.Stdout = &stdout
			start := time.Now()
			if w.err = cmd.Start(); w.err != nil {
				return
			}
			exited := make(chan struct{})
			var waitErr error
			go func() { waitErr = cmd.Wait(); close(exited) }()
			// An output whose files are unchanged since it was last
			// verified whole counts as verified again (verifiedTrees),
			// and the reader pauses 2 ms between polls: a poll then costs
			// a walk of stats instead of a read of every manifest and
			// file, so the reader polls more often than when it hashed
			// every output each time without pause (115 polls in the
			// forced run at 600 SERPs, 2026-11-29; 1,300 now) for a
			// fraction of the CPU. (With the sums of unchanged files
			// cached and a 1 ms pause, 2026-11-29, it polled about as
			// often for more CPU.)
			cache := verifiedTrees{}
		loop:
			for {
				select {
				case <-exited:
					break loop
				default:
				}
				n, err := verifyVisible(w.wd, cache)
				if err != nil && r.readerErr == nil {
					r.readerErr = err
				}
				if r.readerErr == nil {
					r.polls++
					r.checked += n
				}
				time.Sleep(2 * time.Millisecond)
			}
			r.wall = time.Since(start)
			if waitErr != nil {
				w.err = fmt.Errorf("%v: %v", r.args, waitErr)
				return
			}
			r.final, r.finalErr = verifyVisible(w.wd, nil)
			if i == 0 {
				if w.err = json.Unmarshal(stdout.Bytes(), &w.res); w.err != nil {
					return
				}
				w.ref = snapshot(t, w.wd)
			}
		}
	})
	return &watched
}

// smallStages are the stages of smallConfig.
var smallStages = []string{StageSimulate, StageIngest, StageFit, StageLabel, StageSample, StageFeatures, StageExport, StageLTR, StageReport}

// `run` on a log whose every line is bad fails and points
// to the ingest report, which must still exist.
func TestRunOnEntirelyBadLogKeepsReport(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	os.WriteFile(filepath.Join(base, "log.tsv"), []byte("not a yandex line\nnor this\n"), 0o644)
	if _, err := democorpus.Materialize(filepath.Join(base, "vocabs")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(base, "c.yaml"), []byte("log: {path: log.tsv}\ncorpus: {paths: [vocabs]}\nltr: {enabled: false}\nworkdir: work\n"), 0o644)
	cfg, err := LoadConfig(filepath.Join(base, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), cfg, RunOptions{})
	if err == nil {
		t.Fatal("an entirely bad log: no error")
	}
	i := strings.Index(err.Error(), "see ")
	if i < 0 {
		t.Fatalf("the error names no report: %v", err)
	}
	rest := err.Error()[i+4:]
	p := rest[:strings.IndexAny(rest, ";) ")]
	if !strings.HasSuffix(p, ingest.ReportFile) {
		t.Fatalf("the error points to %q, not to a report (%v)", p, err)
	}
	b, rerr := os.ReadFile(p)
	if rerr != nil || !strings.Contains(string(b), "quarantined") {
		t.Errorf("the report the error points to cannot be read: %v (%v)", rerr, err)
	}
}

// The reader's cache (verifiedTrees) counts a directory as verified only
// while none of its files has changed since it was marked: a file
// rewritten in place with the same size, replaced, added or removed makes
// the directory be read again.
func TestVerifiedTreesSeeChanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(f, []byte("aaaa"), 0o644); err != nil {
		t.Fatal(err)
	}
	v := verifiedTrees{}
	seen := func() bool {
		t.Helper()
		_, ok, err := v.seen(dir)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	mark := func() {
		t.Helper()
		sig, _, err := v.seen(dir)
		if err != nil {
			t.Fatal(err)
		}
		v.mark(dir, sig)
	}
	if seen() {
		t.Fatal("a directory never verified counts as verified")
	}
	mark()
	if !seen() || len(v) != 1 {
		t.Fatalf("an unchanged directory verified once is not counted as verified (cache %d)", len(v))
	}
	for _, c := range []struct {
		what   string
		change func()
	}{
		// In place, same size (the file's times change; its inode does not).
		{"rewritten in place", func() {
			h, err := os.OpenFile(f, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.WriteAt([]byte("b"), 2); err != nil {
				t.Fatal(err)
			}
			h.Close()
		}},
		{"replaced", func() {
			os.WriteFile(f+".new", []byte("cccc"), 0o644)
			os.Rename(f+".new", f)
		}},
		{"added", func() { os.WriteFile(filepath.Join(dir, "b.txt"), nil, 0o644) }},
		{"removed", func() { os.Remove(f) }},
	} {
		c.change()
		if seen() {
			t.Errorf("%s: the directory still counts as verified", c.what)
		}
		mark()
		if !seen() {
			t.Errorf("%s, then verified: not counted as verified", c.what)
		}
	}
	// A directory that changes while it is read is not marked.
	sig, _, _ := v.seen(dir)
	os.WriteFile(filepath.Join(dir, "c.txt"), nil, 0o644)
	v.mark(dir, sig)
	if seen() {
		t.Error("a directory changed while it was read counts as verified")
	}
}
