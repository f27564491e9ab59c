package labels

import (
	"context"
	"fmt"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// BenchmarkAssign labels a LOV-sized log: 24,259 SERPs of 10 terms over
// 8,112 queries (LOVBench's cleaned log, docs/method.md section 2), with a
// relevance row for every (query, term) shown.
func BenchmarkAssign(b *testing.B) {
	l := &sessions.Log{}
	var rel []Relevance
	seen := map[string]bool{}
	for i := range 24259 {
		q := fmt.Sprintf("query %d", i%8112)
		docs := make([]string, 10)
		for r := range docs {
			docs[r] = fmt.Sprintf("v%d:T%d", (i+r)%50, (i*7+r*(i%3+1))%400)
		}
		if err := l.Add(&sessions.SERP{SessionID: fmt.Sprint(i), Query: q, Region: "0", Results: docs}); err != nil {
			b.Fatal(err)
		}
		for _, d := range docs {
			if !seen[q+"\t"+d] {
				seen[q+"\t"+d] = true
				rel = append(rel, Relevance{Query: q, Doc: d, P: float64(len(rel)%1000) / 1000, Line: len(rel) + 2})
			}
		}
	}
	for b.Loop() {
		if _, _, err := Assign(context.Background(), l, rel, "rel.tsv", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
