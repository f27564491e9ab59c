package clickmodels

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/pqfile"
	"github.com/lovbench/lovbench/internal/textio"
)

// Parameter files come in two forms with the same content
// (docs/clickmodels.md, "Parameter files"):
//
//   - <MODEL>_params.json: the JSON object of WriteJSON;
//   - <MODEL>_params.parquet: one row per (query, document) pair in the
//     JSON's pair order, columns query and doc (strings), attr and sat
//     (doubles, present when the model has the parameter); the rest of the
//     JSON object (format, model, ranks, iterations, exact and the global
//     parameters) is the compact JSON value of the footer's key-value
//     metadata ParamsMetaKey, with "pairs": null.
//
// JSON costs about 90 bytes and a float formatting per pair and value; at
// Yandex scale (tens of millions of pairs) that is gigabytes and minutes,
// hence Parquet for large models.

// ParamsMetaKey is the Parquet footer key that holds a parameter file's
// header.
const ParamsMetaKey = "lovbench.clickmodel.params"

// ParamsJSONMaxPairs is the largest model, in pairs, whose parameters
// ParamsAuto writes as JSON.
const ParamsJSONMaxPairs = 100_000

// ParamsFileFormat chooses the form of <MODEL>_params.*.
type ParamsFileFormat string

// Parameter file forms.
const (
	ParamsAuto    ParamsFileFormat = "auto"    // JSON up to ParamsJSONMaxPairs pairs, else Parquet
	ParamsJSON    ParamsFileFormat = "json"    // always <MODEL>_params.json
	ParamsParquet ParamsFileFormat = "parquet" // always <MODEL>_params.parquet
)

// ParseParamsFileFormat parses auto, json or parquet ("" is auto).
func ParseParamsFileFormat(s string) (ParamsFileFormat, error) {
	switch f := ParamsFileFormat(s); f {
	case "":
		return ParamsAuto, nil
	case ParamsAuto, ParamsJSON, ParamsParquet:
		return f, nil
	}
	return "", fmt.Errorf("parameter file format %s: want auto, json or parquet", textio.Quote(s))
}

// paramsExt is the file extension of the parameter file of a model of
// pairs pairs written in format f.
func (f ParamsFileFormat) ext(pairs int) string {
	if f == ParamsParquet || (f != ParamsJSON && pairs > ParamsJSONMaxPairs) {
		return ".parquet"
	}
	return ".json"
}

// writeParquet writes the parameter file in its Parquet form. The pairs
// are pulled from pw.pairs one chunk of pqfile.ChunkRows at a time, so no
// more than a chunk of them is held.
func (pw *pairWriter) writeParquet(w io.Writer, pairs int) (err error) {
	// A read error of the pairs' source surfaces in the middle of the
	// column writer's callbacks, which cannot return it: it unwinds to
	// here as a pairsFailed panic.
	defer func() {
		if r := recover(); r != nil {
			pf, ok := r.(pairsFailed)
			if !ok {
				panic(r)
			}
			err = pf.err
		}
	}()
	hdr, err := json.Marshal(pw.header())
	if err != nil {
		return err
	}
	type pairRow struct {
		q, d string
		a, s float64
	}
	next, stop := iter.Pull(func(yield func(pairRow) bool) {
		pw.pairs(func(q, d string, v *pairVal) bool { return yield(pairRow{q, d, v.a, v.s}) })
	})
	defer stop()
	buf := make([]pairRow, 0, pqfile.ChunkRows)
	lo := 0 // row of buf[0]
	row := func(i int) *pairRow {
		for i >= lo+len(buf) { // the next chunk: rows come in increasing chunks
			lo += len(buf)
			buf = buf[:0]
			for len(buf) < pqfile.ChunkRows {
				r, ok := next()
				if !ok {
					break
				}
				buf = append(buf, r)
			}
			if len(buf) == 0 {
				if err := pw.readErr(); err != nil {
					panic(pairsFailed{err})
				}
				panic("click models: fewer pairs than counted")
			}
		}
		return &buf[i-lo]
	}
	cols := []pqfile.Column{
		{Name: "query", Kind: pqfile.String, String: func(i int) string { return row(i).q }},
		{Name: "doc", Kind: pqfile.String, String: func(i int) string { return row(i).d }},
	}
	if pw.hasAttr {
		cols = append(cols, pqfile.Column{Name: "attr", Kind: pqfile.Float64, Float64: func(i int) float64 { return row(i).a }})
	}
	if pw.hasSat {
		cols = append(cols, pqfile.Column{Name: "sat", Kind: pqfile.Float64, Float64: func(i int) float64 { return row(i).s }})
	}
	if err := pqfile.WriteMeta(w, cols, pairs, 0, [][2]string{{ParamsMetaKey, string(hdr)}}); err != nil {
		return err
	}
	// The source may fail after the last pair was pulled (a pair file
	// without its end mark).
	next()
	return pw.readErr()
}

// pairsFailed carries a read error of a pair source out of writeParquet's
// column callbacks.
type pairsFailed struct{ err error }

