package export

import (
	"encoding/csv"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/internal/textio"
)

func readAllRecords(t *testing.T, s string) ([][]string, []int, error) {
	t.Helper()
	rr := newRecordReader(textio.NewLineReader(strings.NewReader(s)))
	var out [][]string
	var lines []int
	for {
		fs, line, err := rr.next()
		if errors.Is(err, io.EOF) {
			return out, lines, nil
		}
		if err != nil {
			return out, lines, err
		}
		rec := make([]string, len(fs))
		for i, f := range fs {
			rec[i] = string(f)
		}
		out = append(out, rec)
		lines = append(lines, line)
	}
}

func TestRecordReader(t *testing.T) {
	in := "query,term,x\r\n\"a, b\",t1,1\r\n\r\n\"multi\nline\",\"t\"\"2\",2\nq,t3,3"
	recs, lines, err := readAllRecords(t, in)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"query", "term", "x"}, {"a, b", "t1", "1"}, {"multi\nline", "t\"2", "2"}, {"q", "t3", "3"}}
	if !slices.EqualFunc(recs, want, slices.Equal) {
		t.Errorf("records %q, want %q", recs, want)
	}
	if !slices.Equal(lines, []int{1, 2, 4, 6}) {
		t.Errorf("lines %v, want [1 2 4 6]", lines)
	}
	if _, _, err := readAllRecords(t, "a,b\n\"open,c\n"); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("unclosed quote: %v", err)
	}
}

// FuzzRecordReader checks the fast CSV reader against encoding/csv on every
// input encoding/csv accepts.
func FuzzRecordReader(f *testing.F) {
	for _, s := range []string{"a,b\n", "\"a,\"\"b\",c\n\nd", "x\n\"y\nz\",w\n", ",,\n", "a\r\nb\rc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, _, err := readAllRecords(t, s)
		cr := csv.NewReader(textio.NewLineReader(strings.NewReader(s)))
		cr.FieldsPerRecord = -1
		want, werr := cr.ReadAll()
		if werr != nil {
			return // malformed for encoding/csv: only the absence of a panic matters
		}
		if err != nil {
			t.Fatalf("%q: error %v, encoding/csv reads %q", s, err, want)
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("%q: got %q, encoding/csv %q", s, got, want)
		}
	})
}
