package textio

import (
	"encoding/csv"
	"strings"
	"testing"
)

// ReadCSVHeader: the current and an older header are returned; another header, an empty file and a broken quote are errors
// naming the file.
func TestReadCSVHeader(t *testing.T) {
	for _, tc := range []struct {
		in     string
		header string
		err    string
	}{
		{"a,b,c\n1,2,3\n", "a,b,c", ""},
		{"a,b\n1,2\n", "a,b", ""},
		{"a,x\n", "", `f.csv:1: header "a,x", want "a,b,c" (or "a,b")`},
		{"", "", "f.csv:1: empty file, want header a,b,c"},
		{"\"a,b\n", "", "f.csv: "},
	} {
		h, err := ReadCSVHeader(csv.NewReader(strings.NewReader(tc.in)), "f.csv", "a,b,c", "a,b")
		if h != tc.header || (tc.err == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), tc.err)) {
			t.Errorf("%q: %q, %v; want %q, %q", tc.in, h, err, tc.header, tc.err)
		}
	}
}
