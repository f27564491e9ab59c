package lbbeam

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/shards"
)

// TestClickOrderShardAndFit: a Yandex log whose clicks carry times (many
// multi-click SERPs clicked out of rank order, some clicks repeated), read
// as lovbench fit --log reads it, gives Beam shards equal to lovbench's
// (shards.Write: click_ranks in click order), and the Beam fit of every
// Beam model, PSCM among them, equals lovbench fit's.
func TestClickOrderShardAndFit(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 9))
	serps := make([]sessions.SERP, 4000)
	for i := range serps {
		s := &serps[i]
		s.SessionID, s.Query = fmt.Sprint("s", i/3), fmt.Sprint("q", rng.IntN(150))
		s.TimePassed = int64(i%3) * 100
		perm := rng.Perm(14)
		for r := range 10 {
			s.Results = append(s.Results, fmt.Sprint("d", perm[r]))
		}
		for r := range 10 {
			if rng.Float64() < 0.6/float64(r+1) {
				for range 1 + rng.IntN(2) {
					s.Clicks = append(s.Clicks, sessions.Click{Rank: r, TimePassed: s.TimePassed + 1 + int64(rng.IntN(30))})
				}
			}
		}
	}
	logPath := filepath.Join(dir, "log.tsv")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := sessions.WriteYandex(f, serps); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	log, err := sessions.Load(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !log.HasOrder() {
		t.Fatal("no SERP clicked out of rank order")
	}
	const n = 3
	sp := shards.SplitConfig{Split: "spec", TrainFraction: 0.75}
	wantDir := filepath.Join(dir, "want")
	if _, err := shards.Write(context.Background(), logPath, n, sp, wantDir, shards.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	gotDir := filepath.Join(dir, "beam")
	p, s := beam.NewPipelineWithRoot()
	if err := BuildShard(s, ShardOptions{Logs: []string{logPath}, Shards: n, OutDir: gotDir, PartSize: 20000, Split: sp, AsRead: true}); err != nil {
		t.Fatal(err)
	}
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		sameFile(t, filepath.Join(wantDir, shards.FileName(i, n)), JoinPath(gotDir, shards.FileName(i, n)))
	}
	fitBoth(t, log, gotDir, "", clickmodels.Options{Iterations: 4})
}
