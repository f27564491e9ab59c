// Package export writes the LOVBench dataset directory from a ground truth
// and a features file, and validates such a directory (LOVBench paper
// section 5.3, docs/method.md section 7):
//
//   - Fold1..FoldF/{train,vali,test}.txt in RankLib/SVMlight format
//     (`label qid:N 1:v ... 33:v # query term`): queries are split at random
//     (seeded) into F equal partitions and fold k trains on F-2 of them,
//     validates on one and tests on one, rotated as in LETOR;
//   - dataset.parquet and dataset.arrow: one row per (query, term) with
//     the fixed columns of Schema (the query, its labels and partition) and
//     one column per feature name;
//   - partitions/partition-K.parquet: the rows of dataset.parquet in
//     partition K, which the card's FoldK configs are made of;
//   - qrels.txt (TREC `qid 0 docid rel`), ground_truth.csv (query,term,label,confidence);
//   - LICENSE.md, README.md (a Hugging Face dataset card) and croissant.json
//     (Croissant 1.0 metadata with Responsible AI fields), all rendered
//     from the manifest;
//   - manifest.json: inputs with SHA-256, parameters, seed, program version,
//     how the features were computed (from the features file's metadata),
//     row counts and the SHA-256 of every output, and nothing that changes
//     between runs, so reruns with the same inputs are byte-identical;
//     with the confidence distribution per label, and, with a minimum
//     confidence (FilterConfidence) or the stratified filter that keeps
//     the label shares (Options.KeepConfident; labels.Selection), or the
//     whole queries that keep them (Options.KeepAgreeing), what it left
//     out and the label shares before and after.
//
// The schema of every file is documented in docs/dataset.md.
package export

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/buildinfo"
	"github.com/lovbench/lovbench/internal/filehash"
	"github.com/lovbench/lovbench/internal/hashes"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/ltr"
	"github.com/lovbench/lovbench/sampling"
)

// The folds of a dataset (docs/method.md section 7): LOVBench's five by
// default, and at least three, one each for training, validation and
// test; the one home of both numbers (export, validate, the run's
// configuration and lovbench export --folds).
const (
	DefaultFolds = 5
	MinFolds     = 3
)

// Options are the export parameters recorded in the manifest.
type Options struct {
	Folds    int    // number of partitions and folds (>= MinFolds); 0 means DefaultFolds
	Seed     uint64 // seed of the query partition
	KeepJunk bool   // write label -2 in the SVMlight files (default: as 0)
	Version  string // program version for the manifest
	// FeatureSemantics names the feature definitions the features file was
	// computed with ("reference" or "paper", see features.Semantics);
	// recorded in the manifest, "" if unknown. Run takes them from the
	// features file when it records them (ResolveFeatureOrigin): then a
	// value given here must agree.
	FeatureSemantics string
	// Publication is what the card, LICENSE.md and croissant.json say of
	// the inputs' licences and the publication; nil: nothing stated.
	Publication *Publication
	// FeatureOrigin is how the features were computed, for the manifest,
	// the card and croissant.json; Run sets it (ResolveFeatureOrigin).
	FeatureOrigin *FeatureOrigin
	// Provenance is what the stages before export recorded (the ingest
	// and label reports, the run's configuration), written into the
	// manifest and the dataset card; nil if not known.
	Provenance *Provenance
	// MinConfidence, when above 0, builds the dataset from the labels whose
	// confidence is at least MinConfidence (FilterConfidence; Run applies
	// it, Build does not).
	MinConfidence float64
	// MinQueryAgreement, when above 0, builds the dataset from the queries
	// whose labels' order has an expected agreement with the true order of
	// at least this (labels.Selection; Run applies it with MinConfidence,
	// reading Config.QueryOrder).
	MinQueryAgreement float64
	// KeepConfident, when above 0, builds the dataset from the most
	// confident fraction KeepConfident of each label's rows, so that the
	// label shares stay (labels.Selection's stratified mode; Run applies
	// it). It excludes MinConfidence and MinQueryAgreement.
	KeepConfident float64
	// KeepAgreeing, when above 0, builds the dataset from that fraction of
	// the queries with an expected agreement, whole, the most agreeing
	// whose rows keep every label's share within its bound under the
	// share tolerance ShareTolerance (labels.Selection's agreeing mode;
	// Run applies it, reading Config.QueryOrder). It excludes the other
	// filters.
	KeepAgreeing float64
	// ShareTolerance is the agreeing filter's share tolerance, in (0, 1)
	// (0: labels.ShareTolerance; labels.LabelShareTolerance gives each
	// label's bound under it).
	ShareTolerance float64
	// queryAgreement is each query's expected agreement (Config.QueryOrder),
	// for the manifest's OrderAgreement; nil without it.
	queryAgreement map[string]float64
	// confidenceFilter is what Run's FilterLabels left out, for the
	// manifest.
	confidenceFilter *ConfidenceFilter
}

