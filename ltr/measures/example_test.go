package measures_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/lovbench/lovbench/ltr/measures"
)

// Labels of one query in ranked order, RankLib conventions. By hand:
// ERR@3 = 7/16 + (9/16)(3/16)/2 + (9/16)(13/16)(7/16)/3 = 0.5569;
// AP (relevant = label >= 1 at ranks 1 2 3 5 6) = (1+1+1+4/5+5/6)/5 = 0.9267.
func ExampleNDCG() {
	labels := []float64{3, 2, 3, 0, 1, 2}
	fmt.Printf("NDCG@3 %.4f\n", measures.NDCG(labels, 3))
	fmt.Printf("ERR@3  %.4f\n", measures.ERR(labels, 3))
	fmt.Printf("AP     %.4f\n", measures.AP(labels, 1))
	// Output:
	// NDCG@3 0.9595
	// ERR@3  0.5569
	// AP     0.9267
}

// Ranking R5 of Table 1 of papers/retrieval-correctness-measures.md: AWP
// rewards it less than R6 although R5 is the better ranking; the corrected
// ANCG does not.
func ExampleANCG() {
	r5 := []float64{0, 0, 0, 3, 6, 10, 0, 0, 0}
	r6 := []float64{0, 0, 0, 0, 0, 10, 6, 3, 0}
	ideal := []float64{10, 6, 3, 0, 0, 0, 0, 0, 0}
	fmt.Printf("AWP  R5 %.2f R6 %.2f\n", measures.AWP(r5, ideal), measures.AWP(r6, ideal))
	fmt.Printf("ANCG R5 %.2f R6 %.2f\n", measures.ANCG(r5, ideal), measures.ANCG(r6, ideal))
	// Output:
	// AWP  R5 0.54 R6 0.79
	// ANCG R5 0.51 R6 0.37
}

// Relaxed precision and recall: the retrieved Puppy is a direct sub-class
// of the relevant Dog.
func ExampleRelaxedPR() {
	h := measures.MapHierarchy{"Puppy": {"Dog"}, "Dog": {"Animal"}}
	p, r := measures.RelaxedPR([]string{"Puppy", "Car"}, []string{"Dog"}, h, measures.Effort)
	fmt.Printf("P %.2f R %.2f\n", p, r)
	// Output:
	// P 0.30 R 0.60
}

// Evaluating a TREC run against qrels.
func ExampleEvaluate() {
	q, _ := measures.ParseQrels(strings.NewReader("q1 0 a 2\nq1 0 b 1\n"), "qrels")
	run, _ := measures.ParseRun(strings.NewReader("q1 Q0 b 1 0.9 x\nq1 Q0 a 2 0.5 x\n"), "run")
	opts := measures.DefaultOptions()
	opts.Measures, _ = measures.ParseMeasures("p@1,mrr,map")
	res, _ := measures.Evaluate(context.Background(), q, run, opts)
	for _, m := range res.Measures {
		fmt.Printf("%s %.4f\n", m, res.Mean[m])
	}
	// Output:
	// p@1 1.0000
	// mrr 1.0000
	// map 1.0000
}
