//go:build fifths

// These tests are the targets of issue 36, part 4, that still FAIL (those
// that pass are in fifths_common_test.go, with the helpers): the sparse
// DBN log's best-observed fifth on seed 1, the project simulator's sparse
// UBM log's ECE, the counts' evidence at scale (docs/clickmodels.md, "On
// the user's path, by evidence fifth" and "The default: the sampler
// where it is affordable"); and, for their cost (5-7 s each), the 100 k
// log the sampler passes, whole and on a subset of its queries. They are
// kept out of the default
// build so that the suite stays green while the work goes on; run them
// with
//
//	go test -tags fifths -run TestFifths ./pipeline/calibration
//
// and move each to fifths_common_test.go once it passes.

package calibration_test

import (
	"context"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/refsim"
	"github.com/lovbench/lovbench/pipeline/calibration"
)

// The second simulator (clickmodels/refsim): dense logs are the issue's
// (60,000 SERPs over 300 queries; DBN also 200,000 over 50), sparse ones
// 5 SERPs per query (10,000 over 2,000 queries).
//
// Every TestFifths* fails on lovbench 9ce8527 (the release these tests were
// written against, before issue 36's fixes); measured there, coverage by
// evidence fifth, least to most, and label ECE:
//
//	RefUBMDense      0.845 0.866 0.833 0.843 0.762  ECE 0.037
//	RefUBMSparse     0.951 0.942 0.910 0.894 0.754  ECE 0.041
//	RefDBNDense      0.968 0.868 0.795 0.781 0.664  ECE 0.039
//	RefDBNVeryDense  0.760 0.653 0.673 0.627 0.433  ECE 0.094
//	RefDBNSparse     0.992 0.983 0.977 0.929 0.676  ECE 0.081
//	SimUBMDense      0.854 0.883 0.821 0.868 0.830  ECE 0.032
//	SimUBMSparse     0.868 0.973 0.899 0.911 0.793  ECE 0.073
//	SimDBNDense      0.991 0.958 0.929 0.893 0.818  ECE 0.090
//	SimDBNSparse     0.989 0.988 0.969 0.940 0.868  ECE 0.082
//
// The best-observed fifth misses in every one (docs/clickmodels.md, "On
// the user's path, by evidence fifth").

// (TestFifthsRefDBNVeryDense is TestFifthsRefDBNVeryDenseWhole now that
// the default path keeps the SERPs without a click.)

// TestFifthsRefDBNSparse: DBN on 10,000 SERPs over 2,000 queries. With
// the default's intervals from the Gibbs sampler (7,500 training SERPs:
// fit --intervals-from auto) it fails in its best-observed fifth on seed
// 1's log, by about one pair of 150: 0.938 0.879 0.888 0.893 0.838, ECE
// 0.042; seed 2's log passes: 0.891 0.928 0.891 0.897 0.903, ECE 0.049.
// With the counts' intervals: 0.989 0.987 0.984 0.971 0.779, ECE 0.102.
func TestFifthsRefDBNSparse(t *testing.T) {
	checkFifths(t, refFifths(t, refsim.DBN, 10000, 2000), false)
}

// The project's simulator (clickmodels/sim, synthetic source).

// (TestFifthsSimUBMDense passes since a prior cell whose pairs identify
// no spread takes none: fifths_common_test.go.)

// TestFifthsSimUBMSparse: every fifth covers (0.97-0.99: the identified
// set) but the label ECE is 0.076 (0.078 before a prior whose pairs
// identify no spread took exactly Beta(1, 1)'s concentration). Not the
// scale alone: with the confidence's
// Beta at the true scale (1/0.8 = 1.25 x the fitted; EM puts the
// examination after a click, truly 0.8, at 0.998) the ECE is 0.080,
// over the whole identified set 0.079. The labels that carry it are the
// prior's: label 0 of pairs whose one observation is a skip right after
// a click (a whole failure at the fitted examination 0.998), confidence
// 0.24-0.45, accuracy 0.04-0.11, under a prior of concentration 2 (the
// spread unidentified in every rank bucket; truly 3-8, and not Beta: the
// engine's lists show the top 10 of 20 uniform relevances). Even the
// oracle Beta prior per cell at the true scale gives 0.054
// (docs/method.md, "What a label's confidence means when the scale is not
// identified"). The spread of the pairs seen once is not in their counts
// (docs/clickmodels.md, "Pairs seen once"): the fitted means with the
// true concentration per cell give 0.090 at the plug-in scales, 0.053
// over the whole identified set, 0.041 at the true scale. UBM's Gibbs
// sampler (LOVBENCH_GIBBS=30+100) leaves it at 0.074 (seed 2: 0.082,
// against 0.079): its complete-data counts of a pair seen once are one
// trial, no more a spread than the expected counts, and it holds the
// fitted scale (docs/clickmodels.md, "A Gibbs sampler of the
// hierarchical UBM, measured and not adopted").
func TestFifthsSimUBMSparse(t *testing.T) {
	checkFifths(t, simFifths(t, clickmodels.UBM, 10000, true), true)
}

