package labels

import (
	"bufio"
	"io"
)

// NewTextReader wraps r so that a UTF-8 byte order mark at the start is
// dropped and every line ending (LF, CRLF or a lone CR, as in the CBRBench
// file) reads as a single LF. Line numbers counted on the result equal the
// line numbers a text editor shows for the original file.
func NewTextReader(r io.Reader) io.Reader {
	return &textReader{r: bufio.NewReaderSize(r, 64<<10), start: true}
}

type textReader struct {
	r       *bufio.Reader
	start   bool
	afterCR bool
}

func (t *textReader) Read(p []byte) (int, error) {
	if t.start {
		t.start = false
		if b, err := t.r.Peek(3); err == nil && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
			_, _ = t.r.Discard(3)
		}
	}
	n := 0
	for n < len(p) {
		c, err := t.r.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		if t.afterCR {
			t.afterCR = false
			if c == '\n' {
				continue
			}
		}
		if c == '\r' {
			t.afterCR = true
			c = '\n'
		}
		p[n] = c
		n++
		if t.r.Buffered() == 0 && n > 0 {
			break
		}
	}
	return n, nil
}
