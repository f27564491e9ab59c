package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionString describes the build from its build information: the main
// module's version ("(devel)" for a build from a source tree), the VCS
// revision with "+modified" when the tree had uncommitted changes ("unknown"
// when the build recorded none, as with -buildvcs=false, which .ci/run sets,
// or go run on a tree without VCS metadata), the commit time when known, and
// the Go version.
func versionString(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "(devel), revision unknown"
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	rev, modified, when := "unknown", false, ""
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		case "vcs.time":
			when = s.Value
		}
	}
	if modified {
		rev += "+modified"
	}
	out := version + ", revision " + rev
	if when != "" {
		out += " (" + when + ")"
	}
	if bi.GoVersion != "" {
		out += ", " + bi.GoVersion
	}
	return out
}

// buildVersion is versionString of this binary.
func buildVersion() string { return versionString(debug.ReadBuildInfo()) }

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the module version and VCS revision of this build",
		Long:    `version prints the module version ("(devel)" for a build from a source tree) and the VCS revision ("unknown" when the build recorded none, e.g. with -buildvcs=false) of this binary; lovbench --version prints the same.`,
		Example: "  lovbench version\n  lovbench --version",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(a.stdout, "lovbench "+buildVersion())
			return err
		},
	}
}
