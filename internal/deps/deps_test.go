package deps

import (
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path of the repository's root module; beam/'s
// module lies under it (github.com/lovbench/lovbench/beam).
const module = "github.com/lovbench/lovbench"

// groups name the small packages of internal/ by what they are for; a
// rule names the groups it may use (as go/build's deps_test names FMT, OS
// and the like). No rule may use a package of internal/ outside its
// groups, and TESTING only in tests.
var groups = []struct {
	name string
	pkgs []string
}{
	{"FILES", []string{"internal/atomicfile", "internal/filehash", "internal/pqfile", "internal/textio"}},
	{"WORK", []string{"internal/bytesize", "internal/membudget", "internal/par", "internal/progress"}},
	{"IDS", []string{"internal/buildinfo", "internal/hashes"}},
	{"TESTING", []string{"internal/browsertest", "internal/refdata", "internal/testsize"}},
}

// rules says, package by package from the bottom up, what each may import
// besides the standard library: lovbench packages by their path in the
// repository, groups by name, third-party modules' packages by their
// import path. docs/architecture.md shows the same table
// (TestArchitectureDocMatches).
var rules = []struct {
	pkg string
	may []string
}{
	// The module's root holds readme_test.go only.
	{".", nil},

	// The helpers of internal/, and those of the tests (refdata,
	// testsize, testskips).
	{"internal/filehash", nil},
	{"internal/atomicfile", []string{"internal/filehash"}},
	{"internal/buildinfo", nil},
	{"internal/bytesize", nil},
	{"internal/hashes", nil},
	{"internal/membudget", nil},
	{"internal/textio", nil},
	{"internal/refdata", nil},
	{"internal/testskips", nil},
	{"internal/testsize", nil},
	{"internal/browsertest", nil},
	{"internal/par", []string{"golang.org/x/sync/errgroup"}},
	{"internal/pqfile", []string{"github.com/klauspost/compress/s2", "github.com/parquet-go/parquet-go", "github.com/parquet-go/parquet-go/format"}},
	{"internal/progress", []string{"github.com/schollz/progressbar/v3", "golang.org/x/term"}},
	{"internal/deps", nil},

	// The log: sessions, then the train/test split below everything that
	// fits or shards a log.
	{"sessions", []string{"FILES", "github.com/parquet-go/parquet-go"}},
	{"sessions/split", []string{"FILES", "sessions"}},
	{"ingest/pii", []string{"FILES"}},
	{"ingest", []string{"FILES", "WORK", "IDS", "ingest/pii", "sessions"}},
	{"ingest/ingesttest", []string{"ingest"}},
	{"shards", []string{"FILES", "WORK", "IDS", "ingest", "sessions", "sessions/split", "github.com/parquet-go/parquet-go"}},
	{"clickmodels", []string{"FILES", "IDS", "sessions", "sessions/split", "gonum.org/v1/gonum/mathext", "gonum.org/v1/gonum/stat/distuv", "gonum.org/v1/gonum/graph", "gonum.org/v1/gonum/graph/simple", "gonum.org/v1/gonum/graph/topo"}},
	{"clickmodels/refsim", nil},
	{"clickmodels/sim", []string{"clickmodels", "sessions"}},
	{"clickmodels/outofcore", []string{"FILES", "WORK", "sessions", "sessions/split", "clickmodels"}},
	{"fit", []string{"WORK", "sessions", "sessions/split", "shards", "clickmodels", "clickmodels/outofcore"}},

	// Labels, sampling and the corpus.
	{"labels", []string{"FILES", "sessions", "clickmodels", "gonum.org/v1/gonum/stat", "gonum.org/v1/gonum/integrate/quad", "gonum.org/v1/gonum/mathext"}},
	{"sampling", []string{"FILES", "IDS", "labels"}},
	{"features/rdf", []string{"FILES"}},
	{"features/democorpus", []string{"FILES"}},
	{"features", []string{"FILES", "WORK", "IDS", "features/rdf"}},
	{"corpussim", []string{"clickmodels", "clickmodels/sim", "features", "features/democorpus", "sessions"}},

	// The dataset and learning to rank.
	{"ltr/measures", []string{"FILES", "WORK", "gonum.org/v1/gonum/stat/distuv"}},
	{"ltr", []string{"FILES", "WORK", "IDS", "ltr/measures"}},
	{"export", []string{"FILES", "WORK", "IDS", "ingest", "features", "labels", "sampling", "ltr", "gopkg.in/yaml.v3",
		"github.com/apache/arrow-go/v18/arrow", "github.com/apache/arrow-go/v18/arrow/array",
		"github.com/apache/arrow-go/v18/arrow/ipc", "github.com/apache/arrow-go/v18/arrow/memory"}},

	// The report: the analytics of every stage's outputs and the HTML.
	{"report", []string{"FILES", "IDS", "sessions", "ingest", "clickmodels", "fit", "labels", "sampling", "features", "export", "ltr",
		"ltr/measures", "gonum.org/v1/gonum/stat"}},

	// The pipeline and the command: the work directory and its releases,
	// below the stage graph.
	{"workdir", []string{"FILES", "IDS"}},
	{"pipeline", []string{"FILES", "WORK", "sessions", "sessions/split", "ingest", "clickmodels",
		"fit", "clickmodels/sim", "corpussim", "labels", "sampling", "features", "features/democorpus", "export", "ltr",
		"report", "workdir", "gopkg.in/yaml.v3"}},
	{"pipeline/calibration", []string{"FILES", "IDS", "ingest", "clickmodels", "fit", "clickmodels/refsim", "clickmodels/sim", "labels", "pipeline", "sessions"}},
	{"cmd/lovbench", []string{"FILES", "WORK", "IDS", "sessions", "sessions/split", "ingest", "ingest/pii", "shards",
		"clickmodels", "fit", "clickmodels/sim", "corpussim", "labels", "sampling", "features", "export", "ltr",
		"ltr/measures", "report", "pipeline", "github.com/spf13/cobra", "github.com/spf13/pflag"}},

	// The Apache Beam module (beam/, its own go.mod).
	{"beam/lbbeam", []string{"internal/atomicfile", "internal/textio", "sessions", "sessions/split", "ingest",
		"shards", "clickmodels", "clickmodels/outofcore", "github.com/apache/beam/sdks/v2/go/pkg/beam",
		"github.com/apache/beam/sdks/v2/go/pkg/beam/core/state",
		"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem",
		"github.com/apache/beam/sdks/v2/go/pkg/beam/register"}},
	{"beam/cmd/lovbench-beam", []string{"beam/lbbeam", "sessions/split", "ingest/pii", "shards", "clickmodels", "internal/atomicfile", "internal/bytesize",
		"github.com/apache/beam/sdks/v2/go/pkg/beam",
		"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs",
		"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local",
		"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3",
		"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"}},

	// Benchmark programs: any stage, never imported.
	{"bench/calibration", []string{"clickmodels", "clickmodels/refsim", "clickmodels/sim", "corpussim", "features", "pipeline/calibration"}},
	{"bench/clickmodels", []string{"clickmodels", "clickmodels/sim", "sessions", "internal/refdata"}},
	{"bench/confidence", []string{"clickmodels", "clickmodels/refsim", "labels", "report", "pipeline", "pipeline/calibration"}},
	{"bench/features", []string{"features", "internal/refdata"}},
	{"bench/humangrades", []string{"clickmodels", "labels", "pipeline/calibration", "sessions", "sessions/split"}},
	{"bench/ingest", []string{"ingest"}},
	{"bench/ltr", []string{"ltr"}},
	{"bench/pscmhelps", []string{"clickmodels", "clickmodels/refsim", "fit", "labels", "pipeline/calibration", "gonum.org/v1/gonum/stat"}},
	{"bench/scale", nil},
	{"bench/trecsession", []string{"ingest", "internal/atomicfile"}},
}

// testRules is the relaxed table of the test files (_test.go, of the
// package and of its external test package): besides what the package's
// rule allows and the package itself, its tests may import these. A test
// may import a package above its own (an external test package sits
// above both), so this table is not in import order.
var testRules = []struct {
	pkg string
	may []string
}{
	{".", []string{"TESTING", "pipeline", "sampling"}},
	{"sessions", []string{"TESTING"}},
	{"ingest", []string{"TESTING", "ingest/ingesttest"}},
	{"shards", []string{"clickmodels"}},
	{"clickmodels", []string{"TESTING", "clickmodels/sim", "clickmodels/refsim", "gonum.org/v1/gonum/stat"}},
	{"clickmodels/outofcore", []string{"TESTING", "clickmodels/sim", "shards"}},
	{"labels", []string{"TESTING", "WORK"}},
	{"sampling", []string{"TESTING", "features"}},
	{"features/rdf", []string{"TESTING"}},
	{"features/democorpus", []string{"features"}},
	{"features", []string{"TESTING", "gonum.org/v1/gonum/graph/network", "gonum.org/v1/gonum/graph/simple"}},
	{"export", []string{"TESTING", "sessions", "github.com/parquet-go/parquet-go", "github.com/apache/arrow-go/v18/parquet", "github.com/apache/arrow-go/v18/parquet/pqarrow"}},
	{"ltr", []string{"TESTING"}},
	{"report", []string{"TESTING"}},
	{"pipeline", []string{"TESTING", "shards"}},
	{"pipeline/calibration", []string{"TESTING", "corpussim", "features", "features/democorpus", "gonum.org/v1/gonum/stat"}},
	{"cmd/lovbench", []string{"TESTING", "features/democorpus", "workdir"}},
	{"beam/lbbeam", []string{"TESTING", "ingest/ingesttest", "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs",
		"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism", "github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"}},
	{"beam/cmd/lovbench-beam", []string{"clickmodels/sim", "sessions", "ingest", "internal/textio", "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem",
		"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs", "github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"}},
}

// The stages: every package but the pipeline's, the commands, the
// benchmarks and this test.
var stages = []string{"sessions/...", "ingest/...", "shards", "clickmodels/...", "labels", "sampling", "features/...",
	"corpussim", "fit", "export", "ltr/...", "report", "internal/...", "beam/lbbeam"}

// testHelpers are the packages only tests import.
var testHelpers = []string{"internal/refdata", "internal/testsize", "internal/testskips", "ingest/ingesttest", "internal/browsertest"}

// forbidden are the negative rules, in the manner of CockroachDB's
// per-package forbidden imports, but transitive: no package of from may
// reach (import directly or through others) a package of to. A pattern
// "p/..." stands for p and every package below it. With tests set, the
// rule holds for the test files too (their imports and all these reach).
var forbidden = []struct {
	from, to []string
	tests    bool
	why      string
}{
	{stages, []string{"pipeline/...", "cmd/...", "beam/cmd/...", "bench/..."}, true,
		"no stage reaches the pipeline, a command or a benchmark"},
	{[]string{"internal/..."}, []string{"sessions/...", "ingest/...", "shards", "clickmodels/...", "labels", "sampling", "features/...", "corpussim", "export", "ltr/...", "report", "pipeline/...", "cmd/...", "beam/..."}, true,
		"the helpers of internal/ reach no stage"},
	{[]string{"workdir"}, []string{"sessions/...", "ingest/...", "shards", "clickmodels/...", "labels", "sampling", "features/...", "corpussim", "export", "ltr/...", "report", "pipeline/...", "cmd/..."}, true,
		"the work directory knows no stage, nor the stage graph"},
	{[]string{"labels"}, []string{"clickmodels/sim/...", "corpussim"}, true,
		"labels never reaches the simulator"},
	{[]string{"clickmodels"}, []string{"clickmodels/sim/...", "clickmodels/outofcore"}, false,
		"the EM core imports neither room above it (the simulator, the out-of-core engine)"},
	{[]string{"clickmodels/..."}, []string{"features/...", "corpussim"}, true,
		"the click models never reach the corpus (the corpus simulator sits above both)"},
	{[]string{"clickmodels/..."}, []string{"shards"}, false, "clickmodels does not reach shards"},
	{[]string{"shards"}, []string{"clickmodels/..."}, false, "shards does not reach clickmodels"},
	{[]string{"sessions/...", "ingest", "ingest/pii", "shards", "clickmodels/...", "labels", "sampling", "features/...", "corpussim", "export", "ltr/...", "report", "pipeline/...", "cmd/...", "beam/..."},
		testHelpers, false, "the helpers of the tests are imported by tests only"},
}

// exceptions are the known breaches of forbidden, each with the file that
// makes it and the issue that removes it; an exception no longer needed
// fails the test, so the list only shrinks.
var exceptions = []struct {
	file, imports, rule, todo string
}{}

// root is the repository's top directory.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", dir, err)
	}
	return dir
}

