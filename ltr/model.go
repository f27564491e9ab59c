package ltr

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/textio"
)

// Algorithm names a ranker.
type Algorithm string

// The rankers.
const (
	// RankNet is Burges et al. (2005) as RankLib defines it.
	RankNet Algorithm = "ranknet"
	// AdaRank is Xu & Li (2007) as RankLib implements it.
	AdaRank Algorithm = "adarank"
	// LambdaMART is Burges (2010): boosted trees on lambda gradients.
	LambdaMART Algorithm = "lambdamart"
	// CoordAscent is Coordinate Ascent (Metzler & Croft 2007).
	CoordAscent Algorithm = "ca"
	// Baseline ranks by one feature's raw value, unlearned.
	Baseline Algorithm = "baseline"
)

// Algorithms lists the learning algorithms in report order.
var Algorithms = []Algorithm{RankNet, AdaRank, LambdaMART, CoordAscent}

// ParseAlgorithm accepts ranknet, adarank, lambdamart, ca (also
// "coordascent", the spelling of the run configuration,
// "coordinate-ascent", "coorascent").
func ParseAlgorithm(s string) (Algorithm, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "ranknet":
		return RankNet, nil
	case "adarank":
		return AdaRank, nil
	case "lambdamart":
		return LambdaMART, nil
	case "ca", "coordascent", "coordinate-ascent", "coordinateascent", "coorascent":
		return CoordAscent, nil
	}
	return "", fmt.Errorf("unknown algorithm %q (want ranknet, adarank, lambdamart, or ca / coordascent)", s)
}

// DisplayName is the ranker's name in result tables ("RankNet", ...).
func (a Algorithm) DisplayName() string {
	switch a {
	case RankNet:
		return "RankNet"
	case AdaRank:
		return "AdaRank"
	case LambdaMART:
		return "LambdaMART"
	case CoordAscent:
		return "CoordinateAscent"
	case Baseline:
		return ConfigBaseline
	}
	return string(a)
}

// ModelFormat identifies the JSON model format and its version.
const ModelFormat = "lovbench-ltr-model/1"

// Model is a trained ranker, saved as JSON (see docs/ltr.md). A document's
// score is computed from the values of Features (1-based feature ids, in
// this order: "column" j below is Features[j]) after the per-query
// Normalization; exactly one of RankNet, Linear and Trees is set.
type Model struct {
	Format        string        `json:"format"`
	Algorithm     Algorithm     `json:"algorithm"`
	Features      []int         `json:"features"`
	Normalization Normalization `json:"normalization"`
	// Metric is the measure optimised and used for model selection.
	Metric string `json:"metric"`
	Seed   uint64 `json:"seed"`
	// TrainScore and ValidationScore are Metric on the training and
	// validation data of the saved model (0 without validation data).
	TrainScore      float64 `json:"train_score"`
	ValidationScore float64 `json:"validation_score"`
	// Iterations is the number of epochs (RankNet), rounds (AdaRank),
	// trees (LambdaMART) or coordinate passes (CA) kept in the model.
	Iterations int `json:"iterations"`

	RankNet *RankNetWeights `json:"ranknet,omitempty"`
	Linear  []LinearTerm    `json:"linear,omitempty"`
	Trees   []Tree          `json:"trees,omitempty"`
}

// RankNetWeights are the weights of a one-hidden-layer network: hidden unit
// h computes sigmoid(sum_j Hidden[h][j]*x_j + Hidden[h][d]) and the score is
// sigmoid(sum_h Output[h]*hidden_h + Output[H]) (the last entry of each
// vector is the bias, RankLib's bias neuron).
type RankNetWeights struct {
	Hidden [][]float64 `json:"hidden"`
	Output []float64   `json:"output"`
}

// LinearTerm adds Weight times the value of column Column (an index into
// Model.Features) to the score. AdaRank lists one term per round, so a
// column may appear several times; Coordinate Ascent lists each column once.
type LinearTerm struct {
	Column int     `json:"column"`
	Weight float64 `json:"weight"`
}

// Tree is a regression tree; the score is the sum of the trees' outputs.
// Node 0 is the root. An internal node sends x to Left when
// x[Column] <= Threshold, else to Right; a leaf has Column = -1 and returns
// Value (the learning rate already applied). As in RankLib, the comparison
// is in float32 (the feature values are float32 and Threshold is rounded
// to float32) and the sum over the trees is accumulated in float32, each
// tree's Value added in float64 and the sum rounded (RankLib's Ensemble
// eval, s += output * weight with float s). LambdaMART stores float32 leaf
// values; a RankLib model's Value is its float32 output times its float32
// tree weight, exact in float64.
type Tree struct {
	Nodes []TreeNode `json:"nodes"`
}

// TreeNode is one node of a Tree.
type TreeNode struct {
	Column    int     `json:"column"`
	Threshold float64 `json:"threshold,omitempty"`
	Left      int     `json:"left,omitempty"`
	Right     int     `json:"right,omitempty"`
	Value     float64 `json:"value,omitempty"`
}

func (t *Tree) eval(x []float64) float64 {
	i := 0
	for {
		n := &t.Nodes[i]
		if n.Column < 0 {
			return n.Value
		}
		if float32(x[n.Column]) <= float32(n.Threshold) {
			i = n.Left
		} else {
			i = n.Right
		}
	}
}

