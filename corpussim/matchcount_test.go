package corpussim

import (
	"slices"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/features"
)

// TestMatchCountIsLenMatches: the count the candidates are picked by,
// features.Corpus.MatchCount, is len(Matches) on the demo's corpus (the
// 16 embedded vocabularies) for words and two-word phrases of the terms'
// labels (the candidate queries; every fifth, sorted, to keep the test
// light), words repeated, three words, an unknown word and the empty
// query.
func TestMatchCountIsLenMatches(t *testing.T) {
	c := loadDemoCorpus(t)
	queries := map[string]bool{"": true, "zzzqqqx": true, "zzzqqqx person": true}
	for _, uri := range c.Terms() {
		tm, _ := c.Term(uri)
		for _, l := range tm.Labels {
			toks := features.Tokenize(l.Value)
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
		// Two words that each add terms: the merge of two postings.
		if w := strings.Fields(q); len(w) == 2 && w[0] != w[1] && want > len(c.Matches(w[0])) && want > len(c.Matches(w[1])) {
			multi++
		}
	}
	if multi < 50 {
		t.Errorf("only %d two-word queries whose words both add terms", multi)
	}
	t.Logf("%d queries, %d two-word unions", n, multi)
}

// BenchmarkCandidates measures the candidate queries' selection on the
// demo's corpus (the embedded vocabularies), a fixed cost of every
// simulated run and of simulate --corpus.
func BenchmarkCandidates(b *testing.B) {
	s := &Source{corpus: loadDemoCorpus(b), opts: Options{SERPSize: 10}}
	b.ReportAllocs()
	for b.Loop() {
		if cands, _, _ := s.candidates(); len(cands) == 0 {
			b.Fatal("no candidates")
		}
	}
}
