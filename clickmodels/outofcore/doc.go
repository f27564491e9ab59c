// Package outofcore is the out-of-core engine of the click-model stage
// (the LOVBench paper, section 4.2, "Relevance from clicks", on logs
// larger than memory; docs/scale.md): it fits the click models of package
// clickmodels on a log cut into query shards (sessions/split.Source) with
// outputs bit-identical to clickmodels.Run on the whole log, for any
// number of shards, workers and any memory limit.
//
// PrepareShard prepares one shard (its training data, its test SERPs and
// the log position of each query's first SERP) into a PreparedShard;
// RunShards prepares every shard and fits every model on all of them
// together (per EM iteration every shard's E-step, then the global M-step
// from the exact sums of all shards), in phases: prepare (holding shards
// within RunConfig.PreparedBudget, spilling the others to prepared-shard
// files), then per model load or fit and finish, then write. Under a
// budget the shards' pair values and the fitted pairs also wait in files
// (clickmodels' pair files) in a temporary directory under the output
// directory. DBN's and SDBN's Gibbs sampler runs after EM, one pass over
// the shards per sweep (clickmodels.GibbsShards), or, on a subset of the
// queries, on the subset gathered from the shards in one pass and
// sampled in memory (GibbsShards.Gather, RunParts).
//
// The prepared-shard file (prepfile.go; format version
// PreparedShardVersion, documented in docs/scale.md, "Prepared-shard
// file") is also how lovbench-beam hands shards to its workers
// (WritePreparedShardFile, ReadPreparedShardFile, UnmarshalPreparedShard).
//
// The package sits above the EM core: it imports clickmodels, which
// never imports it.
package outofcore
