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
// 7: LOVBench_GroundTruth.csv's query,term,label, then the label's
// confidence, empty where it is not known).
const GroundTruthHeader = "query,term,label,confidence"

// groundTruthHeaderV1 is the header of ground truths written before labels
// had a confidence (and of LOVBench_GroundTruth.csv); ReadGroundTruth still
// reads them, every Confidence then labels.NoConfidence.
const groundTruthHeaderV1 = "query,term,label"

// WriteGroundTruth writes rows as CSV `query,term,label,confidence`: the
// confidence in the shortest form that reads back exactly (strconv 'g', -1),
// an empty field where it is not known (labels.NoConfidence: the sampled
// terms, and labels made without a confidence).
func WriteGroundTruth(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(strings.Split(GroundTruthHeader, ",")); err != nil {
		return err
	}
	rec := make([]string, 4)
	for _, r := range rows {
		rec[0], rec[1], rec[2], rec[3] = r.Query, r.Term, strconv.Itoa(r.Label), labels.FormatConfidence(r.Confidence)
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadGroundTruth reads a ground-truth CSV (header query,term,label,confidence,
// or query,term,label as written before confidences and as
// LOVBench_GroundTruth.csv; a BOM and CR or CRLF line endings are accepted).
// Labels must be -2 or 0..4, a confidence empty (Confidence is then
// labels.NoConfidence) or a probability in [0, 1]. A bad row or a repeated
// (query, term) is an error naming the file, line and field. Sampled is
// false for every row (the file does not say).
func ReadGroundTruth(r io.Reader, name string) ([]Row, error) {
	cr := csv.NewReader(textio.NewLineReader(r))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := textio.ReadCSVHeader(cr, name, GroundTruthHeader, groundTruthHeaderV1)
	if err != nil {
		return nil, err
	}
	nf := strings.Count(header, ",") + 1
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
		if len(f) != nf {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d (%s)", name, line, len(f), nf, header)
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
		c := labels.NoConfidence
		if nf == 4 {
			if c, err = labels.ParseConfidence(f[3]); err != nil {
				return nil, fmt.Errorf("%s:%d: field confidence: %s is %v", name, line, textio.Quote(f[3]), err)
			}
		}
		k := key{f[0], f[1]}
		if prev, ok := seen[k]; ok {
			return nil, fmt.Errorf("%s:%d: (%s, %s) repeats line %d", name, line, textio.Quote(f[0]), textio.Quote(f[1]), prev)
		}
		seen[k] = line
		out = append(out, Row{Query: strings.Clone(f[0]), Term: strings.Clone(f[1]), Label: l, Confidence: c})
	}
	return out, nil
}

// The sample stage's files and defaults, the one home of each (the
// command `lovbench sample`, the pipeline's sample stage and export,
// which copies the ground truth into the dataset, take them from here).
const (
	// FileGroundTruth is the ground-truth CSV (GroundTruthHeader).
	FileGroundTruth = "ground_truth.csv"
	// FileReport is the pipeline's name of the stage's Report.
	FileReport = "sample_report.json"
	// DefaultSeed is the seed of the draws.
	DefaultSeed = 1
)

// DefaultConfig returns the stage's defaults: DefaultSeed and
// DefaultPerQuery.
func DefaultConfig() Config {
	return Config{Options: Options{Seed: DefaultSeed, PerQuery: DefaultPerQuery}}
}

// Config is what the sample stage (`lovbench sample`, the pipeline's
// sample stage) runs on.
type Config struct {
	Labels string // labels CSV of `lovbench label`
	// Candidates are the corpus' terms the draws come from (a
	// *features.Corpus).
	Candidates Candidates
	Out        string // ground-truth CSV to write
	Report     string // report JSON to write; "" means Out + ".report.json"
	Options    Options
	// AllowEmpty accepts a labels file without a row; otherwise Run returns
	// a *textio.EmptyError.
	AllowEmpty bool
}

// Run reads the labels, samples (Sample) against cfg.Candidates, and writes
// the ground truth and the report atomically.
func Run(ctx context.Context, cfg Config) (Report, error) {
	ls, err := labels.ReadLabelsFile(cfg.Labels)
	if err != nil {
		return Report{}, err
	}
	if len(ls) == 0 && !cfg.AllowEmpty {
		return Report{}, &textio.EmptyError{File: cfg.Labels, What: "label row"}
	}
	rows, rep, err := Sample(ctx, ls, cfg.Candidates, cfg.Options)
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
