package sessions

import (
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TermClass classifies a result ID by the capitalisation convention of RDF
// vocabularies: the local name (after the last ':', '#' or '/') starts with
// an upper-case letter for a class and a lower-case letter for a property
// (LOVBench paper, section 4.1, Figure 2(b)).
type TermClass int

// Term classes.
const (
	OtherTerm TermClass = iota // local name empty or not starting with a letter
	ClassTerm
	PropertyTerm
)

// ClassifyTerm returns the class of a result ID such as "foaf:Person" or
// "http://xmlns.com/foaf/0.1/name".
func ClassifyTerm(id string) TermClass {
	local := id[strings.LastIndexAny(id, ":#/")+1:]
	r, _ := utf8.DecodeRuneInString(local)
	switch {
	case local == "":
		return OtherTerm
	case unicode.IsUpper(r):
		return ClassTerm
	case unicode.IsLower(r):
		return PropertyTerm
	}
	return OtherTerm
}

// LengthCount is one bar of the query length distribution.
type LengthCount struct {
	Words int `json:"words"`
	SERPs int `json:"serps"`
}

// KindCounts splits counts into classes, properties and other IDs.
type KindCounts struct {
	Class    int `json:"class"`
	Property int `json:"property"`
	Other    int `json:"other"`
}

func (k *KindCounts) add(c TermClass) {
	switch c {
	case ClassTerm:
		k.Class++
	case PropertyTerm:
		k.Property++
	default:
		k.Other++
	}
}

// RawCounts is the volume of a log before cleaning (ingest's report.json):
// sessions, query events and click events.
type RawCounts struct {
	Sessions int `json:"sessions"`
	Queries  int `json:"queries"`
	Clicks   int `json:"clicks"`
}

// Stats is the log analysis of the LOVBench paper, section 4.1 (Figure 2):
// volume, query length, click positions, and class versus property views and
// clicks.
type Stats struct {
	// Raw is the volume before cleaning, when known (set by the caller
	// from an ingest report).
	Raw *RawCounts `json:"raw,omitempty"`

	Sessions        int `json:"sessions"`
	SERPs           int `json:"serps"` // one per query event
	DistinctQueries int `json:"distinct_queries"`
	// Clicks counts clicked (SERP, rank) pairs: repeated clicks on one
	// result of one SERP count once, as in the click models.
	Clicks         int `json:"clicks"`
	SERPsWithClick int `json:"serps_with_click"`
	// QueryLength is the number of SERPs per query length in words
	// (white-space separated), by increasing length.
	QueryLength []LengthCount `json:"query_length"`
	// ClicksPerRank[r] is the number of clicks on rank r+1.
	ClicksPerRank []int `json:"clicks_per_rank"`
	// Views counts result impressions, Clicks clicked results, and
	// Distinct* distinct result IDs, split by TermClass.
	Views           KindCounts `json:"views"`
	ClickedKinds    KindCounts `json:"clicks_by_kind"`
	DistinctViewed  KindCounts `json:"distinct_viewed"`
	DistinctClicked KindCounts `json:"distinct_clicked"`
}

// Analyze computes the statistics of a log.
func Analyze(l *Log) *Stats {
	st := &Stats{SERPs: l.Len(), DistinctQueries: l.Queries.Len()}
	sess := make([]bool, l.Sessions.Len())
	qlen := make([]int, l.Queries.Len())
	for i, q := range l.Queries.Names {
		qlen[i] = len(strings.Fields(q))
	}
	docClass := make([]TermClass, l.Docs.Len())
	for i, d := range l.Docs.Names {
		docClass[i] = ClassifyTerm(d)
	}
	viewed := make([]bool, l.Docs.Len())
	clicked := make([]bool, l.Docs.Len())
	byLen := map[int]int{}
	maxLen := 0
	for i := 0; i < l.Len(); i++ {
		if !sess[l.Session[i]] {
			sess[l.Session[i]] = true
			st.Sessions++
		}
		n := qlen[l.Query[i]]
		byLen[n]++
		maxLen = max(maxLen, n)
		docs := l.SERPDocs(i)
		for r, d := range docs {
			st.Views.add(docClass[d])
			if !viewed[d] {
				viewed[d] = true
				st.DistinctViewed.add(docClass[d])
			}
			if l.Clicked(i, r) {
				st.ClickedKinds.add(docClass[d])
				if !clicked[d] {
					clicked[d] = true
					st.DistinctClicked.add(docClass[d])
				}
				for len(st.ClicksPerRank) <= r {
					st.ClicksPerRank = append(st.ClicksPerRank, 0)
				}
				st.ClicksPerRank[r]++
			}
		}
		if c := bits.OnesCount64(l.Clicks[i]); c > 0 {
			st.Clicks += c
			st.SERPsWithClick++
		}
	}
	for n := 0; n <= maxLen; n++ {
		if c := byLen[n]; c > 0 {
			st.QueryLength = append(st.QueryLength, LengthCount{Words: n, SERPs: c})
		}
	}
	if st.ClicksPerRank == nil {
		st.ClicksPerRank = []int{}
	}
	if st.QueryLength == nil {
		st.QueryLength = []LengthCount{}
	}
	return st
}

// WriteJSON writes the statistics as indented JSON.
func (st *Stats) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(st)
}

// WriteText writes the statistics as a human-readable table.
func (st *Stats) WriteText(w io.Writer) error {
	pct := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return 100 * float64(a) / float64(b)
	}
	var b strings.Builder
	if st.Raw != nil {
		fmt.Fprintf(&b, "raw log           %d sessions, %d queries, %d clicks\n", st.Raw.Sessions, st.Raw.Queries, st.Raw.Clicks)
		b.WriteString("clean log:\n")
	}
	fmt.Fprintf(&b, "sessions          %d\n", st.Sessions)
	fmt.Fprintf(&b, "queries (SERPs)   %d\n", st.SERPs)
	fmt.Fprintf(&b, "distinct queries  %d\n", st.DistinctQueries)
	fmt.Fprintf(&b, "clicks            %d (on %d SERPs, %.1f%%)\n", st.Clicks, st.SERPsWithClick, pct(st.SERPsWithClick, st.SERPs))
	b.WriteString("\nquery length (words)  SERPs  share\n")
	for _, q := range st.QueryLength {
		fmt.Fprintf(&b, "  %-19d %6d  %5.1f%%\n", q.Words, q.SERPs, pct(q.SERPs, st.SERPs))
	}
	b.WriteString("\nclick rank  clicks  share\n")
	for r, c := range st.ClicksPerRank {
		fmt.Fprintf(&b, "  %-9d %6d  %5.1f%%\n", r+1, c, pct(c, st.Clicks))
	}
	b.WriteString("\n                    class  property  other\n")
	row := func(name string, k KindCounts) {
		fmt.Fprintf(&b, "  %-16s %6d  %8d  %5d\n", name, k.Class, k.Property, k.Other)
	}
	row("views", st.Views)
	row("clicks", st.ClickedKinds)
	row("distinct viewed", st.DistinctViewed)
	row("distinct clicked", st.DistinctClicked)
	_, err := io.WriteString(w, b.String())
	return err
}