// (TestFifthsRefUBMDense and TestFifthsRefUBMDenseAccelerate pass since
// the scale ridge's upper end is bounded by the intervals, not by the
// point estimates: fifths_common_test.go.)

// TestFifthsRefDBNSparseEvidence is the cause under the sparse targets
// above, at scale (docs/clickmodels.md, "Sparse DBN at scale: where the
// bias is"): on 100,000 SERPs over 20,000 queries, the effective counts
// the DBN intervals are built from (clickmodels.Evidence's SatK and SatN)
// must not claim more relevance than the log holds: per group of pairs by
// trials N (from 2 on), sum K / sum (N x true relevance) within 0.95-1.05.
// The control, the same pass at the simulation's true values, holds; at
// the fitted values it fails. Measured on lovbench ee2306d (`go run
// ./bench/calibration -bias -sim ref -serps 100000 -queries 20000`):
//
//	N from          2     4     8     16    64    256
//	fitted values   1.13  1.12  1.09  1.06  1.04  1.02
//	true values     1.03  1.02  1.01  1.00  1.00  0.99
func TestFifthsRefDBNSparseEvidence(t *testing.T) {
	ctx := context.Background()
	cfg := refsim.Default(refsim.DBN, 100000, 20000, 1)
	d, truth, err := calibration.RefData(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := calibration.DBNBias(ctx, d, truth, cfg.Continuation)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("continuation %.4f (truth %.2f)", r.Continuation, r.TrueContinuation)
	for _, g := range r.ByTrials {
		t.Logf("N from %g: %d pairs, rate / truth %.3f at the fitted values, %.3f at the true ones", g.From, g.Pairs, g.RateAtFit, g.RateAtTruth)
		if g.From < 2 {
			continue
		}
		if g.RateAtTruth < 0.95 || g.RateAtTruth > 1.05 {
			t.Errorf("control: N from %g at the true values: rate %.3f x the truth, want 0.95-1.05", g.From, g.RateAtTruth)
		}
		if g.RateAtFit < 0.95 || g.RateAtFit > 1.05 {
			t.Errorf("N from %g at the fitted values: rate %.3f x the truth, want 0.95-1.05", g.From, g.RateAtFit)
		}
	}
}

// TestFifthsRefDBNAtScale holds the default path to the targets on the
// second simulator's DBN log of 100,000 SERPs over 20,000 queries (75,000
// training SERPs: the Gibbs sampler's intervals, fit --intervals-from
// auto), whose truth it must cover in every fifth: 0.939 0.915 0.912
// 0.893 0.890, ECE 0.037 with the pairs shown in 512 SERPs or more held
// (seed 2: 0.910 0.921 0.902 0.888 0.895, ECE 0.034); holding none, 0.940
// 0.915 0.913 0.893 0.891, ECE 0.037 with the streams keyed by names (0.941 0.919
// 0.916 0.906 0.888, ECE 0.038 with them by position; on lovbench 41372a8, before the sampler's draws
// and refits were made cheaper: 0.938 0.916 0.912 0.898 0.888, ECE 0.036;
// the counts' intervals: 0.98 0.98 0.99 0.98 0.96, ECE 0.051; the sampler
// with a cell per rank bucket and exposure class drifted off the truth
// there, 0.90 0.84 0.91 0.79 0.74, ECE 0.159). It passes; it is here for
// its cost (7 s).
func TestFifthsRefDBNAtScale(t *testing.T) {
	checkFifths(t, refFifths(t, refsim.DBN, 100000, 20000), false)
}

// TestFifthsRefDBNSubset holds the sampler on a subset of the queries
// (clickmodels.IntervalsGibbsSubset, auto's choice above 300,000
// training SERPs) to the targets on the log of
// TestFifthsRefDBNAtScale, its subset forced to a tenth of the 75,000
// training SERPs, the share it takes at 750,000: the pairs outside it
// take the counts' Betas corrected by the maps fitted to the subset's
// (seed 1: 0.942 0.903 0.924 0.898 0.889, ECE 0.036; seed 2: 0.925 0.907
// 0.880 0.910 0.884, ECE 0.030; the counts there: 0.98 0.98 0.99 0.98
// 0.96, ECE 0.051). Tagged for its cost, as TestFifthsRefDBNAtScale; the
// logs of 1 M SERPs it stands for are measured by bench/calibration
// (docs/clickmodels.md, "The sampler on a subset of queries").
func TestFifthsRefDBNSubset(t *testing.T) {
	checkFifths(t, refFifthsWith(t, refsim.DBN, 100000, 20000, calibration.Options{Fit: func(c *clickmodels.RunConfig) {
		c.Intervals = clickmodels.IntervalsGibbsSubset
		c.SubsetSERPs = 7500
	}}), false)
}
