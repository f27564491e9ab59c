package shards_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
	"github.com/lovbench/lovbench/shards"
)

// interleavedLog writes a log of n SERPs whose user sessions interleave (a
// session's SERPs are spread over the log with other sessions' between
// them) to dir/sessions.parquet and returns its SERPs.
func interleavedLog(t testing.TB, dir string, n int, seed uint64) []sessions.SERP {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	idx := map[string]int{}
	serps := make([]sessions.SERP, n)
	for i := range serps {
		sid := fmt.Sprintf("s%d", rng.IntN(n/8+1))
		q := fmt.Sprintf("q%d", rng.IntN(n/10+1))
		m := 3 + rng.IntN(10)
		res := make([]string, m)
		for r := range res {
			res[r] = fmt.Sprintf("d%d", rng.IntN(15))
		}
		var clicks []sessions.Click
		for r := range m {
			if rng.Float64() < 0.2 {
				clicks = append(clicks, sessions.Click{Rank: r, TimePassed: int64(r)})
			}
		}
		serps[i] = sessions.SERP{SessionID: sid, Index: idx[sid], Query: q, Region: "0", Results: res, Clicks: clicks}
		idx[sid]++
	}
	f, err := os.Create(filepath.Join(dir, sessions.ParquetName))
	if err != nil {
		t.Fatal(err)
	}
	if err := sessions.WriteParquet(f, serps); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return serps
}

// TestWriteKeepsPositionsAndSplits: every SERP lands in exactly one shard,
// the one of its query, with its position and content; the train flags are
// those of clickmodels.Split, RandomSplit and TimeSplit on the whole log.
func TestWriteKeepsPositionsAndSplits(t *testing.T) {
	src := t.TempDir()
	serps := interleavedLog(t, src, 600, 3)
	log, err := sessions.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []split.Kind{split.Spec, split.Random, split.Time} {
		for _, n := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/%d", kind, n), func(t *testing.T) {
				out := t.TempDir()
				m, err := shards.Write(context.Background(), src, n, shards.SplitConfig{Split: kind, TrainFraction: 0.7, Seed: 9}, out, shards.WriteOptions{})
				if err != nil {
					t.Fatal(err)
				}
				m2, err := shards.ReadManifest(out)
				if err != nil || m2 != m {
					t.Fatalf("manifest %+v, read back %+v, %v", m, m2, err)
				}
				if m.SERPs != 600 || m.MaxRanks != 12 {
					t.Fatalf("manifest serps %d max_ranks %d, want 600 and 12", m.SERPs, m.MaxRanks)
				}
				rows := make([]shards.Row, 600)
				seen := make([]bool, 600)
				for i := range n {
					err := shards.Scan(m.Path(out, i), func(r *shards.Row) error {
						if shards.Of(r.Query, n) != i {
							t.Errorf("query %s in shard %d, want %d", r.Query, i, shards.Of(r.Query, n))
						}
						if seen[r.Pos] {
							t.Errorf("pos %d twice", r.Pos)
						}
						seen[r.Pos] = true
						c := *r
						c.Results = slices.Clone(r.Results)
						c.ClickRanks = slices.Clone(r.ClickRanks)
						rows[r.Pos] = c
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
				}
				var trainIdx []int
				for pos, r := range rows {
					s := serps[pos]
					if !seen[pos] || r.Query != s.Query || r.SessionID != s.SessionID || int(r.SERPIndex) != s.Index || !slices.Equal(r.Results, s.Results) || len(r.ClickRanks) != len(s.Clicks) {
						t.Fatalf("pos %d: row %+v, want %+v", pos, r, s)
					}
					if r.Train {
						trainIdx = append(trainIdx, pos)
					}
				}
				var train *sessions.Log
				switch kind {
				case split.Spec:
					train, _ = clickmodels.Split(log, 0.7)
				case split.Random:
					train, _ = clickmodels.RandomSplit(log, 0.7, 9)
				case split.Time:
					train, _ = clickmodels.TimeSplit(log, 0.7)
				}
				want := log.Select(func(yield func(int) bool) {
					for _, i := range trainIdx {
						if !yield(i) {
							return
						}
					}
				})
				if !slices.Equal(want.Query, train.Query) || !slices.Equal(want.Session, train.Session) || !slices.Equal(want.DocIDs, train.DocIDs) || !slices.Equal(want.Clicks, train.Clicks) {
					t.Fatalf("train flags differ from the whole-log split (%d flagged, split has %d)", len(trainIdx), train.Len())
				}
				if m.TrainSERPs != int64(train.Len()) {
					t.Fatalf("manifest train_serps %d, want %d", m.TrainSERPs, train.Len())
				}
			})
		}
	}
}

func TestOfIsFNV1a(t *testing.T) {
	// FNV-1a 64 of "" is the offset basis 0xcbf29ce484222325 (FNV spec);
	// of "a" it is 0xaf63dc4c8601ec8c (published test vector).
	if got, want := shards.Of("", 1000003), int(uint64(0xcbf29ce484222325)%1000003); got != want {
		t.Fatalf("Of(\"\") = %d, want %d", got, want)
	}
	if got, want := shards.Of("a", 97), int(uint64(0xaf63dc4c8601ec8c)%97); got != want {
		t.Fatalf("Of(\"a\") = %d, want %d", got, want)
	}
}
