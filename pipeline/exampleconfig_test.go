package pipeline

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// deprecatedKeys are the configuration keys still read but no longer
// shown in examples/lovbench.yaml (ParseConfig warns about them).
var deprecatedKeys = map[string]bool{"click_models.memory_limit": true}

// TestExampleConfigShowsEveryKey: examples/lovbench.yaml shows every key of
// the run's configuration, as its first lines promise ("Every option is
// shown with its default"; a commented-out key counts), each in its
// section, and docs/pipeline.md reproduces the file unchanged. The keys
// are Config's yaml tags, section by section; a key added to Config and
// left out of the example, or an example edited in one of its two homes
// only, fails.
func TestExampleConfigShowsEveryKey(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "examples", "lovbench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	example := string(b)
	shown := exampleKeys(example)
	var want []string
	collectKeys(reflect.TypeFor[Config](), "", "", &want)
	for _, k := range want {
		if !deprecatedKeys[k] && !shown[k] {
			t.Errorf("examples/lovbench.yaml does not show the key %s", k)
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "pipeline.md"))
	if err != nil {
		t.Fatal(err)
	}
	const head = "## Example configuration (`examples/lovbench.yaml`)\n\n```yaml\n"
	_, rest, ok := strings.Cut(string(doc), head)
	if !ok {
		t.Fatalf("docs/pipeline.md has no section starting %q", head)
	}
	block, _, ok := strings.Cut(rest, "```\n")
	if !ok {
		t.Fatal("docs/pipeline.md: the example's yaml block does not end")
	}
	if block != example {
		dl, el := strings.Split(block, "\n"), strings.Split(example, "\n")
		for i := 0; i < min(len(dl), len(el)); i++ {
			if dl[i] != el[i] {
				t.Fatalf("docs/pipeline.md's copy of examples/lovbench.yaml differs at line %d:\n docs:    %q\n example: %q", i+1, dl[i], el[i])
			}
		}
		t.Fatalf("docs/pipeline.md's copy of examples/lovbench.yaml has %d lines, the file %d", len(dl), len(el))
	}
}

// collectKeys appends the yaml keys of t's fields to keys as
// "section.key" (the key's top-level section, prefix; nested sections'
// keys count as their top-level section's).
func collectKeys(t reflect.Type, section, prefix string, keys *[]string) {
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		sec := section
		if sec == "" {
			sec = name
		}
		*keys = append(*keys, prefix+name)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			collectKeys(ft, sec, sec+".", keys)
		}
	}
}

// exampleKeys returns the keys the example shows, commented out or not:
// a top-level key "name" (at the start of a line, or after "# "), and
// within its section "name.key" for every key below it.
func exampleKeys(s string) map[string]bool {
	top := regexp.MustCompile(`^(?:# )?([a-z_]+):`)
	inner := regexp.MustCompile(`^(?:\s+#?|#)\s+([a-z_]+):`)
	keys := map[string]bool{}
	section := ""
	for _, line := range strings.Split(s, "\n") {
		if m := top.FindStringSubmatch(line); m != nil {
			section = m[1]
			keys[section] = true
		} else if m := inner.FindStringSubmatch(line); m != nil && section != "" {
			keys[section+"."+m[1]] = true
		}
	}
	return keys
}
