// Package browsertest loads an HTML report in headless Chromium and
// reports how many of its SVG charts rendered and which errors the page
// raised. It serves the report tests of packages report and pipeline (the
// report must render every chart without console errors in a browser);
// only tests import it, as net/http/httptest.
package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Find returns the path of a Chromium binary, or "" when there is none.
func Find() string {
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

// Result is what Chromium rendered.
type Result struct {
	// Charts counts the svg.chart elements; Rendered those with a
	// non-empty box and at least one drawn mark.
	Charts, Rendered int
	// Errors counts the errors the page raised while loading.
	Errors int
	// Console holds the console lines Chromium logged for the page.
	Console []string
	// MinFontPx is the size in CSS pixels of the smallest text of the
	// charts as drawn (font size times the SVG's scale), 0 without text.
	MinFontPx float64
	// Overflow is, per horizontally scrolling container of the page
	// (class "scroll") in page order, by the id of the section it is in
	// and the container's index, how many CSS pixels its content is wider
	// than the container: what a reader has to scroll sideways (0: none).
	Overflow []Overflow
}

// Overflow is the sideways overflow of one scrolling container.
type Overflow struct {
	Section string // id of the nearest preceding h2 or h3 ("" before any)
	Index   int    // 0-based, in page order
	Px      int
}

// probeHead records page errors; probeTail counts the rendered charts into
// attributes of <body>, which --dump-dom prints.
const (
	probeHead = `<script>window.__errs=[];window.addEventListener('error',function(e){window.__errs.push(String(e.message))});</script>`
	probeTail = `<script>
(function(){var all=document.querySelectorAll('svg.chart'),ok=0;
all.forEach(function(s){var r=s.getBoundingClientRect();
if(r.width>0&&r.height>0&&s.querySelectorAll('rect,polyline,circle').length>0)ok++;});
document.body.setAttribute('data-svg-total',all.length);
document.body.setAttribute('data-svg-ok',ok);
document.body.setAttribute('data-errors',window.__errs.length);
var mn=0;document.querySelectorAll('svg.chart text').forEach(function(t){var m=t.ownerSVGElement.getScreenCTM();
var px=parseFloat(getComputedStyle(t).fontSize)*Math.sqrt(m.a*m.d);if(mn===0||px<mn)mn=px;});
document.body.setAttribute('data-min-font-centipx',Math.floor(mn*100));
var ov=[],sec='',hs=document.querySelectorAll('h2[id],h3[id],div.scroll');
hs.forEach(function(e){if(e.tagName!=='DIV'){sec=e.id;return;}ov.push(sec+':'+Math.max(0,e.scrollWidth-e.clientWidth));});
document.body.setAttribute('data-overflow',ov.join(' '));})();
</script>`
)

// Check loads a copy of htmlPath, with the probe scripts added (the report
// itself has none), in headless Chromium. tmp is a scratch directory.
func Check(ctx context.Context, chromium, htmlPath, tmp string) (*Result, error) {
	return CheckWidth(ctx, chromium, htmlPath, tmp, 0)
}

// CheckWidth is Check in a window width CSS pixels wide (0: Chromium's
// default).
func CheckWidth(ctx context.Context, chromium, htmlPath, tmp string, width int) (*Result, error) {
	src, err := os.ReadFile(htmlPath)
	if err != nil {
		return nil, err
	}
	s := strings.Replace(string(src), "<head>", "<head>"+probeHead, 1)
	s = strings.Replace(s, "</body>", probeTail+"</body>", 1)
	page := filepath.Join(tmp, "check.html")
	if err := os.WriteFile(page, []byte(s), 0o644); err != nil {
		return nil, err
	}
	args := []string{"--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir=" + filepath.Join(tmp, "profile"), "--enable-logging=stderr", "--v=0"}
	if width > 0 {
		args = append(args, fmt.Sprintf("--window-size=%d,2000", width))
	}
	cmd := exec.CommandContext(ctx, chromium, append(args, "--dump-dom", "file://"+page)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("chromium: %v\n%s", err, stderr.String())
	}
	attr := func(name string) (int, error) {
		m := regexp.MustCompile(name + `="(\d+)"`).FindStringSubmatch(stdout.String())
		if m == nil {
			return 0, fmt.Errorf("chromium's DOM has no %s attribute; the probe did not run", name)
		}
		return strconv.Atoi(m[1])
	}
	r := &Result{}
	if r.Charts, err = attr("data-svg-total"); err != nil {
		return nil, err
	}
	if r.Rendered, err = attr("data-svg-ok"); err != nil {
		return nil, err
	}
	if r.Errors, err = attr("data-errors"); err != nil {
		return nil, err
	}
	cpx, err := attr("data-min-font-centipx")
	if err != nil {
		return nil, err
	}
	r.MinFontPx = float64(cpx) / 100
	m := regexp.MustCompile(`data-overflow="([^"]*)"`).FindStringSubmatch(stdout.String())
	if m == nil {
		return nil, fmt.Errorf("chromium's DOM has no data-overflow attribute; the probe did not run")
	}
	for i, f := range strings.Fields(m[1]) {
		sec, px, _ := strings.Cut(f, ":")
		n, err := strconv.Atoi(px)
		if err != nil {
			return nil, fmt.Errorf("data-overflow %q: %v", f, err)
		}
		r.Overflow = append(r.Overflow, Overflow{Section: sec, Index: i, Px: n})
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "CONSOLE") && strings.Contains(line, "file://") {
			r.Console = append(r.Console, line)
		}
	}
	return r, nil
}
