// Package workdir is the work directory of lovbench run and demo and the
// releases published from it (docs/pipeline.md, "Work directory,
// fingerprints, crash safety"; the LOVBench paper's reproducible
// construction, section 4): stage outputs named by fingerprints (Stage,
// RunStages: an unchanged stage is skipped), each built in a staging
// directory and committed by rename, the releases/TIMESTAMP directories
// with a releases/latest link swapped atomically (Publish), an flock(2)
// lock against concurrent runs, and the marker that lists the names
// lovbench made, so that nothing it cannot prove it made is written over
// or deleted (issue 34). Its files reach the disk through
// internal/atomicfile, the one durability layer. It knows no stage: the
// stage graph is package pipeline's.
package workdir

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/filehash"
)

// LockFileName is the name of the lock file in a work directory.
const LockFileName = ".lovbench.lock"

// MarkerFileName is the file that makes a directory a work directory: the
// first thing a run writes into a new (or empty) one. It records every
// name lovbench created under stages/ and releases/ that it may later
// remove (staging directories, stage outputs, links); cleaning considers
// those names and nothing else, so a file or directory of the user's
// there (say stages/fit.my-notes) is never deleted. A recorded name is
// not proof enough, since the file can be edited: a directory is removed
// only when its content shows it is lovbench's too (removeProven). No
// command writes into a work directory but the pipeline
// (atomicfile.CheckOutputs refuses any other output inside one).
const MarkerFileName = atomicfile.WorkdirFile

// workdirMarker is the content of MarkerFileName.
type workdirMarker struct {
	// Workdir says what the file is.
	Workdir string `json:"lovbench_workdir"`
	// Names are the names lovbench created, as sorted slash paths
	// relative to the work directory ("stages/.tmp-fit-123").
	Names []string `json:"names"`
}

// markerWhat is workdirMarker.Workdir.
const markerWhat = "a work directory of lovbench run and demo; the names below are the ones lovbench created and may remove"

// StampFile is the file, inside every committed stage directory, that
// records the stage's fingerprint and what went into it.
const StampFile = ".stage.json"

// ErrLocked is returned (wrapped) by Open when another run holds the
// work directory's lock.
var ErrLocked = errors.New("work directory is locked by another lovbench run")

// Workdir is an open, locked work directory. Layout:
//
//	DIR/.lovbench.lock            flock(2) lock, holds the owner's pid
//	DIR/stages/NAME.FP/           committed output of stage NAME with fingerprint FP
//	DIR/stages/NAME -> NAME.FP    symbolic link to the current output
//	DIR/stages/.tmp-NAME-*/       staging directory of a running (or killed) stage
//	DIR/releases/TIMESTAMP/       a published dataset
//	DIR/releases/latest -> TIMESTAMP
//
// A stage writes into its staging directory, which is renamed to NAME.FP when
// the stage succeeds; the symbolic link is then swapped by renaming a new link
// over it. Readers therefore see either the previous complete output or the
// new complete output, never a partial one, whatever moment the process dies.
// A replaced output is deleted only by the next run, so a reader that
// resolved the link just before a swap can finish reading it.
type Workdir struct {
	root string
	lock *os.File
	log  *slog.Logger
	// names are the names lovbench created and may remove (slash paths
	// relative to root), as MarkerFileName records them.
	names map[string]bool
	// code identifies the program (see codeIdentity); it is part of every
	// fingerprint.
	code string
	// CrashAt names a crash point ("STAGE:POINT", see CrashPoints) at which
	// the process kills itself; empty in normal runs.
	CrashAt string
}

// CrashPoints returns the windows of the commit protocol at which a run can
// be made to kill itself with SIGKILL (RunOptions.CrashAt), so tests can check
// deterministically that a crash in any of them leaves no partial visible
// output and that a rerun completes byte-identically. For a stage:
//
//   - staging: the staging directory exists and is empty;
//   - written: the stage has written its files, not yet stamped;
//   - stamped: stamped and synced, not yet renamed to its committed name;
//   - renamed: committed under its name, the stage link not yet switched;
//   - linked: the link switched, older outputs not yet removed.
//
// For the release (stage name "release"): copied (the release is complete
// in its staging directory) and renamed (renamed, latest not yet switched).
func CrashPoints() []string {
	return []string{"staging", "written", "stamped", "renamed", "linked"}
}

