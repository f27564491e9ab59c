package main

import (
	"strings"
	"testing"
)

// A stream as `go test -json` writes it (cmd/test2json): one package
// passing with a skip for a missing tool and one for a missing data
// directory, one package failing.
const stream = `{"Action":"start","Package":"ex.com/a"}
{"Action":"run","Package":"ex.com/a","Test":"TestJar"}
{"Action":"output","Package":"ex.com/a","Test":"TestJar","Output":"=== RUN   TestJar\n"}
{"Action":"output","Package":"ex.com/a","Test":"TestJar","Output":"    x_test.go:9: RANKLIB_JAR not set: skipping the run of a RankLib jar\n"}
{"Action":"output","Package":"ex.com/a","Test":"TestJar","Output":"--- SKIP: TestJar (0.00s)\n"}
{"Action":"skip","Package":"ex.com/a","Test":"TestJar","Elapsed":0}
{"Action":"run","Package":"ex.com/a","Test":"TestLog"}
{"Action":"output","Package":"ex.com/a","Test":"TestLog","Output":"=== RUN   TestLog\n"}
{"Action":"output","Package":"ex.com/a","Test":"TestLog","Output":"    y_test.go:20: shared reference data not found (looked for \"/x/shared\"; set LOVBENCH_SHARED)\n"}
{"Action":"output","Package":"ex.com/a","Test":"TestLog","Output":"--- SKIP: TestLog (0.00s)\n"}
{"Action":"skip","Package":"ex.com/a","Test":"TestLog","Elapsed":0}
{"Action":"run","Package":"ex.com/a","Test":"TestOK"}
{"Action":"output","Package":"ex.com/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"ex.com/a","Test":"TestOK","Output":"    z_test.go:3: quiet on success\n"}
{"Action":"output","Package":"ex.com/a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}
{"Action":"pass","Package":"ex.com/a","Test":"TestOK","Elapsed":0}
{"Action":"output","Package":"ex.com/a","Output":"PASS\n"}
{"Action":"output","Package":"ex.com/a","Output":"ok  \tex.com/a\t0.01s\n"}
{"Action":"pass","Package":"ex.com/a","Elapsed":0.01}
{"Action":"run","Package":"ex.com/b","Test":"TestBad"}
{"Action":"output","Package":"ex.com/b","Test":"TestBad","Output":"=== RUN   TestBad\n"}
{"Action":"output","Package":"ex.com/b","Test":"TestBad","Output":"    b_test.go:7: got 2, want 3\n"}
{"Action":"output","Package":"ex.com/b","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"ex.com/b","Test":"TestBad","Elapsed":0}
{"Action":"output","Package":"ex.com/b","Output":"FAIL\n"}
{"Action":"output","Package":"ex.com/b","Output":"FAIL\tex.com/b\t0.01s\n"}
{"Action":"fail","Package":"ex.com/b","Elapsed":0.01}
`

func TestCheck(t *testing.T) {
	var out strings.Builder
	res, err := check(strings.NewReader(stream), &out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 1 || len(res.Skips) != 2 {
		t.Fatalf("failed %d, skips %+v", res.Failed, res.Skips)
	}
	ds := res.DataSkips()
	if len(ds) != 1 || ds[0].Test != "TestLog" || !strings.HasPrefix(ds[0].Message, "y_test.go:20: shared reference data not found") {
		t.Errorf("data skips %+v", ds)
	}
	if s := res.Skips[0]; s.Test != "TestJar" || s.Data || s.Message != "x_test.go:9: RANKLIB_JAR not set: skipping the run of a RankLib jar" {
		t.Errorf("tool skip %+v", s)
	}
	got := out.String()
	for _, want := range []string{"ok  \tex.com/a\t0.01s\n", "    b_test.go:7: got 2, want 3\n--- FAIL: TestBad", "FAIL\tex.com/b\t0.01s\n",
		"skipped tests (2):\n", "  SKIP FOR MISSING DATA: ex.com/a TestLog: y_test.go:20:"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"quiet on success", "=== RUN", "PASS\n"} {
		if strings.Contains(got, bad) {
			t.Errorf("output has %q:\n%s", bad, got)
		}
	}
}

// The skip messages of the tests in this repository that may skip, and
// the old ../shared helper's: only the latter are of the missing-data kind.
func TestDataSkipMessages(t *testing.T) {
	for msg, want := range map[string]bool{
		`shared reference data not found (looked for "/w/shared"; set LOVBENCH_SHARED): it exists only on developer and CI machines`: true,
		"shared reference file /w/shared/data/lov/x.json missing: stat: no such file or directory":                                   true,
		"reference data internal/refdata/testdata/pyclick missing":                                                                   true,
		"open testdata/ranklib-agreement/train.txt: no such file or directory":                                                       true,
		"RANKLIB_JAR not set: skipping the run of a RankLib jar (TestRankLibGolden checks RankLib's stored outputs)":                 false,
		"chromium not found (Debian package chromium; .ci/run installs it): skipping the browser rendering check":                    false,
		"python3 lacks scikit-learn or XGBoost (install python3-sklearn and python3-xgboost)":                                        false,
		"-short: loads the full vocabulary corpus":                                                                                   false,
		"go command not found; cannot list the dependencies":                                                                         false,
	} {
		if got := dataSkip.MatchString(msg); got != want {
			t.Errorf("%q: data skip %v, want %v", msg, got, want)
		}
	}
}
