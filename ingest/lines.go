package ingest

import (
	"bytes"
	"io"
)

// lineReader splits a stream into lines ending in LF, CRLF or a lone CR,
// without allocating per line. Lines longer than max bytes are not
// returned: the reader skips to their end and reports them as too long, so a
// huge line never needs more than a fixed buffer. The buffer starts at
// 64 KiB and grows (doubling) up to max+1 bytes only when a line does not
// fit: a log of short lines never allocates the limit (1 MiB by default),
// which a reader per part of a sharded ingest would do for each part.
type lineReader struct {
	r          io.Reader
	buf        []byte
	limit      int // the size buf may grow to: a whole line of max bytes fits
	start, end int
	eof        bool
	err        error
	max        int
	lineNo     int  // number of the line last returned (1-based)
	skipLF     bool // the previous line ended in CR: a following LF belongs to it
	// unterminated is true when the line last returned is the input's
	// final line and has no line terminator: the input may have been cut
	// in the middle of that line (docs/ingest.md).
	unterminated bool
}

func newLineReader(r io.Reader, max int) *lineReader {
	limit := max + 1 // a whole line of max bytes must fit
	if limit < 64<<10 {
		limit = 64 << 10
	}
	return &lineReader{r: r, buf: make([]byte, 64<<10), limit: limit, max: max}
}

// fill reads more data, compacting the buffer first. It returns false at the
// end of input or on error (lr.err).
func (lr *lineReader) fill() bool {
	if lr.eof {
		return false
	}
	if lr.start > 0 {
		n := copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.start, lr.end = 0, n
	}
	if lr.end == len(lr.buf) {
		if len(lr.buf) == lr.limit {
			return true // full: caller handles the long line
		}
		buf := make([]byte, min(2*len(lr.buf), lr.limit))
		copy(buf, lr.buf[:lr.end])
		lr.buf = buf
	}
	n, err := lr.r.Read(lr.buf[lr.end:])
	lr.end += n
	if err != nil {
		lr.eof = true
		if err != io.EOF {
			lr.err = err
		}
	}
	return n > 0 || !lr.eof
}

// next returns the next line without its terminator. The slice is valid
// until the following call. tooLong reports a line over the limit (line is
// then nil). ok is false at the end of input; check lr.err then.
func (lr *lineReader) next() (line []byte, tooLong, ok bool) {
	lr.unterminated = false
	for {
		if lr.skipLF {
			if lr.start == lr.end && !lr.fill() {
				if lr.start == lr.end {
					return nil, false, false
				}
			}
			if lr.start < lr.end {
				if lr.buf[lr.start] == '\n' {
					lr.start++
				}
				lr.skipLF = false
			}
			continue
		}
		data := lr.buf[lr.start:lr.end]
		if i := indexEOL(data); i >= 0 {
			line = data[:i]
			lr.start += i + 1
			if data[i] == '\r' {
				lr.skipLF = true
			}
			lr.lineNo++
			if len(line) > lr.max {
				return nil, true, true
			}
			return line, false, true
		}
		if len(data) > lr.max {
			// Over the limit without a terminator: skip to the end of line.
			lr.lineNo++
			lr.start = lr.end
			for {
				if !lr.fill() {
					return nil, true, true
				}
				d := lr.buf[lr.start:lr.end]
				if i := indexEOL(d); i >= 0 {
					lr.start += i + 1
					if d[i] == '\r' {
						lr.skipLF = true
					}
					return nil, true, true
				}
				lr.start = lr.end
			}
		}
		if !lr.fill() {
			if lr.start < lr.end { // last line without terminator
				line = lr.buf[lr.start:lr.end]
				lr.start = lr.end
				lr.lineNo++
				lr.unterminated = true
				if len(line) > lr.max {
					return nil, true, true
				}
				return line, false, true
			}
			return nil, false, false
		}
	}
}

// indexEOL returns the index of the first LF or CR in b, or -1.
func indexEOL(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	lim := b
	if i >= 0 {
		lim = b[:i]
	}
	if j := bytes.IndexByte(lim, '\r'); j >= 0 {
		return j
	}
	return i
}
