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
		got, gotRep, gotRead, err := assignRows(context.Background(), log, nil, fileRows(open, "rel.tsv"), "rel.tsv", opts)
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

// TestSkipDetailsQuoteHostileNames: every skip detail, on the streamed path
// (the label stage without --expert) and on Assign, quotes names as
// textio.Quote does: cut after 80 bytes with the full length given, control
// bytes and the bidi override escaped. The streamed path once spelled names
// with %q, repeating a huge query in full in report.json.
func TestSkipDetailsQuoteHostileNames(t *testing.T) {
	long := strings.Repeat("q", 5000) + "\x1b[31m\u202e"
	hostileDoc := "doc\x00\x7f" + strings.Repeat("d", 300)
	l := &sessions.Log{}
	addSERP(t, l, "s1", "a", "x", "y")        // full SERP, y has no row: incomplete
	addSERP(t, l, "s2", long, "x", "y")       // full SERP, hostile query, rows for both
	addSERP(t, l, "s3", "short", "x")         // short SERP
	addSERP(t, l, "s4", "c", hostileDoc, "x") // labelled, plus a row off the SERP
	rel := []Relevance{
		{"a", "x", 0.5, 2, Posterior{}},
		{long + "zz", "x", 0.5, 3, Posterior{}},                                                                     // unknown query
		{long, "x", 0.5, 4, Posterior{}}, {long, "y", 0.5, 5, Posterior{}}, {long, hostileDoc, 0.5, 6, Posterior{}}, // last: not on the first SERP
		{"short", "x", 0.5, 7, Posterior{}},
		{"c", hostileDoc, 0.5, 8, Posterior{}}, {"c", "x", 0.5, 9, Posterior{}}, {"c", "z" + hostileDoc, 0.5, 10, Posterior{}},
	}
	var file strings.Builder
	file.WriteString("query\tdoc\trelevance\n")
	for _, r := range rel {
		fmt.Fprintf(&file, "%s\t%s\t%g\n", r.Query, r.Doc, r.P)
	}
	open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file.String())), nil }
	opts := Options{SERPSize: 2}
	_, streamed, _, err := assignRows(context.Background(), l, nil, fileRows(open, "rel.tsv"), "rel.tsv", opts)
	if err != nil {
		t.Fatal(err)
	}
	_, inMemory, err := Assign(context.Background(), l, rel, "rel.tsv", opts)
	if err != nil {
		t.Fatal(err)
	}
	for path, rep := range map[string]Report{"streamed": streamed, "Assign": inMemory} {
		var details []Problem
		details = append(details, rep.RowSkips.Examples...)
		details = append(details, rep.QuerySkips.Examples...)
		// Hand count: unknown query, not on the first SERP (long's and c's
		// off-SERP rows), the incomplete query a, the short query.
		if len(details) < 5 {
			t.Fatalf("%s: only %d skip examples: %+v", path, len(details), details)
		}
		for _, p := range details {
			if len(p.Detail) > 400 {
				t.Errorf("%s: %s detail of %d bytes: %.120q...", path, p.Reason, len(p.Detail), p.Detail)
			}
			if strings.ContainsAny(p.Detail, "\x00\x1b\x7f\u202e") {
				t.Errorf("%s: %s detail holds a raw control character: %q", path, p.Reason, p.Detail)
			}
		}
		if rep.RowSkips.Counts[ReasonUnknownQuery] != 1 || rep.RowSkips.Counts[ReasonNotOnFirstSERP] != 2 {
			t.Errorf("%s: row skips %v", path, rep.RowSkips.Counts)
		}
	}
}
