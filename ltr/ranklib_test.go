package ltr

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs builds a query whose documents have the given dense feature
// vectors (feature 1 first).
func docs(vs ...[]float64) *Query {
	q := &Query{ID: "1"}
	for _, v := range vs {
		q.Docs = append(q.Docs, Doc{Features: v})
	}
	return q
}

func loadTestModel(t *testing.T, file string) *Model {
	t.Helper()
	m, err := LoadModel(filepath.Join("testdata", "ranklib", file))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// The files in testdata/ranklib are written by hand in the layouts of
// RankLib 2.x's Ranker.model(); the expected scores are computed by hand
// from RankLib's scoring rules (LambdaMART: sum of weight * leaf output,
// left when value <= threshold; CA and AdaRank: sum of weight * value;
// RankNet: logistic units, RankLib's wiring order).
func TestReadRankLibLambdaMARTByHand(t *testing.T) {
	m := loadTestModel(t, "lambdamart.txt")
	if m.Algorithm != LambdaMART || len(m.Trees) != 2 || m.Normalization != NormNone {
		t.Fatalf("read %s with %d trees, norm %s", m.Algorithm, len(m.Trees), m.Normalization)
	}
	q := docs(
		[]float64{-2, 9, 0.5},    // tree 1: f3 <= 0.5, f1 <= -1.25 -> 2.0; tree 2: f1 <= 0 -> 0.1
		[]float64{-1.25, 0, 0.6}, // tree 1: f3 > 0.5 -> 4.0; tree 2: 0.1
		[]float64{3, 0, -1},      // tree 1: f1 > -1.25 -> -1.0; tree 2: f1 > 0 -> -0.5
		[]float64{-1.25, 0, 0.5}, // both thresholds hit exactly: left, left -> 2.0; 0.1
	)
	// RankLib's Ensemble.eval: float s; s += output * weight, with the
	// outputs and weights read as float32 and each product in double.
	ens := func(outs ...float64) float64 {
		var s float32
		for _, o := range outs {
			s = float32(float64(s) + float64(float32(o))*float64(float32(0.1)))
		}
		return float64(s)
	}
	want := []float64{ens(2.0, 0.1), ens(4.0, 0.1), ens(-1.0, -0.5), ens(2.0, 0.1)}
	for i, s := range m.Scores(q) {
		if s != want[i] {
			t.Errorf("doc %d: score %v, want %v", i, s, want[i])
		}
	}
}

func TestReadRankLibLinearByHand(t *testing.T) {
	ca := loadTestModel(t, "ca.txt")
	ada := loadTestModel(t, "adarank.txt")
	if ca.Algorithm != CoordAscent || ada.Algorithm != AdaRank {
		t.Fatalf("algorithms %s, %s", ca.Algorithm, ada.Algorithm)
	}
	q := docs([]float64{1, 2, 3}, []float64{4, 0, -4})
	if s := ca.Scores(q); s[0] != 0.5*1-0.25*2+0.25*3 || s[1] != 0.5*4+0.25*-4 {
		t.Errorf("CA scores %v, want [0.75 1]", s)
	}
	if s := ada.Scores(q); s[0] != 0.75*2+0.5*1+0.25*2 || s[1] != 0.5*4 {
		t.Errorf("AdaRank scores %v, want [2.5 2]", s)
	}
}

func TestReadRankLibRankNetByHand(t *testing.T) {
	m := loadTestModel(t, "ranknet.txt")
	sig := func(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
	q := docs([]float64{1, 7, 2}, []float64{-0.5, 0, 0.25})
	for i, s := range m.Scores(q) {
		x1, x3 := q.Docs[i].Features[0], q.Docs[i].Features[2]
		// Line "0 0 0.5 -1.0": input 0 (feature 1) to hidden 0 and 1;
		// "0 1 0.25 2.0": feature 3; "0 2 0.1 -0.2 0.3": the bias to
		// hidden 0, hidden 1 and the output; "1 j v": hidden j to output.
		h0 := sig(0.5*x1 + 0.25*x3 + 0.1)
		h1 := sig(-1.0*x1 + 2.0*x3 - 0.2)
		want := sig(1.5*h0 - 0.5*h1 + 0.3)
		if !near(s, want) {
			t.Errorf("doc %d: score %v, want %v", i, s, want)
		}
	}
}

// What lovbench writes has RankLib's layout, checked on a small model
// against text written out by hand.
func TestWriteRankLibLayout(t *testing.T) {
	m := &Model{Format: ModelFormat, Algorithm: LambdaMART, Features: []int{4, 2}, Normalization: NormZScore,
		Trees: []Tree{{Nodes: []TreeNode{{Column: 1, Threshold: 0.5, Left: 1, Right: 2}, {Column: -1, Value: 0.03}, {Column: -1, Value: -1e-05}}},
			{Nodes: []TreeNode{{Column: -1, Value: 2}}}}}
	var b bytes.Buffer
	if err := m.WriteRankLib(&b); err != nil {
		t.Fatal(err)
	}
	want := "## LambdaMART\n" +
		"## Written by lovbench from lovbench-ltr-model/1 (algorithm lambdamart)\n" +
		"## Normalization = zscore (score with RankLib's -norm zscore)\n" +
		"## No. of trees = 2\n" +
		"## Leaf outputs include the learning rate; every tree has weight 1\n" +
		"\n" +
		"<ensemble>\n" +
		"\t<tree id=\"1\" weight=\"1\">\n" +
		"\t\t<split>\n" +
		"\t\t\t<feature>2 </feature>\n" +
		"\t\t\t<threshold> 0.5 </threshold>\n" +
		"\t\t\t<split pos=\"left\">\n" +
		"\t\t\t\t<output>0.03 </output>\n" +
		"\t\t\t</split>\n" +
		"\t\t\t<split pos=\"right\">\n" +
		"\t\t\t\t<output>-1e-05 </output>\n" +
		"\t\t\t</split>\n" +
		"\t\t</split>\n" +
		"\t</tree>\n" +
		"\t<tree id=\"2\" weight=\"1\">\n" +
		"\t\t<split>\n" +
		"\t\t\t<output>2 </output>\n" +
		"\t\t</split>\n" +
		"\t</tree>\n" +
		"</ensemble>\n"
	if b.String() != want {
		t.Fatalf("wrote\n%s\nwant\n%s", b.String(), want)
	}

	rn := &Model{Format: ModelFormat, Algorithm: RankNet, Features: []int{1, 3}, Normalization: NormNone,
		RankNet: &RankNetWeights{Hidden: [][]float64{{0.5, 0.25, 0.1}, {-1, 2, -0.2}}, Output: []float64{1.5, -0.5, 0.3}}}
	b.Reset()
	if err := rn.WriteRankLib(&b); err != nil {
		t.Fatal(err)
	}
	// The same network as testdata/ranklib/ranknet.txt.
	wantBody := "1 3\n1\n2\n0 0 0.5 -1\n0 1 0.25 2\n0 2 0.1 -0.2 0.3\n1 0 1.5\n1 1 -0.5\n"
	if !strings.HasPrefix(b.String(), "## RankNet\n") || !strings.HasSuffix(b.String(), "## Layer 1: 2 neurons\n"+wantBody) {
		t.Fatalf("RankNet written as\n%s", b.String())
	}
	ca := &Model{Format: ModelFormat, Algorithm: CoordAscent, Features: []int{7, 2}, Normalization: NormLinear,
		Linear: []LinearTerm{{Column: 0, Weight: 0.75}, {Column: 1, Weight: -0.25}}}
	b.Reset()
	if err := ca.WriteRankLib(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "## Coordinate Ascent\n") || !strings.HasSuffix(b.String(), "\n7:0.75 2:-0.25\n") ||
		!strings.Contains(b.String(), "## Normalization = linear (score with RankLib's -norm linear)\n") {
		t.Fatalf("CA written as\n%s", b.String())
	}
}

// Every trained model written in RankLib's format and read back scores
// exactly as the original, normalisation included.
func TestRankLibRoundTrip(t *testing.T) {
	ds, err := Synthetic(SyntheticOptions{Queries: 40, DocsPerQuery: 8, Features: 9, Noise: 0.3, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	folds := MakeFolds(ds, 2)
	opt := DefaultOptions()
	opt.RankNet.Epochs, opt.LambdaMART.Trees, opt.CA.Restarts = 5, 20, 1
	for _, alg := range Algorithms {
		m, err := Train(context.Background(), alg, folds[0].Train, folds[0].Vali, []int{1, 2, 3, 5, 6, 7}, opt)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := m.WriteRankLib(&b); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "m.txt")
		os.WriteFile(p, b.Bytes(), 0o644)
		back, err := LoadModel(p)
		if err != nil {
			t.Fatalf("%s: %v\n%s", alg, err, b.String())
		}
		if back.Algorithm != alg || back.Normalization != m.Normalization {
			t.Fatalf("%s read back as %s with norm %s", alg, back.Algorithm, back.Normalization)
		}
		for qi := range folds[0].Test.Queries {
			q := &folds[0].Test.Queries[qi]
			a, c := m.Scores(q), back.Scores(q)
			for i := range a {
				if a[i] != c[i] {
					t.Fatalf("%s query %s doc %d: %v after the round trip, %v before", alg, q.ID, i, c[i], a[i])
				}
			}
		}
	}
}

func TestReadModelErrorsNameTheFormat(t *testing.T) {
	cases := map[string]string{
		"hello\n":              "not a model file: want a lovbench JSON model (lovbench-ltr-model/1, starting with '{') or a RankLib text model (first line \"## LambdaMART\"",
		"{\"format\": 3}":      "(read as a lovbench JSON model, lovbench-ltr-model/1)",
		"## SVMRank\n1:1\n":    "RankLib model of ranker \"SVMRank\": lovbench reads \"## LambdaMART\", \"## Coordinate Ascent\", \"## AdaRank\" or \"## RankNet\"",
		"# x\n## LambdaMART\n": "m.txt:1: not a RankLib model: the first line must be",
		"## LambdaMART\n<ensemble>\n<tree id=\"1\">\n<split><output>1</output></split></tree></ensemble>\n":                                                                                                         "m.txt:3: RankLib LambdaMART model: <tree> 1 has no weight attribute",
		"## LambdaMART\n<ensemble>\n<tree weight=\"1\"><split><feature>0</feature>":                                                                                                                                 "RankLib LambdaMART model: feature id \"0\"",
		"## LambdaMART\n<ensemble><tree weight=\"1\"><split><feature>2</feature><threshold>1</threshold><split><output>1</output></split></split></tree></ensemble>":                                                "want <split>, found </split>",
		"## LambdaMART\n<ensemble><tree weight=\"1\"><split><feature>2</feature><threshold>1</threshold><split pos=\"right\"><output>1</output></split><split><output>2</output></split></split></tree></ensemble>": "pos=\"right\", want \"left\"",
		"## LambdaMART\n<ensemble>\n</ensemble>\n": "no trees",
		"## LambdaMART\n## x\n\n<ensemble><tree weight=\"1\"><split><output>NaN</output></split></tree></ensemble>": "leaf output \"NaN\" is not a finite number",
		"## Coordinate Ascent\n1:0.5 2:x\n":                           "m.txt:2: RankLib Coordinate Ascent model: pair 2: weight \"x\" is not a finite number",
		"## Coordinate Ascent\n## only comments\n":                    "RankLib Coordinate Ascent model: no weight line",
		"## AdaRank\n1:0.5 2\n":                                       "m.txt:2: RankLib AdaRank model: pair 2 \"2\": want fid:weight",
		"## RankNet\n1 2\n2\n3\n4\n":                                  "m.txt:3: RankLib RankNet model: \"2\" hidden layers: lovbench reads RankNet models with exactly 1 hidden layer",
		"## RankNet\n1 2\n1\n2\n0 0 1 1\n0 1 1 1\n0 2 1 1 1\n1 0 1\n": "no weights for hidden neuron 1",
		"## RankNet\n1 2\n1\n2\n0 0 1\n":                              "m.txt:5: RankLib RankNet model: input neuron 0 has 1 weights, want 2",
		"## Coordinate Ascent\n## Normalization = l2\n1:1\n":          "m.txt:2: RankLib Coordinate Ascent model: unknown normalisation",
	}
	for in, want := range cases {
		p := filepath.Join(t.TempDir(), "m.txt")
		os.WriteFile(p, []byte(in), 0o644)
		_, err := LoadModel(p)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), p) {
			t.Errorf("%q:\nerror %v\nwant one starting with the file and containing %q", in, err, want)
		}
	}
}

func TestParseModelFileFormats(t *testing.T) {
	if f, err := ParseModelFileFormats("json,ranklib"); err != nil || len(f) != 2 || f[1].Extension() != ".ranklib.txt" {
		t.Fatalf("%v %v", f, err)
	}
	for _, bad := range []string{"xml", "json,json", ""} {
		if _, err := ParseModelFileFormats(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzReadRankLibModel: any input either fails to load or gives a valid
// model that scores without panic; a RankLib model that loads writes back
// to RankLib text that loads to a model with the same scores.
func FuzzReadRankLibModel(f *testing.F) {
	for _, n := range []string{"lambdamart.txt", "ca.txt", "adarank.txt", "ranknet.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", "ranklib", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("## Coordinate Ascent\n## Normalization = zscore\n1:1 1:-2 # c\n")
	q := docs([]float64{0.2, 5, 1}, []float64{0.9, -1, 0}, []float64{-3, 0.5, 2})
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	f.Fuzz(func(t *testing.T, in string) {
		m, err := readAnyModel([]byte(in), "fuzz")
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("loaded an invalid model: %v", err)
		}
		s := m.Scores(q)
		if !strings.HasPrefix(in, "##") {
			return
		}
		var b bytes.Buffer
		if err := m.WriteRankLib(&b); err != nil {
			return // e.g. a leaf output * tree weight that overflows
		}
		back, err := readAnyModel(b.Bytes(), "fuzz2")
		if err != nil {
			t.Fatalf("re-read: %v\n%s", err, b.String())
		}
		for i, v := range back.Scores(q) {
			if !same(v, s[i]) {
				t.Fatalf("doc %d: %v after writing, %v before\n%s", i, v, s[i], b.String())
			}
		}
	})
}
