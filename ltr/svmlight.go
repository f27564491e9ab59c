package ltr

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/internal/textio"
)

// Doc is one line of an SVMlight/RankLib file: a (query, item) pair.
type Doc struct {
	// Label is the graded relevance label (LOVBench: -2 junk, 0..4).
	Label float64
	// Features holds the dense feature vector: Features[fid-1] is the value
	// of feature fid; features absent from the line are 0 (SVMlight's
	// sparse convention). ReadSVMLight rounds them to float32, as RankLib
	// reads them.
	Features []float64
	// Comment is the text after '#', trimmed (LOVBench: "query term").
	Comment string
	// Row is the 1-based index of the data line in its file (comment-only
	// and blank lines are not counted).
	Row int
	// Line is the 1-based line number in its file (all lines counted), for
	// messages; 0 for documents not read from a file.
	Line int
}

// Feature returns the value of feature fid (1-based), 0 if absent.
func (d *Doc) Feature(fid int) float64 {
	if fid < 1 || fid > len(d.Features) {
		return 0
	}
	return d.Features[fid-1]
}

// Query is the ranked list of one qid, in file order.
type Query struct {
	ID   string
	Docs []Doc
}

// Dataset is the content of one SVMlight file.
type Dataset struct {
	// Name is the file the data came from (for messages).
	Name string
	// Queries are in file order. The lines of a qid are contiguous: a qid
	// that reappears after another qid is an error (ReadSVMLight).
	Queries []Query
	// NumFeatures is the largest feature id seen; every Doc.Features has
	// this length.
	NumFeatures int
}

// NumDocs returns the number of data lines.
func (d *Dataset) NumDocs() int {
	n := 0
	for i := range d.Queries {
		n += len(d.Queries[i].Docs)
	}
	return n
}

// ParseError reports a malformed SVMlight line: the file, the 1-based line
// number, the 1-based whitespace-separated field and what is wrong.
type ParseError struct {
	File  string
	Line  int
	Field int // 0 when the error concerns the whole line
	Token string
	Msg   string
	Err   error // the underlying error, if any (Unwrap)
}

// Error formats "FILE:LINE: field N \"token\": reason".
func (e *ParseError) Error() string {
	if e.Field == 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: field %d %s: %s", e.File, e.Line, e.Field, textio.Quote(e.Token), e.Msg)
}

// Unwrap returns the underlying error (nil when Msg says all), as
// measures.ParseError's does, so that errors.Is and errors.As see it.
func (e *ParseError) Unwrap() error { return e.Err }

// ReadSVMLightFile reads an SVMlight/RankLib file.
func ReadSVMLightFile(path string) (*Dataset, error) {
	f, err := textio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSVMLight(f, path)
}

