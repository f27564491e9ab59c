package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/features"
)

// gzBOM writes a copy of the file at path with a UTF-8 BOM put in front of
// its text and the whole gzip-compressed, under a name without ".gz" (so
// only the magic bytes can tell), and returns the copy's path.
func gzBOM(t *testing.T, path string) string {
	t.Helper()
	return gzBOMAs(t, path, path+".bomgz")
}

// gzBOMAs is gzBOM writing to p.
func gzBOMAs(t *testing.T, path, p string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write([]byte("\xef\xbb\xbf"))
	w.Write(b)
	w.Close()
	if err := os.WriteFile(p, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fileWriter returns a function that writes s to name under dir (making
// its parent directories) and returns the file's path.
func fileWriter(t *testing.T, dir string) func(name, s string) string {
	return func(name, s string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := runCLI(t, append([]string{"-q"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	return out
}

// Every command that reads a text file gives the
// same result on the plain file and on the file with a leading BOM and
// gzip-compressed (detected by magic bytes). The expected value is the run
// on the plain file, whose content the other tests check.
func TestInputsGzipAndBOM(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := fileWriter(t, dir)

	t.Run("eval", func(t *testing.T) {
		q := write("q.txt", "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n")
		r := write("r.txt", "q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\nq2 Q0 d3 1 1 t\n")
		want := mustRun(t, "eval", "--qrels", q, "--run", r, "--json")
		if got := mustRun(t, "eval", "--qrels", gzBOM(t, q), "--run", gzBOM(t, r), "--json"); got != want {
			t.Errorf("eval on gzip+BOM:\n%s\nwant\n%s", got, want)
		}
	})

	t.Run("features", func(t *testing.T) {
		corpus := write("v.nq", cliCorpus)
		pairs := write("pairs.csv", "query,term\ndog,v:Dog\ndog,http://v.org/Cat\n")
		o1, o2 := filepath.Join(dir, "f1.csv"), filepath.Join(dir, "f2.csv")
		mustRun(t, "features", "--corpus", corpus, "--pairs", pairs, "--out", o1, "--features", "1,7")
		mustRun(t, "features", "--corpus", gzBOMAs(t, corpus, filepath.Join(dir, "bom.nq")), "--pairs", gzBOM(t, pairs), "--out", o2, "--features", "1,7")
		if a, b := mustRead(t, o1), mustRead(t, o2); a != b {
			t.Errorf("features: %q vs %q", a, b)
		}
	})

	t.Run("export-ltr-rank", func(t *testing.T) {
		var gt, feats strings.Builder
		gt.WriteString("query,term,label\n")
		feats.WriteString("query,term")
		for i := 1; i <= 33; i++ {
			feats.WriteString("," + features.FeatureName(i))
		}
		feats.WriteString("\n")
		for q := range 10 {
			for tm := range 4 {
				fmt.Fprintf(&gt, "q%d,http://x.org/T%d,%d\n", q, tm, (q+tm)%5)
				fmt.Fprintf(&feats, "q%d,http://x.org/T%d", q, tm)
				for j := range 33 {
					fmt.Fprintf(&feats, ",%g", float64(q*tm+j)/7)
				}
				feats.WriteString("\n")
			}
		}
		gtp, fp := write("gt.csv", gt.String()), write("feats.csv", feats.String())
		d1, d2 := filepath.Join(dir, "ds1"), filepath.Join(dir, "ds2")
		mustRun(t, "export", "--ground-truth", gtp, "--features", fp, "--seed", "2", "--out", d1)
		mustRun(t, "export", "--ground-truth", gzBOM(t, gtp), "--features", gzBOM(t, fp), "--seed", "2", "--out", d2)
		for _, f := range []string{"qrels.txt", "Fold1/train.txt", "Fold3/test.txt"} {
			if a, b := mustRead(t, filepath.Join(d1, f)), mustRead(t, filepath.Join(d2, f)); a != b {
				t.Errorf("export %s differs", f)
			}
		}
		// ltr and rank on fold files compressed in place.
		for fold := 1; fold <= 5; fold++ {
			for _, n := range []string{"train.txt", "vali.txt", "test.txt"} {
				p := filepath.Join(d2, fmt.Sprintf("Fold%d", fold), n)
				if err := os.Rename(gzBOM(t, p), p); err != nil {
					t.Fatal(err)
				}
			}
		}
		args := []string{"ltr", "--algorithms", "adarank", "--configs", "simple", "--permutations", "10", "--adarank-rounds", "3", "--baseline-feature", "1"}
		l1, l2 := filepath.Join(dir, "ltr1"), filepath.Join(dir, "ltr2")
		mustRun(t, append(args, "--data", d1, "--out", l1)...)
		mustRun(t, append(args, "--data", d2, "--out", l2)...)
		model := "models/adarank_LOVSimple_Fold1.json"
		if a, b := mustRead(t, filepath.Join(l1, model)), mustRead(t, filepath.Join(l2, model)); a != b {
			t.Errorf("ltr on gzip+BOM folds trains another model")
		}
		r1 := mustRun(t, "rank", "--model", filepath.Join(l1, model), "--data", filepath.Join(d1, "Fold1", "test.txt"))
		r2 := mustRun(t, "rank", "--model", gzBOM(t, filepath.Join(l1, model)), "--data", filepath.Join(d2, "Fold1", "test.txt"))
		if r1 != r2 || r1 == "" {
			t.Errorf("rank on gzip+BOM: %q vs %q", r2, r1)
		}
		// `rank` on an empty data file.
		empty := write("empty.txt", "")
		if code, _, errs := runCLI(t, "-q", "rank", "--model", filepath.Join(l1, model), "--data", empty); code != 1 || !strings.Contains(errs, empty) || !strings.Contains(errs, "--allow-empty") {
			t.Errorf("rank on an empty file: exit %d, %q", code, errs)
		}
		if out := mustRun(t, "--allow-empty", "rank", "--model", filepath.Join(l1, model), "--data", empty); out != "" {
			t.Errorf("rank --allow-empty on an empty file printed %q", out)
		}
	})

	t.Run("label-sample-fit", func(t *testing.T) {
		log := write("log.tsv", "s1\t0\tQ\tperson\t0\tex:P0\tex:P1\tex:P2\n"+
			"s1\t1\tC\tex:P0\n"+
			"s2\t0\tQ\tperson\t0\tex:P0\tex:P1\tex:P2\n"+
			"s2\t1\tC\tex:P1\n")
		rel := write("rel.tsv", "query\tdoc\trelevance\nperson\tex:P0\t0.7\nperson\tex:P1\t0.45\nperson\tex:P2\t0.1\n")
		f1, f2 := filepath.Join(dir, "fit1"), filepath.Join(dir, "fit2")
		mustRun(t, "fit", "--log", log, "--models", "dctr", "--out", f1, "--iterations", "2")
		mustRun(t, "fit", "--log", gzBOM(t, log), "--models", "dctr", "--out", f2, "--iterations", "2")
		if a, b := mustRead(t, filepath.Join(f1, "DCTR_relevance.tsv")), mustRead(t, filepath.Join(f2, "DCTR_relevance.tsv")); a != b {
			t.Errorf("fit on gzip+BOM: %q vs %q", b, a)
		}
		l1, l2 := filepath.Join(dir, "l1.csv"), filepath.Join(dir, "l2.csv")
		mustRun(t, "label", "--relevance", rel, "--sessions", log, "--serp-size", "3", "--out", l1)
		mustRun(t, "label", "--relevance", gzBOM(t, rel), "--sessions", gzBOM(t, log), "--serp-size", "3", "--out", l2)
		if a, b := mustRead(t, l1), mustRead(t, l2); a != b || !strings.Contains(a, "person,ex:P0,4") {
			t.Errorf("label on gzip+BOM: %q vs %q", b, a)
		}
		corpus := write("c.ttl", "@prefix ex: <http://ex.org/v#> .\n@prefix owl: <http://www.w3.org/2002/07/owl#> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"+
			"ex:P0 a owl:Class ; rdfs:label \"person zero\" .\nex:P1 a owl:Class ; rdfs:label \"person one\" .\nex:P2 a owl:Class ; rdfs:label \"person two\" .\nex:P3 a owl:Class ; rdfs:label \"person three\" .\n")
		g1, g2 := filepath.Join(dir, "g1.csv"), filepath.Join(dir, "g2.csv")
		mustRun(t, "sample", "--labels", l1, "--corpus", corpus, "--out", g1, "--per-query", "4")
		mustRun(t, "sample", "--labels", gzBOM(t, l1), "--corpus", corpus, "--out", g2, "--per-query", "4")
		if a, b := mustRead(t, g1), mustRead(t, g2); a != b {
			t.Errorf("sample on gzip+BOM: %q vs %q", b, a)
		}
	})
}

// An empty input, or one whose records are all rejected,
// is an error (exit 1) naming the file and the counts, unless --allow-empty
// is given (exit 0).
func TestEmptyInputIsAnError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := fileWriter(t, dir)
	empty := write("empty.txt", "")
	badYandex := write("bad.tsv", "x\ty\n\n")
	okLog := write("ok.tsv", "s1\t0\tQ\tperson\t0\tex:P0\tex:P1\ns1\t1\tC\tex:P0\n")
	relHeader := write("rel.tsv", "query\tdoc\trelevance\n")
	relBad := write("relbad.tsv", "query\tdoc\trelevance\nperson\tex:P0\tzz\n")
	relOK := write("relok.tsv", "query\tdoc\trelevance\nperson\tex:P0\t0.5\n")
	labelsHeader := write("labels.csv", "query,term,label,probability\n")
	corpus := write("v.nq", cliCorpus)
	pairsHeader := write("pairs.csv", "query,term\n")
	pairsUnknown := write("pairsu.csv", "query,term\ndog,v:Zebra\n")
	qrels := write("q.txt", "q1 0 d1 1\n")
	run := write("r.txt", "q1 Q0 d1 1 1 t\n")
	lovQ := write("lq.jsonl", "not json\n")
	lovC := write("lc.jsonl", "")
	cases := []struct {
		name    string
		file    string // must be named in the message
		args    []string
		noAllow bool // nothing to compute: an error even with --allow-empty
	}{
		{"ingest yandex empty", empty, []string{"ingest", "--format", "yandex", "--log", empty, "--out", filepath.Join(dir, "i1")}, false},
		{"ingest yandex all bad", badYandex, []string{"ingest", "--format", "yandex", "--log", badYandex, "--out", filepath.Join(dir, "i2")}, false},
		{"ingest lov all bad", lovQ, []string{"ingest", "--queries", lovQ, "--clicks", lovC, "--out", filepath.Join(dir, "i3")}, false},
		{"fit empty", empty, []string{"fit", "--log", empty, "--models", "dctr", "--out", filepath.Join(dir, "f1")}, true},
		{"label empty relevance", relHeader, []string{"label", "--relevance", relHeader, "--sessions", okLog, "--out", filepath.Join(dir, "l1.csv")}, false},
		{"label all-bad relevance", relBad, []string{"label", "--relevance", relBad, "--sessions", okLog, "--out", filepath.Join(dir, "l2.csv")}, false},
		{"label empty sessions", empty, []string{"label", "--relevance", relOK, "--sessions", empty, "--out", filepath.Join(dir, "l3.csv")}, false},
		{"sample empty", labelsHeader, []string{"sample", "--labels", labelsHeader, "--corpus", corpus, "--out", filepath.Join(dir, "g.csv")}, false},
		{"features empty", pairsHeader, []string{"features", "--corpus", corpus, "--pairs", pairsHeader, "--out", filepath.Join(dir, "f.csv")}, false},
		{"features all skipped", pairsUnknown, []string{"features", "--corpus", corpus, "--pairs", pairsUnknown, "--unknown", "skip", "--out", filepath.Join(dir, "f2.csv")}, false},
		{"eval empty qrels", empty, []string{"eval", "--qrels", empty, "--run", run}, true},
		{"eval empty run", empty, []string{"eval", "--qrels", qrels, "--run", empty}, false},
		{"export empty ground truth", labelsHeader, []string{"export", "--ground-truth", labelsHeader, "--features", pairsHeader, "--out", filepath.Join(dir, "ds")}, true},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, append([]string{"-q"}, c.args...)...)
		if code != 1 || !strings.Contains(errs, c.file) || (!c.noAllow && !strings.Contains(errs, "--allow-empty")) {
			t.Errorf("%s: exit %d, stderr %q; want 1 naming %s and --allow-empty", c.name, code, errs, c.file)
		}
		code, _, errs = runCLI(t, append([]string{"-q", "--allow-empty"}, c.args...)...)
		if want := map[bool]int{false: 0, true: 1}[c.noAllow]; code != want {
			t.Errorf("%s --allow-empty: exit %d, want %d: %s", c.name, code, want, errs)
		}
	}
}

// An error that echoes a field value cuts it to about 80
// bytes and escapes control bytes. Each reader gets a 10 MB field that
// starts with terminal escape sequences; the message must be short, say how
// long the value was, and hold no control byte but the final newline.
func TestErrorsCutAndEscapeFieldValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := fileWriter(t, dir)
	huge := "\x1b[2J\x1b]0;owned\x07\x00\x7f" + strings.Repeat("A", 10<<20)
	corpus := write("v.nq", cliCorpus)
	var feats strings.Builder
	feats.WriteString("query,term")
	for i := 1; i <= 33; i++ {
		feats.WriteString("," + features.FeatureName(i))
	}
	feats.WriteString("\nq,t," + huge + strings.Repeat(",1", 32) + "\n")
	cases := []struct {
		name string
		args []string
	}{
		{"qrels grade", []string{"eval", "--qrels", write("q.txt", "q1 0 d1 "+huge+"\n"), "--run", write("r.txt", "q1 Q0 d1 1 1 t\n")}},
		{"run rank", []string{"eval", "--qrels", write("q2.txt", "q1 0 d1 1\n"), "--run", write("r2.txt", "q1 Q0 d1 "+huge+" 1 t\n")}},
		{"svmlight token", []string{"ltr", "--data", filepath.Dir(filepath.Dir(write("folds/Fold1/train.txt", "1 qid:1 1:"+huge+"\n"))), "--out", filepath.Join(dir, "ltr")}},
		{"labels label", []string{"sample", "--labels", write("l.csv", "query,term,label,probability\nq,t,"+huge+",0.5\n"), "--corpus", corpus, "--out", filepath.Join(dir, "g.csv")}},
		{"ground truth label", []string{"export", "--ground-truth", write("gt.csv", "query,term,label\nq,t,"+huge+"\n"), "--features", write("f0.csv", "query,term\n"), "--out", filepath.Join(dir, "ds")}},
		{"features value", []string{"export", "--ground-truth", write("gt2.csv", "query,term,label\nq,t,1\n"), "--features", write("f.csv", feats.String()), "--out", filepath.Join(dir, "ds2")}},
		// fit --log rejects lines over 1 MiB (line_too_long): 500 KB here.
		{"yandex TimePassed", []string{"fit", "--log", write("log.tsv", "s\t"+huge[:500<<10]+"\tQ\tq\t0\tu1\n"), "--out", filepath.Join(dir, "fit")}},
		{"pairs term", []string{"features", "--corpus", corpus, "--pairs", write("p.csv", "query,term\ndog,"+huge+"\n"), "--out", filepath.Join(dir, "f.csv")}},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, append([]string{"-q"}, c.args...)...)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1: %.300q", c.name, code, errs)
			continue
		}
		msg := strings.TrimSuffix(errs, "\n")
		if len(msg) > 600 {
			t.Errorf("%s: message of %d bytes: %.300q", c.name, len(msg), msg)
		}
		if strings.ContainsAny(msg, "\x1b\x07\x00\x7f\r\n") {
			t.Errorf("%s: raw control bytes in %.300q", c.name, msg)
		}
		if !strings.Contains(msg, "bytes)") {
			t.Errorf("%s: message does not give the value's length: %.300q", c.name, msg)
		}
	}
}

// NaN, infinite and out-of-range numeric flag values are
// usage errors (exit 2) whose message names the flag. The commands fail on
// the flag before they open any file.
func TestNumericFlagsValidated(t *testing.T) {
	t.Parallel()
	base := map[string][]string{
		"eval":     {"eval", "--qrels", "q", "--run", "r"},
		"sample":   {"sample", "--labels", "l", "--corpus", "c", "--out", "o"},
		"fit":      {"fit", "--log", "l", "--out", "o"},
		"ltr":      {"ltr", "--data", "d", "--out", "o"},
		"export":   {"export", "--ground-truth", "g", "--features", "f", "--out", "o"},
		"ingest":   {"ingest", "--format", "yandex", "--log", "l", "--out", "o"},
		"label":    {"label", "--relevance", "r", "--sessions", "s", "--out", "o"},
		"simulate": {"simulate", "--model", "ubm", "--out", "o"},
		"features": {"features", "--corpus", "c", "--pairs", "p", "--out", "o.csv"},
		"search":   {"search", "--corpus", "c", "x"},
		"demo":     {"demo", "--out", "o"},
	}
	cases := []struct{ cmd, flag, value string }{
		{"eval", "beta", "NaN"}, {"eval", "beta", "Inf"}, {"eval", "beta", "-1"},
		{"eval", "relevant-from", "NaN"}, {"eval", "relevant-from", "-Inf"}, {"eval", "relevant-from", "-1"},
		{"eval", "cutoff", "-1"}, {"eval", "trials", "0"},
		{"sample", "per-query", "NaN"}, {"sample", "per-query", "+Inf"}, {"sample", "per-query", "0"},
		{"fit", "train-fraction", "NaN"}, {"fit", "train-fraction", "1"}, {"fit", "tolerance", "NaN"},
		{"fit", "tolerance", "-0.5"}, {"fit", "iterations", "0"}, {"fit", "workers", "-1"},
		{"ltr", "ranknet-lr", "NaN"}, {"ltr", "ranknet-lr", "0"}, {"ltr", "ranknet-lr", "Inf"},
		{"ltr", "lambdamart-shrinkage", "NaN"}, {"ltr", "lambdamart-shrinkage", "-0.1"},
		{"ltr", "adarank-tolerance", "NaN"}, {"ltr", "adarank-tolerance", "-1"},
		{"ltr", "ranknet-epochs", "0"}, {"ltr", "lambdamart-leaves", "1"}, {"ltr", "lambdamart-trees", "0"},
		{"ltr", "permutations", "0"}, {"ltr", "workers", "0"}, {"ltr", "baseline-feature", "0"},
		{"ltr", "ca-restarts", "0"}, {"ltr", "adarank-rounds", "-3"},
		{"export", "folds", "2"},
		{"ingest", "max-line", "0"}, {"ingest", "full-serp", "-1"},
		{"label", "serp-size", "0"},
		{"simulate", "shuffle", "NaN"}, {"simulate", "shuffle", "1.5"}, {"simulate", "zipf", "1"},
		{"simulate", "zipf", "Inf"}, {"simulate", "sessions", "0"},
		{"features", "workers", "-2"},
		{"search", "k", "-1"},
		{"demo", "serps", "0"},
	}
	for _, c := range cases {
		args := append(append([]string{}, base[c.cmd]...), "--"+c.flag, c.value)
		code, _, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, "--"+c.flag) {
			t.Errorf("%s --%s %s: exit %d, stderr %q; want 2 naming --%s", c.cmd, c.flag, c.value, code, errs, c.flag)
		}
	}
}

// A run that answers fewer queries than the qrels judge
// gets a warning on stderr and a "queries" record in --json;
// --queries-from-run evaluates only the answered queries. Hand values: q1's
// only relevant document d1 is retrieved first, map(q1) = 1; q2 and q3 are
// unanswered (map 0), so the mean over the qrels is 1/3 and over the
// answered queries 1.
func TestEvalUnansweredQueries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := filepath.Join(dir, "q.txt")
	r := filepath.Join(dir, "r.txt")
	os.WriteFile(q, []byte("q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\n"), 0o644)
	os.WriteFile(r, []byte("q1 Q0 d1 1 2 t\nq1 Q0 x 2 1 t\nq9 Q0 d9 1 1 t\n"), 0o644)
	type out struct {
		Mean    map[string]float64 `json:"mean"`
		Queries struct {
			Judged, Answered, Evaluated int
			FromRun                     bool `json:"from_run"`
		} `json:"queries"`
	}
	for _, fromRun := range []bool{false, true} {
		args := []string{"eval", "--qrels", q, "--run", r, "--measures", "map", "--json"}
		if fromRun {
			args = append(args, "--queries-from-run")
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var o out
		if err := json.Unmarshal([]byte(stdout), &o); err != nil {
			t.Fatal(err)
		}
		wantMean, wantEval := 1.0/3, 3
		if fromRun {
			wantMean, wantEval = 1, 1
		}
		if math.Abs(o.Mean["map"]-wantMean) > 1e-12 || o.Queries.Judged != 3 || o.Queries.Answered != 1 || o.Queries.Evaluated != wantEval || o.Queries.FromRun != fromRun {
			t.Errorf("--queries-from-run=%v: %s", fromRun, stdout)
		}
		if warned := strings.Contains(stderr, "answers 1 of the 3 judged queries"); warned == fromRun {
			t.Errorf("--queries-from-run=%v: warning present %v, stderr %q", fromRun, warned, stderr)
		}
	}
}

// Ingest pseudonymises session IDs; --pii-salt makes
// reruns byte-identical, without it two runs differ; --keep-session-ids
// keeps them. Expected pseudonym from Python:
// hmac.new(b"k", b"alice@example.org", hashlib.sha256).hexdigest()[:24].
func TestIngestPIISalt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "log.tsv")
	os.WriteFile(log, []byte("alice@example.org\t0\tQ\tq\t0\tu1\tu2\nalice@example.org\t1\tC\tu2\n"), 0o644)
	ing := func(out string, extra ...string) string {
		mustRun(t, append([]string{"ingest", "--format", "yandex", "--log", log, "--out", filepath.Join(dir, out)}, extra...)...)
		return mustRead(t, filepath.Join(dir, out, "clean.yandex.tsv"))
	}
	a, b := ing("a", "--pii-salt", "k"), ing("b", "--pii-salt", "k")
	if a != b || !strings.HasPrefix(a, "29beb0c88d8a4959437846f6\t") || strings.Contains(a, "alice") {
		t.Errorf("salted reruns: %q vs %q", a, b)
	}
	if c := ing("c"); c == a || strings.Contains(c, "alice") {
		t.Errorf("unsalted run: %q", c)
	}
	if k := ing("k", "--keep-session-ids"); !strings.HasPrefix(k, "alice@example.org\t") {
		t.Errorf("--keep-session-ids: %q", k)
	}
	if code, _, _ := runCLI(t, "ingest", "--format", "yandex", "--log", log, "--out", filepath.Join(dir, "x"), "--keep-session-ids", "--pii-salt", "k"); code != 2 {
		t.Errorf("--keep-session-ids with --pii-salt: exit %d, want 2", code)
	}
}
