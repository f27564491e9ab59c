package features

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lovbench/lovbench/internal/pqfile"
)

// TestCorpusOrigin: a loaded corpus knows its digest, the one the shell
// gives for the same files (`sha256sum c/b.nq c/sub/a.nq p.json | cut -c1-64
// | sha256sum` = 8a8298f8...; the directory read in sorted order, files
// that are no RDF left out, the prefix file last), whatever the
// directory is called; Extract passes it and the semantics to the table,
// and WriteParquet records them with the version in the file's key-value
// metadata, which OriginFromMeta reads back.
func TestCorpusOrigin(t *testing.T) {
	const want = "8a8298f8913ff24673ed873176bdb38354d14699aaafcfc252dfc40aec430e5a"
	root := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("moved/b.nq", "<http://v.org/ns#Thing> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Class> <http://v.org/ns#> .\n")
	write("moved/sub/a.nq", "<http://v.org/ns#Thing> <http://www.w3.org/2000/01/rdf-schema#label> \"Thing\" <http://v.org/ns#> .\n")
	write("moved/notes.txt", "ignored\n")
	prefixes := write("lov.json", `{"head":{"vars":["vocabPrefix","vocabURI","termPrefix"]},"results":{"bindings":[{"vocabPrefix":{"type":"literal","value":"vv"},"vocabURI":{"type":"uri","value":"http://v.org/ns"},"termPrefix":{"type":"uri","value":"http://v.org/ns#"}}]}}`)
	c, err := Load(context.Background(), []string{filepath.Join(root, "moved")}, LoadOptions{Prefixes: prefixes, Semantics: SemanticsPaper})
	if err != nil {
		t.Fatal(err)
	}
	if c.SHA256() != want {
		t.Errorf("corpus digest %s, want %s", c.SHA256(), want)
	}
	tab, _, err := c.Extract(context.Background(), []Pair{{Query: "thing", Term: "http://v.org/ns#Thing"}}, ExtractOptions{Features: []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Origin != (Origin{Semantics: SemanticsPaper, CorpusSHA256: want}) {
		t.Errorf("table origin %+v", tab.Origin)
	}
	tab.Origin.Version = "v1.2.3"
	var b bytes.Buffer
	if err := tab.WriteParquet(&b); err != nil {
		t.Fatal(err)
	}
	pt, err := pqfile.Read(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{MetaSemantics: "paper", MetaCorpusSHA256: want, MetaVersion: "v1.2.3"} {
		if pt.Meta[k] != v {
			t.Errorf("metadata %s = %q, want %q", k, pt.Meta[k], v)
		}
	}
	o, ok, err := OriginFromMeta(pt.Meta)
	if err != nil || !ok || o != tab.Origin {
		t.Errorf("OriginFromMeta = %+v, %v, %v; want %+v", o, ok, err, tab.Origin)
	}
	// Without metadata (an older file): not recorded, no error; a
	// semantics nobody knows: an error naming the key.
	if _, ok, err := OriginFromMeta(map[string]string{}); ok || err != nil {
		t.Errorf("no metadata: %v %v", ok, err)
	}
	if _, _, err := OriginFromMeta(map[string]string{MetaSemantics: "textbook"}); err == nil || !bytes.Contains([]byte(err.Error()), []byte(MetaSemantics)) {
		t.Errorf("unknown semantics: %v", err)
	}
}