// imp is one import of a Go file.
type imp struct {
	path string // lovbench packages by their path in the repository
	file string // the importing file, relative to the repository
	test bool   // a _test.go file
}

// imports returns, by package directory relative to dir, the imports of
// its Go files (test files included, marked): lovbench packages by their
// path in the repository, others as written. A directory with test files
// only is listed too.
func imports(t *testing.T, dir string) map[string][]imp {
	t.Helper()
	pkgs := map[string][]imp{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != dir && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, filepath.Dir(path))
		if err != nil {
			return err
		}
		file, _ := filepath.Rel(dir, path)
		pkg := filepath.ToSlash(rel)
		if _, ok := pkgs[pkg]; !ok {
			pkgs[pkg] = nil
		}
		for _, im := range f.Imports {
			p, err := strconv.Unquote(im.Path.Value)
			if err != nil {
				return err
			}
			if p == module {
				p = "."
			} else if after, ok := strings.CutPrefix(p, module+"/"); ok {
				p = after
			}
			pkgs[pkg] = append(pkgs[pkg], imp{p, filepath.ToSlash(file), strings.HasSuffix(name, "_test.go")})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// isStd reports whether an import path names a standard-library package:
// its first element has no dot (every other import here names a module
// host or is a lovbench path, which never reaches isStd).
func isStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// expand returns the set a rule's list allows: groups by their packages.
func expand(may []string) map[string]bool {
	out := map[string]bool{}
	for _, m := range may {
		found := false
		for _, g := range groups {
			if g.name == m {
				for _, p := range g.pkgs {
					out[p] = true
				}
				found = true
			}
		}
		if !found {
			out[m] = true
		}
	}
	return out
}

// matches reports whether pkg is one of patterns ("p/..." is p and every
// package below it).
func matches(pkg string, patterns []string) bool {
	for _, p := range patterns {
		if base, ok := strings.CutSuffix(p, "/..."); ok {
			if pkg == base || strings.HasPrefix(pkg, base+"/") {
				return true
			}
		} else if pkg == p {
			return true
		}
	}
	return false
}

// TestDependencies checks every package's imports against rules, and its
// test files' against rules and testRules.
func TestDependencies(t *testing.T) {
	allowed := map[string]map[string]bool{}
	lovbench := map[string]bool{}
	for _, r := range rules {
		if allowed[r.pkg] != nil {
			t.Errorf("rule for %s given twice", r.pkg)
		}
		for _, m := range r.may {
			if m == "TESTING" {
				t.Errorf("rule for %s names TESTING, which only tests may use", r.pkg)
			}
		}
		allowed[r.pkg] = expand(r.may)
		lovbench[r.pkg] = true
	}
	inGroup := map[string]bool{}
	for _, g := range groups {
		for _, p := range g.pkgs {
			if !lovbench[p] || !strings.HasPrefix(p, "internal/") {
				t.Errorf("group %s names %s, not a package of internal/ with a rule", g.name, p)
			}
			inGroup[p] = true
		}
	}
	// A rule may only name packages of lower rules: the table is in
	// import order, so no cycle can hide in it.
	seen := map[string]bool{}
	for _, r := range rules {
		for m := range allowed[r.pkg] {
			if lovbench[m] && !seen[m] {
				t.Errorf("rule for %s allows %s, which comes later in the table", r.pkg, m)
			}
		}
		seen[r.pkg] = true
	}
	testAllowed := map[string]map[string]bool{}
	for _, r := range testRules {
		if !lovbench[r.pkg] {
			t.Errorf("test rule for %s, which has no rule", r.pkg)
		}
		if testAllowed[r.pkg] != nil {
			t.Errorf("test rule for %s given twice", r.pkg)
		}
		testAllowed[r.pkg] = expand(r.may)
	}
	pkgs := imports(t, root(t))
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		ok, ruled := allowed[p]
		if !ruled {
			t.Errorf("package %s has no rule in deps_test.go: add one (and to docs/architecture.md)", p)
			continue
		}
		for _, im := range pkgs[p] {
			switch {
			case ok[im.path]:
			case im.test && (im.path == p || testAllowed[p][im.path]):
			case lovbench[im.path] || strings.HasPrefix(im.path, "internal/") || !isStd(im.path):
				if im.test {
					t.Errorf("%s (a test of %s) may not import %s: add it to testRules if a test needs it", im.file, p, im.path)
				} else {
					t.Errorf("%s (package %s) may not import %s", im.file, p, im.path)
				}
			}
		}
	}
	for _, r := range rules {
		if _, ok := pkgs[r.pkg]; !ok {
			t.Errorf("rule for %s, which does not exist", r.pkg)
		}
	}
}

// TestForbidden checks the negative rules on the whole import graph: the
// imports of the non-test files, followed to the end.
func TestForbidden(t *testing.T) {
	pkgs := imports(t, root(t))
	excepted := func(im imp, rule string) bool {
		for _, e := range exceptions {
			if e.file == im.file && e.imports == im.path && e.rule == rule {
				return true
			}
		}
		return false
	}
	used := make([]bool, len(exceptions))
	for _, f := range forbidden {
		// reach returns the lovbench packages the imports of p reach,
		// through excepted edges of this rule only where allowed.
		var reach func(p string, seen map[string]string, via string)
		reach = func(p string, seen map[string]string, via string) {
			for _, im := range pkgs[p] {
				if im.test || excepted(im, f.why) {
					continue
				}
				if _, ok := pkgs[im.path]; !ok {
					continue // the standard library or a module
				}
				if _, ok := seen[im.path]; !ok {
					seen[im.path] = via + " -> " + im.path
					reach(im.path, seen, seen[im.path])
				}
			}
		}
		for _, p := range slices.Sorted(maps.Keys(pkgs)) {
			if !matches(p, f.from) {
				continue
			}
			seen := map[string]string{}
			reach(p, seen, p)
			if f.tests {
				for _, im := range pkgs[p] {
					if !im.test || im.path == p || excepted(im, f.why) {
						continue
					}
					if _, ok := pkgs[im.path]; !ok {
						continue
					}
					if _, ok := seen[im.path]; !ok {
						seen[im.path] = im.file + " -> " + im.path
						reach(im.path, seen, seen[im.path])
					}
				}
			}
			for _, q := range slices.Sorted(maps.Keys(seen)) {
				if matches(q, f.to) && q != p {
					t.Errorf("%s: %s", f.why, seen[q])
				}
			}
		}
		for i, e := range exceptions {
			if e.rule != f.why {
				continue
			}
			for _, im := range pkgs[filepath.ToSlash(filepath.Dir(e.file))] {
				if im.file == e.file && im.path == e.imports {
					used[i] = true
				}
			}
		}
	}
	for i, e := range exceptions {
		if !used[i] {
			t.Errorf("exception %s imports %s (%q) is no longer needed: remove it", e.file, e.imports, e.rule)
		}
		if !strings.Contains(e.todo, "TODO(issue ") {
			t.Errorf("exception %s imports %s names no issue that removes it", e.file, e.imports)
		}
	}
	rules := map[string]bool{}
	for _, f := range forbidden {
		rules[f.why] = true
	}
	for _, e := range exceptions {
		if !rules[e.rule] {
			t.Errorf("exception %s imports %s names no rule of forbidden: %q", e.file, e.imports, e.rule)
		}
	}
}

// docTable renders the tables as docs/architecture.md shows them.
func docTable() string {
	var b strings.Builder
	for _, g := range groups {
		b.WriteString(g.name + " = " + strings.Join(g.pkgs, ", ") + "\n")
	}
	line := func(pkg string, may []string) {
		m := "(standard library only)"
		if len(may) > 0 {
			m = strings.Join(may, ", ")
		}
		b.WriteString(pkg + ": " + m + "\n")
	}
	for _, r := range rules {
		line(r.pkg, r.may)
	}
	b.WriteString("\ntests may also import:\n")
	for _, r := range testRules {
		line(r.pkg+" (tests)", r.may)
	}
	b.WriteString("\nforbidden, with everything reached through others:\n")
	for _, f := range forbidden {
		scope := ""
		if f.tests {
			scope = " (tests too)"
		}
		b.WriteString("! " + strings.Join(f.from, ", ") + " -> " + strings.Join(f.to, ", ") + scope + ": " + f.why + "\n")
	}
	b.WriteString("\nknown exceptions:\n")
	if len(exceptions) == 0 {
		b.WriteString("(none)\n")
	}
	for _, e := range exceptions {
		b.WriteString("~ " + e.file + " imports " + e.imports + " (" + e.rule + "): " + e.todo + "\n")
	}
	return b.String()
}

// TestArchitectureDocMatches: docs/architecture.md's table of allowed
// imports is the one the rules render, line for line.
func TestArchitectureDocMatches(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root(t), "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := docTable()
	const begin, end = "```text deps\n", "```"
	doc := string(b)
	i := strings.Index(doc, begin)
	if i < 0 {
		t.Fatalf("docs/architecture.md has no %q block; it should read:\n%s", strings.TrimSpace(begin), want)
	}
	doc = doc[i+len(begin):]
	got, _, _ := strings.Cut(doc, end)
	if got != want {
		t.Errorf("docs/architecture.md's table of imports differs from deps_test.go's rules; it should read:\n%s", want)
	}
}

// diagramPackages returns the package names of docs/architecture.md's
// picture (its first code block): the words left once the parenthesised
// comments are taken out, with "dir/{a, b}" standing for dir/a and dir/b.
func diagramPackages(t *testing.T, doc string) []string {
	t.Helper()
	i := strings.Index(doc, "\n```\n")
	if i < 0 {
		t.Fatal("docs/architecture.md has no picture (a plain code block)")
	}
	pic, _, _ := strings.Cut(doc[i+5:], "\n```")
	var b strings.Builder
	depth := 0
	for _, r := range pic {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	text := regexp.MustCompile(`([\w/.-]+)/\{([^}]*)\}`).ReplaceAllStringFunc(b.String(), func(m string) string {
		dir, list, _ := strings.Cut(m, "/{")
		var out []string
		for _, x := range strings.Split(strings.TrimSuffix(list, "}"), ",") {
			out = append(out, dir+"/"+strings.TrimSpace(x))
		}
		return strings.Join(out, " ")
	})
	return regexp.MustCompile(`[a-z][a-z0-9]*(/[a-z0-9.-]+)*`).FindAllString(text, -1)
}

// TestArchitectureDiagram: every package named in docs/architecture.md's
// picture exists, and every package of the repository is in it.
func TestArchitectureDiagram(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root(t), "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := imports(t, root(t))
	named := map[string]bool{}
	for _, w := range diagramPackages(t, string(b)) {
		if _, ok := pkgs[w]; !ok {
			t.Errorf("docs/architecture.md's picture names %s, which is no package (comments go in parentheses)", w)
		}
		named[w] = true
	}
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		if !named[p] && p != "." {
			t.Errorf("package %s is missing from docs/architecture.md's picture", p)
		}
	}
}
