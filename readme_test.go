// Tests of the repository's README: its shell blocks run as typed.
package lovbench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lovbench/lovbench/internal/testsize"
	"github.com/lovbench/lovbench/sampling"
)

// readmeSkipped are the README's commands this test does not run, each
// with its reason; every one must still be in the README.
var readmeSkipped = map[string]string{
	"go test ./...":              "the test suite, which runs this test",
	"bash .ci/run":               "CI itself, which runs the test suite",
	"(cd beam && go test ./...)": "the beam/ module's tests, which .ci/run runs",
}

// readmeSmall are the README's commands this test runs with more flags
// at the default size (internal/testsize), each with its reason; as typed
// at the full size (LOVBENCH_FULL=1, as .ci/run runs it). Every one must
// still be in the README.
var readmeSmall = map[string]struct{ add, why string }{
	"lovbench demo --out /tmp/lovbench-demo": {"--serps 300 --queries 60",
		"the smallest log the cmd/lovbench and pipeline tests run the demo on that still meets a benchmark's minimums; the hand-built benchmark below reads its log and corpus (the default profile's 2,000 SERPs: pipeline TestDemoEndToEnd); about 3 CPU-s less, and 2.5 less for the ltr line"},
	"lovbench ltr      --data dataset/ --algorithms ranknet,adarank,lambdamart,ca --out work/ltr": {"--configs full",
		"every ranker on the one configuration the rank lines read (LOVBenchFull) instead of all six of Table 5: 20 trainings instead of 120, about 6 CPU-s less on two cores"},
}

