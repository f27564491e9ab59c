package sampling

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/labels"
)

// GroundTruthHeader is the header of the ground-truth CSV (docs/method.md section
// 7, as LOVBench_GroundTruth.csv).
const GroundTruthHeader = "query,term,label"

// WriteGroundTruth writes rows as CSV `query,term,label`.
func WriteGroundTruth(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(strings.Split(GroundTruthHeader, ",")); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write([]string{r.Query, r.Term, strconv.Itoa(r.Label)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadGroundTruth reads a ground-truth CSV (header query,term,label; a BOM
// and CR or CRLF line endings are accepted). Labels must be -2 or 0..4. A bad
// row or a repeated (query, term) is an error naming the file, line and
// field. Sampled is false for every row (the file does not say).
func ReadGroundTruth(r io.Reader, name string) ([]Row, error) {
	cr := csv.NewReader(textio.NewLineReader(r))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	h, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:1: empty file, want header %s", name, GroundTruthHeader)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if strings.Join(h, ",") != GroundTruthHeader {
		return nil, fmt.Errorf("%s:1: header %s, want %s", name, textio.Quote(strings.Join(h, ",")), textio.Quote(GroundTruthHeader))
	}
	type key struct{ q, t string }
	seen := map[key]int{}
	var out []Row
	for {
		f, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 3 (query,term,label)", name, line, len(f))
		}
		if f[0] == "" {
			return nil, fmt.Errorf("%s:%d: field query: empty", name, line)
		}
		if f[1] == "" {
			return nil, fmt.Errorf("%s:%d: field term: empty", name, line)
		}
		l, err := strconv.Atoi(f[2])
		if err != nil || (l != labels.Junk && (l < 0 || l > 4)) {
			return nil, fmt.Errorf("%s:%d: field label: %s is not -2 or 0..4", name, line, textio.Quote(f[2]))
		}
		k := key{f[0], f[1]}
		if prev, ok := seen[k]; ok {
			return nil, fmt.Errorf("%s:%d: (%s, %s) repeats line %d", name, line, textio.Quote(f[0]), textio.Quote(f[1]), prev)
		}
		seen[k] = line
		out = append(out, Row{Query: strings.Clone(f[0]), Term: strings.Clone(f[1]), Label: l})
	}
	return out, nil
}

// Config is what `lovbench sample` runs on.
type Config struct {
	Labels  string // labels CSV of `lovbench label`
	Out     string // ground-truth CSV to write
	Report  string // report JSON to write; "" means Out + ".report.json"
	Options Options
	// AllowEmpty accepts a labels file without a row; otherwise Run returns
	// a *textio.EmptyError.
	AllowEmpty bool
}

// Run reads the labels, samples (Sample) against the corpus c, and writes the
// ground truth and the report atomically.
func Run(ctx context.Context, cfg Config, c Candidates) (Report, error) {
	f, err := textio.Open(cfg.Labels)
	if err != nil {
		return Report{}, err
	}
	ls, err := labels.ReadLabels(f, cfg.Labels)
	f.Close()
	if err != nil {
		return Report{}, err
	}
	if len(ls) == 0 && !cfg.AllowEmpty {
		return Report{}, &textio.EmptyError{File: cfg.Labels, What: "label row"}
	}
	rows, rep, err := Sample(ctx, ls, c, cfg.Options)
	if err != nil {
		return rep, err
	}
	if err := atomicfile.WriteFile(cfg.Out, func(w io.Writer) error { return WriteGroundTruth(w, rows) }); err != nil {
		return rep, err
	}
	rp := cfg.Report
	if rp == "" {
		rp = cfg.Out + ".report.json"
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return rep, err
	}
	return rep, atomicfile.WriteBytes(rp, append(b, '\n'))
}
