package workdir

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeStage(name string, deps []string, params any, body func(env *StageEnv) (string, error), runs *int) Stage {
	return Stage{Name: name, Deps: deps, Params: params, Run: func(ctx context.Context, env *StageEnv) error {
		*runs++
		s, err := body(env)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(env.Dir, "out.txt"), []byte(s), 0o644)
	}}
}

func TestRunStagesSkipsUnchanged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(t.TempDir(), "input.txt")
	os.WriteFile(in, []byte("hello"), 0o644)
	var runsA, runsB int
	mk := func(param int) []Stage {
		a := writeStage("a", nil, map[string]int{"p": param}, func(env *StageEnv) (string, error) {
			b, err := os.ReadFile(in)
			return strings.ToUpper(string(b)), err
		}, &runsA)
		a.Inputs = map[string]string{"in": in}
		b := writeStage("b", []string{"a"}, nil, func(env *StageEnv) (string, error) {
			b, err := os.ReadFile(env.Dep("a", "out.txt"))
			return string(b) + "!", err
		}, &runsB)
		return []Stage{a, b}
	}
	run := func(param int, force map[string]bool) []StageResult {
		t.Helper()
		w, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		res, err := w.RunStages(context.Background(), mk(param), force)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	run(1, nil)
	if runsA != 1 || runsB != 1 {
		t.Fatalf("first run: runs %d %d", runsA, runsB)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "stages", "b", "out.txt"))
	if string(got) != "HELLO!" {
		t.Fatalf("stages/b/out.txt = %q", got)
	}
	res := run(1, nil)
	if runsA != 1 || runsB != 1 || !res[0].Skipped || !res[1].Skipped {
		t.Fatalf("unchanged rerun ran stages: %d %d %+v", runsA, runsB, res)
	}
	run(1, map[string]bool{"b": true})
	if runsA != 1 || runsB != 2 {
		t.Fatalf("--force b: runs %d %d", runsA, runsB)
	}
	run(2, nil) // parameter change reruns a, and b because a's fingerprint changed
	if runsA != 2 || runsB != 3 {
		t.Fatalf("parameter change: runs %d %d", runsA, runsB)
	}
	os.WriteFile(in, []byte("bye"), 0o644) // input content change
	run(2, nil)
	if runsA != 3 || runsB != 4 {
		t.Fatalf("input change: runs %d %d", runsA, runsB)
	}
	got, _ = os.ReadFile(filepath.Join(dir, "stages", "b", "out.txt"))
	if string(got) != "BYE!" {
		t.Fatalf("stages/b/out.txt = %q", got)
	}
	// The replaced outputs survive until the next run, which deletes them:
	// then one directory per stage plus the links.
	ents, _ := os.ReadDir(filepath.Join(dir, "stages"))
	if len(ents) != 6 {
		t.Fatalf("stages/ holds %d entries after a rerun, want a, b, their outputs and the replaced ones", len(ents))
	}
	run(2, nil)
	ents, _ = os.ReadDir(filepath.Join(dir, "stages"))
	if len(ents) != 4 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("stages/ holds %v, want a, b and one output each", names)
	}
}

func TestFailedStageLeavesNoOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var runs int
	st := writeStage("bad", nil, nil, func(env *StageEnv) (string, error) {
		os.WriteFile(filepath.Join(env.Dir, "partial.txt"), []byte("half"), 0o644)
		return "", errors.New("boom")
	}, &runs)
	if _, err := w.RunStages(context.Background(), []Stage{st}, nil); err == nil || !strings.Contains(err.Error(), "stage bad: boom") {
		t.Fatalf("err = %v", err)
	}
	// Only the failed stage's files, kept for reading;
	// no committed output.
	ents, _ := os.ReadDir(filepath.Join(dir, "stages"))
	if len(ents) != 1 || ents[0].Name() != "bad"+FailedSuffix {
		t.Fatalf("failed stage left %v in stages/, want only bad.failed", ents)
	}
	if _, err := os.Stat(filepath.Join(dir, "stages", "bad.failed", "partial.txt")); err != nil {
		t.Errorf("the failed stage's files were not kept: %v", err)
	}
}

func TestLockRefusesSecondRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, nil)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid ") {
		t.Fatalf("second open: %v", err)
	}
	w.Close()
	w2, err := Open(dir, nil)
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	w2.Close()
}

