// Package textio holds the small pieces every reader of a user-supplied
// file shares: opening a file that may be
// gzip-compressed (detected by its magic bytes, not its name), removing a
// leading UTF-8 byte order mark, and quoting a field value for an error
// message without echoing megabytes or control bytes.
package textio

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strconv"
	"unicode/utf8"
)

// BOM is the UTF-8 encoding of U+FEFF, the byte order mark some editors
// (notably on Windows) put at the start of a text file.
const BOM = "\xef\xbb\xbf"

// gzipMagic are the first two bytes of a gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// Open opens a plain or gzip-compressed file for reading, with a leading
// UTF-8 BOM removed (of the decompressed text for gzip). Compression is
// detected from the gzip magic bytes (1f 8b), not from the file name, so a
// ".gz" file that is really plain text, or a compressed file without the
// extension, both work. Errors, including a corrupt or truncated gzip
// stream met while reading, name the file.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// The buffer's size changes no byte read, only the size of the reads
	// from the file; 1 MiB cost every open its allocation and zeroing.
	br := bufio.NewReaderSize(f, 64<<10)
	magic, _ := br.Peek(2)
	if bytes.Equal(magic, gzipMagic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: bad gzip header: %w", path, err)
		}
		g := &gzipFile{zr: zr, f: f, name: path}
		zb := bufio.NewReaderSize(g, 64<<10)
		SkipBOM(zb)
		return &plainFile{Reader: zb, close: g.Close}, nil
	}
	SkipBOM(br)
	return &plainFile{Reader: br, close: f.Close}, nil
}

// ReadFile reads a whole plain or gzip-compressed file (see Open), without
// a leading BOM. For a plain file the buffer is sized from the file, so it
// is not regrown.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var magic [2]byte
	n, _ := io.ReadFull(f, magic[:])
	f.Close()
	if n == 2 && bytes.Equal(magic[:], gzipMagic) {
		rc, err := Open(path)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(rc)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return TrimBOM(data), nil
}

// SkipBOM discards a UTF-8 BOM at the current position of br, if there is
// one. Call it before reading the first byte.
func SkipBOM(br *bufio.Reader) {
	if b, err := br.Peek(len(BOM)); err == nil && string(b) == BOM {
		_, _ = br.Discard(len(BOM))
	}
}

// NewReader returns a reader of r without a leading UTF-8 BOM. For readers
// that take an io.Reader (and so may be given one that Open did not make).
func NewReader(r io.Reader) *bufio.Reader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	SkipBOM(br)
	return br
}

// TrimBOM returns b without a leading UTF-8 BOM.
func TrimBOM(b []byte) []byte {
	return bytes.TrimPrefix(b, []byte(BOM))
}

type plainFile struct {
	*bufio.Reader
	close func() error
}

func (p *plainFile) Close() error { return p.close() }

type gzipFile struct {
	zr   *gzip.Reader
	f    *os.File
	name string
}

// Read decompresses; a truncated or corrupt stream becomes an error naming
// the file.
func (g *gzipFile) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: corrupt or truncated gzip data: %w", g.name, err)
	}
	return n, err
}

func (g *gzipFile) Close() error {
	g.zr.Close()
	return g.f.Close()
}

// MaxQuoted is the number of bytes of a value Quote keeps.
const MaxQuoted = 80

// Quote returns s as a Go-quoted string for an error message: control
// bytes, invalid UTF-8 and non-printable runes are escaped (so a message
// cannot move the cursor, clear the terminal or break a log line), and a
// value longer than MaxQuoted bytes is cut there (at a rune boundary) and
// followed by "... (N bytes)", so a 10 MB field gives a short message.
func Quote(s string) string {
	if len(s) <= MaxQuoted {
		return strconv.Quote(s)
	}
	cut := MaxQuoted
	for i := 1; i < utf8.UTFMax && !utf8.RuneStart(s[cut]); i++ {
		cut--
	}
	return strconv.Quote(s[:cut]) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

// QuoteBytes is Quote for a byte slice; it copies at most MaxQuoted bytes.
func QuoteBytes(b []byte) string {
	if len(b) <= MaxQuoted {
		return strconv.Quote(string(b))
	}
	cut := MaxQuoted
	for i := 1; i < utf8.UTFMax && !utf8.RuneStart(b[cut]); i++ {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "... (" + strconv.Itoa(len(b)) + " bytes)"
}

// EmptyError reports an input that holds no usable record: the file is
// empty, or every record in it was rejected. Commands
// treat it as bad input (exit 1) unless --allow-empty is given.
type EmptyError struct {
	File   string // the input file (or files, comma-separated)
	What   string // what there is none of, e.g. "SERPs kept"
	Counts string // what was read and rejected, e.g. "10 lines, 10 quarantined"
}

// Error names the file and the counts.
func (e *EmptyError) Error() string {
	msg := e.File + ": no " + e.What
	if e.Counts != "" {
		msg += " (" + e.Counts + ")"
	}
	return msg + "; an empty input is an error unless --allow-empty is given"
}
