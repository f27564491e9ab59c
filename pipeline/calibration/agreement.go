package calibration

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/labels"
)

// Grades are human relevance grades by (query, document).
type Grades map[[2]string]float64

// ReadGrades reads a TSV of human grades: header `query doc grade`, then
// one pair per line with a numeric grade (higher is more relevant).
func ReadGrades(path string) (Grades, error) {
	f, err := textio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(textio.NewLineReader(f))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	if !sc.Scan() || strings.TrimSpace(sc.Text()) != "query\tdoc\tgrade" {
		return nil, fmt.Errorf("%s:1: want the header %s", path, textio.Quote("query\tdoc\tgrade"))
	}
	g := Grades{}
	line := 1
	for sc.Scan() {
		line++
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 3 {
			return nil, fmt.Errorf("%s:%d: %d fields, want query, doc, grade", path, line, len(fs))
		}
		v, err := strconv.ParseFloat(fs[2], 64)
		if err != nil || math.IsNaN(v) {
			return nil, fmt.Errorf("%s:%d: field grade: %s is not a number", path, line, textio.Quote(fs[2]))
		}
		g[[2]string{fs[0], fs[1]}] = v
	}
	return g, sc.Err()
}

// ConfidenceBins are the lower ends of the confidence bins of an
// Agreement: [0, 0.3), [0.3, 0.5), [0.5, 0.7), [0.7, 1].
var ConfidenceBins = []float64{0, 0.3, 0.5, 0.7}

// Agreement compares the order of fitted relevances with the order of
// human grades: over every query, every two of its judged documents with
// different grades that the fit estimated form a document pair, which
// agrees when the higher grade has the higher fitted relevance (a tie in
// relevance counts one half). A document pair's confidence is the lower of
// its two documents' label confidences (labels.Thresholds.Confidence of
// the label of the fitted relevance under the posterior), so a bin holds
// the pairs both of whose labels are at least that sure.
type Agreement struct {
	// JudgedPairs are the (query, document) pairs with a grade that the
	// fit estimated.
	JudgedPairs int `json:"judged_pairs"`
	// DocPairs and Agree are over all document pairs.
	DocPairs int     `json:"doc_pairs"`
	Agree    float64 `json:"agree"`
	// Bins split the document pairs by confidence (ConfidenceBins).
	Bins []AgreementBin `json:"bins"`
}

// AgreementBin is one confidence bin of an Agreement.
type AgreementBin struct {
	From     float64 `json:"from"`
	DocPairs int     `json:"doc_pairs"`
	Agree    float64 `json:"agree"`
}

// Agree measures the Agreement of the relevance rows with grades under
// thresholds th; keep, if not nil, restricts the (query, document) pairs
// compared.
func Agree(rows []Interval, grades Grades, th labels.Thresholds, keep func(query, doc string) bool) Agreement {
	type doc struct{ rel, conf, grade float64 }
	byQuery := map[string][]doc{}
	var a Agreement
	for _, iv := range rows {
		g, ok := grades[[2]string{iv.Query, iv.Doc}]
		if !ok || keep != nil && !keep(iv.Query, iv.Doc) {
			continue
		}
		a.JudgedPairs++
		conf := th.Confidence(th.Label(iv.Relevance), labels.Posterior{Alpha: iv.Alpha, Beta: iv.Beta})
		byQuery[iv.Query] = append(byQuery[iv.Query], doc{iv.Relevance, conf, g})
	}
	a.Bins = make([]AgreementBin, len(ConfidenceBins))
	for i, f := range ConfidenceBins {
		a.Bins[i].From = f
	}
	var agree float64
	binAgree := make([]float64, len(ConfidenceBins))
	qs := make([]string, 0, len(byQuery))
	for q := range byQuery {
		qs = append(qs, q)
	}
	sort.Strings(qs)
	for _, q := range qs {
		ds := byQuery[q]
		for i := range ds {
			for j := i + 1; j < len(ds); j++ {
				x, y := ds[i], ds[j]
				if x.grade == y.grade {
					continue
				}
				if x.grade < y.grade {
					x, y = y, x
				}
				s := 0.0
				switch {
				case x.rel > y.rel:
					s = 1
				case x.rel == y.rel:
					s = 0.5
				}
				a.DocPairs++
				agree += s
				c := min(x.conf, y.conf)
				b := len(ConfidenceBins) - 1
				for b > 0 && c < ConfidenceBins[b] {
					b--
				}
				a.Bins[b].DocPairs++
				binAgree[b] += s
			}
		}
	}
	if a.DocPairs > 0 {
		a.Agree = agree / float64(a.DocPairs)
	}
	for i := range a.Bins {
		if a.Bins[i].DocPairs > 0 {
			a.Bins[i].Agree = binAgree[i] / float64(a.Bins[i].DocPairs)
		}
	}
	return a
}

// FitLog fits kind on the Yandex log logPath as a user does with the
// defaults (through ingest into work/ingest, with opt.DropClickless as
// `ingest --drop-clickless`) into work/fit-<name>, and returns the
// relevance rows.
func FitLog(ctx context.Context, logPath string, kind clickmodels.Kind, opt Options, work, name string) ([]Interval, error) {
	sessions, _, err := sessionsOf(ctx, logPath, work, opt.DropClickless)
	if err != nil {
		return nil, err
	}
	cfg := defaultFit(kind)
	if opt.Fit != nil {
		opt.Fit(&cfg)
	}
	rel, _, err := Fit(ctx, sessions, cfg, filepath.Join(work, "fit-"+name))
	if err != nil {
		return nil, err
	}
	return ReadIntervals(rel)
}