// The staging directories a killed run left are removed by the next one;
// names of the same shapes that lovbench did not record are not.
func TestStaleStagingRemoved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	stage, err := w.mkdirMade("stages", ".tmp-x-")
	if err != nil {
		t.Fatal(err)
	}
	release, err := w.mkdirMade("releases", ".tmp-release-")
	if err != nil {
		t.Fatal(err)
	}
	// What atomicfile.CreateDir builds beside a staging directory.
	beside := "." + stage + ".tmp-1-2"
	os.MkdirAll(filepath.Join(dir, "stages", beside), 0o755)
	w.Close() // as a killed run: nothing removed
	mine := []string{"stages/.tmp-x-123", "releases/.tmp-build", "stages/..tmp-y-1"}
	for _, p := range mine {
		os.MkdirAll(filepath.Join(dir, p), 0o755)
		os.WriteFile(filepath.Join(dir, p, "notes.txt"), []byte("mine"), 0o644)
	}
	w, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, p := range []string{"stages/" + stage, "releases/" + release, "stages/" + beside} {
		if _, err := os.Stat(filepath.Join(dir, p)); !os.IsNotExist(err) {
			t.Errorf("%s survived", p)
		}
	}
	for _, p := range mine {
		if b, err := os.ReadFile(filepath.Join(dir, p, "notes.txt")); err != nil || string(b) != "mine" {
			t.Errorf("the user's %s was removed: %v", p, err)
		}
	}
	if m, _ := readMarker(dir); len(m) != 0 {
		t.Errorf("names still recorded after cleaning: %v", m)
	}
}

// Reruns that replace a stage's output remove the outputs lovbench made,
// never a user's stages/<stage>.<something> directory nor a user's file
// where the stage's link goes.
func TestCleaningSparesUserNames(t *testing.T) {
	dir := t.TempDir()
	runs := 0
	for i := range 3 {
		w, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := writeStage("fit", nil, i, func(env *StageEnv) (string, error) { return "x", nil }, &runs)
		if _, err := w.RunStages(context.Background(), []Stage{st}, nil); err != nil {
			t.Fatal(err)
		}
		w.Close()
		if i == 0 {
			os.MkdirAll(filepath.Join(dir, "stages", "fit.my-notes"), 0o755)
			os.WriteFile(filepath.Join(dir, "stages", "fit.my-notes", "n.txt"), []byte("mine"), 0o644)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "stages", "fit.my-notes", "n.txt")); err != nil || string(b) != "mine" {
		t.Errorf("stages/fit.my-notes was removed: %v", err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "stages"))
	var outs int
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "fit.") && e.Name() != "fit.my-notes" {
			outs++
		}
	}
	if outs != 2 { // the current output and the one it replaced
		t.Errorf("%d outputs of fit kept, want 2 (%v)", outs, ents)
	}
	os.WriteFile(filepath.Join(dir, "stages", "g"), []byte("mine"), 0o644)
	w, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	st := writeStage("g", nil, 0, func(env *StageEnv) (string, error) { return "x", nil }, &runs)
	if _, err := w.RunStages(context.Background(), []Stage{st}, nil); err == nil || !strings.Contains(err.Error(), "not a link lovbench made") {
		t.Errorf("a user's file where the stage link goes: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "stages", "g")); string(b) != "mine" {
		t.Error("the user's stages/g was replaced")
	}
}

// A work directory is never the file-system root nor an
// existing directory of other files (run --workdir /, demo --out into a
// user's directory); an empty directory, a new one and an earlier work
// directory are fine.
func TestOpenWorkdirRefusesForeignDirectories(t *testing.T) {
	t.Parallel()
	if _, err := Open("/", nil); err == nil || !strings.Contains(err.Error(), "root of the file system") {
		t.Errorf("/: %v", err)
	}
	if _, err := os.Stat("/stages"); err == nil {
		t.Error("/stages exists")
	}
	user := t.TempDir()
	os.WriteFile(filepath.Join(user, "thesis.tex"), []byte("x"), 0o644)
	if _, err := Open(user, nil); err == nil || !strings.Contains(err.Error(), "thesis.tex") {
		t.Errorf("a directory of other files: %v", err)
	}
	if ents, _ := os.ReadDir(user); len(ents) != 1 {
		t.Errorf("the refused directory was written to: %v", ents)
	}
	// A directory that merely has stages/ and releases/ (and even the
	// lock file) is no work directory: refused, nothing written or removed.
	lookalike := t.TempDir()
	for _, p := range []string{"stages/fit.my-notes", "releases/.tmp-build"} {
		os.MkdirAll(filepath.Join(lookalike, p), 0o755)
		os.WriteFile(filepath.Join(lookalike, p, "n.txt"), []byte("mine"), 0o644)
	}
	os.WriteFile(filepath.Join(lookalike, LockFileName), nil, 0o644)
	if _, err := Open(lookalike, nil); err == nil || !strings.Contains(err.Error(), "no "+MarkerFileName) {
		t.Errorf("a directory with stages/ and releases/ but no marker: %v", err)
	}
	for _, p := range []string{"stages/fit.my-notes/n.txt", "releases/.tmp-build/n.txt"} {
		if _, err := os.Stat(filepath.Join(lookalike, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if ents, _ := os.ReadDir(lookalike); len(ents) != 3 {
		t.Errorf("the refused directory was written to: %v", ents)
	}
	empty := t.TempDir()
	os.MkdirAll(filepath.Join(empty, "stages"), 0o755)
	os.MkdirAll(filepath.Join(empty, "releases"), 0o755)
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "new"), empty} {
		w, err := Open(dir, nil)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		w.Close()
		os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644) // beside stages/: still a work directory
		w, err = Open(dir, nil)
		if err != nil {
			t.Fatalf("reopening %s: %v", dir, err)
		}
		w.Close()
	}
}
