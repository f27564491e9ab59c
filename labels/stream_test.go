package labels

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/sessions"
)

// TestStreamedFirstSERPs: labelling from the streamed first SERPs gives
// the labels of labelling the whole log of the sessions with a click, for
// both first-SERP choices, on a log where queries show several result
// lists (some repeated, some short) and some sessions have no click. The
// sessions with a click are found here, by hand: three SERPs a session,
// a SERP clicked with probability 1/4; the queries z0-z4 are shown only
// in sessions without a click (some of them again under other queries'
// results), and must get no label (LOVBench's rule 1), though the
// relevance file has rows for them.
func TestStreamedFirstSERPs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var serps []sessions.SERP
	var rel []Relevance
	clicked := map[string]bool{} // session -> has a click
	for i := 0; i < 3000; i++ {
		q := fmt.Sprintf("q%d", rng.IntN(120))
		if i >= 2700 && i%3 != 2 {
			q = fmt.Sprintf("z%d", rng.IntN(5)) // sessions without a click below
		}
		n := 8 + rng.IntN(5) // some SERPs shorter than 10
		res := make([]string, n)
		for r := range res {
			res[r] = fmt.Sprintf("d%d", r)
			if rng.IntN(3) == 0 {
				res[r] = fmt.Sprintf("d%d", rng.IntN(14))
			}
		}
		s := sessions.SERP{SessionID: fmt.Sprint("s", i/3), Index: i % 3, Query: q, Region: "0", Results: res}
		if i < 2700 && rng.IntN(4) == 0 {
			s.Clicks = []sessions.Click{{Rank: rng.IntN(n)}}
			clicked[s.SessionID] = true
		}
		serps = append(serps, s)
	}
	for _, p := range []string{"q", "z"} {
		for q := 0; q < 120; q++ {
			for d := 0; d < 14; d++ {
				if rng.IntN(10) > 0 {
					rel = append(rel, Relevance{Query: fmt.Sprintf("%s%d", p, q), Doc: fmt.Sprintf("d%d", d), P: rng.Float64(), Line: len(rel) + 2})
				}
			}
		}
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, sessions.ParquetName))
	if err != nil {
		t.Fatal(err)
	}
	if err := sessions.WriteParquet(f, serps); err != nil {
		t.Fatal(err)
	}
	f.Close()
	whole := &sessions.Log{}
	onlyWithout := map[string]bool{}
	for i := range serps {
		if clicked[serps[i].SessionID] {
			if err := whole.Add(&serps[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range serps {
		if _, ok := whole.Queries.Lookup(serps[i].Query); !ok {
			onlyWithout[serps[i].Query] = true
		}
	}
	if len(onlyWithout) != 5 {
		t.Fatalf("%d queries only in sessions without a click, want z0-z4", len(onlyWithout))
	}
	for _, choice := range []SERPChoice{MostFrequent, Earliest} {
		opts := Options{Choice: choice}
		want, _, err := Assign(context.Background(), whole, rel, "rel.tsv", opts)
		if err != nil {
			t.Fatal(err)
		}
		small, noClick, err := loadFirstSERPs(context.Background(), dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		if small.Len() >= whole.Len()/10 {
			t.Fatalf("%s: streamed log keeps %d of %d SERPs", choice, small.Len(), whole.Len())
		}
		got, grep, err := assign(context.Background(), small, noClick, rel, "rel.tsv", opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: streamed labels differ (%d vs %d labels)", choice, len(got), len(want))
		}
		if n := grep.QuerySkips.Counts[ReasonOnlyWithoutClick]; n != len(onlyWithout) {
			t.Errorf("%s: %d queries left out as %s, want %d", choice, n, ReasonOnlyWithoutClick, len(onlyWithout))
		}
		// And the streamed relevance rows on the streamed log (one SERP
		// per query: first SERPs taken without counting).
		var tsv strings.Builder
		tsv.WriteString(RelevanceHeader + "\n")
		for _, r := range rel {
			fmt.Fprintf(&tsv, "%s\t%s\t%v\n", r.Query, r.Doc, r.P)
		}
		open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(tsv.String())), nil }
		got2, grep2, _, err := assignRows(context.Background(), small, noClick, fileRows(open, "rel.tsv"), "rel.tsv", opts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got2, want) || !reflect.DeepEqual(grep2, grep) {
			t.Fatalf("%s: assignStream on the streamed log differs", choice)
		}
		// The whole log read from a Yandex file (sessions.Load): the same.
		yl := filepath.Join(dir, "log.yandex.tsv")
		yf, err := os.Create(yl)
		if err != nil {
			t.Fatal(err)
		}
		if err := sessions.WriteYandex(yf, serps); err != nil {
			t.Fatal(err)
		}
		yf.Close()
		ylog, _, ynoClick, err := loadFirstSERPsNamed(context.Background(), yl, opts, false)
		if err != nil {
			t.Fatal(err)
		}
		got3, grep3, err := assign(context.Background(), ylog, ynoClick, rel, "rel.tsv", opts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got3, want) || grep3.QuerySkips.Counts[ReasonOnlyWithoutClick] != len(onlyWithout) {
			t.Fatalf("%s: labels from the Yandex log differ", choice)
		}
	}
}
