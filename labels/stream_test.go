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
// the labels and report of labelling from the whole log, for both
// first-SERP choices, on a log where queries show several result lists
// (some repeated, some short).
func TestStreamedFirstSERPs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var serps []sessions.SERP
	var rel []Relevance
	for i := 0; i < 3000; i++ {
		q := fmt.Sprintf("q%d", rng.IntN(120))
		n := 8 + rng.IntN(5) // some SERPs shorter than 10
		res := make([]string, n)
		for r := range res {
			res[r] = fmt.Sprintf("d%d", r)
			if rng.IntN(3) == 0 {
				res[r] = fmt.Sprintf("d%d", rng.IntN(14))
			}
		}
		serps = append(serps, sessions.SERP{SessionID: fmt.Sprint("s", i/3), Index: i % 3, Query: q, Region: "0", Results: res})
	}
	for q := 0; q < 120; q++ {
		for d := 0; d < 14; d++ {
			if rng.IntN(10) > 0 {
				rel = append(rel, Relevance{Query: fmt.Sprintf("q%d", q), Doc: fmt.Sprintf("d%d", d), P: rng.Float64(), Line: len(rel) + 2})
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
	whole, err := sessions.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, choice := range []SERPChoice{MostFrequent, Earliest} {
		opts := Options{Choice: choice}
		want, wrep, err := Assign(context.Background(), whole, rel, "rel.tsv", opts)
		if err != nil {
			t.Fatal(err)
		}
		small, err := loadFirstSERPs(context.Background(), dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		if small.Len() >= whole.Len()/10 {
			t.Fatalf("%s: streamed log keeps %d of %d SERPs", choice, small.Len(), whole.Len())
		}
		got, grep, err := Assign(context.Background(), small, rel, "rel.tsv", opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(grep, wrep) {
			t.Fatalf("%s: streamed labels differ (%d vs %d labels)", choice, len(got), len(want))
		}
		// And the streamed relevance rows on the streamed log (one SERP
		// per query: first SERPs taken without counting).
		var tsv strings.Builder
		tsv.WriteString(RelevanceHeader + "\n")
		for _, r := range rel {
			fmt.Fprintf(&tsv, "%s\t%s\t%v\n", r.Query, r.Doc, r.P)
		}
		open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(tsv.String())), nil }
		got2, grep2, _, err := assignRows(context.Background(), small, fileRows(open, "rel.tsv"), "rel.tsv", opts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got2, want) || !reflect.DeepEqual(grep2, wrep) {
			t.Fatalf("%s: assignStream on the streamed log differs", choice)
		}
	}
}
