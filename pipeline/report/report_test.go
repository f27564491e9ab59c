package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func fp(x float64) *float64 { return &x }

// sample returns report data with every section filled.
func sample() *Data {
	return &Data{
		Title:    "lovbench report <test>",
		Notes:    []string{"simulated log & embedded corpus"},
		Stages:   []Stage{{Name: "ingest", Fingerprint: "0123456789abcdef0123"}},
		Cleaning: []Count{{"input events", 1200}, {"dropped: no session id", 10}, {"kept queries", 900}},
		Log: &LogStats{SERPs: 900, Sessions: 300, DistinctQueries: 120, Clicks: 700,
			ClicksPerRank: []int64{300, 150, 90, 60, 40, 25, 15, 10, 6, 4},
			QueryLengths:  []int64{0, 600, 250, 50}, ClassClicks: 400, PropertyClicks: 300},
		Models: []ClickModel{
			{Name: "DCTR", TrainSessions: 675, TestSessions: 200, LogLikelihood: -0.27, Perplexity: 1.3, PerplexityAt: []float64{1.8, 1.4, 1.3, 1.2}, GainBase: "DCTR"},
			{Name: "UBM", TrainSessions: 675, TestSessions: 200, LogLikelihood: -0.17, Perplexity: 1.19, PerplexityAt: []float64{1.7, 1.3, 1.2, 1.1}, Gain: 0.36, GainBase: "DCTR", Selected: true, ExpertPearson: fp(0.6), ExpertKendall: fp(0.4)},
		},
		Labels:  []LabelShare{{-2, 1}, {0, 600}, {1, 200}, {2, 60}, {3, 15}, {4, 4}},
		Dataset: []Count{{"queries", 40}, {"pairs", 880}},
		LTR: []LTRResult{
			{Ranker: "baseline", Config: "LabelSearch_T", Measures: map[string]float64{"MAP": 0.4, "NDCG@3": 0.26, "NDCG@5": 0.3, "NDCG@10": 0.36, "ERR@10": 0.1}},
			{Ranker: "RankNet", Config: "Full", Measures: map[string]float64{"MAP": 0.5, "NDCG@3": 0.36, "NDCG@5": 0.4, "NDCG@10": 0.46, "ERR@10": 0.15}},
		},
		Recovery: &Recovery{Pairs: 3, Pearson: 0.8, Kendall: 0.6, Labels: []int{0, 1}, Confusion: [][]int64{{2, 0}, {0, 1}}, Agreement: 1,
			Points: []Point{{0.1, 0.2}, {0.5, 0.5}, {0.9, 0.8}}},
	}
}

func render(t *testing.T, d *Data) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestRenderSectionsAndCharts(t *testing.T) {
	out := render(t, sample())
	for _, want := range []string{
		`id="cleaning"`, `id="log"`, `id="models"`, `id="labels"`, `id="ltr"`, `id="recovery"`, `id="stages"`,
		"Pearson r = 0.8000", "LOVBench share", "66.59%", "NDCG@10", `class="sel"`,
		"lovbench report &lt;test&gt;", "simulated log &amp; embedded corpus",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Charts: cleaning, 3 log charts, perplexity, labels, NDCG, scatter.
	if n := strings.Count(out, "<svg "); n != 8 {
		t.Errorf("%d charts, want 8", n)
	}
	if !strings.Contains(out, "This report has 8 charts.") {
		t.Error("chart count line missing")
	}
	// Self-contained: no external resources, no scripts.
	for _, bad := range []string{"<script", "src=", `href="http`, "<link", "@import", "url("} {
		if strings.Contains(out, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	if out != render(t, sample()) {
		t.Error("two renders of the same data differ")
	}
}

func TestRenderEmpty(t *testing.T) {
	out := render(t, &Data{Title: "empty"})
	for _, want := range []string{"No ingest report", "No sessions", "No click models", "No ground truth", "No learning-to-rank"} {
		if !strings.Contains(out, want) {
			t.Errorf("empty report lacks %q", want)
		}
	}
	if strings.Contains(out, "<svg") || strings.Contains(out, `id="recovery"`) {
		t.Error("empty report has charts or a recovery section")
	}
}

func TestRenderOddValues(t *testing.T) {
	d := sample()
	d.Log.ClicksPerRank = []int64{0, 0}
	d.Models[0].PerplexityAt = nil
	d.LTR[0].Measures = map[string]float64{}
	out := render(t, d)
	if regexp.MustCompile(`NaN|Inf\b`).MatchString(out) {
		t.Error("report prints NaN or Inf")
	}
}

// findChromium returns the path of a Chromium binary or "".
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	return ""
}

// checkScript is appended to a copy of the report (the report itself has no
// scripts): it counts the SVG charts that rendered with a non-empty box and
// drawn marks, and the errors raised while loading.
const checkScript = `<script>
(function(){var all=document.querySelectorAll('svg.chart'),ok=0;
all.forEach(function(s){var r=s.getBoundingClientRect();
if(r.width>0&&r.height>0&&s.querySelectorAll('rect,polyline,circle').length>0)ok++;});
document.body.setAttribute('data-svg-total',all.length);
document.body.setAttribute('data-svg-ok',ok);
document.body.setAttribute('data-errors',window.__errs.length);})();
</script>`

// RenderInChromium loads an HTML file in headless Chromium and returns the
// number of charts, of rendered charts, the page errors, and the console
// lines Chromium logged for the page.
func renderInChromium(t *testing.T, chromium, htmlPath string) (total, ok, errs int, console []string) {
	t.Helper()
	src, err := os.ReadFile(htmlPath)
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	s = strings.Replace(s, "<head>", "<head><script>window.__errs=[];window.addEventListener('error',function(e){window.__errs.push(String(e.message))});</script>", 1)
	s = strings.Replace(s, "</body>", checkScript+"</body>", 1)
	tmp := t.TempDir()
	page := filepath.Join(tmp, "check.html")
	if err := os.WriteFile(page, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+filepath.Join(tmp, "profile"), "--enable-logging=stderr", "--v=0",
		"--dump-dom", "file://"+page)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	attr := func(name string) int {
		m := regexp.MustCompile(name + `="(\d+)"`).FindStringSubmatch(stdout.String())
		if m == nil {
			t.Fatalf("chromium's DOM has no %s attribute; the check script did not run:\n%.2000s", name, stdout.String())
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "CONSOLE") && strings.Contains(line, "file://") {
			console = append(console, line)
		}
	}
	return attr("data-svg-total"), attr("data-svg-ok"), attr("data-errors"), console
}

func TestReportRendersInChromium(t *testing.T) {
	chromium := findChromium()
	if chromium == "" {
		t.Skip("chromium not found (Debian package chromium; .ci/run installs it): skipping the browser rendering check")
	}
	p := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(p, []byte(render(t, sample())), 0o644); err != nil {
		t.Fatal(err)
	}
	total, ok, errs, console := renderInChromium(t, chromium, p)
	if total != 8 || ok != total {
		t.Errorf("chromium rendered %d of %d charts, want 8 of 8", ok, total)
	}
	if errs != 0 || len(console) != 0 {
		t.Errorf("page errors %d, console: %q", errs, console)
	}
}
