package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/fit"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
)

// subsetKeyOutside is the subset rule's key of query q computed apart
// from the code (docs/clickmodels.md, "The sampler on a subset of
// queries"): Go's FNV-1a 64 (hash/fnv) of the name, XOR the seed
// 0x67696262735f7375 ("gibbs_su"), through the splitmix64 finaliser
// (Steele, Lea and Flood 2014: add the golden gamma, then the two
// multiply-xorshift rounds), its top 53 bits.
func subsetKeyOutside(q string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(q))
	z := h.Sum64() ^ 0x67696262735f7375
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return (z ^ (z >> 31)) >> 11
}

// TestFitGibbsSubsetSERPs: fit --intervals-from gibbs-subset
// --gibbs-subset-serps N on a simulated DBN log of 600 training SERPs
// over 40 queries, for N = 150 and 450: the sampler's subset holds the
// queries whose key (computed here with hash/fnv, checked against
// TestSubsetKeyByHand's hand keys) is below floor(N / 600 x 2^53); a
// pair of theirs gets the sampler's Beta, every other pair none; the two
// sizes give different subsets, the smaller inside the larger; the
// relevance file's Betas are those of the library's fit with
// Options.SubsetSERPs N; metrics.json records N and the rate.
func TestFitGibbsSubsetSERPs(t *testing.T) {
	t.Parallel()
	for q, k := range map[string]uint64{"q0": 7997746254485114, "q4": 4275780597548917} {
		if got := subsetKeyOutside(q); got != k {
			t.Fatalf("the test's key of %s: %d, want %d (TestSubsetKeyByHand)", q, got, k)
		}
	}
	dir := t.TempDir()
	logFile := filepath.Join(dir, "sim.tsv")
	mustRun(t, "simulate", "--model", "dbn", "--sessions", "800", "--queries", "40", "--seed", "3", "--out", logFile)
	l, err := sessions.LoadForFit(logFile)
	if err != nil {
		t.Fatal(err)
	}
	train, _ := clickmodels.Split(l, split.DefaultTrainFraction)
	d, err := clickmodels.Prepare(train, clickmodels.DefaultRanks)
	if err != nil {
		t.Fatal(err)
	}
	trainSERPs := train.Len()
	if trainSERPs != 600 {
		t.Fatalf("%d training SERPs, want 600", trainSERPs)
	}
	subsets := map[int][]string{}
	for _, n := range []int{150, 450} {
		out := filepath.Join(dir, fmt.Sprint("n", n))
		mustRun(t, "fit", "--log", logFile, "--models", "dbn", "--intervals-from", "gibbs-subset", "--gibbs-subset-serps", fmt.Sprint(n), "--workers", "1", "--out", out)
		rate := float64(n) / float64(trainSERPs)
		u := uncertaintyOf(t, out)["DBN"]
		if u == nil || u.Gibbs == nil || u.Gibbs.Subset != float64(n) || u.Gibbs.SubsetRate != rate {
			t.Fatalf("--gibbs-subset-serps %d: metrics.json's uncertainty %s, want subset_serps %d, subset_rate %v", n, brief(u), n, rate)
		}
		opt := fit.DefaultConfig().Options
		opt.Intervals, opt.SubsetSERPs = clickmodels.IntervalsGibbsSubset, float64(n)
		m, err := clickmodels.Fit(context.Background(), d, clickmodels.DBN, opt.ResolveIntervals(int64(trainSERPs)))
		if err != nil {
			t.Fatal(err)
		}
		dists, _, err := m.RelevanceDists()
		if err != nil {
			t.Fatal(err)
		}
		rows := relevanceRows(t, filepath.Join(out, "DBN_relevance.tsv"))
		if len(rows) != m.NumPairs() {
			t.Fatalf("--gibbs-subset-serps %d: %d rows, the library's fit %d pairs", n, len(rows), m.NumPairs())
		}
		bound := uint64(math.Floor(rate * (1 << 53)))
		in := map[string]bool{}
		for p := range m.PairQuery {
			q, doc := m.QueryNames[m.PairQuery[p]], m.DocNames[m.PairDoc[p]]
			r := rows[[2]string{q, doc}]
			if len(r) != 5 {
				t.Fatalf("pair (%s, %s): row %v", q, doc, r)
			}
			a, _ := strconv.ParseFloat(r[3], 64)
			b, _ := strconv.ParseFloat(r[4], 64)
			if a != dists[p].Alpha || b != dists[p].Beta {
				t.Fatalf("--gibbs-subset-serps %d, pair (%s, %s): Beta(%v, %v), the library's with SubsetSERPs %d Beta(%v, %v)", n, q, doc, a, b, n, dists[p].Alpha, dists[p].Beta)
			}
			want := subsetKeyOutside(q) < bound
			if got := m.Evidence.RelAlpha[p] > 0; got != want {
				t.Fatalf("--gibbs-subset-serps %d, pair (%s, %s): drawn %v, but the rule puts its query in the subset: %v", n, q, doc, got, want)
			}
			if want {
				in[q] = true
			}
		}
		for q := range in {
			subsets[n] = append(subsets[n], q)
		}
		slices.Sort(subsets[n])
		t.Logf("--gibbs-subset-serps %d (rate %.3f): %d of %d queries in the subset", n, rate, len(in), len(m.QueryNames))
	}
	small, large := subsets[150], subsets[450]
	if len(small) == 0 || len(large) <= len(small) || len(large) == 40 {
		t.Fatalf("subsets of %d and %d queries of 40: want both proper, the second larger", len(small), len(large))
	}
	for _, q := range small {
		if !slices.Contains(large, q) {
			t.Errorf("query %s in the subset of 150 SERPs, not in that of 450", q)
		}
	}
}

// TestFitGibbsSubsetSERPsRefusals: fit refuses --gibbs-subset-serps N
// for N <= 0 and wherever no fit would run the sampler on a subset
// (--intervals-from counts or gibbs, and auto with --no-intervals,
// --estimator pyclick or --load), with a usage error naming the flag,
// and writes no output.
func TestFitGibbsSubsetSERPsRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "log.tsv")
	if err := os.WriteFile(log, []byte("1\t0\tQ\t1\tq1\td1\td2\n1\t1\tC\td1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--gibbs-subset-serps", "0"}, "want a positive number"},
		{[]string{"--gibbs-subset-serps", "-100", "--intervals-from", "gibbs-subset"}, "want a positive number"},
		{[]string{"--gibbs-subset-serps", "1000", "--intervals-from", "counts"}, "not to counts"},
		{[]string{"--gibbs-subset-serps", "1000", "--intervals-from", "gibbs"}, "not to gibbs"},
		{[]string{"--gibbs-subset-serps", "1000", "--no-intervals"}, "--no-intervals"},
		{[]string{"--gibbs-subset-serps", "1000", "--estimator", "pyclick"}, "--estimator pyclick"},
		{[]string{"--gibbs-subset-serps", "50000", "--load", dir}, "--load fits nothing"},
	} {
		args := append([]string{"fit", "--log", log, "--models", "dbn", "--out", out}, c.args...)
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, "--gibbs-subset-serps") || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and an error naming --gibbs-subset-serps and %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s written", c.args, out)
		}
	}
}