// ReadSVMLight parses SVMlight/RankLib text:
//
//	label qid:ID fid:value fid:value ... # comment
//
// Blank lines and lines starting with '#' are skipped. The label and values
// are decimal numbers (finite); feature ids are positive integers, each at
// most once per line, in any order; qid is required and may be any token.
// The lines of one qid must be contiguous: a qid that reappears after
// another qid fails with a ParseError naming both qids and the line where
// the first run of the qid ended (RankLib would silently start a second
// list with the same id; lovbench keys per-query results by qid, so it
// refuses instead). name is used in error messages.
func ReadSVMLight(r io.Reader, name string) (*Dataset, error) {
	ds := &Dataset{Name: name}
	index := map[string]int{}
	sc := bufio.NewScanner(textio.NewReader(r))
	sc.Buffer(make([]byte, 64<<10), 1<<28) // grown as a longer line needs, up to 256 MiB
	lineNo, row := 0, 0
	type fv struct {
		fid int
		v   float64
	}
	var pairs []fv
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		comment := ""
		if i := strings.IndexByte(line, '#'); i >= 0 {
			// A copy: a substring would keep the whole line alive for
			// as long as the Doc (over 1 KB per row on LOVBench folds).
			comment = strings.Clone(strings.TrimSpace(line[i+1:]))
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		row++
		perr := func(field int, msg string) error {
			return &ParseError{File: name, Line: lineNo, Field: field, Token: fields[field-1], Msg: msg}
		}
		label, err := strconv.ParseFloat(fields[0], 64)
		if err != nil || math.IsNaN(label) || math.IsInf(label, 0) {
			return nil, perr(1, "label is not a finite number")
		}
		if len(fields) < 2 || !strings.HasPrefix(fields[1], "qid:") {
			if len(fields) < 2 {
				return nil, &ParseError{File: name, Line: lineNo, Msg: "missing qid:ID after the label"}
			}
			return nil, perr(2, "expected qid:ID after the label")
		}
		qid := fields[1][len("qid:"):]
		if qid == "" {
			return nil, perr(2, "empty qid")
		}
		pairs = pairs[:0]
		maxFid := 0
		for j := 2; j < len(fields); j++ {
			tok := fields[j]
			c := strings.IndexByte(tok, ':')
			if c <= 0 {
				return nil, perr(j+1, "expected fid:value")
			}
			fid, err := strconv.Atoi(tok[:c])
			if err != nil || fid < 1 {
				return nil, perr(j+1, "feature id is not a positive integer")
			}
			if fid > 1<<20 {
				return nil, perr(j+1, "feature id too large (limit 1048576)")
			}
			// float32, as RankLib reads it (Float.parseFloat): the
			// models' thresholds are float32 values compared with it.
			v32, err := strconv.ParseFloat(tok[c+1:], 32)
			if err != nil || math.IsNaN(v32) || math.IsInf(v32, 0) {
				return nil, perr(j+1, "feature value is not a finite float32 number (|x| <= 3.4028235e38)")
			}
			v := v32
			for _, p := range pairs {
				if p.fid == fid {
					return nil, perr(j+1, fmt.Sprintf("feature %d appears twice", fid))
				}
			}
			pairs = append(pairs, fv{fid, v})
			maxFid = max(maxFid, fid)
		}
		if maxFid > ds.NumFeatures {
			ds.NumFeatures = maxFid
		}
		feats := make([]float64, maxFid)
		for _, p := range pairs {
			feats[p.fid-1] = p.v
		}
		qi, ok := index[qid]
		if !ok {
			qi = len(ds.Queries)
			qid = strings.Clone(qid) // not a substring of the line (see comment)
			index[qid] = qi
			ds.Queries = append(ds.Queries, Query{ID: qid})
		} else if qi != len(ds.Queries)-1 {
			prev := ds.Queries[qi].Docs
			return nil, perr(2, fmt.Sprintf("qid %s reappears after qid %s (its lines end at line %d): the lines of a query must be contiguous",
				qid, ds.Queries[len(ds.Queries)-1].ID, prev[len(prev)-1].Line))
		}
		ds.Queries[qi].Docs = append(ds.Queries[qi].Docs, Doc{Label: label, Features: feats, Comment: comment, Row: row, Line: lineNo})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, lineNo+1, err)
	}
	// Pad every vector to NumFeatures so that lookups are uniform.
	for qi := range ds.Queries {
		for di := range ds.Queries[qi].Docs {
			d := &ds.Queries[qi].Docs[di]
			if len(d.Features) < ds.NumFeatures {
				d.Features = append(d.Features, make([]float64, ds.NumFeatures-len(d.Features))...)
			}
		}
	}
	return ds, nil
}