// Provenance is what the stages before export recorded, for the manifest
// and the dataset card's "Collection process" and "Preprocessing"
// sections: each a list of facts as the stage's report gives them.
type Provenance struct {
	// Collection: the ingest report (input lines and events, what each
	// cleaning rule dropped, what was kept).
	Collection []Fact `json:"collection,omitempty"`
	// Labelling: the click models and the label report (the model the
	// labels come from, thresholds, queries labelled and left out).
	Labelling []Fact `json:"labelling,omitempty"`
	// Configuration: the run's settings (seeds, sampling, features, folds).
	Configuration []Fact `json:"configuration,omitempty"`
}

// Fact is one named figure or setting of a Provenance.
type Fact struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Row is one (query, term) row of the dataset.
type Row struct {
	Query     string
	QID       int // 1-based, in sorted query order
	Term      string
	Label     int
	Partition int // 1-based
	// Confidence is the label's confidence (sampling.Row.Confidence),
	// labels.NoConfidence where it is not known.
	Confidence float64
}

// Dataset is the joined ground truth and features, rows ordered by qid and,
// within a query, by LineKey (a seeded shuffle, LineOrderShuffle).
type Dataset struct {
	Features []Feature
	Rows     []Row
	Values   []float64 // len(Rows) x len(Features), row-major
	Queries  []string  // query text by qid-1
	Parts    []int     // partition by qid-1
	Folds    int
}

// Vector returns the feature values of row i.
func (d *Dataset) Vector(i int) []float64 {
	n := len(d.Features)
	return d.Values[i*n : (i+1)*n]
}

// FoldSpec is the partition rotation of one fold.
type FoldSpec struct {
	Fold  int   `json:"fold"`
	Train []int `json:"train"`
	Vali  int   `json:"vali"`
	Test  int   `json:"test"`
}

// Folds returns the rotation of LETOR (Qin et al. 2010, Table 4): fold k
// (1-based) trains on partitions k, k+1, ..., k+F-3, validates on k+F-2 and
// tests on k+F-1, all modulo F (1-based). For F = 5: Fold1 trains on 1,2,3,
// validates on 4, tests on 5; Fold2 trains on 2,3,4, validates on 5, tests
// on 1; and so on. Train partitions are listed in ascending order.
func Folds(f int) []FoldSpec {
	if f < 1 {
		return nil
	}
	p := func(k int) int { return (k-1)%f + 1 }
	out := make([]FoldSpec, f)
	for k := 1; k <= f; k++ {
		s := FoldSpec{Fold: k, Vali: p(k + f - 2), Test: p(k + f - 1)}
		for j := 0; j < f-2; j++ {
			s.Train = append(s.Train, p(k+j))
		}
		sort.Ints(s.Train)
		out[k-1] = s
	}
	return out
}

// PartitionSalt is XORed into the seed for the query partition, so that the
// partition order is independent of the sampling order when both stages use
// the same seed.
const PartitionSalt = 0x70617274 // "part"

// LineOrderSalt is XORed into the seed for the order of a query's lines, so
// that it is independent of the sampling draws and of the partition order
// made with the same seed.
const LineOrderSalt = 0x6c696e65 // "line"

