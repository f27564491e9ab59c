package textio

import (
	"bufio"
	"bytes"
	"io"
)

// NewLineReader wraps r (every text table lovbench reads: relevance,
// labels, ground truth, features CSV, expert judgments) so that a UTF-8 byte order mark at the start is
// dropped and every line ending (LF, CRLF or a lone CR, as in the CBRBench
// file) reads as a single LF. Line numbers counted on the result equal the
// line numbers a text editor shows for the original file.
func NewLineReader(r io.Reader) io.Reader {
	return &textReader{r: bufio.NewReaderSize(r, 64<<10), start: true}
}

type textReader struct {
	r       *bufio.Reader
	start   bool
	afterCR bool // the previous chunk ended in CR: a leading LF is dropped
}

// Read implements io.Reader.
func (t *textReader) Read(p []byte) (int, error) {
	if t.start {
		t.start = false
		SkipBOM(t.r)
	}
	for {
		n, err := t.r.Read(p)
		if n == 0 {
			return 0, err
		}
		b := p[:n]
		start := 0
		if t.afterCR && b[0] == '\n' {
			start = 1
		}
		t.afterCR = false
		// Fast path: no CR in the chunk.
		if bytes.IndexByte(b[start:], '\r') < 0 {
			if start == 1 {
				n = copy(p, b[1:])
			}
			if n > 0 {
				return n, nil
			}
			continue // the chunk was a lone LF after CR
		}
		// Rewrite in place: CR LF -> LF, lone CR -> LF.
		w := 0
		for i := start; i < len(b); i++ {
			c := b[i]
			if c == '\r' {
				c = '\n'
				if i+1 < len(b) {
					if b[i+1] == '\n' {
						i++
					}
				} else {
					t.afterCR = true
				}
			}
			p[w] = c
			w++
		}
		return w, nil
	}
}