// Validate checks the model's structure, so that scoring cannot index out
// of range.
func (m *Model) Validate() error {
	if m.Format != ModelFormat {
		return fmt.Errorf("model format %q, want %q", m.Format, ModelFormat)
	}
	if _, err := ParseNormalization(string(m.Normalization)); err != nil {
		return err
	}
	d := len(m.Features)
	if d == 0 {
		return fmt.Errorf("model has no features")
	}
	for _, f := range m.Features {
		if f < 1 {
			return fmt.Errorf("model feature id %d is not positive", f)
		}
	}
	set := 0
	if m.RankNet != nil {
		set++
		if len(m.RankNet.Hidden) == 0 || len(m.RankNet.Output) != len(m.RankNet.Hidden)+1 {
			return fmt.Errorf("ranknet: %d hidden units but %d output weights (want hidden+1)", len(m.RankNet.Hidden), len(m.RankNet.Output))
		}
		for h, w := range m.RankNet.Hidden {
			if len(w) != d+1 {
				return fmt.Errorf("ranknet: hidden unit %d has %d weights, want %d (features+bias)", h, len(w), d+1)
			}
		}
	}
	if m.Linear != nil {
		set++
		for _, t := range m.Linear {
			if t.Column < 0 || t.Column >= d {
				return fmt.Errorf("linear term column %d out of range [0,%d)", t.Column, d)
			}
		}
	}
	if m.Trees != nil {
		set++
		for ti, t := range m.Trees {
			if len(t.Nodes) == 0 {
				return fmt.Errorf("tree %d has no nodes", ti)
			}
			for ni, n := range t.Nodes {
				if n.Column < 0 {
					continue
				}
				if n.Column >= d || n.Left <= ni || n.Right <= ni || n.Left >= len(t.Nodes) || n.Right >= len(t.Nodes) {
					return fmt.Errorf("tree %d node %d: bad column or children", ti, ni)
				}
			}
		}
	}
	if set != 1 {
		return fmt.Errorf("model must have exactly one of ranknet, linear, trees (has %d)", set)
	}
	return nil
}

// scoreRow scores one normalised feature row.
func (m *Model) scoreRow(x []float64) float64 {
	switch {
	case m.RankNet != nil:
		return rankNetForward(m.RankNet, x, nil)
	case m.Linear != nil:
		s := 0.0
		for _, t := range m.Linear {
			s += t.Weight * x[t.Column]
		}
		return s
	default:
		var s float32 // RankLib's Ensemble.eval
		for i := range m.Trees {
			s = float32(float64(s) + m.Trees[i].eval(x))
		}
		return float64(s)
	}
}

// Scores returns the model's score of every document of q, in file order.
func (m *Model) Scores(q *Query) []float64 {
	b := makeBlock(q, m.Features, m.Normalization)
	s := m.scoreBlock(&b)
	if b.perm == nil {
		return s
	}
	out := make([]float64, len(s))
	for i, di := range b.perm {
		out[di] = s[i]
	}
	return out
}

func (m *Model) scoreBlock(b *block) []float64 {
	d := len(m.Features)
	out := make([]float64, b.n)
	if m.RankNet == nil && m.Linear == nil {
		// Trees, one at a time over the block's rows (a tree's nodes stay
		// in cache): each row's score is the same sum, in the same order,
		// as scoreRow's.
		for ti := range m.Trees {
			t := &m.Trees[ti]
			for i := range out {
				out[i] = float64(float32(out[i] + t.eval(b.x[i*d:(i+1)*d])))
			}
		}
		return out
	}
	for i := range out {
		out[i] = m.scoreRow(b.x[i*d : (i+1)*d])
	}
	return out
}

// scoreTable scores every document of t, query after query.
func (m *Model) scoreTable(t *table) []float64 {
	out := make([]float64, 0, t.rows)
	for qi := range t.blocks {
		out = append(out, m.scoreBlock(&t.blocks[qi])...)
	}
	return out
}

// WriteJSON writes the model as indented JSON.
func (m *Model) WriteJSON(w io.Writer) error {
	if err := m.checkFinite(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func (m *Model) checkFinite() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	if m.RankNet != nil {
		for _, w := range m.RankNet.Hidden {
			for _, v := range w {
				if bad(v) {
					return fmt.Errorf("ranknet model has a non-finite weight (training diverged; lower the learning rate)")
				}
			}
		}
		for _, v := range m.RankNet.Output {
			if bad(v) {
				return fmt.Errorf("ranknet model has a non-finite weight (training diverged; lower the learning rate)")
			}
		}
	}
	for _, t := range m.Linear {
		if bad(t.Weight) {
			return fmt.Errorf("%s model has a non-finite weight", m.Algorithm)
		}
	}
	for _, t := range m.Trees {
		for _, n := range t.Nodes {
			if bad(n.Value) || bad(n.Threshold) {
				return fmt.Errorf("tree model has a non-finite value")
			}
		}
	}
	if bad(m.TrainScore) || bad(m.ValidationScore) {
		return fmt.Errorf("model has a non-finite score")
	}
	return nil
}

// SaveModel writes m to path atomically.
func SaveModel(path string, m *Model) error {
	return atomicfile.WriteFile(path, m.WriteJSON)
}

// ReadModel parses and validates a JSON model.
func ReadModel(r io.Reader, name string) (*Model, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var m Model
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &m, nil
}

// LoadModel reads a model file: lovbench's JSON (ReadModel) or RankLib's
// text format (ReadRankLibModel), told apart by the first non-blank
// character, '{' or '#'. Errors name the format expected.
func LoadModel(path string) (*Model, error) {
	b, err := textio.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return readAnyModel(b, path)
}
