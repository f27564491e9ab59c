package features

import (
	"fmt"
	"sort"
)

// Ranking selects the scoring of Search.
type Ranking int

const (
	// ByLOV ranks by feature 2 (LOV_Match_T): LOV's boosted multi-field
	// BM25 over all text fields of a term.
	ByLOV Ranking = iota
	// ByLabel ranks by feature 34 (LabelSearch_T): BM25 on rdfs:label only.
	ByLabel
)

// ParseRanking parses "lov" or "label".
func ParseRanking(s string) (Ranking, error) {
	switch s {
	case "lov":
		return ByLOV, nil
	case "label":
		return ByLabel, nil
	}
	return 0, fmt.Errorf("ranking %q: want lov or label", s)
}

// String returns "lov" or "label".
func (r Ranking) String() string {
	if r == ByLabel {
		return "label"
	}
	return "lov"
}

// Hit is one search result.
type Hit struct {
	URI      string  `json:"uri"`
	Prefixed string  `json:"prefixed"`
	Score    float64 `json:"score"`
}

// Search returns the k best terms for the query (all with a positive score
// if k <= 0), by descending score, ties by URI. Only terms with a query word
// in a scored field are candidates.
func (c *Corpus) Search(query string, by Ranking, k int) []Hit {
	ids, _, _ := c.queryWords(query)
	fields := []int{fieldLabel}
	if by == ByLOV {
		fields = fields[:0]
		for f := 0; f < numFields; f++ {
			fields = append(fields, f)
		}
	}
	// Score by walking the postings of every field (the maximum of the
	// boosted field scores, as lovScore computes per term).
	best := make([]float64, len(c.terms))
	acc := make([]float64, len(c.terms))
	var cand, touched []int32
	for _, f := range fields {
		touched = c.fields[f].scoreAll(ids, acc, touched[:0])
		boost := 1.0
		if by == ByLOV {
			boost = fieldBoost(f)
		}
		for _, d := range touched {
			if s := boost * acc[d]; s > best[d] {
				if best[d] == 0 {
					cand = append(cand, d)
				}
				best[d] = s
			}
			acc[d] = 0
		}
	}
	hits := make([]Hit, 0, len(cand))
	for _, t := range cand {
		hits = append(hits, Hit{URI: c.terms[t].uri, Score: best[t]})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].URI < hits[j].URI
	})
	if k > 0 && len(hits) > k {
		hits = hits[:k]
	}
	for i := range hits {
		hits[i].Prefixed = c.Prefixed(hits[i].URI)
	}
	return hits
}