// LineOrderShuffle names the line order of the dataset files in the
// manifest (parameters.line_order): within a query, rows are sorted by
// LineKey, a seeded shuffle. The sampling stage writes each query's
// labelled terms first and its sampled label-0 terms after; kept as it is,
// that order would tell a ranker that breaks score ties by file order
// (RankLib, and lovbench ltr before the label-free line order) which terms are labelled.
const LineOrderShuffle = "seeded-shuffle"

// LineKey is the sort key of the row (query, term) within its query:
// hashes.Keyed(hashes.Keyed(seed XOR LineOrderSalt, query), term) (as
// sampling.TermKey(sampling.QuerySeed(...), term)),
// a 64-bit hash that depends on the seed, the query and the term URI only,
// never on the label or the position in the ground truth. Rows of a query
// are written in ascending key order (ties by term).
func LineKey(seed uint64, query, term string) uint64 {
	return hashes.Keyed(hashes.Keyed(seed^LineOrderSalt, query), term)
}

// PartitionQueries assigns each query (given sorted, index = qid-1) to one
// of f partitions, 1-based: queries are ordered by
// hashes.Keyed(seed XOR PartitionSalt, query) (ties by text) and dealt
// round robin, so partitions differ in size by at most one and a query's
// partition depends only on the seed and the set of queries.
func PartitionQueries(queries []string, f int, seed uint64) []int {
	idx := make([]int, len(queries))
	keys := make([]uint64, len(queries))
	for i, q := range queries {
		idx[i] = i
		keys[i] = hashes.Keyed(seed^PartitionSalt, q)
	}
	sort.Slice(idx, func(a, b int) bool {
		if keys[idx[a]] != keys[idx[b]] {
			return keys[idx[a]] < keys[idx[b]]
		}
		return queries[idx[a]] < queries[idx[b]]
	})
	parts := make([]int, len(queries))
	for pos, i := range idx {
		parts[i] = pos%f + 1
	}
	return parts
}

// Build joins the ground truth with the feature table and assigns qids and
// partitions. Every ground-truth row must have features (an error lists how
// many do not and the first few, by ground-truth row); feature rows without
// a ground-truth row are ignored and counted in the returned int.
func Build(gt []sampling.Row, ft *FeatureTable, opts Options) (*Dataset, int, error) {
	if opts.Folds == 0 {
		opts.Folds = DefaultFolds
	}
	if opts.Folds < MinFolds {
		return nil, 0, fmt.Errorf("export: %d folds; need at least %d (train, vali, test)", opts.Folds, MinFolds)
	}
	if len(gt) == 0 {
		return nil, 0, fmt.Errorf("export: empty ground truth")
	}
	qset := map[string]bool{}
	for _, r := range gt {
		qset[r.Query] = true
	}
	if len(qset) < opts.Folds {
		return nil, 0, fmt.Errorf("export: %d queries cannot fill %d partitions", len(qset), opts.Folds)
	}
	ds := &Dataset{Features: ft.Features, Folds: opts.Folds}
	for q := range qset {
		ds.Queries = append(ds.Queries, q)
	}
	sort.Strings(ds.Queries)
	qid := make(map[string]int, len(ds.Queries))
	for i, q := range ds.Queries {
		qid[q] = i + 1
	}
	ds.Parts = PartitionQueries(ds.Queries, opts.Folds, opts.Seed)

	// Rows by qid, then by LineKey within a query (a seeded shuffle that
	// cannot see the labels; ties of the 64-bit key by term, then by
	// ground-truth row, so the order is total and does not depend on the
	// input order).
	order := make([]int, len(gt))
	keys := make([]uint64, len(gt))
	for i := range order {
		order[i] = i
		keys[i] = LineKey(opts.Seed, gt[i].Query, gt[i].Term)
	}
	sort.Slice(order, func(a, b int) bool {
		ra, rb := &gt[order[a]], &gt[order[b]]
		if qa, qb := qid[ra.Query], qid[rb.Query]; qa != qb {
			return qa < qb
		}
		if ka, kb := keys[order[a]], keys[order[b]]; ka != kb {
			return ka < kb
		}
		if ra.Term != rb.Term {
			return ra.Term < rb.Term
		}
		return order[a] < order[b]
	})
	nf := len(ft.Features)
	ds.Rows = make([]Row, 0, len(gt))
	ds.Values = make([]float64, 0, len(gt)*nf)
	var missing []string
	nMissing := 0
	for _, i := range order {
		r := gt[i]
		v := ft.Lookup(r.Query, r.Term)
		if v == nil {
			nMissing++
			if len(missing) < 5 {
				missing = append(missing, fmt.Sprintf("row %d (%s, %s)", i+1, r.Query, r.Term))
			}
			continue
		}
		if strings.ContainsAny(r.Term, " \t\r\n") {
			return nil, 0, fmt.Errorf("export: ground-truth row %d: field term: %s contains white space, which TREC qrels cannot hold", i+1, textio.Quote(r.Term))
		}
		id := qid[r.Query]
		ds.Rows = append(ds.Rows, Row{Query: r.Query, QID: id, Term: r.Term, Label: r.Label, Partition: ds.Parts[id-1], Confidence: r.Confidence})
		ds.Values = append(ds.Values, v...)
	}
	if nMissing > 0 {
		return nil, 0, fmt.Errorf("export: %d ground-truth rows have no features, e.g. %s", nMissing, strings.Join(missing, "; "))
	}
	return ds, ft.Rows - len(ds.Rows), nil
}

