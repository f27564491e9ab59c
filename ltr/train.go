package ltr

import (
	"context"
	"fmt"
	"math/rand/v2"
)

// Options configure training. The zero value is not useful; start from
// DefaultOptions.
type Options struct {
	// Metric is optimised (AdaRank, CA, LambdaMART's lambda when NDCG) and
	// used to select the model on the validation set (all rankers).
	Metric Metric
	// Normalization is applied per query before training and scoring.
	Normalization Normalization
	// Seed makes training reproducible.
	Seed       uint64
	RankNet    RankNetParams
	AdaRank    AdaRankParams
	LambdaMART LambdaMARTParams
	CA         CAParams
}

// DefaultOptions returns NDCG@10, z-score normalisation, seed 1 and each
// ranker's default parameters (see the Params types).
func DefaultOptions() Options {
	return Options{
		Metric:        Metric{Kind: MetricNDCG, K: 10},
		Normalization: NormZScore,
		Seed:          1,
		RankNet:       DefaultRankNetParams(),
		AdaRank:       DefaultAdaRankParams(),
		LambdaMART:    DefaultLambdaMARTParams(),
		CA:            DefaultCAParams(),
	}
}

// Train fits a ranker of kind alg on train using the features fids
// (1-based ids), selecting the model on vali when it is not nil. Training
// is single-threaded and depends only on its arguments.
func Train(ctx context.Context, alg Algorithm, train, vali *Dataset, fids []int, opt Options) (*Model, error) {
	if len(fids) == 0 {
		return nil, fmt.Errorf("train %s: no features", alg)
	}
	for _, f := range fids {
		if f < 1 {
			return nil, fmt.Errorf("train %s: feature id %d is not positive", alg, f)
		}
	}
	if train == nil || len(train.Queries) == 0 {
		return nil, fmt.Errorf("train %s: no training queries", alg)
	}
	if opt.Metric.Kind == "" {
		opt.Metric = Metric{Kind: MetricNDCG, K: 10}
	}
	tr := makeTable(train, fids, opt.Normalization)
	var va *table
	if vali != nil && len(vali.Queries) > 0 {
		va = makeTable(vali, fids, opt.Normalization)
	}
	m := &Model{
		Format:        ModelFormat,
		Algorithm:     alg,
		Features:      append([]int(nil), fids...),
		Normalization: opt.Normalization,
		Metric:        opt.Metric.String(),
		Seed:          opt.Seed,
	}
	if m.Normalization == "" {
		m.Normalization = NormNone
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6c7472))
	var err error
	var fit *fitScores // the model's scores when the trainer kept them
	switch alg {
	case RankNet:
		err = trainRankNet(ctx, m, tr, va, opt, rng)
	case AdaRank:
		err = trainAdaRank(ctx, m, tr, va, opt)
	case LambdaMART:
		fit, err = trainLambdaMART(ctx, m, tr, va, opt)
	case CoordAscent:
		err = trainCA(ctx, m, tr, va, opt, rng)
	case Baseline:
		if len(fids) != 1 {
			return nil, fmt.Errorf("baseline ranks by exactly one feature, got %d", len(fids))
		}
		m.Normalization = NormNone
		m.Linear = []LinearTerm{{Column: 0, Weight: 1}}
	default:
		return nil, fmt.Errorf("unknown algorithm %q", alg)
	}
	if err != nil {
		return nil, err
	}
	if fit == nil {
		fit = &fitScores{}
	}
	if fit.train == nil {
		fit.train = m.scoreTable(tr)
	}
	m.TrainScore = newScorer(opt.Metric, tr).mean(tr, fit.train)
	if va != nil {
		if fit.vali == nil {
			fit.vali = m.scoreTable(va)
		}
		m.ValidationScore = newScorer(opt.Metric, va).mean(va, fit.vali)
	}
	return m, nil
}

// BaselineModel returns the unlearned model that ranks by the raw value of
// feature fid (LOVBench's baseline: feature 34, BM25 on rdfs:label).
func BaselineModel(fid int) *Model {
	return &Model{
		Format:        ModelFormat,
		Algorithm:     Baseline,
		Features:      []int{fid},
		Normalization: NormNone,
		Linear:        []LinearTerm{{Column: 0, Weight: 1}},
	}
}