// crashPoint kills the process if stage:point is the requested crash point.
func (w *Workdir) crashPoint(stage, point string) {
	if w.CrashAt != "" && w.CrashAt == stage+":"+point {
		w.log.Warn("crash point reached, killing the process (test hook)", "stage", stage, "point", point)
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is delivered asynchronously; never continue
	}
}

// Open creates dir if needed and takes its lock. The lock is an
// flock(2) lock, released by the kernel when the process exits, so a killed
// run never leaves a stale lock. When another process holds it, the error
// wraps ErrLocked and names that process.
func Open(dir string, log *slog.Logger) (*Workdir, error) {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	fresh, err := checkWorkdir(dir)
	if err != nil {
		return nil, err
	}
	if fresh {
		// The marker first: a directory holding stages/ or releases/
		// without it is not taken for a work directory.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("work directory %s: %w", dir, err)
		}
		if err := writeMarker(dir, nil); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "stages"), 0o755); err != nil {
		return nil, fmt.Errorf("work directory %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "releases"), 0o755); err != nil {
		return nil, fmt.Errorf("work directory %s: %w", dir, err)
	}
	lockPath := filepath.Join(dir, LockFileName)
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", lockPath, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		owner, _ := os.ReadFile(lockPath)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := strings.TrimSpace(string(owner))
			if who == "" {
				who = "another process"
			}
			return nil, fmt.Errorf("%w: %s is held by %s; wait for that run to finish (the lock is released when it exits)", ErrLocked, lockPath, who)
		}
		return nil, fmt.Errorf("lock %s: %w", lockPath, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte("pid "+strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	code, err := codeIdentity()
	if err != nil {
		f.Close()
		return nil, err
	}
	w := &Workdir{root: dir, lock: f, log: log, code: code}
	// Read under the lock: no other run changes the list now.
	if w.names, err = readMarker(dir); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.cleanStale(); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// checkWorkdir refuses a directory that cannot be a work directory: a
// file-system root, or an existing non-empty directory without
// MarkerFileName (one that merely has stages/ or releases/ included), so
// that a run never writes stages/, releases/ and the lock beside a user's
// own files. fresh reports a missing or empty directory (or one holding
// only the lock file and empty stages/ and releases/), which becomes a
// work directory.
func checkWorkdir(dir string) (fresh bool, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false, fmt.Errorf("work directory %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if filepath.Dir(abs) == abs {
		return false, fmt.Errorf("work directory %s is the root of the file system: not writing stages/, releases/ and %s there; give a directory of its own", dir, LockFileName)
	}
	ents, err := os.ReadDir(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("work directory %s: %w", dir, err)
	}
	var names []string
	layout := false
	for _, e := range ents {
		switch e.Name() {
		case MarkerFileName:
			return false, nil
		case LockFileName, "stages", "releases":
			layout = true
		}
		names = append(names, e.Name())
	}
	if len(names) == 0 || layout && emptyLayout(abs, ents) {
		return true, nil
	}
	sort.Strings(names)
	if len(names) > 5 {
		names = append(names[:5], fmt.Sprintf("and %d more", len(ents)-5))
	}
	if layout {
		return false, fmt.Errorf("work directory %s has %s but no %s, so it is not a lovbench work directory that lovbench made (work directories of a lovbench before the marker have none either): not writing or cleaning beside those files; give a new or empty directory (stages are recomputed; move out any release you keep)", dir, strings.Join(names, ", "), MarkerFileName)
	}
	return false, fmt.Errorf("work directory %s is not empty (%s) and is not a lovbench work directory (no %s): not writing beside those files; give a new or empty directory", dir, strings.Join(names, ", "), MarkerFileName)
}

// emptyLayout reports whether ents, the entries of dir, are no more than
// the lock file and empty stages/ and releases/ directories: nothing in
// them can be anyone's, so dir is taken as an empty one.
func emptyLayout(dir string, ents []fs.DirEntry) bool {
	for _, e := range ents {
		switch e.Name() {
		case LockFileName:
			continue
		case "stages", "releases":
			sub, err := os.ReadDir(filepath.Join(dir, e.Name()))
			if err == nil && e.IsDir() && len(sub) == 0 {
				continue
			}
		}
		return false
	}
	return true
}

// readMarker reads the names recorded in dir's MarkerFileName.
func readMarker(dir string) (map[string]bool, error) {
	p := filepath.Join(dir, MarkerFileName)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("work directory: %w", err)
	}
	var m workdirMarker
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("work directory: %s: %v (a file lovbench wrote; remove the work directory if it was edited)", p, err)
	}
	names := map[string]bool{}
	for _, n := range m.Names {
		if !filepath.IsLocal(filepath.FromSlash(n)) {
			return nil, fmt.Errorf("work directory: %s: name %q is outside the work directory", p, n)
		}
		names[n] = true
	}
	return names, nil
}

