// Package lbbeam builds lovbench's Apache Beam pipelines, for click logs
// beyond one machine (docs/scale.md, beam/README.md):
//
//   - BuildShard: ingest and clean Yandex logs (docs/method.md section 2, the
//     LOVBench paper's section 4.1 cleaning, with ingest's own cleaner run
//     part by part) into query shards in the format of package shards;
//   - BuildFit: EM for the DCTR, UBM and DBN click models (docs/method.md section
//     3; PyClick's conventions) over a shard directory, one pipeline stage
//     per EM iteration, with the global parameters as a side input and
//     exact sums (clickmodels.ExactSum) so that the outputs equal lovbench
//     fit's byte for byte whatever the runner's merge order.
//
// The pipelines run on any Beam runner; the tests use Prism, Beam's
// in-process runner. Every path they take may be local or a URL read and
// written through Beam's file-system layer (gs://, s3://, memfs://; see
// fsio.go and beam/README.md, "Paths").
package lbbeam
