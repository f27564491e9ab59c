// Package ltr trains and evaluates learning-to-rank models on the LOVBench
// fold files (docs/method.md sections 7 and 8; LOVBench paper, section 6
// "Learning to rank" and Table 5/6).
//
// Contents, by file:
//
//   - svmlight.go: the SVMlight/RankLib text format
//     (`label qid:N fid:value ... # query term`) and the fold directory
//     layout DIR/Fold1..Fold5/{train,vali,test}.txt.
//   - normalize.go: per-query feature normalisation none, sum, zscore and
//     linear, with RankLib's definitions.
//   - metric.go: the training/selection metric (NDCG@k, ERR@k, MAP) over the
//     measures of package ltr/measures, and ranking by score with ties
//     broken by the stored order of a query's documents, which is docid
//     descending (normalize.go, makeBlock): trec_eval's rule, never the
//     file order.
//   - ties.go: the tie rules of the test measures (docid, optimistic,
//     pessimistic, exact average; package measures) and the tie rate.
//   - ranknet.go: RankNet (Burges et al. 2005) as RankLib defines it: one
//     hidden layer of sigmoid units, a sigmoid output, pairwise
//     cross-entropy, best epoch on the validation set.
//   - adarank.go: AdaRank (Xu & Li 2007) as RankLib implements it: single
//     features as weak rankers, its "enqueue" trick and tolerance stop.
//   - lambdamart.go: LambdaMART (Burges 2010): gradient-boosted regression
//     trees fitted to lambda gradients with the NDCG@k swap delta, Newton
//     leaf values, histogram split finding, validation early stopping.
//   - coordascent.go: Coordinate Ascent (Metzler & Croft 2007) on a linear
//     model, with restarts, as RankLib's CoorAscent searches.
//   - model.go: the JSON model format shared by all rankers.
//   - experiment.go, results.go: the LOVBench experiment of Table 6 (every
//     Table 5 configuration over the five folds, against the unlearned
//     baseline feature 34) and its results CSV/JSON, with every
//     configuration's significance against the baseline on the pooled
//     test queries (measures.Significance, Holm-corrected by default).
//   - summary.go: the summary `lovbench ltr` prints and the Verdict, which
//     names a best learned ranker only when it is significantly better
//     than the baseline after correction.
//   - configs.go: the Table 5 configurations, embedded in the binary.
//   - trec.go: TREC run output for `lovbench rank`.
//
// Every trainer is single-threaded and seeded, so a model depends only on
// its inputs and seed; the experiment runs independent (algorithm,
// configuration, fold) jobs in parallel and collects them by index, so the
// outputs are identical for any number of workers.
package ltr
