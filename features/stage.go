package features

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/buildinfo"
	"github.com/lovbench/lovbench/internal/progress"
	"github.com/lovbench/lovbench/internal/textio"
)

// The features stage's files and defaults: the one home of each (the
// command `lovbench features` and the pipeline's features stage both
// take them from here).
const (
	// FileFeatures is the feature table the pipeline's features stage
	// writes (Parquet; export reads it).
	FileFeatures = "features.parquet"
	// FileReport holds the stage's Report as JSON.
	FileReport = "features_report.json"
	// DefaultFeatureList selects every feature: the 33 of LOVBench's
	// Table 3 and the LabelSearch baseline, 34.
	DefaultFeatureList = "1-34"
)

// Config is one run of the features stage (Run): the corpus, the
// (query, term) pairs, the features to compute and where to write them.
type Config struct {
	// CorpusPaths are the corpus files and directories (Load), read
	// with Prefixes (optional LOV prefix file), Lenient and Semantics.
	CorpusPaths []string
	Prefixes    string
	Lenient     bool
	Semantics   Semantics
	// Corpus, when set, is a corpus already loaded from CorpusPaths
	// (the pipeline shares one among its stages); Run then does not
	// load it again.
	Corpus *Corpus
	// NotRead are files of the corpus directories that the caller's
	// scan (ScanCorpus) found unreadable; the report lists them before
	// those the corpus reader itself left out.
	NotRead []SkippedFile

	// Pairs is the CSV of (query, term) pairs (ReadPairs; a ground-truth
	// file qualifies: its other columns are ignored).
	Pairs string
	// Features are the feature IDs to compute, in output order.
	Features []int
	// Unknown is the policy for terms not in the corpus.
	Unknown UnknownPolicy
	// Workers is the number of goroutines (0 = GOMAXPROCS); the output
	// does not depend on it.
	Workers int
	// AllowEmpty accepts a pairs file without pairs, or with every pair
	// skipped, as an empty table instead of an error.
	AllowEmpty bool

	// Out is the feature table, CSV or Parquet by its extension.
	Out string
	// Report, when set, is where the Report is written as JSON.
	Report string

	// Log receives the stage's messages (nil: none); a feature constant
	// over every pair is logged at ConstantLevel.
	Log           *slog.Logger
	ConstantLevel slog.Level
	// Progress configures the progress bar (one step per query).
	Progress progress.Options
}

// DefaultConfig returns the stage's defaults: every feature
// (DefaultFeatureList), DefaultSemantics, unknown terms an error, and
// constant features logged as a warning.
func DefaultConfig() Config {
	ids, err := ParseFeatureList(DefaultFeatureList)
	if err != nil {
		panic(err) // a constant of this package
	}
	return Config{Semantics: DefaultSemantics, Features: ids, Unknown: UnknownError, ConstantLevel: slog.LevelWarn}
}

// Report is the features stage's report (FileReport): what the corpus
// reader read and left out, how the files' vocabularies were named, and
// the features constant over the pairs; Extract is the count of pairs and
// rows (not in the file).
type Report struct {
	// Files read, RDF Statements parsed, bad statements Skipped (lenient).
	Files      int `json:"files"`
	Statements int `json:"statements"`
	Skipped    int `json:"skipped_statements"`
	// FilesNotRead are the files of the corpus directories that are no
	// RDF format the reader parses, each with the reason.
	FilesNotRead []SkippedFile `json:"files_not_read"`
	// Vocabularies and Terms of the corpus.
	Vocabularies int `json:"vocabularies"`
	Terms        int `json:"terms"`
	// NamedByFile lists the vocabularies named by their file for want of
	// one owl:Ontology IRI (SourceName; docs/features.md).
	NamedByFile []SourceName `json:"vocabularies_named_by_file"`
	// Constant are the features constant over all pairs.
	Constant []Constant `json:"constant_features"`

	Extract ExtractReport `json:"-"`
}

