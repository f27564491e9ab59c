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

// BenchmarkSelectAgreeing runs the agreeing mode on 8,112 queries of 10
// rows (LOVBench's query count), labels drawn with about the demo's shares
// and the agreement falling with a query's rows of label 1 (as the demo's
// does with its distinct labels), keeping 1%, 10% and half of them; it
// reports the share deviation and tolerance ratio reached, the queries
// kept and their mean agreement.
func BenchmarkSelectAgreeing(b *testing.B) {
	var rows []Candidate
	ag := map[string]float64{}
	x := uint64(7)
	for q := range 8112 {
		name := fmt.Sprintf("query %d", q)
		ones := 0
		for range 10 {
			x = x*6364136223846793005 + 1442695040888963407
			u := float64(x>>11) / (1 << 53)
			l := 0
			switch {
			case u < 0.005:
				l = Junk
			case u < 0.012:
				l = 4
			case u < 0.06:
				l = 3
			case u < 0.09:
				l = 2
			case u < 0.31:
				l = 1
			}
			if l == 1 {
				ones++
			}
			rows = append(rows, Candidate{Query: name, Label: l, Confidence: u})
		}
		ag[name] = 0.9 - 0.04*float64(ones) - 0.001*float64(q%50)
	}
	at := map[int]int{}
	for i, l := range AllLabels() {
		at[l] = i
	}
	for _, f := range []float64{0.01, 0.1, 0.5} {
		b.Run(fmt.Sprint("keep ", f), func(b *testing.B) {
			s := Selection{KeepAgreeing: f, QueryAgreement: ag}
			var v []Verdict
			for b.Loop() {
				v = s.Select(len(rows), func(i int) Candidate { return rows[i] })
			}
			all, kept := make([]int, len(at)), make([]int, len(at))
			queries, sum := map[string]bool{}, 0.0
			for i, r := range rows {
				all[at[r.Label]]++
				if v[i] == Kept {
					kept[at[r.Label]]++
					if !queries[r.Query] {
						queries[r.Query] = true
						sum += ag[r.Query]
					}
				}
			}
			b.ReportMetric(ShareDeviation(all, kept), "share_deviation")
			b.ReportMetric(ToleranceRatio(all, kept, ShareTolerance), "tolerance_ratio")
			b.ReportMetric(float64(len(queries)), "kept_queries")
			b.ReportMetric(sum/float64(len(queries)), "mean_agreement")
		})
	}
}
