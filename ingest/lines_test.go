package ingest

import (
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t *testing.T, in string, max int) []string {
	t.Helper()
	lr := newLineReader(iotest.OneByteReader(strings.NewReader(in)), max)
	var out []string
	for {
		line, tooLong, ok := lr.next()
		if !ok {
			break
		}
		if tooLong {
			out = append(out, "<long>")
			continue
		}
		out = append(out, string(line))
	}
	if lr.err != nil {
		t.Fatal(lr.err)
	}
	return out
}

func TestLineReaderEndings(t *testing.T) {
	// LF, CRLF, lone CR, an empty line, and a last line without terminator.
	got := readAll(t, "a\nb\r\nc\rd\n\ne", 100)
	want := []string{"a", "b", "c", "d", "", "e"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
	// A CR at a buffer boundary followed by LF is one terminator.
	got = readAll(t, "x\r\n\r\ny\r", 100)
	if strings.Join(got, "|") != "x||y" {
		t.Fatalf("got %q", got)
	}
}

func TestLineReaderTooLong(t *testing.T) {
	long := strings.Repeat("z", 3000)
	got := readAll(t, "ok\n"+long+"\nafter\n"+long, 1000)
	want := "ok|<long>|after|<long>"
	if strings.Join(got, "|") != want {
		t.Fatalf("got %q, want %s", got, want)
	}
	// Big buffer case: the long line is skipped without holding it.
	lr := newLineReader(strings.NewReader(strings.Repeat("y", 5<<20)+"\nnext\n"), 1<<20)
	_, tl, ok := lr.next()
	line, _, ok2 := lr.next()
	if !tl || !ok || !ok2 || string(line) != "next" || lr.lineNo != 2 {
		t.Fatalf("10MB-line handling: tooLong=%v line=%q lineNo=%d", tl, line, lr.lineNo)
	}
}

// TestLineReaderGrows: the buffer starts at 64 KiB and grows only as a
// line needs, so a line longer than the first buffer but within the
// limit comes back whole, a line of exactly max bytes too, and one byte
// more is too long; the lines around them are unaffected.
func TestLineReaderGrows(t *testing.T) {
	const max = 200_000
	text := func(n int) string { // no two neighbouring bytes equal
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a' + byte(i%26)
		}
		return string(b)
	}
	mid, exact, over := text(100_000), text(max), text(max+1)
	in := "a\n" + mid + "\r\nb\n" + exact + "\n" + over + "\nc\n" + mid
	want := []string{"a", mid, "b", exact, "<long>", "c", mid}
	lr := newLineReader(strings.NewReader(in), max)
	for i := 0; ; i++ {
		line, tooLong, ok := lr.next()
		if !ok {
			if i != len(want) {
				t.Fatalf("%d lines, want %d", i, len(want))
			}
			break
		}
		got := string(line)
		if tooLong {
			got = "<long>"
		}
		if i >= len(want) || got != want[i] {
			t.Fatalf("line %d: %d bytes, not the %d bytes written", i+1, len(got), len(want[min(i, len(want)-1)]))
		}
	}
	if lr.err != nil {
		t.Fatal(lr.err)
	}
}
