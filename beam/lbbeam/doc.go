// Package lbbeam builds lovbench's Apache Beam pipelines, for click logs
// beyond one machine (docs/scale.md, beam/README.md):
//
//   - BuildShard: ingest and clean Yandex logs (docs/method.md section 2, the
//     LOVBench paper's section 4.1 cleaning, with ingest's own cleaner run
//     part by part) into query shards in the format of package shards;
//   - BuildFit: EM for the DCTR, UBM, DBN, SDBN, DCM, CCM and PSCM click models (docs/method.md section
//     3; PyClick's conventions) over a shard directory, one pipeline stage
//     per EM iteration for all models, with the global parameters as a side
//     input and exact sums (clickmodels.ExactSum) so that the outputs equal
//     lovbench fit's byte for byte whatever the runner's merge order;
//     with FitOptions.Intervals gibbs, DBN's and SDBN's Gibbs sampler
//     after EM, one stage per pass over the shards (gibbs.go; the
//     sampler is clickmodels.GibbsShards', histograms summed exactly);
//     with gibbs-subset, the subset of the queries (its rate from the
//     manifest's training SERPs) gathered from the shards and sampled in
//     one element (buildGibbsSubset: three stages, no chain file).
//
// One exception to the project's rule of no global state: a worker
// process keeps the shards its EM steps opened, and the Gibbs sampler's
// chains on them, in a cache (openShards in cache.go), since a DoFn lives no longer than a bundle and each EM step
// is a bundle of its own. The cache is bounded by FitOptions.ShardCache,
// keyed by the SHA-256 of the prepared-shard file (it can never return
// other bytes than the pipeline asks for), holds only what those bytes
// determine, and takes the EM state from the pipeline's elements at every
// use; cache.go says why each of these makes it safe.
//
// The pipelines run on any Beam runner; the tests use Prism, Beam's
// in-process runner. Every path they take may be local or a URL read and
// written through Beam's file-system layer (gs://, s3://, memfs://; see
// fsio.go and beam/README.md, "Paths").
package lbbeam
