package buildinfo

import (
	"runtime/debug"
	"testing"
)

// TestVersionAndLine: the manifest version and the version line from build
// information, written by hand for each case.
func TestVersionAndLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		bi            *debug.BuildInfo
		version, line string
	}{
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-11-23T12:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			"v1.2.3 vcs.revision=0123abcd vcs.modified=true",
			"v1.2.3, revision 0123abcd+modified (2026-11-23T12:00:00Z), go1.26.8"},
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "(devel)", "(devel), revision unknown, go1.26.8"},
		{&debug.BuildInfo{Main: debug.Module{}}, "(devel)", "(devel), revision unknown"},
		{nil, "(devel)", "(devel), revision unknown"},
	} {
		if got := version(c.bi, c.bi != nil); got != c.version {
			t.Errorf("version = %q, want %q", got, c.version)
		}
		if got := line(c.bi, c.bi != nil); got != c.line {
			t.Errorf("line = %q, want %q", got, c.line)
		}
	}
}
