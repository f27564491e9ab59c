package textio

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// A leading BOM is removed from plain and gzip files, by Open and ReadFile;
// a BOM later in the file is content and stays.
func TestOpenReadFileBOMAndGzip(t *testing.T) {
	dir := t.TempDir()
	text := "q1 0 d1 1\n" + BOM + "x\n"
	cases := map[string][]byte{
		"plain":        []byte(text),
		"plain-bom":    []byte(BOM + text),
		"gzip":         gz(t, text),
		"gzip-bom":     gz(t, BOM+text),
		"gzip-bom.txt": gz(t, BOM+text),
	}
	for name, content := range cases {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		rc, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(got) != text {
			t.Errorf("Open(%s) = %q, %v; want %q", name, got, err, text)
		}
		got, err = ReadFile(p)
		if err != nil || string(got) != text {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", name, got, err, text)
		}
	}
}

func TestOpenTruncatedGzipNamesFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cut.gz")
	full := gz(t, strings.Repeat("line\n", 1000))
	os.WriteFile(p, full[:len(full)/2], 0o644)
	rc, err := Open(p)
	if err == nil {
		_, err = io.ReadAll(rc)
		rc.Close()
	}
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("truncated gzip: err = %v, want an error naming %s", err, p)
	}
	if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("ReadFile truncated gzip: err = %v", err)
	}
}

func TestNewReaderBOM(t *testing.T) {
	for _, in := range []string{"a,b\n", BOM + "a,b\n"} {
		b, _ := io.ReadAll(NewReader(strings.NewReader(in)))
		if string(b) != "a,b\n" {
			t.Errorf("NewReader(%q) = %q", in, b)
		}
	}
	if got := string(TrimBOM([]byte(BOM + BOM + "x"))); got != BOM+"x" {
		t.Errorf("TrimBOM removes only one BOM: got %q", got)
	}
}

// Quote: short values are Go-quoted; control bytes are escaped; a 10 MB
// value gives a message of about 100 bytes with its length.
func TestQuote(t *testing.T) {
	cases := map[string]string{
		"abc":           `"abc"`,
		"a\x1b[2Jb\r\n": `"a\x1b[2Jb\r\n"`,
		"\xff":          `"\xff"`,
	}
	for in, want := range cases {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
		if got := QuoteBytes([]byte(in)); got != want {
			t.Errorf("QuoteBytes(%q) = %s, want %s", in, got, want)
		}
	}
	huge := strings.Repeat("x", 10<<20)
	want := `"` + strings.Repeat("x", 80) + `"... (10485760 bytes)`
	if got := Quote(huge); got != want {
		t.Errorf("Quote(10 MB) = %.200s, want %s", got, want)
	}
	// A cut inside a multi-byte rune backs up to its start: 79 x and "é"
	// (2 bytes) straddle byte 80.
	s := strings.Repeat("x", 79) + "éé"
	if got, want := Quote(s), `"`+strings.Repeat("x", 79)+`"... (83 bytes)`; got != want {
		t.Errorf("Quote cut in a rune = %s, want %s", got, want)
	}
	if got := Quote(strings.Repeat("\x80", 100)); len(got) > 4*80+30 {
		t.Errorf("Quote of invalid bytes too long: %d", len(got))
	}
}

func FuzzQuote(f *testing.F) {
	f.Add("abc")
	f.Add(strings.Repeat("é", 60))
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		if len(q) > 4*MaxQuoted+40 {
			t.Fatalf("Quote(%d bytes) is %d bytes", len(s), len(q))
		}
		for _, c := range []byte(q) {
			if c < 0x20 || c == 0x7f {
				t.Fatalf("Quote(%q) = %q holds a control byte", s, q)
			}
		}
		if q != QuoteBytes([]byte(s)) {
			t.Fatal("Quote and QuoteBytes differ")
		}
	})
}
