// Package buildinfo is the one home of lovbench's version: what the
// dataset manifests, the features files, the report and the stage
// fingerprints record as the program's version (Version), and the line
// `lovbench version` prints (Line), both read from the build information
// Go writes into the binary (runtime/debug.ReadBuildInfo). `lovbench
// export` and `lovbench run` write the same Version into their manifests.
package buildinfo

import "runtime/debug"

// Version is the program version recorded in what lovbench writes: the
// main module's version ("(devel)" for a build from a source tree) and,
// when the build recorded them, " vcs.revision=R vcs.modified=B" (none
// with -buildvcs=false, which .ci/run sets). An upgraded or rebuilt-from-
// other-sources lovbench so gives another version, and the pipeline reruns
// its stages.
func Version() string { return version(debug.ReadBuildInfo()) }

func version(bi *debug.BuildInfo, ok bool) string {
	v := mainVersion(bi, ok)
	if !ok || bi == nil {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
			v += " " + s.Key + "=" + s.Value
		}
	}
	return v
}

// Line describes the build for people (lovbench version, --version): the
// main module's version ("(devel)" for a build from a source tree), the
// VCS revision with "+modified" when the tree had uncommitted changes
// ("unknown" when the build recorded none, as with -buildvcs=false or go
// run on a tree without VCS metadata), the commit time when known, and the
// Go version. It is read from the same build information as Version.
func Line() string { return line(debug.ReadBuildInfo()) }

func line(bi *debug.BuildInfo, ok bool) string {
	version := mainVersion(bi, ok)
	if !ok || bi == nil {
		return version + ", revision unknown"
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

// mainVersion is the main module's version, "(devel)" when the build
// recorded none.
func mainVersion(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil || bi.Main.Version == "" {
		return "(devel)"
	}
	return bi.Main.Version
}
