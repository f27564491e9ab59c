// Command features-bench measures feature extraction (docs/features.md,
// "Performance"): it loads a vocabulary corpus, builds -pairs (query, term)
// pairs the way LOVBench's ground truth looks (per query the top 10 LOV
// search results plus randomly drawn matching terms, ~26 pairs per query;
// queries are the labels of randomly drawn terms, seeded), then extracts
// features 1-33 for all pairs and, separately, each feature group, and
// prints the corpus load time, the per-phase build times, the extraction
// times and the peak resident set size.
//
// -semantics selects the feature semantics (reference, the default, or
// paper; features.Semantics).
//
// -corpus defaults to the repository's 83 vocabularies
// (internal/refdata/testdata/vocabularies).
//
//	go run ./bench/features -pairs 200000 -semantics reference
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/internal/refdata"
)

func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// peakRSS returns the peak resident set size in MiB (Linux: ru_maxrss in KiB).
func peakRSS() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Maxrss) / 1024
}

func main() {
	corpus := flag.String("corpus", "", "corpus file or directory (default: the repository's vocabularies, internal/refdata/testdata/vocabularies)")
	n := flag.Int("pairs", 200000, "number of (query, term) pairs")
	seed := flag.Int64("seed", 1, "random seed for the pairs")
	workers := flag.Int("workers", 0, "workers (0 = GOMAXPROCS)")
	groups := flag.Bool("groups", true, "also time each feature group separately")
	semFlag := flag.String("semantics", string(features.DefaultSemantics), "feature semantics: reference or paper")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the extraction to this file")
	flag.Parse()
	if *corpus == "" {
		dir, err := refdata.Dir()
		if err != nil {
			fmt.Fprintln(os.Stderr, "features-bench:", err, "(or give -corpus)")
			os.Exit(2)
		}
		*corpus = filepath.Join(dir, "vocabularies")
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "features-bench:", err)
			os.Exit(1)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "features-bench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	sem, err := features.ParseSemantics(*semFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "features-bench:", err)
		os.Exit(2)
	}
	if err := run(*corpus, *n, *seed, *workers, *groups, sem); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "features-bench:", err)
		os.Exit(1)
	}
}

func run(corpus string, n int, seed int64, workers int, groups bool, sem features.Semantics) error {
	ctx := context.Background()
	t0 := time.Now()
	c, err := features.Load(ctx, []string{corpus}, features.LoadOptions{Semantics: sem})
	if err != nil {
		return err
	}
	load := time.Since(t0)
	st := c.Stats()
	fmt.Printf("corpus: %d files, %d statements, %d vocabularies, %d terms\n", st.Files, st.Statements, st.Vocabularies, st.Terms)
	fmt.Printf("load: %.2fs (GOMAXPROCS %d, semantics %s)\n", load.Seconds(), runtime.GOMAXPROCS(0), c.Semantics())
	for _, tm := range st.Timings {
		fmt.Printf("  %-18s %.3fs\n", tm.Phase, tm.Duration.Seconds())
	}

	t1 := time.Now()
	pairs, queries := makePairs(c, n, seed)
	fmt.Printf("pairs: %d for %d queries (built in %.2fs, not counted)\n", len(pairs), queries, time.Since(t1).Seconds())

	extract := func(name string, ids []int) error {
		cpu0, w0 := cpuSeconds(), time.Now()
		tab, _, err := c.Extract(ctx, pairs, features.ExtractOptions{Features: ids, Workers: workers})
		if err != nil {
			return err
		}
		wall := time.Since(w0).Seconds()
		fmt.Printf("  %-28s %7.2fs wall %7.2fs CPU  %9.0f pairs/s  (%d rows)\n", name, wall, cpuSeconds()-cpu0, float64(len(pairs))/wall, len(tab.Rows))
		return nil
	}
	fmt.Println("extract:")
	all, _ := features.ParseFeatureList(features.DefaultFeatureList)
	if err := extract("features 1-34", all); err != nil {
		return err
	}
	if groups {
		for _, g := range []struct{ name, ids string }{
			{"query match (1-7)", "1-7"},
			{"repository graph (8-10)", "8-10"},
			{"ontology graph (11-16)", "11-16"},
			{"RDF graph (17-33)", "17-33"},
			{"baseline (34)", "34"},
		} {
			ids, _ := features.ParseFeatureList(g.ids)
			if err := extract(g.name, ids); err != nil {
				return err
			}
		}
	}
	fmt.Printf("peak RSS: %.0f MiB\n", peakRSS())
	return nil
}

// makePairs draws queries from term labels and pairs each with its top 10
// LOV results and up to 16 other random matching terms, until n pairs.
func makePairs(c *features.Corpus, n int, seed int64) ([]features.Pair, int) {
	rng := rand.New(rand.NewSource(seed))
	terms := c.Terms()
	var pairs []features.Pair
	queries := 0
	for len(pairs) < n {
		ti, _ := c.Term(terms[rng.Intn(len(terms))])
		q := features.LocalName(ti.URI)
		if len(ti.Labels) > 0 {
			q = ti.Labels[rng.Intn(len(ti.Labels))].Value
		}
		words := features.Tokenize(q)
		if len(words) == 0 {
			continue
		}
		if len(words) > 3 {
			words = words[:1+rng.Intn(3)]
		}
		q = words[0]
		for _, w := range words[1:] {
			q += " " + w
		}
		queries++
		seen := make(map[string]bool)
		for _, h := range c.Search(q, features.ByLOV, 10) {
			seen[h.URI] = true
			pairs = append(pairs, features.Pair{Query: q, Term: h.URI})
		}
		m := c.Matches(q)
		for k := 0; k < 16 && len(m) > 0; k++ {
			u := m[rng.Intn(len(m))]
			if !seen[u] {
				seen[u] = true
				pairs = append(pairs, features.Pair{Query: q, Term: u})
			}
		}
	}
	return pairs[:n], queries
}