// NewReport builds the report of a corpus' statistics, the files its
// caller's scan did not read (notRead) and an extracted table.
func NewReport(st LoadStats, notRead []SkippedFile, tab *Table) Report {
	r := Report{Files: st.Files, Statements: st.Statements, Skipped: st.Skipped,
		FilesNotRead: append(append([]SkippedFile{}, notRead...), st.SkippedFiles...),
		Vocabularies: st.Vocabularies, Terms: st.Terms, NamedByFile: []SourceName{}, Constant: tab.Constant()}
	for _, n := range st.Names {
		if n.Rule == NamedByFile && n.Vocabulary {
			r.NamedByFile = append(r.NamedByFile, n)
		}
	}
	if r.Constant == nil {
		r.Constant = []Constant{}
	}
	return r
}

// Run is the features stage: it reads cfg.Pairs, loads the corpus (unless
// cfg.Corpus holds it), computes cfg.Features for every pair (Extract;
// LOVBench Table 3), and writes the table to cfg.Out and the report to
// cfg.Report, each atomically. The table records the semantics, the
// corpus' SHA-256 and the program's version.
func Run(ctx context.Context, cfg Config) (Report, error) {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if l := strings.ToLower(cfg.Out); !strings.HasSuffix(l, ".csv") && !strings.HasSuffix(l, ".parquet") {
		return Report{}, errors.New(cfg.Out + ": the feature table must end in .csv or .parquet")
	}
	// The pairs first: a wrong pairs file fails before the corpus is read.
	ps, err := readPairs(cfg)
	if err != nil {
		return Report{}, err
	}
	c := cfg.Corpus
	if c == nil {
		if c, err = Load(ctx, cfg.CorpusPaths, LoadOptions{Lenient: cfg.Lenient, Prefixes: cfg.Prefixes, Semantics: cfg.Semantics, Log: log}); err != nil {
			return Report{}, err
		}
		st := c.Stats()
		log.Info("corpus loaded", "semantics", string(c.Semantics()), "files", st.Files, "statements", st.Statements, "skipped", st.Skipped,
			"files_not_read", len(st.SkippedFiles), "vocabularies", st.Vocabularies, "terms", st.Terms)
	}
	tab, ext, err := c.Extract(ctx, ps, ExtractOptions{Features: cfg.Features, Workers: cfg.Workers, Unknown: cfg.Unknown, Source: cfg.Pairs, Progress: cfg.Progress})
	if err != nil {
		return Report{}, err
	}
	rep := NewReport(c.Stats(), cfg.NotRead, tab)
	rep.Extract = ext
	if note := ConstantNote(rep.Constant, ext.Rows); note != "" {
		log.Log(ctx, cfg.ConstantLevel, "constant features", "note", note)
	}
	if n := len(rep.FilesNotRead); n > 0 {
		log.Warn("corpus files not read", "count", n, "first", rep.FilesNotRead[0].Path, "why_the_first", rep.FilesNotRead[0].Reason)
	}
	if ext.Unknown > 0 {
		log.Warn("terms not in the corpus", "count", ext.Unknown, "policy", cfg.Unknown.String(), "first", strings.Join(ext.UnknownExamples, "; "), "why_the_first", ext.UnknownReason)
	}
	if ext.Rows == 0 && len(ps) > 0 && !cfg.AllowEmpty {
		return rep, &textio.EmptyError{File: cfg.Pairs, What: "row left", Counts: fmt.Sprintf("%d pairs, %d with a term not in the corpus skipped", ext.Pairs, ext.Unknown)}
	}
	if cfg.Report != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return rep, err
		}
		if err := atomicfile.WriteBytes(cfg.Report, append(b, '\n')); err != nil {
			return rep, err
		}
	}
	tab.Origin.Version = buildinfo.Version()
	if err := tab.WriteFile(cfg.Out); err != nil {
		return rep, err
	}
	log.Info("features written", "out", cfg.Out, "pairs", ext.Pairs, "rows", ext.Rows, "queries", ext.Queries, "unknown", ext.Unknown)
	return rep, nil
}

// readPairs reads cfg.Pairs; no pair at all is an error unless
// cfg.AllowEmpty.
func readPairs(cfg Config) ([]Pair, error) {
	ps, err := ReadPairsFile(cfg.Pairs)
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 && !cfg.AllowEmpty {
		return nil, &textio.EmptyError{File: cfg.Pairs, What: "pair"}
	}
	return ps, nil
}
