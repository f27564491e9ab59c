package labels

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/internal/textio"
)

// LabelsHeader is the header of the labels file `lovbench label` writes.
// The confidence column is empty where no confidence was computed.
const LabelsHeader = "query,term,label,probability,confidence"

// labelsHeaderV1 is the header of labels files written before labels had a
// confidence; ReadLabels still reads them (every Confidence is NoConfidence).
const labelsHeaderV1 = "query,term,label,probability"

// WriteLabels writes labels as CSV `query,term,label,probability,confidence`,
// one row per label in the given order; probabilities and confidences are
// printed in the shortest form that reads back exactly (strconv 'g', -1), a
// confidence that was not computed (NoConfidence) as an empty field.
func WriteLabels(w io.Writer, ls []Label) error {
	lw, err := newLabelWriter(w)
	if err != nil {
		return err
	}
	for _, l := range ls {
		if err := lw.write(l); err != nil {
			return err
		}
	}
	return lw.flush()
}

// labelWriter writes labels one at a time, as WriteLabels does.
type labelWriter struct {
	cw  *csv.Writer
	rec []string
}

// newLabelWriter writes the header to w.
func newLabelWriter(w io.Writer) (*labelWriter, error) {
	lw := &labelWriter{cw: csv.NewWriter(w), rec: make([]string, 5)}
	return lw, lw.cw.Write(strings.Split(LabelsHeader, ","))
}

// write writes one label row.
func (lw *labelWriter) write(l Label) error {
	lw.rec[0], lw.rec[1], lw.rec[2], lw.rec[3] = l.Query, l.Term, strconv.Itoa(l.Grade), strconv.FormatFloat(l.P, 'g', -1, 64)
	lw.rec[4] = FormatConfidence(l.Confidence)
	return lw.cw.Write(lw.rec)
}

// flush writes out what is buffered.
func (lw *labelWriter) flush() error {
	lw.cw.Flush()
	return lw.cw.Error()
}

// ReadLabelsFile reads the labels file at path (plain or gzip-compressed,
// textio.Open) with ReadLabels; a missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist).
func ReadLabelsFile(path string) ([]Label, error) {
	f, err := textio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadLabels(f, path)
}

// ReadLabels reads a labels file written by WriteLabels, or by a version
// before the confidence column (then every Confidence is NoConfidence); a BOM and CR
// or CRLF endings are accepted. Rank is the 1-based position of the row among the
// rows of its query, in file order. Any bad row is an error naming the file,
// line and field, since this file is produced by `lovbench label`.
func ReadLabels(r io.Reader, name string) ([]Label, error) {
	cr := csv.NewReader(textio.NewLineReader(r))
	cr.FieldsPerRecord = -1
	header, err := textio.ReadCSVHeader(cr, name, LabelsHeader, labelsHeaderV1)
	if err != nil {
		return nil, err
	}
	nf := strings.Count(header, ",") + 1
	var out []Label
	rank := map[string]int{}
	type key struct{ q, t string }
	seen := map[key]int{}
	for {
		f, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(f) != nf {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d (%s)", name, line, len(f), nf, header)
		}
		if f[0] == "" || f[1] == "" {
			return nil, fmt.Errorf("%s:%d: field query or term: empty", name, line)
		}
		l, err := strconv.Atoi(f[2])
		if err != nil || (l != Junk && (l < 0 || l > 4)) {
			return nil, fmt.Errorf("%s:%d: field label: %s is not -2 or 0..4", name, line, textio.Quote(f[2]))
		}
		p, err := strconv.ParseFloat(f[3], 64)
		if err != nil || math.IsNaN(p) || p < 0 || p > 1 {
			return nil, fmt.Errorf("%s:%d: field probability: %s is not a probability in [0,1]", name, line, textio.Quote(f[3]))
		}
		c := NoConfidence
		if nf == 5 {
			if c, err = ParseConfidence(f[4]); err != nil {
				return nil, fmt.Errorf("%s:%d: field confidence: %s is %v", name, line, textio.Quote(f[4]), err)
			}
		}
		k := key{f[0], f[1]}
		if prev, ok := seen[k]; ok {
			return nil, fmt.Errorf("%s:%d: (%s, %s) repeats line %d", name, line, textio.Quote(f[0]), textio.Quote(f[1]), prev)
		}
		seen[k] = line
		rank[f[0]]++
		out = append(out, Label{Query: f[0], Term: f[1], Rank: rank[f[0]], Grade: l, P: p, Confidence: c})
	}
	return out, nil
}
