package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// The version line from build information, written by
// hand for each case.
func TestVersionString(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-11-23T12:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			"v1.2.3, revision 0123abcd+modified (2026-11-23T12:00:00Z), go1.26.8"},
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "(devel), revision unknown, go1.26.8"},
		{&debug.BuildInfo{Main: debug.Module{}}, "(devel), revision unknown"},
		{nil, "(devel), revision unknown"},
	} {
		if got := versionString(c.bi, c.bi != nil); got != c.want {
			t.Errorf("versionString = %q, want %q", got, c.want)
		}
	}
}

func TestVersionCommandAndFlag(t *testing.T) {
	t.Parallel()
	code1, out1, err1 := runCLI(t, "version")
	code2, out2, err2 := runCLI(t, "--version")
	if code1 != 0 || code2 != 0 {
		t.Fatalf("exit %d (%s), %d (%s)", code1, err1, code2, err2)
	}
	if !strings.HasPrefix(out1, "lovbench ") || !strings.Contains(out1, "revision ") || out1 != out2 {
		t.Errorf("version printed %q, --version %q", out1, out2)
	}
}
