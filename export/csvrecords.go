package export

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
)

// recordReader reads CSV records (RFC 4180, as encoding/csv) with a fast
// path for the common case of a line without quotes, which is split on
// commas without copying. Lines must end in LF (wrap the input in
// textio.NewLineReader). A record with quotes is handed to encoding/csv, with
// the following lines while its quotes are unbalanced (quoted line breaks).
// Empty lines are skipped, as encoding/csv does.
type recordReader struct {
	br     *bufio.Reader
	line   int // lines consumed so far
	buf    []byte
	fields [][]byte
}

func newRecordReader(r io.Reader) *recordReader {
	return &recordReader{br: bufio.NewReaderSize(r, 1<<20)}
}

// readLine returns the next line without its LF; io.EOF at the end.
func (r *recordReader) readLine() ([]byte, error) {
	r.buf = r.buf[:0]
	for {
		b, err := r.br.ReadSlice('\n')
		r.buf = append(r.buf, b...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if len(r.buf) == 0 && err != nil {
			return nil, io.EOF
		}
		r.line++
		return bytes.TrimSuffix(r.buf, []byte{'\n'}), nil
	}
}

// next returns the fields of the next record (valid until the next call)
// and the line the record starts on.
func (r *recordReader) next() ([][]byte, int, error) {
	var line []byte
	for {
		l, err := r.readLine()
		if err != nil {
			return nil, r.line, err
		}
		if len(l) > 0 {
			line = l
			break
		}
	}
	start := r.line
	r.fields = r.fields[:0]
	if bytes.IndexByte(line, '"') < 0 {
		for {
			i := bytes.IndexByte(line, ',')
			if i < 0 {
				r.fields = append(r.fields, line)
				return r.fields, start, nil
			}
			r.fields = append(r.fields, line[:i])
			line = line[i+1:]
		}
	}
	rec := append([]byte(nil), line...)
	for bytes.Count(rec, []byte{'"'})%2 == 1 {
		l, err := r.readLine()
		if err != nil {
			return nil, start, fmt.Errorf("line %d: quoted field not closed", start)
		}
		rec = append(append(rec, '\n'), l...)
	}
	cr := csv.NewReader(bytes.NewReader(rec))
	cr.FieldsPerRecord = -1
	fs, err := cr.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, start, fmt.Errorf("line %d: %w", start+pe.Line-1, pe.Err)
		}
		return nil, start, fmt.Errorf("line %d: %w", start, err)
	}
	if _, err := cr.Read(); !errors.Is(err, io.EOF) {
		return nil, start, fmt.Errorf("line %d: malformed quoted record", start)
	}
	for _, f := range fs {
		r.fields = append(r.fields, []byte(f))
	}
	return r.fields, start, nil
}
