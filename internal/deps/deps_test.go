package deps

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path of the repository's root module; beam/'s
// module lies under it (github.com/lovbench/lovbench/beam).
const module = "github.com/lovbench/lovbench"

// helpers are the small packages of internal/ that any stage may use
// (HELPERS in the rules). They import the standard library and their own
// third-party dependency only.
var helpers = []string{
	"internal/atomicfile", "internal/buildinfo", "internal/bytesize", "internal/filehash", "internal/hashes", "internal/membudget", "internal/par",
	"internal/pqfile", "internal/progress", "internal/textio",
}

// rules says, package by package from the bottom up, what each may import
// besides the standard library: lovbench packages by their path in the
// repository, HELPERS for every package of helpers, third-party modules'
// packages by their import path. docs/architecture.md shows the same
// table (TestArchitectureDocMatches).
var rules = []struct {
	pkg string
	may []string
}{
	// The helpers of internal/, and those of the tests (refdata,
	// testskips).
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
	{"internal/par", []string{"golang.org/x/sync/errgroup"}},
	{"internal/pqfile", []string{"github.com/klauspost/compress/s2", "github.com/parquet-go/parquet-go", "github.com/parquet-go/parquet-go/format"}},
	{"internal/progress", []string{"github.com/schollz/progressbar/v3", "golang.org/x/term"}},
	{"internal/deps", nil},

	// The log: sessions, then the train/test split below everything that
	// fits or shards a log.
	{"sessions", []string{"HELPERS", "github.com/parquet-go/parquet-go"}},
	{"sessions/split", []string{"HELPERS", "sessions"}},
	{"ingest/pii", []string{"HELPERS"}},
	{"ingest", []string{"HELPERS", "ingest/pii", "sessions"}},
	{"ingest/ingesttest", []string{"ingest"}},
	{"shards", []string{"HELPERS", "sessions", "sessions/split", "github.com/parquet-go/parquet-go"}},
	{"clickmodels", []string{"HELPERS", "sessions", "sessions/split", "gonum.org/v1/gonum/mathext"}},
	{"clickmodels/sim", []string{"clickmodels", "sessions"}},
	{"clickmodels/outofcore", []string{"HELPERS", "sessions", "sessions/split", "clickmodels"}},

	// Labels, sampling and the corpus.
	{"labels", []string{"HELPERS", "sessions", "clickmodels", "clickmodels/sim", "gonum.org/v1/gonum/stat"}},
	{"sampling", []string{"HELPERS", "labels"}},
	{"features/rdf", []string{"HELPERS"}},
	{"features/democorpus", []string{"HELPERS"}},
	{"features", []string{"HELPERS", "features/rdf"}},
	{"clickmodels/sim/corpussim", []string{"clickmodels", "clickmodels/sim", "features", "features/democorpus", "sessions"}},

	// The dataset and learning to rank.
	{"export", []string{"HELPERS", "features", "labels", "sampling", "gopkg.in/yaml.v3",
		"github.com/apache/arrow-go/v18/arrow", "github.com/apache/arrow-go/v18/arrow/array",
		"github.com/apache/arrow-go/v18/arrow/ipc", "github.com/apache/arrow-go/v18/arrow/memory"}},
	{"ltr/measures", []string{"HELPERS", "gonum.org/v1/gonum/stat/distuv"}},
	{"ltr", []string{"HELPERS", "ltr/measures"}},

	// The pipeline and the command.
	{"pipeline/report", []string{"labels", "ltr", "ltr/measures"}},
	{"pipeline/internal/browsertest", nil},
	{"pipeline", []string{"HELPERS", "sessions", "sessions/split", "ingest", "shards", "clickmodels",
		"clickmodels/outofcore", "clickmodels/sim", "clickmodels/sim/corpussim", "labels", "sampling", "features", "features/democorpus", "export", "ltr",
		"ltr/measures", "pipeline/report", "gonum.org/v1/gonum/stat", "gopkg.in/yaml.v3"}},
	{"cmd/lovbench", []string{"HELPERS", "sessions", "sessions/split", "ingest", "ingest/pii", "shards",
		"clickmodels", "clickmodels/sim", "clickmodels/sim/corpussim", "labels", "sampling", "features", "export", "ltr",
		"ltr/measures", "pipeline", "pipeline/report", "github.com/spf13/cobra", "github.com/spf13/pflag"}},

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
	{"bench/calibration", []string{"clickmodels", "clickmodels/sim", "clickmodels/sim/corpussim", "features", "labels"}},
	{"bench/clickmodels", []string{"clickmodels", "clickmodels/sim", "sessions", "internal/refdata"}},
	{"bench/confidence", []string{"pipeline", "pipeline/report"}},
	{"bench/features", []string{"features", "internal/refdata"}},
	{"bench/ingest", []string{"ingest"}},
	{"bench/ltr", []string{"ltr"}},
	{"bench/scale", nil},
}

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

// imports returns, by package directory relative to dir, the imports of
// its non-test Go files: lovbench packages by their path in the
// repository, others as written.
func imports(t *testing.T, dir string) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
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
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
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
			pkgs[pkg] = append(pkgs[pkg], p)
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

// TestDependencies checks every package's imports against rules.
func TestDependencies(t *testing.T) {
	allowed := map[string]map[string]bool{}
	lovbench := map[string]bool{}
	for _, r := range rules {
		if allowed[r.pkg] != nil {
			t.Errorf("rule for %s given twice", r.pkg)
		}
		allowed[r.pkg] = map[string]bool{}
		lovbench[r.pkg] = true
		for _, m := range r.may {
			if m == "HELPERS" {
				for _, h := range helpers {
					allowed[r.pkg][h] = true
				}
				continue
			}
			allowed[r.pkg][m] = true
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
	pkgs := imports(t, root(t))
	var names []string
	for p := range pkgs {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		ok, ruled := allowed[p]
		if !ruled {
			t.Errorf("package %s has no rule in deps_test.go: add one (and to docs/architecture.md)", p)
			continue
		}
		for _, im := range pkgs[p] {
			switch {
			case ok[im]:
			case lovbench[im] || strings.HasPrefix(im, "internal/") || !isStd(im):
				t.Errorf("%s may not import %s", p, im)
			}
		}
	}
	for _, r := range rules {
		if _, ok := pkgs[r.pkg]; !ok {
			t.Errorf("rule for %s, which does not exist", r.pkg)
		}
	}
}

// TestArchitectureDocMatches: docs/architecture.md's table of allowed
// imports is the one rules renders, line for line.
func TestArchitectureDocMatches(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root(t), "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	want.WriteString("HELPERS = " + strings.Join(helpers, ", ") + "\n")
	for _, r := range rules {
		may := "(standard library only)"
		if len(r.may) > 0 {
			may = strings.Join(r.may, ", ")
		}
		want.WriteString(r.pkg + ": " + may + "\n")
	}
	const begin, end = "```text deps\n", "```"
	doc := string(b)
	i := strings.Index(doc, begin)
	if i < 0 {
		t.Fatalf("docs/architecture.md has no %q block; it should read:\n%s", strings.TrimSpace(begin), want.String())
	}
	doc = doc[i+len(begin):]
	got, _, _ := strings.Cut(doc, end)
	if got != want.String() {
		t.Errorf("docs/architecture.md's table of imports differs from deps_test.go's rules; it should read:\n%s", want.String())
	}
}
