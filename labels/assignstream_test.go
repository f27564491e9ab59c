package labels

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// TestAssignStream: the streamed labelling (assignStream) gives the labels,
// report and read skips of ReadRelevance + Assign, on a log and relevance
// file with every kind of skip: malformed, duplicate and conflicting rows,
// unknown queries, docs off the first SERP (more than MaxExamples for some
// queries, interleaved in the file with on-SERP rows), queries left out
// for a missing doc or a short SERP, a doc shown twice on a SERP.
func TestAssignStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	log := &sessions.Log{Offsets: []int64{0}}
	for i := 0; i < 400; i++ {
		q := fmt.Sprintf("q%d", rng.IntN(40))
		n := 10
		if rng.IntN(8) == 0 {
			n = 7
		}
		res := make([]string, n)
		for r := range res {
			res[r] = fmt.Sprintf("d%d", (r+rng.IntN(2))%12)
		}
		if err := log.Add(&sessions.SERP{SessionID: "s", Query: q, Results: res}); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	b.WriteString(RelevanceHeader + "\n")
	for i := 0; i < 3000; i++ {
		q := fmt.Sprintf("q%d", rng.IntN(45)) // q40..q44: unknown
		d := fmt.Sprintf("d%d", rng.IntN(30))
		switch rng.IntN(40) {
		case 0:
			b.WriteString("broken line\n")
		case 1:
			fmt.Fprintf(&b, "%s\t%s\t1.5\n", q, d)
		default:
			fmt.Fprintf(&b, "%s\t%s\t%.2f\n", q, d, rng.Float64())
		}
	}
	for _, choice := range []SERPChoice{MostFrequent, Earliest} {
		opts := Options{Choice: choice}
		rel, wantRead, err := ReadRelevance(strings.NewReader(b.String()), "rel.tsv")
		if err != nil {
			t.Fatal(err)
		}
		want, wantRep, err := Assign(context.Background(), log, rel, "rel.tsv", opts)
		if err != nil {
			t.Fatal(err)
		}
		open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(b.String())), nil }
		got, gotRep, gotRead, err := assignStream(context.Background(), log, open, "rel.tsv", opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || wantRep.RowSkips.Counts[ReasonNotOnFirstSERP] <= MaxExamples || wantRep.RowSkips.Counts[ReasonQueryDropped] <= MaxExamples || wantRead.Counts[ReasonConflict] == 0 {
			t.Fatalf("test data does not exercise the skips: %+v / %+v", wantRep.RowSkips.Counts, wantRead.Counts)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: labels differ (%d vs %d)", choice, len(got), len(want))
		}
		if !reflect.DeepEqual(gotRep, wantRep) {
			t.Errorf("%s: report differs:\n got %+v\nwant %+v", choice, gotRep, wantRep)
		}
		if !reflect.DeepEqual(gotRead, wantRead) {
			t.Errorf("%s: read skips differ", choice)
		}
	}
}