// Input is one input file of a build, for the manifest.
type Input struct {
	Role   string `json:"role"`
	Name   string `json:"name"` // base name (the manifest does not depend on where inputs live)
	SHA256 string `json:"sha256"`
	Rows   int    `json:"rows"`
}

// Config is what `lovbench export` runs on.
type Config struct {
	GroundTruth string
	Features    string
	Out         string
	// QueryOrder is the labels' per-query order file (labels.QueryOrderPath,
	// `--query-order`), read for Options.MinQueryAgreement.
	QueryOrder string
	Options    Options
}

// DefaultSeed is the seed of the query partition (lovbench export --seed,
// the run's export.seed).
const DefaultSeed = 1

// DefaultConfig returns the export stage's defaults: DefaultFolds folds
// of a partition seeded by DefaultSeed, junk written as 0, every label
// kept, the program's version in the manifest.
func DefaultConfig() Config {
	return Config{Options: Options{Folds: DefaultFolds, Seed: DefaultSeed, Version: buildinfo.Version()}}
}

// Run reads the ground truth and the features, builds the dataset and writes
// the dataset directory (Write) beside cfg.Out, then publishes it whole in
// place of cfg.Out (atomicfile.CreateDir: cfg.Out must be missing, empty or
// an earlier dataset directory). It returns the manifest written, the
// stage's report, by value (docs/architecture.md, "The stage contract").
func Run(ctx context.Context, cfg Config) (Report, error) {
	m, err := run(ctx, cfg)
	if err != nil {
		return Report{}, err
	}
	return *m, nil
}

// Report is the export stage's report: the manifest it writes
// (ManifestFile).
type Report = Manifest

