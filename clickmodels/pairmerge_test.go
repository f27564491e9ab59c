package clickmodels

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// twoShardModels is a DBN fit over two query shards, written by hand:
// shard 0 holds queries a (first SERP at log position 0) and c (5), shard
// 1 holds b (2) and d (9).
func twoShardModels() []ShardModel {
	m0 := &Model{Kind: DBN, Ranks: 2, Iterations: 3, Global: []float64{0.7},
		QueryNames: []string{"a", "c"}, DocNames: []string{"x", "y", "z\"z"},
		PairQuery: []int32{0, 0, 1}, PairDoc: []int32{0, 1, 2},
		Attr: []float64{0.5, 0.25, 1.0 / 3}, Sat: []float64{0.1, 0.2, 0.3},
		Evidence: &Evidence{Level: 0.9, Rank: []float64{0, 1, 2.5}, Shown: []float64{1, 2, 40}, AttrK: []float64{1, 2, 3}, AttrN: []float64{4, 5, 6}, SatK: []float64{0.5, 0, 1}, SatN: []float64{1, 2, 3}}}
	m1 := &Model{Kind: DBN, Ranks: 2, Iterations: 3, Global: []float64{0.7},
		QueryNames: []string{"b", "d"}, DocNames: []string{"y", "w"},
		PairQuery: []int32{0, 1, 1}, PairDoc: []int32{0, 1, 0},
		Attr: []float64{0.125, 0.75, 0.875}, Sat: []float64{0.4, 0.5, 0.6},
		Evidence: &Evidence{Level: 0.9, Rank: []float64{3, 4, 5}, Shown: []float64{3.5, 7, 100}, AttrK: []float64{7, 8, 9}, AttrN: []float64{10, 11, 12}, SatK: []float64{0.25, 2, 3}, SatN: []float64{4, 5, 6}}}
	return []ShardModel{{Model: m0, QueryFirst: []int64{0, 5}}, {Model: m1, QueryFirst: []int64{2, 9}}}
}

// pairFiles writes a pair file per shard model and returns their paths.
func pairFiles(t *testing.T, parts []ShardModel) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i, sm := range parts {
		p := filepath.Join(dir, fmt.Sprint("pairs-", i))
		if err := WritePairFile(p, sm); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestPairFilesMerge checks the k-way merge of shard models in memory and
// from pair files against the order worked by hand: queries by the log
// position of their first SERP, a (0), b (2), c (5), d (9).
func TestPairFilesMerge(t *testing.T) {
	parts := twoShardModels()
	want := "a x 0.5 0.1 1 4 0.5 1 0 1|a y 0.25 0.2 2 5 0 2 1 2|b y 0.125 0.4 7 10 0.25 4 3 3.5|c z\"z 0.3333333333333333 0.3 3 6 1 3 2.5 40|" +
		"d w 0.75 0.5 8 11 2 5 4 7|d y 0.875 0.6 9 12 3 6 5 100|"
	collect := func(pw *pairWriter) string {
		var b strings.Builder
		pw.pairs(func(q, d string, v *pairVal) bool {
			fmt.Fprintf(&b, "%s %s %v %v %v %v %v %v %v %v|", q, d, v.a, v.s, v.ak, v.an, v.sk, v.sn, v.rank, v.shown)
			return true
		})
		if err := pw.readErr(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if got := collect(mergedPairs(parts)); got != want {
		t.Fatalf("in memory: %q\nwant %q", got, want)
	}
	paths := pairFiles(t, parts)
	pw := spilledPairs(parts[0].Model, paths)
	if got := collect(pw); got != want {
		t.Fatalf("from pair files: %q\nwant %q", got, want)
	}
	// Stopping early is allowed, and a second pass reads the files afresh.
	n := 0
	pw.pairs(func(q, d string, v *pairVal) bool { n++; return n < 2 })
	if got := collect(pw); n != 2 || got != want {
		t.Fatalf("after an early stop: %d pairs; then %q", n, got)
	}
}

// TestPairFileDamage: a truncated pair file is an error naming the file
// from every writer, never a shorter output.
func TestPairFileDamage(t *testing.T) {
	parts := twoShardModels()
	paths := pairFiles(t, parts)
	b, err := os.ReadFile(paths[1])
	if err != nil {
		t.Fatal(err)
	}
	for cut := 1; cut < len(b); cut++ {
		if err := os.WriteFile(paths[1], b[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		pw := spilledPairs(parts[0].Model, paths)
		for name, write := range map[string]func(*bytes.Buffer) error{
			"relevance": func(w *bytes.Buffer) error { return pw.writeRelevance(w) },
			"json":      func(w *bytes.Buffer) error { return pw.writeJSON(w) },
			"parquet":   func(w *bytes.Buffer) error { return pw.writeParquet(w, 6) },
		} {
			var out bytes.Buffer
			err := write(&out)
			if err == nil || !strings.Contains(err.Error(), paths[1]) {
				t.Fatalf("cut at %d of %d bytes, %s: error %v", cut, len(b), name, err)
			}
		}
	}
}
