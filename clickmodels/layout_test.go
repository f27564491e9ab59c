package clickmodels

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
)

// engineFiles are the out-of-core engine and Beam's service interface
// (doc.go, "Layout"): they may use the EM core, the core must not use
// them.
var engineFiles = []string{"sharded.go", "shardfit.go", "prepfile.go", "pairmerge.go"}

// TestCoreBelowEngine fails when a file of the EM core names a top-level
// identifier declared in one of engineFiles: the references between the
// two run from the engine to the core only.
func TestCoreBelowEngine(t *testing.T) {
	fs := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fs, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[n] = f
	}
	engine := map[string]string{} // identifier -> its engine file
	for _, n := range engineFiles {
		f, ok := files[n]
		if !ok {
			t.Fatalf("engine file %s is missing: update engineFiles and doc.go", n)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					engine[d.Name.Name] = n
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						engine[s.Name.Name] = n
					case *ast.ValueSpec:
						for _, id := range s.Names {
							engine[id.Name] = n
						}
					}
				}
			}
		}
	}
	var bad []string
	for n, f := range files {
		if slices.Contains(engineFiles, n) {
			continue
		}
		// Selector names (x.Name) are fields or methods, not the engine's
		// top-level identifiers; everything else that resolves to the
		// package scope is a reference.
		sel := map[*ast.Ident]bool{}
		ast.Inspect(f, func(x ast.Node) bool {
			if s, ok := x.(*ast.SelectorExpr); ok {
				sel[s.Sel] = true
			}
			return true
		})
		ast.Inspect(f, func(x ast.Node) bool {
			id, ok := x.(*ast.Ident)
			if !ok || sel[id] {
				return true
			}
			if from, ok := engine[id.Name]; ok && id.Obj == nil {
				bad = append(bad, fs.Position(id.Pos()).String()+": "+id.Name+" of "+from)
			}
			return true
		})
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("the EM core uses the out-of-core engine: %s", b)
	}
}
