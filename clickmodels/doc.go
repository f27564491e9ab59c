// Package clickmodels fits the click models of PyClick's family to a click
// log and evaluates them: the EM core of the click-model stage (see
// "Rooms" for the out-of-core engine and the simulator). It implements the click
// model stage of the LOVBench paper (section 4.2, "Relevance from clicks") with
// the conventions of docs/method.md section 3, which follow PyClick (Chuklin, Markov
// and de Rijke, Click Models for Web Search, 2015, chapters 3 and 4) so that
// results are comparable with the published benchmark.
//
// # Models
//
// Eleven models are provided (see Kind): GCTR, RCTR, DCTR and CM are
// estimated in one counting pass (maximum likelihood with PyClick's pseudo
// counts); PBM, UBM, DBN, CCM and PSCM by batch expectation maximisation
// (EM); SDBN and DCM by EM with their exact E-steps under EstimatorExact,
// the default, and by PyClick's counting pass under EstimatorPyClick
// (Kind.EM). PSCM, the partially sequential click model (Wang et
// al., SIGIR 2015, section 4; pscm.go), is not PyClick's: it reads the
// order of the clicks (sessions.ClickOrder), which Data keeps per record
// beside the click masks the other models read. Its reference is the
// authors' code, whose three departures from the model (listed in pscm.go
// and docs/clickmodels.md, "PSCM") Options.PSCMAuthors reproduces.
// Every parameter starts at 0.5 and carries the prior numerator 1 and
// denominator 2; in each EM iteration every parameter is recomputed from
// that prior plus the expected counts under the previous iteration's values,
// and EM values are capped at 1 - 1e-6 (PyClick's ParamEM.PROB_MIN).
//
// The E-step and M-step of each model are those of PyClick, including its
// quirks, so that log-likelihood, perplexity and relevance agree with
// PyClick to 1e-6 on the shared reference log (tested):
//
//   - a SERP without clicks has "last click rank" n (the SERP length), so DBN
//     and CCM treat every rank of such a SERP as examined by the continuation
//     update and give no attractiveness mass to its ranks;
//   - the DBN/CCM continuation update evaluates the probability of the clicks
//     below rank r with the parameters of ranks 0, 1, ... rather than r+1,
//     r+2, ... (PyClick's _get_tail_clicks indexes the session parameters by
//     the offset from the start rank);
//   - the cascade model gives probability 1e-6 to every rank after the first
//     click in the conditional probabilities.
//
// Options.Exact replaces PyClick's E-steps of DBN and CCM and its counting
// passes of SDBN and DCM by exact E-steps (Chuklin et al. 2015, section
// 4.2; estepCascadeExact, estepCCMExact), which converge to simulated
// parameters but no longer equal PyClick; SDBN and DCM are then fitted by
// EM (Kind.EM). Estimator (estimator.go) names the two estimators:
// EstimatorExact (exact E-step, EM to DefaultTolerance), the default of
// every command, and EstimatorPyClick (PyClick's, 50 iterations).
// Options.Accelerate, part of EstimatorExact (fit --accelerate=false turns
// it off), reaches EstimatorExact's stopping point in fewer iterations by
// SQUAREM (Varadhan and Roland, Scand. J. Statist. 2008, scheme SqS3 with
// a monotone safeguard; accel.go), in every engine alike.
//
// UBM's examination parameter is indexed by (rank, rank of the previous
// click); "no previous click" is index R-1 of an R x R table, R being the
// model's number of ranks (at least 10, PyClick's fixed size). PyClick uses
// M-1 with M the SERP's own length, which is the same for full SERPs and
// never collides with a real previous click (a click at rank R-1 has no rank
// after it).
//
// # Engine
//
// Prepare aggregates training SERPs into weighted records (identical query,
// documents and click mask; an exact optimisation), groups them by query, and
// cuts them into chunks at query boundaries; Fit runs EM on a prepared Data. A chunk touches only the (query, document)
// parameters of its own queries, so chunks are processed in parallel without
// locks; rank-level and global parameters are accumulated per chunk and
// reduced in chunk order. Chunking does not depend on the number of workers,
// so results are bit-identical for any Options.Workers.
//
// # Evaluation
//
// Evaluate computes PyClick's log-likelihood (mean over SERPs of the mean
// over ranks of ln P(c_r | c_<r)) and perplexity (per rank
// 2^(-mean log2 P(c_r)) with unconditional click probabilities, then the mean
// over ranks). Split, RandomSplit and TimeSplit build train/test logs.
//
// # Uncertainty
//
// With Options.Level (90% by default), Fit computes after the last
// iteration every pair's Evidence (effective successes and trials from the
// E-step's posteriors), and the relevance file gets, per pair, the Beta
// distribution of the relevance under a prior fitted to the log per rank
// bucket and exposure class (impressions) by marginal likelihood (its
// concentration bounded by the spread the pairs identify), and its
// interval (see uncertainty.go and
// docs/clickmodels.md, "Uncertainty of the relevance"). The point
// estimates are PyClick's, unchanged. Model.OracleRelevanceDists replaces
// the fitted priors by ones moment-matched to a simulation's truth in the
// same (rank bucket, exposure class) cells, for the calibration
// ablations.
//
// PBM and UBM are identified only up to a scale (alpha * c, gamma / c):
// their intervals cover the identified set, every scale that keeps all
// probabilities at most 1, per connected component of the log's
// identifiability graph (Chen et al., "Identifiability Matters", ICML
// 2024: ranks joined by a pair shown at both), and a disconnected graph is
// reported in metrics.json and logged (identify.go; docs/clickmodels.md,
// "What a log identifies").
//
// # Files
//
// Run (the fit command) writes metrics.json, <MODEL>_relevance.tsv and the
// parameter file: <MODEL>_params.json (Model.WriteJSON, ReadModel) up to
// ParamsJSONMaxPairs pairs, else <MODEL>_params.parquet (paramsparquet.go;
// RunConfig.ParamsFormat chooses). Model.WriteFiles writes a model's files,
// ParamsPath finds its parameter file and LoadModel reads either form.
// WriteModelFiles (merge.go) merges shards' models into one set of files;
// WritePairFile and WriteModelFilesFromPairs (pairmerge.go) keep a shard
// model's pairs in a pair file until they are merged. docs/clickmodels.md
// documents the formats and choices.
//
// # Rooms
//
// This package is the EM core. The out-of-core engine (RunShards, the
// prepared-shard file, docs/scale.md) is package clickmodels/outofcore,
// and the simulator package clickmodels/sim (with the corpus simulator,
// package corpussim, above it); all import this package, which imports
// none of them (internal/deps holds the order). For them it exports a
// narrow interface: PrepareSource (a shard's prepared data), DataParts (a
// Data's arrays, for the prepared-shard file), ShardFit with
// NewShardFitShared and FitShards (EM over shards; also Beam's service
// interface), EvalSums.AddPrepared, Model.WriteFilesReport and the pair
// files.
package clickmodels
