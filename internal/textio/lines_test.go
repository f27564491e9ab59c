package textio

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLineReader(t *testing.T) {
	in := "\xEF\xBB\xBFa,1\rb,2\r\nc,3\n\rd,4"
	b, err := io.ReadAll(NewLineReader(strings.NewReader(in)))
	if err != nil {
		t.Fatal(err)
	}
	// "\n\r" is two line endings (LF, then a lone CR): an empty line.
	if want := "a,1\nb,2\nc,3\n\nd,4"; string(b) != want {
		t.Errorf("got %q, want %q", b, want)
	}
	// The same with every byte in its own read, so CR LF pairs straddle
	// reads.
	b, err = io.ReadAll(NewLineReader(iotest.OneByteReader(strings.NewReader(in))))
	if err != nil || string(b) != "a,1\nb,2\nc,3\n\nd,4" {
		t.Errorf("one byte at a time: %q %v", b, err)
	}
}

// normalizeText is the obvious (slow) definition NewLineReader must match.
func normalizeText(s string) string {
	s = strings.TrimPrefix(s, "\xEF\xBB\xBF")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"", "\r", "\r\n", "\xEF\xBB\xBFa\rb", "a\r\r\nb\n\r", "\xEF\xBB"} {
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, s string, chunk uint8) {
		var r io.Reader = strings.NewReader(s)
		if chunk%2 == 1 {
			r = iotest.OneByteReader(r)
		}
		b, err := io.ReadAll(NewLineReader(r))
		if err != nil {
			t.Fatal(err)
		}
		if want := normalizeText(s); string(b) != want {
			t.Fatalf("%q: got %q, want %q", s, b, want)
		}
	})
}