// writeMarker writes dir's MarkerFileName with names.
func writeMarker(dir string, names map[string]bool) error {
	m := workdirMarker{Workdir: markerWhat, Names: slices.Sorted(maps.Keys(names))}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, MarkerFileName), append(b, '\n')); err != nil {
		return fmt.Errorf("work directory: %w", err)
	}
	return nil
}

// record adds names (slash paths relative to the work directory) to the
// marker before they are created, so that a run killed at any moment
// leaves nothing it made unrecorded.
func (w *Workdir) record(names ...string) error {
	for _, n := range names {
		w.names[n] = true
	}
	return writeMarker(w.root, w.names)
}

// forget removes names that no longer exist from the marker.
func (w *Workdir) forget(names ...string) error {
	for _, n := range names {
		delete(w.names, n)
	}
	return writeMarker(w.root, w.names)
}

// made reports whether lovbench created sub/name: a recorded name, or a
// directory that atomicfile.CreateDir builds beside a recorded one
// (".<name>.tmp-*" while it is built, ".<name>.old-*" while it replaces
// it).
func (w *Workdir) made(sub, name string) bool {
	if w.names[sub+"/"+name] {
		return true
	}
	for n := range w.names {
		if base, ok := strings.CutPrefix(n, sub+"/"); ok && !strings.Contains(base, "/") &&
			(strings.HasPrefix(name, "."+base+".tmp-") || strings.HasPrefix(name, "."+base+".old-")) {
			return true
		}
	}
	return false
}

// removeProven removes sub/name, a name lovbench recorded, when its
// content proves it lovbench's too: a staging directory carrying
// atomicfile.StagingFile (atomicfile.ProveMade), a stage output exactly
// as its stamp lists it, or a release exactly as its release.json lists
// it. A recorded name alone proves nothing (MarkerFileName can be
// edited): anything else is left in place, forgotten, and logged, and
// removeProven reports false.
func (w *Workdir) removeProven(sub, name string) (bool, error) {
	p := filepath.Join(w.root, sub, name)
	err := atomicfile.ProveMade(p)
	if err != nil {
		if why := recordMatches(p, name); why != "" {
			w.log.Warn("not removing a directory lovbench recorded: its content does not prove it lovbench's; left in place and forgotten", "dir", p, "why", why, "proof", err)
			return false, w.forget(sub + "/" + name)
		}
	}
	return true, w.removeMade(sub, name)
}

// recordMatches returns "" when dir (named name) holds exactly what its
// stage stamp, or release manifest, lists, each file with its SHA-256, and
// its name is the one the pipeline gives such a directory; otherwise what
// differs.
func recordMatches(dir, name string) string {
	var files map[string]string
	var what string
	if b, err := os.ReadFile(filepath.Join(dir, StampFile)); err == nil {
		var s Stamp
		if err := json.Unmarshal(b, &s); err != nil || len(s.Fingerprint) < 16 {
			return StampFile + " cannot be read"
		}
		if !strings.HasPrefix(name, s.Stage+"."+s.Fingerprint[:16]+"-") && !strings.HasPrefix(name, ".tmp-"+s.Stage+"-") {
			return "named " + name + ", not as the output of stage " + s.Stage + " it holds"
		}
		files, what = s.Files, StampFile
	} else if m, err := ReadRelease(dir); err == nil {
		files, what = map[string]string{"release.json": ""}, "release.json"
		maps.Copy(files, m.Files)
	} else {
		return "neither a " + StampFile + " nor a release.json"
	}
	got, err := HashTree(dir)
	if err != nil {
		return err.Error()
	}
	if what == "release.json" {
		got["release.json"] = ""
	}
	if d := diffSums(files, got); d != "" {
		return "not as its " + what + " lists it: " + d
	}
	return ""
}