// readmeBlocks returns the README's ```sh blocks, in order.
func readmeBlocks(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// TestREADMEShellBlocksRun runs every ```sh block of README.md as a user
// would, in order, one bash per block: Quick start's `go install` builds
// lovbench once, into a GOBIN that is on the PATH (kept between runs,
// testsize.ToolDir, so that it is relinked only when a source changed),
// and its demo's outputs then feed "Building a benchmark by hand" line by
// line. A block that names a path of the repository (./cmd/lovbench, ingest/testdata/...)
// runs in the repository's root, and must leave no new file there; any
// other block runs in a scratch directory (the hand-built benchmark writes
// work/ and dataset/ where it runs). Two things differ from a user's shell,
// both stated here: the paths under /tmp/ are moved under the test's
// temporary directory, and the commands of readmeSkipped are left out;
// at the default size the commands of readmeSmall also get their flags.
// A command that fails fails the test.
func TestREADMEShellBlocksRun(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	entries := func() map[string]bool {
		m := map[string]bool{}
		es, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			m[e.Name()] = true
		}
		return m
	}
	// A path of the repository: a word that starts with ./ or with a
	// top-level entry of the repository and a slash.
	var alts []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			alts = append(alts, regexp.QuoteMeta(e.Name()))
		}
	}
	repoPath := regexp.MustCompile(`(^|\s)(\./|(` + strings.Join(alts, "|") + `)/)`)
	scratch := t.TempDir()
	for _, d := range []string{"work", "bin", "tmp"} {
		if err := os.MkdirAll(filepath.Join(scratch, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// GOBIN is the directory this checkout's tests keep their executables
	// in (testsize.ToolDir): go install then finds lovbench up to date when
	// no source changed and skips the link (about 3 CPU-s).
	gobin, err := testsize.ToolDir("readme-bin")
	if err != nil {
		gobin = filepath.Join(scratch, "bin")
	}
	env := append(os.Environ(), "GOBIN="+gobin, "PATH="+gobin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	skipped, small := map[string]bool{}, map[string]bool{}
	ran := 0
	for i, block := range readmeBlocks(t) {
		// Lines joined at a trailing backslash, as bash reads them.
		var script []string
		inRepo := false
		for _, line := range strings.Split(strings.ReplaceAll(block, "\\\n", " "), "\n") {
			cmd := strings.TrimSpace(line)
			if j := strings.Index(cmd, "  #"); j >= 0 {
				cmd = strings.TrimSpace(cmd[:j])
			}
			if cmd == "" {
				continue
			}
			if _, ok := readmeSkipped[cmd]; ok {
				skipped[cmd] = true
				continue
			}
			if sm, ok := readmeSmall[cmd]; ok {
				small[cmd] = true
				if !testsize.Full() {
					line = cmd + " " + sm.add
				}
			}
			inRepo = inRepo || repoPath.MatchString(cmd)
			script = append(script, strings.ReplaceAll(line, "/tmp/", filepath.Join(scratch, "tmp")+"/"))
			ran++
		}
		if len(script) == 0 {
			continue
		}
		cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-x", "-c", strings.Join(script, "\n"))
		cmd.Dir, cmd.Env = filepath.Join(scratch, "work"), env
		var before map[string]bool
		if inRepo {
			cmd.Dir, before = root, entries()
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("README shell block %d (in %s): %v\n%s\n--- output ---\n%s", i+1, cmd.Dir, err, strings.Join(script, "\n"), tail(out.String(), 4000))
		}
		for e := range entries() {
			if inRepo && !before[e] {
				t.Errorf("README shell block %d left %s in the repository", i+1, e)
			}
		}
		t.Logf("README shell block %d: %d lines ran in %s", i+1, len(script), cmd.Dir)
	}
	for c, why := range readmeSkipped {
		if !skipped[c] {
			t.Errorf("README no longer has %q (left out: %s); update readmeSkipped", c, why)
		}
	}
	for c, sm := range readmeSmall {
		if !small[c] {
			t.Errorf("README no longer has %q (run with %s at the default size: %s); update readmeSmall", c, sm.add, sm.why)
		}
	}
	if ran < 20 {
		t.Errorf("only %d README commands ran", ran)
	}
	// The hand-built benchmark samples as many rows per query as the demo
	// whose log it reads (TestREADMERecipeSamplesAsDemo checks that the
	// README says so): the demo's sample stage records its target.
	rep, err := os.ReadFile(filepath.Join(scratch, "tmp", "lovbench-demo", "stages", "sample", sampling.FileReport))
	if err != nil {
		t.Fatal(err)
	}
	var sr struct {
		PerQueryTarget *float64 `json:"per_query_target"`
	}
	if err := json.Unmarshal(rep, &sr); err != nil || sr.PerQueryTarget == nil {
		t.Fatalf("the demo's %s: no per_query_target (%v)", sampling.FileReport, err)
	}
	if per, want := readmeRecipePerQuery(t), strconv.FormatFloat(*sr.PerQueryTarget, 'g', -1, 64); per != want {
		t.Errorf("the README's recipe samples %s rows per query, the demo %s", per, want)
	}
	// The hand-built benchmark's log is the demo's simulated one: its card
	// says so, without a flag (the log's provenance travels through
	// ingest, label and sample), and never that the labels come from
	// users' clicks.
	card, err := os.ReadFile(filepath.Join(scratch, "work", "dataset", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if users := "the clicks of a vocabulary search engine's users"; strings.Contains(string(card), users) || !strings.Contains(string(card), "This dataset's search log was simulated") {
		t.Errorf("the hand-built dataset's card says %q: %v; says the log was simulated: %v", users, strings.Contains(string(card), users), strings.Contains(string(card), "simulated"))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// The README promises byte-identical reruns where it states the
// conventions; ingest without --pii-salt draws a new salt every run, and
// the promise says so in the same place.
func TestREADMEByteIdenticalPromiseNamesPIISalt(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, para := range strings.Split(string(b), "\n- ") {
		if strings.Contains(para, "byte-identical") && strings.Contains(para, "rerun") {
			found = true
			if !strings.Contains(para, "--pii-salt") || !strings.Contains(para, "lovbench ingest") {
				t.Errorf("the README's promise of byte-identical reruns does not name ingest without --pii-salt:\n%s", para)
			}
		}
	}
	if !found {
		t.Error("README: no promise of byte-identical reruns found")
	}
}

// readmeRecipePerQuery returns the rows per query of the README's by-hand
// `lovbench sample` line (its --per-query, else sampling.DefaultPerQuery).
func readmeRecipePerQuery(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^lovbench sample .*$`).FindString(string(b))
	if m == "" {
		t.Fatal("README: no lovbench sample line")
	}
	if f := regexp.MustCompile(`--per-query (\d+)`).FindStringSubmatch(m); f != nil {
		return f[1]
	}
	return strconv.Itoa(sampling.DefaultPerQuery)
}

// The by-hand recipe samples as many rows per query as the demo whose log
// it reuses (the default profile's sampling.per_query), and says so. That
// the demo samples that many is checked where the README's demo runs:
// TestREADMEShellBlocksRun reads its sample stage's report (per_query_target),
// so this test binary need not link pipeline for the profile's value.
func TestREADMERecipeSamplesAsDemo(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	per := readmeRecipePerQuery(t)
	if !strings.Contains(string(b), "`sample --per-query "+per+"` is what the demo's default profile") {
		t.Errorf("the README does not say that the recipe's --per-query %s is the demo's default profile's", per)
	}
}
