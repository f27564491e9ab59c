package pipeline

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/lovbench/lovbench/export"
	"github.com/lovbench/lovbench/sampling"
)

// LabelChange is one (query, term) pair whose label differs between two
// releases. Old or New is nil when the pair is absent from that release.
type LabelChange struct {
	Query string `json:"query"`
	Term  string `json:"term"`
	Old   *int   `json:"old,omitempty"`
	New   *int   `json:"new,omitempty"`
	// Kind is "added", "removed" or "changed".
	Kind string `json:"kind"`
}

// DiffResult lists what changed from release A to release B.
type DiffResult struct {
	A              string        `json:"a"`
	B              string        `json:"b"`
	QueriesA       int           `json:"queries_a"`
	QueriesB       int           `json:"queries_b"`
	PairsA         int           `json:"pairs_a"`
	PairsB         int           `json:"pairs_b"`
	QueriesAdded   []string      `json:"queries_added"`
	QueriesRemoved []string      `json:"queries_removed"`
	Labels         []LabelChange `json:"labels"`
	// Counts of Labels by kind.
	Added   int `json:"pairs_added"`
	Removed int `json:"pairs_removed"`
	Changed int `json:"labels_changed"`
}

type pairKey struct{ q, t string }

// Diff compares the ground truth of two releases (directories holding
// ground_truth.csv, or ground-truth CSV files themselves). Queries and pairs
// are listed sorted, so the result is deterministic.
func Diff(a, b string) (*DiffResult, error) {
	ga, err := readGroundTruth(a)
	if err != nil {
		return nil, err
	}
	gb, err := readGroundTruth(b)
	if err != nil {
		return nil, err
	}
	d := &DiffResult{A: a, B: b, PairsA: len(ga), PairsB: len(gb),
		QueriesAdded: []string{}, QueriesRemoved: []string{}, Labels: []LabelChange{}}
	qa, qb := queriesOf(ga), queriesOf(gb)
	d.QueriesA, d.QueriesB = len(qa), len(qb)
	for q := range qb {
		if !qa[q] {
			d.QueriesAdded = append(d.QueriesAdded, q)
		}
	}
	for q := range qa {
		if !qb[q] {
			d.QueriesRemoved = append(d.QueriesRemoved, q)
		}
	}
	sort.Strings(d.QueriesAdded)
	sort.Strings(d.QueriesRemoved)
	for k, la := range ga {
		la := la
		if lb, ok := gb[k]; !ok {
			d.Labels = append(d.Labels, LabelChange{Query: k.q, Term: k.t, Old: &la, Kind: "removed"})
			d.Removed++
		} else if lb != la {
			lb := lb
			d.Labels = append(d.Labels, LabelChange{Query: k.q, Term: k.t, Old: &la, New: &lb, Kind: "changed"})
			d.Changed++
		}
	}
	for k, lb := range gb {
		lb := lb
		if _, ok := ga[k]; !ok {
			d.Labels = append(d.Labels, LabelChange{Query: k.q, Term: k.t, New: &lb, Kind: "added"})
			d.Added++
		}
	}
	sort.Slice(d.Labels, func(i, j int) bool {
		x, y := d.Labels[i], d.Labels[j]
		if x.Query != y.Query {
			return x.Query < y.Query
		}
		return x.Term < y.Term
	})
	return d, nil
}

func queriesOf(g map[pairKey]int) map[string]bool {
	out := map[string]bool{}
	for k := range g {
		out[k.q] = true
	}
	return out
}

// readGroundTruth reads a release's ground truth (path is the CSV or a
// directory holding it) with sampling.ReadGroundTruthFile.
func readGroundTruth(path string) (map[pairKey]int, error) {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		path = filepath.Join(path, export.GroundTruthFile)
	}
	rows, err := sampling.ReadGroundTruthFile(path)
	if err != nil {
		return nil, err
	}
	out := make(map[pairKey]int, len(rows))
	for _, r := range rows {
		out[pairKey{r.Query, r.Term}] = r.Label
	}
	return out, nil
}