// run is Run, with the manifest Write returns.
func run(ctx context.Context, cfg Config) (*Manifest, error) {
	f, err := textio.Open(cfg.GroundTruth)
	if err != nil {
		return nil, err
	}
	gt, err := sampling.ReadGroundTruth(f, cfg.GroundTruth)
	f.Close()
	if err != nil {
		return nil, err
	}
	ft, err := ReadFeatures(ctx, cfg.Features)
	if err != nil {
		return nil, err
	}
	fo, err := ResolveFeatureOrigin(ft, cfg.Features, cfg.Options.FeatureSemantics)
	if err != nil {
		return nil, err
	}
	cfg.Options.FeatureOrigin = &fo
	cfg.Options.FeatureSemantics = string(fo.Semantics)
	if err := cfg.Options.Publication.Check(); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	kept := gt
	sel := labels.Selection{MinConfidence: cfg.Options.MinConfidence, MinQueryAgreement: cfg.Options.MinQueryAgreement, KeepConfident: cfg.Options.KeepConfident, KeepAgreeing: cfg.Options.KeepAgreeing, ShareTolerance: cfg.Options.ShareTolerance}
	if sel.KeepAgreeing > 0 && cfg.QueryOrder == "" {
		return nil, fmt.Errorf("export: keeping the most agreeing queries needs the labels' per-query order file (--query-order)")
	}
	if sel.MinQueryAgreement > 0 && cfg.QueryOrder == "" {
		return nil, fmt.Errorf("export: a minimum query agreement needs the labels' per-query order file (--query-order)")
	}
	if cfg.QueryOrder != "" {
		var err error
		if sel.QueryAgreement, err = labels.ReadQueryOrderFile(cfg.QueryOrder); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		cfg.Options.queryAgreement = sel.QueryAgreement
	}
	if sel.Active() {
		var cf *ConfidenceFilter
		if kept, cf, err = FilterLabels(gt, sel); err != nil {
			return nil, fmt.Errorf("export: %s: %w", cfg.GroundTruth, err)
		}
		cfg.Options.confidenceFilter = cf
	}
	ds, unused, err := Build(kept, ft, cfg.Options)
	if err != nil {
		if sel.Active() {
			switch {
			case sel.KeepConfident > 0:
				err = fmt.Errorf("%w (after --keep-confident %v)", err, sel.KeepConfident)
			case sel.KeepAgreeing > 0:
				err = fmt.Errorf("%w (after --keep-agreeing-queries %v)", err, sel.KeepAgreeing)
			default:
				err = fmt.Errorf("%w (after --min-confidence %v, --min-query-agreement %v)", err, sel.MinConfidence, sel.MinQueryAgreement)
			}
		}
		return nil, err
	}
	// Feature rows of the pairs the filter left out are not "without a
	// ground-truth row".
	unused -= len(gt) - len(kept)
	var inputs []Input
	for _, in := range []struct {
		role, path string
		rows       int
	}{{"ground_truth", cfg.GroundTruth, len(gt)}, {"features", cfg.Features, ft.Rows}, {"query_order", cfg.QueryOrder, len(sel.QueryAgreement)}} {
		if in.path == "" {
			continue // no order file
		}
		sum, err := filehash.SHA256(in.path)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, Input{Role: in.role, Name: filepath.Base(in.path), SHA256: sum, Rows: in.rows})
	}
	// The directory is built beside cfg.Out and published whole, so no
	// file of an earlier export (say Fold4/Fold5 of a 5-fold one) or of a
	// killed run survives.
	out, err := atomicfile.CreateDir(cfg.Out, ManifestFile, OutputNames...)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	defer out.Abort()
	m, err := Write(ctx, out.Path(), ds, inputs, unused, cfg.Options)
	if err != nil {
		return nil, err
	}
	if err := out.Commit(); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return m, nil
}

// OutputNames are the name patterns of an export directory's files besides
// its manifest (atomicfile.CreateDir's names): what its index may list.
// By shape (the folds' SVMlight files, the partitions, the dataset files
// and documents at the top) rather than one by one, so that a file export
// comes to write is not refused on a rerun.
var OutputNames = []string{ltr.FoldFilesPattern, "partitions/*.parquet", "*.parquet", "*.arrow", "*.json", "*.csv", "*.txt", "*.md"}

// svmLabel is the label written to the SVMlight files: junk (-2) becomes 0
// unless keepJunk, as RankLib and LightGBM expect non-negative grades.
func svmLabel(l int, keepJunk bool) int {
	if l == labels.Junk && !keepJunk {
		return 0
	}
	return l
}

// appendFloat prints a feature value in the shortest form that reads back
// exactly (strconv 'g', -1), so files are deterministic and lossless.
// Integers below 1e6 in magnitude, which 'g' -1 prints without exponent,
// take a faster path with the same output.
func appendFloat(b []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1e6 && (v != 0 || !math.Signbit(v)) {
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// commentSafe replaces line breaks so a query or term cannot end an SVMlight
// line early.
func commentSafe(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}