// readParquetModel reads a parameter file in its Parquet form (name is used
// in error messages) and checks it as ReadModel checks the JSON form.
func readParquetModel(path string) (*Model, error) {
	t, err := pqfile.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	hdr, ok := t.Meta[ParamsMetaKey]
	if !ok {
		return nil, fmt.Errorf("%s: no %s metadata: not a lovbench parameter file", path, ParamsMetaKey)
	}
	var pf paramsFile
	if err := json.Unmarshal([]byte(hdr), &pf); err != nil {
		return nil, fmt.Errorf("%s: metadata %s: %w", path, ParamsMetaKey, err)
	}
	col := map[string]*pqfile.ReadColumn{}
	for i := range t.Columns {
		c := &t.Columns[i]
		switch c.Name {
		case "query", "doc":
			if c.Strings == nil {
				return nil, fmt.Errorf("%s: column %s is %s, want strings", path, c.Name, c.Physical)
			}
		case "attr", "sat":
			if c.Physical != "DOUBLE" {
				return nil, fmt.Errorf("%s: column %s is %s, want DOUBLE", path, c.Name, c.Physical)
			}
		default:
			return nil, fmt.Errorf("%s: unknown column %s", path, textio.Quote(c.Name))
		}
		if c.Nulls > 0 {
			return nil, fmt.Errorf("%s: column %s: row %d is null", path, c.Name, c.FirstNul)
		}
		col[c.Name] = c
	}
	if col["query"] == nil || col["doc"] == nil {
		return nil, fmt.Errorf("%s: want the columns query and doc", path)
	}
	pf.Pairs = make([]pairJSON, t.Rows)
	for i := range pf.Pairs {
		p := &pf.Pairs[i]
		p.Query, p.Doc = col["query"].Strings[i], col["doc"].Strings[i]
		if c := col["attr"]; c != nil {
			p.Attr = &c.Float64s[i]
		}
		if c := col["sat"]; c != nil {
			p.Sat = &c.Float64s[i]
		}
	}
	return modelOf(&pf, path)
}

// ParamsPath returns the parameter file of model kind in dir:
// <MODEL>_params.parquet if it exists, else <MODEL>_params.json.
func ParamsPath(dir string, kind Kind) string {
	p := filepath.Join(dir, kind.String()+"_params.parquet")
	if _, err := os.Stat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return p
	}
	return filepath.Join(dir, kind.String()+"_params.json")
}

// WriteFiles writes m's <MODEL>_relevance.tsv and parameter file to dir, as
// WriteModelFilesAs does for a single model.
func (m *Model) WriteFiles(dir string, format ParamsFileFormat) error {
	_, err := m.WriteFilesReport(dir, format)
	return err
}

// WriteFilesReport is WriteFiles, also returning how the intervals of the
// relevance file were obtained (nil without Evidence).
func (m *Model) WriteFilesReport(dir string, format ParamsFileFormat) (*UncertaintyReport, error) {
	return WriteModelFilesReport(dir, []ShardModel{{Model: m, QueryFirst: firstPositions(m)}}, format)
}

// WriteModelFilesAs writes <MODEL>_relevance.tsv and the parameter file in
// the given form to outDir for the shards' models merged in log order.
func WriteModelFilesAs(outDir string, parts []ShardModel, format ParamsFileFormat) error {
	_, err := WriteModelFilesReport(outDir, parts, format)
	return err
}

// WriteModelFilesReport is WriteModelFilesAs, also returning how the
// intervals of the relevance file were obtained (for metrics.json; nil
// when the models carry no Evidence).
func WriteModelFilesReport(outDir string, parts []ShardModel, format ParamsFileFormat) (*UncertaintyReport, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("click models: no shard models to write")
	}
	pairs := 0
	for _, p := range parts {
		pairs += len(p.Model.PairQuery)
	}
	return writeModelFiles(outDir, func() *pairWriter { return mergedPairs(parts) }, pairs, format)
}

// writeModelFiles writes the relevance and parameter files of a model
// whose pairs (pairs of them) each call of pw streams afresh. The two
// files are written at once, each from its own pass over the pairs (on
// two cores, in the time of the slower); with Evidence, a first pass fits
// the priors of the intervals.
func writeModelFiles(outDir string, pw func() *pairWriter, pairs int, format ParamsFileFormat) (*UncertaintyReport, error) {
	rel := pw()
	unc, err := rel.setPriors()
	if err != nil {
		return nil, err
	}
	base := filepath.Join(outDir, rel.kind.String())
	// A rerun in the other form leaves no stale file of the first.
	ext := format.ext(pairs)
	for _, other := range []string{".json", ".parquet"} {
		if other != ext {
			if err := os.Remove(base + "_params" + other); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
	}
	relErr := make(chan error, 1)
	go func() {
		relErr <- atomicfile.WriteFile(filepath.Join(outDir, RelevanceFile(rel.kind.String())), rel.writeRelevance)
	}()
	if ext == ".parquet" {
		err = atomicfile.WriteFile(base+"_params.parquet", func(w io.Writer) error { return pw().writeParquet(w, pairs) })
	} else {
		err = atomicfile.WriteFile(base+"_params.json", pw().writeJSON)
	}
	if rerr := <-relErr; rerr != nil {
		return nil, rerr
	}
	return unc, err
}
