package ltr

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// updateRankLibGolden makes TestRankLibAgreement (with RANKLIB_JAR) write
// its generated fold, every model and RankLib's scores of each into
// rankLibGoldenDir, with the java commands it ran in commands.txt.
var updateRankLibGolden = flag.Bool("ranklib.update", false, "with RANKLIB_JAR: rewrite "+rankLibGoldenDir+" from a real RankLib")

// rankLibGoldenDir holds what a real RankLib did on the generated fold
// (PROVENANCE.md there), for TestRankLibGolden.
const rankLibGoldenDir = "testdata/ranklib-agreement"

// TestRankLibAgreement moves models both ways between lovbench and a real
// RankLib jar (RANKLIB_JAR; bench/ltr/build_ranklib.sh builds one from
// RankLib's source): for RankNet, AdaRank, LambdaMART and Coordinate
// Ascent and the normalisations none, sum, zscore and linear,
//
//   - lovbench trains, writes the model in RankLib's format, and RankLib
//     scores the test file with it (-load -rank -score -norm);
//   - RankLib trains (-train -save -norm), and lovbench scores the test
//     file with RankLib's model file;
//
// and each time lovbench's scores must equal RankLib's to 1e-6 relative
// and rank every query identically (sameOrder). The data is a generated fold with
// constant features and docid comments, and each fold directory (with
// train.txt and test.txt, e.g. a demo fold) listed in RANKLIB_FOLD
// (separated by the OS path list separator, ':' on Unix). Training is
// shortened (few epochs, rounds and trees): the test is about scoring.
// With -ranklib.update it rewrites the golden files of TestRankLibGolden.
func TestRankLibAgreement(t *testing.T) {
	jar := os.Getenv("RANKLIB_JAR")
	if jar == "" {
		t.Skip("RANKLIB_JAR not set: skipping the run of a RankLib jar (TestRankLibGolden checks RankLib's stored outputs; bench/ltr/build_ranklib.sh builds a jar)")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH: skipping the run of a RankLib jar (TestRankLibGolden checks RankLib's stored outputs)")
	}
	gen, out := t.TempDir(), t.TempDir()
	var commands []string
	record := func([]string) {}
	if *updateRankLibGolden {
		gen, out = rankLibGoldenDir, rankLibGoldenDir
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		old, _ := filepath.Glob(filepath.Join(out, "[lr][bl]_*"))
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
		record = func(args []string) { commands = append(commands, "java -jar RankLib.jar "+strings.Join(args, " ")) }
	}
	writeAgreementFold(t, filepath.Join(gen, "train.txt"), filepath.Join(gen, "test.txt"))
	folds := []string{gen}
	if env := os.Getenv("RANKLIB_FOLD"); env != "" {
		folds = append(folds, filepath.SplitList(env)...)
	}
	for i, fold := range folds {
		name, dir, rec := "generated", out, record
		if i > 0 {
			name, dir, rec = filepath.Base(filepath.Dir(fold))+"_"+filepath.Base(fold), t.TempDir(), func([]string) {}
		}
		t.Run(name, func(t *testing.T) {
			rankLibAgreement(t, java, jar, fold, dir, rec)
		})
	}
	if *updateRankLibGolden {
		text := "# Run in this directory, in this order, by TestRankLibAgreement -ranklib.update\n" +
			"# (RankLib.jar built by bench/ltr/build_ranklib.sh; see PROVENANCE.md).\n" +
			strings.Join(commands, "\n") + "\n"
		if err := os.WriteFile(filepath.Join(out, "commands.txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rankLibRun is one RankLib ranker and the options that shorten its
// training, in RankLib's flags and in lovbench's Options.
type rankLibRun struct {
	alg     Algorithm
	ranker  string
	rlFlags []string
}

// rankLibRuns returns the rankers and normalisations the agreement tests
// cover and lovbench's options matching the RankLib flags.
func rankLibRuns() ([]rankLibRun, []Normalization, Options) {
	algs := []rankLibRun{
		{RankNet, "1", []string{"-epoch", "5"}},
		{AdaRank, "3", []string{"-round", "30"}},
		{LambdaMART, "6", []string{"-tree", "30"}},
		{CoordAscent, "4", []string{"-r", "1", "-i", "5"}},
	}
	opt := DefaultOptions()
	opt.RankNet.Epochs = 5
	opt.AdaRank.Rounds = 30
	opt.LambdaMART.Trees = 30
	opt.CA.Restarts = 1
	opt.CA.MaxIter = 5
	return algs, []Normalization{NormNone, NormSum, NormZScore, NormLinear}, opt
}

// rankLibAgreement runs both directions on the fold in foldDir (train.txt,
// test.txt), writing models and RankLib's scores into dir; java runs in
// dir with paths relative to it, and record gets each command's arguments.
func rankLibAgreement(t *testing.T, java, jar, foldDir, dir string, record func([]string)) {
	foldDir, err := filepath.Abs(foldDir)
	if err != nil {
		t.Fatal(err)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		t.Fatal(err)
	}
	if jar, err = filepath.Abs(jar); err != nil {
		t.Fatal(err)
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(dir, p); err == nil {
			return r
		}
		return p
	}
	train, test := rel(filepath.Join(foldDir, "train.txt")), rel(filepath.Join(foldDir, "test.txt"))
	trDS, teDS, fids := readAgreementFold(t, foldDir)
	runJava := func(args ...string) {
		t.Helper()
		record(args)
		cmd := exec.Command(java, append([]string{"-jar", jar}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("java -jar RankLib %s: %v\n%s", strings.Join(args, " "), err, lastLines(out, 15))
		}
	}
	// rankLibScore has RankLib score the test file with model (a name in
	// dir) into model.score.
	rankLibScore := func(model string, norm Normalization) []float64 {
		t.Helper()
		args := []string{"-load", model, "-rank", test, "-score", model + ".score"}
		if norm != NormNone {
			args = append(args, "-norm", string(norm))
		}
		runJava(args...)
		return readRankLibScores(t, filepath.Join(dir, model+".score"), teDS)
	}
	algs, norms, opt := rankLibRuns()
	for _, a := range algs {
		for _, norm := range norms {
			name := fmt.Sprintf("%s_%s", a.alg, norm)
			t.Run(name+"/lovbench_to_ranklib", func(t *testing.T) {
				m, b := trainRankLibModel(t, a.alg, norm, trDS, fids, opt)
				model := "lb_" + name + ".txt"
				if err := os.WriteFile(filepath.Join(dir, model), b, 0o644); err != nil {
					t.Fatal(err)
				}
				compareScores(t, teDS, m, rankLibScore(model, norm))
			})
			t.Run(name+"/ranklib_to_lovbench", func(t *testing.T) {
				model := "rl_" + name + ".txt"
				args := append([]string{"-train", train, "-ranker", a.ranker, "-metric2t", "NDCG@10", "-save", model}, a.rlFlags...)
				if norm != NormNone {
					args = append(args, "-norm", string(norm))
				}
				runJava(args...)
				m, err := LoadModel(filepath.Join(dir, model))
				if err != nil {
					t.Fatal(err)
				}
				m.Normalization = norm // RankLib does not store it (rank --norm)
				compareScores(t, teDS, m, rankLibScore(model, norm))
			})
		}
	}
}

// TestRankLibGolden proves the agreement with RankLib without a jar, on
// what a real RankLib did with the generated fold of TestRankLibAgreement
// (testdata/ranklib-agreement; PROVENANCE.md there says how it was made):
//
//   - RankLib's models (rl_*.txt): lovbench loads each and must score the
//     test file as RankLib did (rl_*.txt.score), to 1e-6 relative and
//     with every query ranked the same;
//   - lovbench's models (lb_*.txt): lovbench trains each again, writes it
//     in RankLib's format, which must give the bytes RankLib scored, and
//     must score the test file as RankLib did with that file.
//
// A change to training or to the model writer fails the second part; the
// golden files are then rebuilt with a RankLib jar:
//
//	RANKLIB_JAR=... go test ./ltr -run '^TestRankLibAgreement$' -ranklib.update
func TestRankLibGolden(t *testing.T) {
	dir := rankLibGoldenDir
	trDS, teDS, fids := readAgreementFold(t, dir)
	algs, norms, opt := rankLibRuns()
	for _, a := range algs {
		for _, norm := range norms {
			name := fmt.Sprintf("%s_%s", a.alg, norm)
			t.Run(name+"/ranklib_to_lovbench", func(t *testing.T) {
				model := filepath.Join(dir, "rl_"+name+".txt")
				m, err := LoadModel(model)
				if err != nil {
					t.Fatal(err)
				}
				m.Normalization = norm
				compareScores(t, teDS, m, readRankLibScores(t, model+".score", teDS))
			})
			t.Run(name+"/lovbench_to_ranklib", func(t *testing.T) {
				m, b := trainRankLibModel(t, a.alg, norm, trDS, fids, opt)
				model := filepath.Join(dir, "lb_"+name+".txt")
				want, err := os.ReadFile(model)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(b, want) {
					t.Errorf("%s: lovbench now writes a different model than the one RankLib scored; if training changed on purpose, rebuild the golden files (RANKLIB_JAR=... go test ./ltr -run '^TestRankLibAgreement$' -ranklib.update)", model)
				}
				compareScores(t, teDS, m, readRankLibScores(t, model+".score", teDS))
			})
		}
	}
}

// readAgreementFold reads dir/train.txt and dir/test.txt and returns them
// with the feature IDs 1..n they use.
func readAgreementFold(t *testing.T, dir string) (train, test *Dataset, fids []int) {
	t.Helper()
	train, err := ReadSVMLightFile(filepath.Join(dir, "train.txt"))
	if err != nil {
		t.Fatal(err)
	}
	test, err = ReadSVMLightFile(filepath.Join(dir, "test.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fids = make([]int, max(train.NumFeatures, test.NumFeatures))
	for i := range fids {
		fids[i] = i + 1
	}
	return train, test, fids
}

// trainRankLibModel trains alg with opt and normalisation norm and returns
// the model with its file in RankLib's format.
func trainRankLibModel(t *testing.T, alg Algorithm, norm Normalization, train *Dataset, fids []int, opt Options) (*Model, []byte) {
	t.Helper()
	opt.Normalization = norm
	m, err := Train(context.Background(), alg, train, nil, fids, opt)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.WriteRankLib(&b); err != nil {
		t.Fatal(err)
	}
	return m, b.Bytes()
}

// compareScores checks m's scores of every document of ds against
// RankLib's (in file order): equal to 1e-6 relative, and every query
// ranked the same (score descending, file order on equal scores).
func compareScores(t *testing.T, ds *Dataset, m *Model, want []float64) {
	t.Helper()
	off, worst, bad := 0, 0.0, 0
	for qi := range ds.Queries {
		q := &ds.Queries[qi]
		got := m.Scores(q)
		w := want[off : off+len(got)]
		off += len(got)
		for i := range got {
			d := math.Abs(got[i] - w[i])
			scale := math.Max(math.Abs(got[i]), math.Abs(w[i]))
			if d > 1e-6*scale {
				if bad++; bad <= 5 {
					t.Errorf("qid %s doc %d (line %d): lovbench %v, RankLib %v", q.ID, i, q.Docs[i].Line, got[i], w[i])
				}
			}
			if scale > 0 {
				worst = max(worst, d/scale)
			}
		}
		if i, j, ok := sameOrder(got, w); !ok {
			if bad++; bad <= 5 {
				t.Errorf("qid %s ranks differently: docs %d and %d score %v, %v in lovbench but %v, %v in RankLib", q.ID, i, j, got[i], got[j], w[i], w[j])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d disagreements over %d queries", bad, len(ds.Queries))
	}
	t.Logf("%d queries, %d documents: largest relative difference %.3g", len(ds.Queries), off, worst)
}

// sameOrder reports whether a and b rank the documents identically: no
// pair is ordered one way by a and the other way by b, unless the two
// scores lie within 1e-14 relative (a few dozen float64 ulps) of each
// other in both.
// RankNet's logistic units call exp, and Java's Math.exp and Go's
// math.Exp may differ in the last bit (scores then differ by up to 3e-15
// relative), so two documents RankLib ties, or nearly ties, can be a few
// ulps apart the other way here. It returns an offending pair.
func sameOrder(a, b []float64) (int, int, bool) {
	strict := func(x, y float64) int {
		switch {
		case x > y:
			return 1
		case x < y:
			return -1
		}
		return 0
	}
	// Scores within 1e-14 relative in both programs are last-bit noise
	// (Java's and Go's exp differ in the last bit): their order may
	// differ. A threshold applied to each program alone would not do:
	// two scores can lie just inside it in one and just outside in the
	// other.
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-14*math.Max(math.Abs(x), math.Abs(y)) }
	for i := range a {
		for j := i + 1; j < len(a); j++ {
			if strict(a[i], a[j]) != strict(b[i], b[j]) && !(near(a[i], a[j]) && near(b[i], b[j])) {
				return i, j, false
			}
		}
	}
	return 0, 0, true
}

// readRankLibScores reads RankLib's -score output, "qid<TAB>index<TAB>score"
// per document in file order, checking it lines up with ds.
func readRankLibScores(t *testing.T, path string, ds *Dataset) []float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []float64
	sc := bufio.NewScanner(f)
	qi, di := 0, 0
	for sc.Scan() {
		p := strings.Fields(sc.Text())
		if len(p) != 3 {
			t.Fatalf("%s: line %q: want qid, index, score", path, sc.Text())
		}
		for qi < len(ds.Queries) && di == len(ds.Queries[qi].Docs) {
			qi, di = qi+1, 0
		}
		if qi == len(ds.Queries) || p[0] != ds.Queries[qi].ID || p[1] != strconv.Itoa(di) {
			t.Fatalf("%s: line %q out of step with the data (query %d doc %d)", path, sc.Text(), qi, di)
		}
		v, err := strconv.ParseFloat(p[2], 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
		di++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, q := range ds.Queries {
		n += len(q.Docs)
	}
	if len(out) != n {
		t.Fatalf("%s: %d scores for %d documents", path, len(out), n)
	}
	return out
}

// writeAgreementFold writes a generated fold: 60 training and 20 test
// queries of 12 documents and 8 features, with decimal values of many
// digits, one feature constant within every query, and "# docid" comments.
func writeAgreementFold(t *testing.T, train, test string) {
	t.Helper()
	ds, err := Synthetic(SyntheticOptions{Queries: 80, DocsPerQuery: 12, Features: 8, Noise: 0.3, Seed: 17})
	if err != nil {
		t.Fatal(err)
	}
	for qi := range ds.Queries {
		for di := range ds.Queries[qi].Docs {
			d := &ds.Queries[qi].Docs[di]
			d.Features[7] = 2.772588722239781 + float64(qi%3) // constant within the query
			d.Features[2] *= 963.8724964702644
			d.Comment = fmt.Sprintf("docid = d%02d", di)
		}
	}
	for _, part := range []struct {
		path string
		qs   []Query
	}{{train, ds.Queries[:60]}, {test, ds.Queries[60:]}} {
		var b bytes.Buffer
		if err := WriteSVMLight(&b, &Dataset{Queries: part.qs, NumFeatures: ds.NumFeatures}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(part.path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func lastLines(b []byte, n int) string {
	l := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
