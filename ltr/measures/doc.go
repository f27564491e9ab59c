// Package measures implements the retrieval-effectiveness measures and the
// significance tests of the lovbench evaluation (docs/method.md section 8).
//
// Sources, by file:
//
//   - ranklib.go: NDCG, DCG, ERR and AP over one query's labels in ranked
//     order, with the conventions of RankLib (gain 2^g-1, discount log2(i+1),
//     ERR with a maximum grade of 4) that the LOVBench paper used
//     (papers/lovbench-ontology-ranking-benchmark.md, evaluation section).
//   - graded.go: the graded measures AWP, AWDP, Q-measure, GenAveP, Kendall's
//     tau' (papers/retrieval-correctness-measures.md section 3.1) and their
//     corrected versions ANCG, ANDCG and GenAveP' (section 3.3), with the
//     gain and discount functions of sections 3.1 and 3.3.
//   - beyond.go: HR@k, MRR@k, PC, CC@k and LTP@k
//     (papers/matchmaking-offline-evaluation.md).
//   - relaxed.go: relaxed precision and recall over a class/property
//     hierarchy (papers/relaxed-precision-recall.md) with an optimal
//     assignment computed by the Hungarian algorithm (hungarian.go).
//   - trec.go: TREC qrels and run files, ordered as trec_eval orders them.
//   - stats.go: paired t-test, Wilcoxon signed-rank test and a seeded paired
//     randomisation test; significance.go: what a comparison with a baseline
//     reports beside its p-value (mean difference with its paired t
//     interval, Cohen's d_z, wins/ties/losses) and the Holm (1979) and
//     Bonferroni corrections for the number of comparisons; compare.go:
//     eval's comparisons of runs; sensitivity.go: rank swaps between measures and
//     gain settings (papers/retrieval-correctness-measures.md section 4).
package measures
