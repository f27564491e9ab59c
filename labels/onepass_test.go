package labels

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/internal/membudget"
	"github.com/lovbench/lovbench/sessions"
)

// writeSessionsDir writes serps as the sessions.parquet of a new directory,
// in row groups of rowGroup rows, and returns the directory.
//
// A SERP without a click gets one at rank 1: labels come only from
// sessions with a click (LOVBench's rule 1), and these tests are about
// the choice of first SERPs among them.
func writeSessionsDir(t *testing.T, serps []sessions.SERP, rowGroup int) string {
	t.Helper()
	serps = slices.Clone(serps)
	for i := range serps {
		if len(serps[i].Clicks) == 0 {
			serps[i].Clicks = []sessions.Click{{Rank: 0}}
		}
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, sessions.ParquetName))
	if err != nil {
		t.Fatal(err)
	}
	w := sessions.NewParquetWriter(f, rowGroup)
	for i := range serps {
		if err := w.Write(&serps[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// inMemoryFiles labels the whole log of dir (sessions.Load, every SERP in
// memory) from the relevance file rel with ReadRelevance and Assign, and
// returns the labels file and the quarantine file Run would write.
func inMemoryFiles(t *testing.T, dir, rel string, opts Options) (labels, quarantine []byte) {
	t.Helper()
	whole, err := sessions.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(rel)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, readSkips, err := ReadRelevance(f, rel)
	if err != nil {
		t.Fatal(err)
	}
	ls, rep, err := Assign(context.Background(), whole, rows, rel, opts)
	if err != nil {
		t.Fatal(err)
	}
	var lb, qb bytes.Buffer
	if err := WriteLabels(&lb, ls); err != nil {
		t.Fatal(err)
	}
	if err := WriteQuarantine(&qb, append(readSkips.Records, rep.RowSkips.Records...)); err != nil {
		t.Fatal(err)
	}
	return lb.Bytes(), qb.Bytes()
}

// runFiles runs the label stage (one streamed pass over dir) and returns
// its labels file, its quarantine file and its report.
func runFiles(t *testing.T, dir, rel string, opts Options, memLimit int64) ([]byte, []byte, RunReport) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "labels.csv")
	// Under a limit, as the label command: Go's soft limit set around Run.
	defer membudget.SetSoftLimit(memLimit)()
	rep, err := Run(context.Background(), Config{Relevance: rel, Sessions: dir, Out: out, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	l, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	q, err := os.ReadFile(rep.QuarantineFile)
	if err != nil {
		t.Fatal(err)
	}
	return l, q, rep
}

// TestOnePassHand: the label stage on a hand-made log whose first SERPs
// were chosen by hand (SERP size 3): several SERPs per query, a tie
// between two lists broken by the list shown first after the later one
// led, a query whose first SERP is short, a SERP longer than a page, a
// doc shown twice, a query with only short SERPs, a first SERP with a doc
// without relevance, repeated and conflicting relevance rows on and off
// the first SERPs. Row groups of 4 SERPs, with and without a memory
// limit; the files equal those of the in-memory path.
func TestOnePassHand(t *testing.T) {
	s := func(q string, docs ...string) sessions.SERP {
		return sessions.SERP{SessionID: "s" + q, Query: q, Region: "0", Results: docs}
	}
	serps := []sessions.SERP{
		s("a", "x1", "x2", "x3"),       // 0: a's X shown first
		s("b", "z1", "z2"),             // 1: b's first SERP is short
		s("a", "y1", "y2", "y3"),       // 2
		s("f", "w1", "w2", "w3"),       // 3: f's first full SERP (W)
		s("a", "y1", "y2", "y3"),       // 4: Y leads a, 2 to 1
		s("b", "z1", "z2", "z3", "z4"), // 5: b's first full SERP: z1 z2 z3
		s("f", "v1", "v2", "v3"),       // 6
		s("c", "c1", "c2", "c3"),       // 7: c3 has no relevance
		s("a", "x1", "x2", "x3", "x9"), // 8: X ties Y at 2, shown first: X leads
		s("f", "v1", "v2", "v3"),       // 9: V leads f, 2 to 1
		s("d", "d1", "d2", "d1"),       // 10: d1 twice
		s("e", "e1"),                   // 11: e has only short SERPs
		s("b", "z1", "z2", "z3"),       // 12
	}
	relText := RelevanceHeader + `
a	x1	0.75
a	x2	0.55
a	x3	0.1
a	y1	0.9
b	z1	0.2
b	z2	0.45
b	z3	0.5
b	z4	0.99
c	c1	0.3
c	c2	0.3
d	d1	0.6
d	d2	0.7
f	v1	0.61
f	v2	0.19
f	v3	0.45
f	w1	0.8
f	w2	0.8
f	w3	0.8
a	x1	0.75
a	x2	0.1
zz	x1	0.5
e	e1	0.5
a	y1	0.3
`
	rel := filepath.Join(t.TempDir(), "rel.tsv")
	if err := os.WriteFile(rel, []byte(relText), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := writeSessionsDir(t, serps, 4)
	common := "query,term,label,probability,confidence\n" +
		"a,x1,4,0.75,\na,x2,2,0.55,\na,x3,-2,0.1,\n" +
		"b,z1,0,0.2,\nb,z2,1,0.45,\nb,z3,2,0.5,\n" +
		"d,d1,3,0.6,\nd,d2,4,0.7,\n"
	for _, tc := range []struct {
		choice SERPChoice
		want   string
	}{
		{MostFrequent, common + "f,v1,3,0.61,\nf,v2,-2,0.19,\nf,v3,1,0.45,\n"},
		{Earliest, common + "f,w1,4,0.8,\nf,w2,4,0.8,\nf,w3,4,0.8,\n"},
	} {
		opts := Options{SERPSize: 3, Choice: tc.choice}
		wantL, wantQ := inMemoryFiles(t, dir, rel, opts)
		if string(wantL) != tc.want {
			t.Fatalf("%s: in-memory labels\n%s\nwant (by hand)\n%s", tc.choice, wantL, tc.want)
		}
		for _, limit := range []int64{0, 1 << 20} {
			l, q, rep := runFiles(t, dir, rel, opts, limit)
			if !bytes.Equal(l, wantL) || !bytes.Equal(q, wantQ) {
				t.Errorf("%s, memory limit %d: labels\n%s\nquarantine\n%s\nwant\n%s\n%s", tc.choice, limit, l, q, wantL, wantQ)
			}
			wantRows := map[string]int{ReasonDuplicate: 1, ReasonConflict: 2, ReasonUnknownQuery: 1,
				ReasonNotOnFirstSERP: 5, ReasonQueryDropped: 3, ReasonDuplicateOnSERP: 1}
			wantQueries := map[string]int{ReasonIncompleteSERP: 1, ReasonShortSERP: 1}
			if rep.LogQueries != 6 || rep.LabelledQueries != 4 || rep.Labels != 11 || rep.RelevanceRows != 23 ||
				!reflect.DeepEqual(rep.RowSkips.Counts, wantRows) || !reflect.DeepEqual(rep.QuerySkips.Counts, wantQueries) {
				t.Errorf("%s, memory limit %d: report %+v", tc.choice, limit, rep.Report)
			}
		}
	}
}

// TestOnePassRandom: on a random log of many row groups (queries shown up
// to dozens of times with a few competing lists, often tied; short first
// SERPs; docs repeated on a SERP; SERPs longer than a page) and a relevance
// file with gaps, repeats and unknown queries, the label stage writes the
// labels and quarantine of the in-memory path, byte for byte, for both
// first-SERP choices, with and without a memory limit.
func TestOnePassRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 4))
	var serps []sessions.SERP
	for i := range 6000 {
		q := fmt.Sprintf("q%d", rng.IntN(300))
		n := 9 + rng.IntN(4) // 9..12: some short, some longer than a page
		res := make([]string, n)
		variant := rng.IntN(3) // a few lists per query, so ties are common
		for r := range res {
			res[r] = fmt.Sprintf("d%d", (r+variant)%13)
			if rng.IntN(40) == 0 {
				res[r] = fmt.Sprintf("d%d", rng.IntN(13)) // may repeat a doc
			}
		}
		serps = append(serps, sessions.SERP{SessionID: fmt.Sprint("s", i), Query: q, Region: "0", Results: res})
	}
	var b strings.Builder
	b.WriteString(RelevanceHeader + "\n")
	for i := range 5000 {
		q := fmt.Sprintf("q%d", rng.IntN(310)) // q300..q309: unknown
		d := fmt.Sprintf("d%d", rng.IntN(15))
		if i%50 == 0 {
			b.WriteString("not a row\n")
		}
		fmt.Fprintf(&b, "%s\t%s\t%.2f\n", q, d, rng.Float64())
	}
	for q := range 300 { // most pairs once more, at the end
		for d := range 13 {
			if rng.IntN(8) > 0 {
				fmt.Fprintf(&b, "q%d\td%d\t%.2f\n", q, d, rng.Float64())
			}
		}
	}
	rel := filepath.Join(t.TempDir(), "rel.tsv")
	if err := os.WriteFile(rel, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := writeSessionsDir(t, serps, 500)
	for _, choice := range []SERPChoice{MostFrequent, Earliest} {
		opts := Options{Choice: choice}
		wantL, wantQ := inMemoryFiles(t, dir, rel, opts)
		if n := bytes.Count(wantL, []byte("\n")); n < 500 {
			t.Fatalf("%s: only %d labels", choice, n-1)
		}
		for _, limit := range []int64{0, 1 << 20} {
			l, q, _ := runFiles(t, dir, rel, opts, limit)
			if !bytes.Equal(l, wantL) || !bytes.Equal(q, wantQ) {
				t.Errorf("%s, memory limit %d: files differ from the in-memory path", choice, limit)
			}
		}
	}
}
