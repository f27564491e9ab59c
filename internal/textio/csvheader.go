package textio

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ReadCSVHeader reads the header row of a CSV file with cr and returns the
// accepted header it equals. accepted lists the
// current header first, then older ones a reader still takes. An empty file
// or any other header is an error naming the file and line 1; a CSV error is
// returned wrapped, with the file name.
func ReadCSVHeader(cr *csv.Reader, name string, accepted ...string) (string, error) {
	h, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return "", fmt.Errorf("%s:1: empty file, want header %s", name, accepted[0])
		}
		return "", fmt.Errorf("%s: %w", name, err)
	}
	got := strings.Join(h, ",")
	for _, a := range accepted {
		if got == a {
			return a, nil
		}
	}
	want := Quote(accepted[0])
	if len(accepted) > 1 {
		older := make([]string, len(accepted)-1)
		for i, a := range accepted[1:] {
			older[i] = Quote(a)
		}
		want += " (or " + strings.Join(older, " or ") + ")"
	}
	return "", fmt.Errorf("%s:1: header %s, want %s", name, Quote(got), want)
}
