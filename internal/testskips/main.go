// Command testskips reads the event stream of `go test -json` on standard
// input and prints what `go test` prints without -v: each package's result
// line, and the output of the tests that fail. At the end it lists every
// skipped test with its message, and it exits with status 1 when a test
// failed or was skipped for missing data: the reference data the tests read
// is part of the repository (internal/refdata), so on a fresh clone no test
// may skip for lack of it. Skips for a missing tool (java, chromium,
// python3's scikit-learn) or for -short are listed but allowed.
//
// CI (.ci/run) runs the test suite through it, in a copy of the checkout
// with nothing beside it:
//
//	go test -json ./... | go run ./internal/testskips
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// dataSkip matches the messages of skips for missing data: a data
// directory outside the repository (a "shared" directory beside it,
// $LOVBENCH_SHARED), a reference or testdata file, or a file that is not
// there.
var dataSkip = regexp.MustCompile(`(?i)\bshared\b|LOVBENCH_SHARED|\brefdata\b|\btestdata\b|reference (data|file)|no such file or directory|data (not found|missing)`)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
}

// skip is a skipped test and its message.
type skip struct {
	Package, Test, Message string
	Data                   bool
}

// result is what check found in a stream.
type result struct {
	Failed int // failed packages, build failures included
	Skips  []skip
}

// DataSkips returns the skips for missing data.
func (r result) DataSkips() []skip {
	var out []skip
	for _, s := range r.Skips {
		if s.Data {
			out = append(out, s)
		}
	}
	return out
}

// check reads a `go test -json` stream from r and writes go test's plain
// output and the list of skips to w.
func check(r io.Reader, w io.Writer) (result, error) {
	var res result
	type key struct{ pkg, test string }
	buf := map[key][]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if len(text) == 0 || text[0] != '{' {
			fmt.Fprintf(w, "%s\n", text) // go's own messages (e.g. a failed vet check) are not JSON
			continue
		}
		var e event
		if err := json.Unmarshal(text, &e); err != nil {
			return res, fmt.Errorf("standard input, line %d: %w", line, err)
		}
		k := key{e.Package, e.Test}
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Action == "build-fail":
			res.Failed++
		case e.Test == "":
			switch e.Action {
			case "output":
				if e.Output != "PASS\n" {
					fmt.Fprint(w, e.Output)
				}
			case "fail":
				res.Failed++
			}
		case e.Action == "output":
			if !strings.HasPrefix(strings.TrimSpace(e.Output), "=== ") {
				buf[k] = append(buf[k], e.Output)
			}
		case e.Action == "fail":
			fmt.Fprint(w, strings.Join(buf[k], ""))
			delete(buf, k)
		case e.Action == "pass":
			delete(buf, k)
		case e.Action == "skip":
			var msg []string
			for _, o := range buf[k] {
				if t := strings.TrimSpace(o); t != "" && !strings.HasPrefix(t, "--- SKIP") {
					msg = append(msg, t)
				}
			}
			m := strings.Join(msg, " ")
			res.Skips = append(res.Skips, skip{e.Package, e.Test, m, dataSkip.MatchString(m)})
			delete(buf, k)
		}
	}
	if err := sc.Err(); err != nil {
		return res, fmt.Errorf("standard input: %w", err)
	}
	if len(res.Skips) > 0 {
		fmt.Fprintf(w, "\nskipped tests (%d):\n", len(res.Skips))
		for _, s := range res.Skips {
			kind := "skip"
			if s.Data {
				kind = "SKIP FOR MISSING DATA"
			}
			fmt.Fprintf(w, "  %s: %s %s: %s\n", kind, s.Package, s.Test, s.Message)
		}
	}
	return res, nil
}

func main() {
	res, err := check(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testskips:", err)
		os.Exit(2)
	}
	status := 0
	if n := len(res.DataSkips()); n > 0 {
		fmt.Fprintf(os.Stderr, "testskips: %d tests skipped for missing data; the data they read belongs in the repository (internal/refdata/testdata or a testdata/ directory beside the test)\n", n)
		status = 1
	}
	if res.Failed > 0 {
		fmt.Fprintf(os.Stderr, "testskips: %d packages failed\n", res.Failed)
		status = 1
	}
	os.Exit(status)
}
