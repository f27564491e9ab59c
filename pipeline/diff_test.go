package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lovbench/lovbench/workdir"
)

func TestPublishAndDiff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := workdir.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	src := t.TempDir()
	gt := filepath.Join(src, "ground_truth.csv")
	os.WriteFile(gt, []byte("query,term,label\nperson,foaf:Person,4\nperson,schema:Person,2\nname,foaf:name,3\n"), 0o644)
	t0 := time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC)
	n1, pub, err := w.Publish([]workdir.ReleaseItem{{Src: gt, Dst: "ground_truth.csv"}}, map[string]string{"s": "1"}, t0)
	if err != nil || !pub || n1 != "20261101T030000Z" {
		t.Fatalf("publish: %v %v %q", err, pub, n1)
	}
	if l, _ := os.Readlink(filepath.Join(dir, "releases", "latest")); l != n1 {
		t.Fatalf("latest -> %q", l)
	}
	// Same stages again: no new release.
	n, pub, err := w.Publish([]workdir.ReleaseItem{{Src: gt, Dst: "ground_truth.csv"}}, map[string]string{"s": "1"}, t0.Add(time.Hour))
	if err != nil || pub || n != n1 {
		t.Fatalf("unchanged publish: %v %v %q", err, pub, n)
	}
	gt2 := filepath.Join(src, "gt2.csv")
	os.WriteFile(gt2, []byte("\ufeffquery,term,label\r\nperson,foaf:Person,3\r\nname,foaf:name,3\r\nage,foaf:age,1\r\n"), 0o644)
	n2, pub, err := w.Publish([]workdir.ReleaseItem{{Src: gt2, Dst: "ground_truth.csv"}}, map[string]string{"s": "2"}, t0.Add(time.Hour))
	if err != nil || !pub || n2 != "20261101T040000Z" {
		t.Fatalf("second publish: %v %v %q", err, pub, n2)
	}
	rels, _ := workdir.Releases(dir)
	if len(rels) != 2 {
		t.Fatalf("releases: %v", rels)
	}
	d, err := Diff(filepath.Join(dir, "releases", n1), filepath.Join(dir, "releases", "latest"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.QueriesAdded, ",") != "age" || len(d.QueriesRemoved) != 0 {
		t.Errorf("queries added %v removed %v", d.QueriesAdded, d.QueriesRemoved)
	}
	if d.Added != 1 || d.Removed != 1 || d.Changed != 1 {
		t.Errorf("added %d removed %d changed %d: %+v", d.Added, d.Removed, d.Changed, d.Labels)
	}
	c := d.Labels[1] // sorted: age/foaf:age, person/foaf:Person, person/schema:Person
	if c.Kind != "changed" || *c.Old != 4 || *c.New != 3 {
		t.Errorf("change %+v", c)
	}
}

func TestDiffBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.csv")
	os.WriteFile(good, []byte("query,term,label\nq,t,1\n"), 0o644)
	for name, body := range map[string]string{
		"header": "q,t,l\nq,t,1\n",
		"label":  "query,term,label\nq,t,x\n",
		"dup":    "query,term,label\nq,t,1\nq,t,2\n",
	} {
		p := filepath.Join(dir, name+".csv")
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := Diff(good, p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want one naming the file", name, err)
		}
	}
}

// The work directory's salt is created once (0600) and
// reused; saltID depends on the salt and does not contain it.
func TestWorkdirSalt(t *testing.T) {
	t.Parallel()
	wd := t.TempDir()
	a, err := workdirSalt(wd)
	if err != nil {
		t.Fatal(err)
	}
	b, err := workdirSalt(wd)
	if err != nil || string(a) != string(b) || len(a) != 64 {
		t.Fatalf("salt not reused: %q %q %v", a, b, err)
	}
	c, _ := workdirSalt(t.TempDir())
	if string(c) == string(a) {
		t.Error("two work directories got the same salt")
	}
	if saltID(a) == saltID(c) || strings.Contains(string(a), saltID(a)) || len(saltID(a)) != 16 {
		t.Errorf("saltID %s / %s", saltID(a), saltID(c))
	}
}