// WriteSVMLight writes ds in SVMlight/RankLib text, one line per Doc in
// query order, features in increasing id with zero values omitted (the
// sparse convention) except the highest feature id (ds.NumFeatures, or the
// length of the line's vector when that is longer), which every line
// carries even when it is 0: RankLib sizes each line's vector by its last
// feature id and fails with "requesting unspecified feature" on a line that
// stops early (docs/ltr.md). Numbers are in the shortest form that parses back to
// the same float64, and the comment after " # " when present.
func WriteSVMLight(w io.Writer, ds *Dataset) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for qi := range ds.Queries {
		q := &ds.Queries[qi]
		for di := range q.Docs {
			d := &q.Docs[di]
			buf = buf[:0]
			buf = strconv.AppendFloat(buf, d.Label, 'g', -1, 64)
			buf = append(buf, " qid:"...)
			buf = append(buf, q.ID...)
			last := max(len(d.Features), ds.NumFeatures)
			for j := 0; j < last; j++ {
				v := d.Feature(j + 1)
				if v == 0 && j+1 != last {
					continue
				}
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, int64(j+1), 10)
				buf = append(buf, ':')
				buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
			}
			if d.Comment != "" {
				buf = append(buf, " # "...)
				buf = append(buf, d.Comment...)
			}
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// Fold is one cross-validation fold: train on Train, select the model on
// Vali, report on Test (docs/method.md section 7).
type Fold struct {
	Name              string // "Fold1" ...
	Train, Vali, Test *Dataset
}

// NumFoldsMax is the number of folds of the LOVBench layout.
const NumFoldsMax = 5

// The layout of a dataset directory, the one home of its names (`lovbench
// export` writes it, ReadFolds reads it): DIR/FoldK/{train,vali,test}.txt
// and the manifest that records the number of folds.
const (
	SetTrain = "train"
	SetVali  = "vali"
	SetTest  = "test"
	// DatasetManifest is the file in which `lovbench export` records,
	// among much else, parameters.folds (export.ManifestFile).
	DatasetManifest = "manifest.json"
)

// foldPrefix begins the name of every fold directory, foldExt ends the
// name of every fold file.
const (
	foldPrefix = "Fold"
	foldExt    = ".txt"
)

// FoldSets are the sets of a fold in the order they are listed.
func FoldSets() []string { return []string{SetTrain, SetVali, SetTest} }

// FoldDir is the directory of fold k ("Fold1").
func FoldDir(k int) string { return foldPrefix + strconv.Itoa(k) }

// FoldFilesPattern matches the fold files of a dataset directory, as
// path.Match reads it ("Fold*/*.txt"): the names `lovbench export` lists
// in its output index.
const FoldFilesPattern = foldPrefix + "*/*" + foldExt

// FoldFile is the slash path of fold k's set ("Fold1/train.txt").
func FoldFile(k int, set string) string { return path.Join(FoldDir(k), set+foldExt) }

// ReadFolds reads the folds of a dataset directory, DIR/FoldK/{train,vali,
// test}.txt. When DIR holds the manifest.json of `lovbench export`, the
// number of folds is its parameters.folds and each of them must exist (fold
// directories beyond it are ignored); without a manifest, Fold1, Fold2, ...
// are read up to the first missing one (at least Fold1, at most
// NumFoldsMax).
func ReadFolds(dir string) ([]Fold, error) {
	n, fromManifest, err := manifestFolds(dir)
	if err != nil {
		return nil, err
	}
	var folds []Fold
	for k := 1; k <= n; k++ {
		name := FoldDir(k)
		fd := filepath.Join(dir, name)
		if st, err := os.Stat(fd); err != nil || !st.IsDir() {
			if fromManifest {
				return nil, fmt.Errorf("%s: no %s directory, but %s says %d folds", dir, name, filepath.Join(dir, DatasetManifest), n)
			}
			if k == 1 {
				return nil, fmt.Errorf("%s: no Fold1 directory (expected %s/Fold1..Fold5/{train,vali,test}.txt)", dir, dir)
			}
			break
		}
		f := Fold{Name: name}
		for _, part := range []struct {
			file string
			dst  **Dataset
		}{{SetTrain, &f.Train}, {SetVali, &f.Vali}, {SetTest, &f.Test}} {
			ds, err := ReadSVMLightFile(filepath.Join(dir, filepath.FromSlash(FoldFile(k, part.file))))
			if err != nil {
				return nil, err
			}
			if len(ds.Queries) == 0 {
				return nil, fmt.Errorf("%s: no data lines", ds.Name)
			}
			*part.dst = ds
		}
		folds = append(folds, f)
	}
	return folds, nil
}

// manifestFolds returns the number of folds recorded in dir/manifest.json
// (parameters.folds) and true, or NumFoldsMax and false when there is no
// manifest.
func manifestFolds(dir string) (int, bool, error) {
	p := filepath.Join(dir, DatasetManifest)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return NumFoldsMax, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	var m struct {
		Parameters struct {
			Folds int `json:"folds"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return 0, false, fmt.Errorf("%s: %w", p, err)
	}
	if m.Parameters.Folds < 1 {
		return 0, false, fmt.Errorf("%s: field parameters.folds: %d, want at least 1", p, m.Parameters.Folds)
	}
	return m.Parameters.Folds, true, nil
}