// diffSums says how got (file SHA-256 by path) differs from want: ""
// when equal.
func diffSums(want, got map[string]string) string {
	var changed, added, missing []string
	for _, k := range slices.Sorted(maps.Keys(got)) {
		w, ok := want[k]
		switch {
		case !ok:
			added = append(added, k)
		case w != got[k]:
			changed = append(changed, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if _, ok := got[k]; !ok {
			missing = append(missing, k)
		}
	}
	var parts []string
	for _, l := range []struct {
		what  string
		names []string
	}{{"changed", changed}, {"added", added}, {"missing", missing}} {
		if len(l.names) > 0 {
			parts = append(parts, l.what+": "+strings.Join(l.names, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// removeMade removes sub/name, which lovbench made (this run, or proven
// by removeProven), and forgets it.
func (w *Workdir) removeMade(sub, name string) error {
	if err := os.RemoveAll(filepath.Join(w.root, sub, name)); err != nil {
		return err
	}
	if !w.names[sub+"/"+name] {
		return nil
	}
	return w.forget(sub + "/" + name)
}

// mkdirMade creates a new directory sub/<prefix><random>, recording it
// first, and marks it as a staging directory (atomicfile.MarkStaging), the
// proof removeProven asks of it if a killed run leaves it; it returns the
// name.
func (w *Workdir) mkdirMade(sub, prefix string) (string, error) {
	for {
		name := prefix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		if _, err := os.Lstat(filepath.Join(w.root, sub, name)); err == nil {
			continue
		}
		if err := w.record(sub + "/" + name); err != nil {
			return "", err
		}
		err := os.Mkdir(filepath.Join(w.root, sub, name), 0o755)
		if err == nil {
			if err := atomicfile.MarkStaging(filepath.Join(w.root, sub, name)); err != nil {
				w.removeMade(sub, name)
				return "", err
			}
			return name, nil
		}
		w.forget(sub + "/" + name)
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
}

// Root returns the work directory's path.
func (w *Workdir) Root() string { return w.root }

// Close releases the lock.
func (w *Workdir) Close() error {
	if w.lock == nil {
		return nil
	}
	_ = w.lock.Truncate(0)
	err := w.lock.Close() // closing the descriptor releases the flock
	w.lock = nil
	return err
}

// cleanStale removes the staging directories that killed runs left:
// recorded ".tmp-*" names, and the directories atomicfile.CreateDir builds
// beside them (export and ingest stages), each only when its content
// proves it lovbench's (removeProven). It runs while holding the lock, so
// no live run owns them. Names lovbench did not record are left alone.
func (w *Workdir) cleanStale() error {
	for _, sub := range []string{"stages", "releases"} {
		ents, err := os.ReadDir(filepath.Join(w.root, sub))
		if err != nil {
			return fmt.Errorf("work directory: %w", err)
		}
		for _, e := range ents {
			if (strings.HasPrefix(e.Name(), ".tmp-") || strings.HasPrefix(e.Name(), "..tmp-")) && w.made(sub, e.Name()) {
				if _, err := w.removeProven(sub, e.Name()); err != nil {
					return fmt.Errorf("work directory: remove stale %s: %w", e.Name(), err)
				}
			}
		}
	}
	// Names recorded whose creation a kill interrupted.
	for _, n := range slices.Sorted(maps.Keys(w.names)) {
		if _, err := os.Lstat(filepath.Join(w.root, filepath.FromSlash(n))); errors.Is(err, fs.ErrNotExist) {
			if err := w.forget(n); err != nil {
				return err
			}
		}
	}
	return nil
}

// Stage is one step of the pipeline. Its output is a directory determined
// by its fingerprint: the SHA-256 of its name, its parameters (as JSON), the
// content of its input files and the fingerprints of the stages it depends
// on. A stage must be deterministic: the same fingerprint must give the same
// bytes (wall-clock timing fields excepted).
type Stage struct {
	// Name identifies the stage (a directory name, e.g. "ingest").
	Name string
	// Deps names earlier stages whose outputs the stage reads.
	Deps []string
	// Inputs are external input files by role (e.g. "log"); their content is
	// hashed into the fingerprint, their path is not.
	Inputs map[string]string
	// Params are the stage's parameters; they are hashed as JSON.
	Params any
	// Run produces the stage's output in env.Dir.
	Run func(ctx context.Context, env *StageEnv) error
}

// StageEnv is what a running stage gets.
type StageEnv struct {
	// Dir is the (empty) staging directory to write the output into.
	Dir string
	// Deps maps each dependency's name to its committed output directory.
	Deps map[string]string
	// Log is the run's logger.
	Log *slog.Logger
}

// Dep returns the path of file name in the output of dependency stage.
func (e *StageEnv) Dep(stage, name string) string {
	return filepath.Join(e.Deps[stage], name)
}

// Stamp is the content of .stage.json in a committed stage directory.
type Stamp struct {
	Stage       string            `json:"stage"`
	Fingerprint string            `json:"fingerprint"`
	Params      json.RawMessage   `json:"params"`
	Inputs      map[string]string `json:"inputs_sha256,omitempty"`
	Deps        map[string]string `json:"deps_fingerprint,omitempty"`
	Files       map[string]string `json:"files_sha256"`
}

// StageResult reports what happened to one stage in a run.
type StageResult struct {
	Name        string  `json:"name"`
	Fingerprint string  `json:"fingerprint"`
	Skipped     bool    `json:"skipped"`
	Dir         string  `json:"dir"`
	Seconds     float64 `json:"wall_seconds"`
}

// RunStages runs the stages in order. A stage whose fingerprint matches a
// committed output is skipped unless its name is in force (or force holds
// "all"); a forced stage's dependants are rerun only if its output changes
// their fingerprints, which, for deterministic stages, it does not.
func (w *Workdir) RunStages(ctx context.Context, stages []Stage, force map[string]bool) ([]StageResult, error) {
	fps := map[string]string{}
	dirs := map[string]string{}
	var results []StageResult
	for _, st := range stages {
		if err := ctx.Err(); err != nil {
			return results, err
		}
		stamp, err := fingerprint(st, fps, w.code)
		if err != nil {
			return results, fmt.Errorf("stage %s: %w", st.Name, err)
		}
		short := stamp.Fingerprint[:16]
		link := filepath.Join(w.root, "stages", st.Name)
		res := StageResult{Name: st.Name, Fingerprint: stamp.Fingerprint}
		start := time.Now()
		target, _ := os.Readlink(link)
		// The output a new one replaces is kept until the next run
		// replaces or confirms this stage, so a reader that resolved the
		// link just before the swap can finish reading it.
		previous := ""
		unchanged := false
		if !force[st.Name] && !force["all"] && target != "" && stampMatches(filepath.Join(w.root, "stages", target), stamp.Fingerprint) {
			// Same fingerprint; the output is trusted only if its
			// files are still the bytes its stamp lists.
			why := recordMatches(filepath.Join(w.root, "stages", target), target)
			unchanged = why == ""
			if !unchanged {
				w.log.Warn("stage output changed since it was written; running the stage again", "stage", st.Name, "dir", filepath.Join(w.root, "stages", target), "why", why)
			}
		}
		if unchanged {
			res.Skipped = true
			w.log.Info("stage unchanged, skipped", "stage", st.Name, "fingerprint", short)
		} else {
			previous = target
			w.log.Info("stage running", "stage", st.Name, "fingerprint", short)
			target, err = w.runOne(ctx, st, stamp, dirs)
			if err != nil {
				return results, fmt.Errorf("stage %s: %w", st.Name, err)
			}
			w.crashPoint(st.Name, "renamed")
			if err := w.swapLink("stages", st.Name, target); err != nil {
				return results, fmt.Errorf("stage %s: %w", st.Name, err)
			}
			w.crashPoint(st.Name, "linked")
		}
		if err := w.removeOld(st.Name, target, previous); err != nil {
			return results, err
		}
		final := filepath.Join(w.root, "stages", target)
		res.Dir = final
		res.Seconds = time.Since(start).Seconds()
		fps[st.Name] = stamp.Fingerprint
		// Later stages read this output through the link, whose path does
		// not depend on the output directory's random suffix (outputs that
		// record their input paths stay byte-identical across reruns).
		dirs[st.Name] = link
		results = append(results, res)
	}
	return results, nil
}

// FailedSuffix names the directory, DIR/stages/<stage>.failed, that keeps the
// files of a stage that failed.
const FailedSuffix = ".failed"

// runOne runs a stage into a staging directory and renames it to its
// committed name, which it returns (relative to DIR/stages). The staging
// directory of a failed stage is kept as DIR/stages/<stage>.failed and the
// error names it.
func (w *Workdir) runOne(ctx context.Context, st Stage, stamp *Stamp, dirs map[string]string) (string, error) {
	stagesDir := filepath.Join(w.root, "stages")
	tmpName, err := w.mkdirMade("stages", ".tmp-"+st.Name+"-")
	if err != nil {
		return "", err
	}
	tmp := filepath.Join(stagesDir, tmpName)
	committed := false
	defer func() {
		if !committed {
			w.removeMade("stages", tmpName)
		}
	}()
	name := st.Name + "." + stamp.Fingerprint[:16] + "-" + strings.TrimPrefix(filepath.Base(tmp), ".tmp-"+st.Name+"-")
	env := &StageEnv{Dir: tmp, Deps: map[string]string{}, Log: w.log.With("stage", st.Name)}
	for _, d := range st.Deps {
		env.Deps[d] = dirs[d]
	}
	w.crashPoint(st.Name, "staging")
	if err := st.Run(ctx, env); err != nil {
		// Keep what the failed stage wrote (say ingest's report.json
		// with the count of every dropped record) where the user can read
		// it: stages/<name>.failed, replaced by the next failure and
		// removed when the stage next succeeds.
		failed := filepath.Join(stagesDir, st.Name+FailedSuffix)
		if w.keepFailed(tmpName, st.Name+FailedSuffix) == nil {
			committed = true
			return "", &stageFailure{msg: strings.ReplaceAll(err.Error(), tmp, failed) + " (the failed stage's files are kept in " + failed + ")", err: err}
		}
		return "", err
	}
	w.crashPoint(st.Name, "written")
	files, err := HashTree(tmp)
	if err != nil {
		return "", err
	}
	stamp.Files = files
	b, err := json.MarshalIndent(stamp, "", "  ")
	if err != nil {
		return "", err
	}
	if err := atomicfile.WriteBytes(filepath.Join(tmp, StampFile), append(b, '\n')); err != nil {
		return "", err
	}
	// The stamp is the proof from now on (removeProven).
	if err := atomicfile.UnmarkStaging(tmp); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	if err := atomicfile.SyncTree(tmp); err != nil {
		return "", err
	}
	w.crashPoint(st.Name, "stamped")
	if err := w.renameMade("stages", tmpName, name); err != nil {
		return "", err
	}
	committed = true
	return name, atomicfile.SyncDir(stagesDir)
}

// renameMade renames sub/from, which lovbench made, to sub/to, a name
// that must be free, recording to first.
func (w *Workdir) renameMade(sub, from, to string) error {
	if _, err := os.Lstat(filepath.Join(w.root, sub, to)); err == nil {
		return fmt.Errorf("%s/%s exists and is not lovbench's to replace", sub, to)
	}
	if err := w.record(sub + "/" + to); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(w.root, sub, from), filepath.Join(w.root, sub, to)); err != nil {
		return err
	}
	return w.forget(sub + "/" + from)
}

// keepFailed renames the staging directory stages/tmpName of a failed
// stage to stages/failed, replacing an earlier failure's directory that
// lovbench made (recorded, and carrying atomicfile.StagingFile: never a
// directory of that name that it did not).
func (w *Workdir) keepFailed(tmpName, failed string) error {
	if _, err := os.Lstat(filepath.Join(w.root, "stages", failed)); err == nil {
		if !w.made("stages", failed) {
			return fmt.Errorf("stages/%s exists and is not lovbench's", failed)
		}
		removed, err := w.removeProven("stages", failed)
		if err != nil {
			return err
		}
		if !removed {
			return fmt.Errorf("stages/%s exists and is not lovbench's", failed)
		}
	}
	return w.renameMade("stages", tmpName, failed)
}

// removeOld deletes the stage's outputs other than keep and previous:
// the directories stages/<name>.* that lovbench recorded (a user's
// stages/fit.my-notes is not one).
func (w *Workdir) removeOld(name, keep, previous string) error {
	ents, err := os.ReadDir(filepath.Join(w.root, "stages"))
	if err != nil {
		return err
	}
	for _, e := range ents {
		n := e.Name()
		if n != keep && n != previous && strings.HasPrefix(n, name+".") && e.IsDir() && w.names["stages/"+n] {
			if _, err := w.removeProven("stages", n); err != nil {
				return fmt.Errorf("remove old output %s: %w", n, err)
			}
		}
	}
	return nil
}

// fingerprint computes a stage's stamp (without its file list); code
// identifies the program.
func fingerprint(st Stage, fps map[string]string, code string) (*Stamp, error) {
	params, err := json.Marshal(st.Params)
	if err != nil {
		return nil, fmt.Errorf("parameters: %w", err)
	}
	stamp := &Stamp{Stage: st.Name, Params: params, Inputs: map[string]string{}, Deps: map[string]string{}}
	for role, path := range st.Inputs {
		sum, err := filehash.SHA256(path)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", role, err)
		}
		stamp.Inputs[role] = sum
	}
	for _, d := range st.Deps {
		fp, ok := fps[d]
		if !ok {
			return nil, fmt.Errorf("depends on stage %q, which does not run before it", d)
		}
		stamp.Deps[d] = fp
	}
	h := sha256.New()
	fmt.Fprintf(h, "lovbench-stage-v1\x00%s\x00%s\x00%s\x00", st.Name, code, params)
	for _, k := range slices.Sorted(maps.Keys(stamp.Inputs)) {
		fmt.Fprintf(h, "in\x00%s\x00%s\x00", k, stamp.Inputs[k])
	}
	for _, k := range slices.Sorted(maps.Keys(stamp.Deps)) {
		fmt.Fprintf(h, "dep\x00%s\x00%s\x00", k, stamp.Deps[k])
	}
	stamp.Fingerprint = hex.EncodeToString(h.Sum(nil))
	return stamp, nil
}

func stampMatches(dir, fp string) bool {
	b, err := os.ReadFile(filepath.Join(dir, StampFile))
	if err != nil {
		return false
	}
	var s Stamp
	if json.Unmarshal(b, &s) != nil {
		return false
	}
	return s.Fingerprint == fp
}

// HashTree returns the SHA-256 of every regular file under dir, by slash
// path relative to dir, but the stamp and the staging marker
// (atomicfile.StagingFile) at its root.
func HashTree(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if rel == StampFile || rel == atomicfile.StagingFile {
			return nil
		}
		sum, err := filehash.SHA256(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = sum
		return nil
	})
	return out, err
}

// swapLink points the symbolic link sub/name to target, atomically: a new
// link is created under a temporary name and renamed over the old one. An
// existing sub/name that lovbench did not make (a user's file or
// directory) is not replaced.
func (w *Workdir) swapLink(sub, name, target string) error {
	path := filepath.Join(w.root, sub, name)
	if cur, err := os.Readlink(path); err == nil && cur == target {
		return nil
	}
	if st, err := os.Lstat(path); err == nil && (!w.made(sub, name) || st.Mode()&fs.ModeSymlink == 0) {
		return fmt.Errorf("%s/%s exists and is not a link lovbench made: not replacing it", sub, name)
	}
	tmpName := ".tmp-link-" + name + "-" + strconv.Itoa(os.Getpid())
	tmp := filepath.Join(w.root, sub, tmpName)
	if err := w.record(sub+"/"+tmpName, sub+"/"+name); err != nil {
		return err
	}
	_ = os.Remove(tmp) // recorded: one a killed run of this pid left
	if err := os.Symlink(target, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := w.forget(sub + "/" + tmpName); err != nil {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(path))
}

// stageFailure is a stage's error whose message names the kept directory of
// the failed stage instead of its (renamed) staging directory.
type stageFailure struct {
	msg string
	err error
}

func (e *stageFailure) Error() string { return e.msg }
func (e *stageFailure) Unwrap() error { return e.err }
