package features

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMatchCountIsLenMatches: on the demo's corpus (the 16 embedded
// vocabularies), MatchCount gives len(Matches) for words and two-word
// phrases of the terms' labels (the corpus simulator's candidate queries;
// every fifth, sorted, to keep the test light), words repeated, three
// words, an unknown word and the empty query.
func TestMatchCountIsLenMatches(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("democorpus", "data", "*.nq.gz"))
	if err != nil || len(paths) != 16 {
		t.Fatalf("demo corpus: %d files, %v", len(paths), err)
	}
	c, err := Load(context.Background(), paths, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	queries := map[string]bool{"": true, "zzzqqqx": true, "zzzqqqx person": true}
	for _, uri := range c.Terms() {
		tm, _ := c.Term(uri)
		for _, l := range tm.Labels {
			toks := Tokenize(l.Value)
			for i, w := range toks {
				queries[w] = true
				queries[w+" "+w] = true
				if i > 0 {
					queries[toks[i-1]+" "+w] = true
				}
				if i > 1 {
					queries[toks[i-2]+" "+toks[i-1]+" "+w] = true
				}
			}
		}
	}
	var all []string
	for q := range queries {
		all = append(all, q)
	}
	slices.Sort(all)
	multi, n := 0, 0
	for i, q := range all {
		if i%5 != 0 && q != "" && !strings.HasPrefix(q, "zzz") {
			continue
		}
		n++
		want := len(c.Matches(q))
		if got := c.MatchCount(q); got != want {
			t.Errorf("MatchCount(%q) = %d, len(Matches) = %d", q, got, want)
		}
		if ids, _, _ := c.queryWords(q); len(ids) == 2 && want > len(c.matchPost[ids[0]]) && want > len(c.matchPost[ids[1]]) {
			multi++ // both words add terms: the merge is exercised
		}
	}
	if multi < 50 {
		t.Errorf("only %d two-word queries whose words both add terms", multi)
	}
	t.Logf("%d queries, %d two-word unions", n, multi)
}
