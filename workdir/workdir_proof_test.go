package workdir

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A stage output whose bytes no longer match the checksums its stamp
// holds (a user wrote over stages/a/out.txt) is not trusted on a rerun:
// the stage runs again and the link then points to the stage's own
// bytes; the edited directory is not deleted by later runs (it holds a
// file lovbench did not write).
func TestRerunRedoesChangedOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runs := 0
	run := func() []StageResult {
		t.Helper()
		w, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		st := writeStage("a", nil, 1, func(env *StageEnv) (string, error) { return "stage bytes", nil }, &runs)
		res, err := w.RunStages(context.Background(), []Stage{st}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	run()
	edited, err := filepath.EvalSymlinks(filepath.Join(dir, "stages", "a"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(edited, "out.txt"), []byte("<html>a report</html>"), 0o644)
	if res := run(); res[0].Skipped || runs != 2 {
		t.Fatalf("rerun over an output whose file was written over: skipped=%v, runs %d; want the stage run again", res[0].Skipped, runs)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "stages", "a", "out.txt")); string(b) != "stage bytes" {
		t.Errorf("stages/a/out.txt = %q after the rerun, want the stage's bytes", b)
	}
	run()
	run()
	if b, err := os.ReadFile(filepath.Join(edited, "out.txt")); err != nil || string(b) != "<html>a report</html>" {
		t.Errorf("the edited output directory was deleted: %v", err)
	}
	if m, _ := readMarker(dir); m["stages/"+filepath.Base(edited)] {
		t.Errorf("the edited output is still recorded as lovbench's")
	}
}

// An edited .lovbench-workdir.json that lists a user's directories under
// names lovbench uses (stages/fit.failed, stages/.tmp-fit-777) makes no
// run delete them: a recorded name is no proof without the content that
// shows the directory lovbench's.
func TestEditedMarkerDeletesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	user := []string{"stages/fit.failed", "stages/.tmp-fit-777", "stages/fit.0123456789abcdef-1"}
	for _, p := range user {
		os.MkdirAll(filepath.Join(dir, p), 0o755)
		os.WriteFile(filepath.Join(dir, p, "notes.txt"), []byte("mine"), 0o644)
	}
	b, _ := json.Marshal(workdirMarker{Workdir: markerWhat, Names: user})
	os.WriteFile(filepath.Join(dir, MarkerFileName), b, 0o644)
	runs := 0
	for i := range 3 {
		w, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		fail := i == 0
		st := writeStage("fit", nil, i, func(env *StageEnv) (string, error) {
			if fail {
				return "", os.ErrInvalid // a failure keeps its files in stages/fit.failed
			}
			return "x", nil
		}, &runs)
		w.RunStages(context.Background(), []Stage{st}, nil)
		w.Close()
	}
	for _, p := range user {
		if b, err := os.ReadFile(filepath.Join(dir, p, "notes.txt")); err != nil || string(b) != "mine" {
			t.Errorf("the user's %s was deleted or changed: %v", p, err)
		}
	}
}
