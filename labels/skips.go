package labels

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Problem is one bad input record: where it is and why it was skipped or
// treated specially.
type Problem struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Field  string `json:"field,omitempty"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
}

// String formats the problem as "file:line: field F: reason: detail".
func (p Problem) String() string {
	if p.Field != "" {
		return fmt.Sprintf("%s:%d: field %s: %s: %s", p.File, p.Line, p.Field, p.Reason, p.Detail)
	}
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Reason, p.Detail)
}

// MaxExamples is how many examples per reason a Skips keeps.
const MaxExamples = 10

// Skips counts records skipped (or merged) per reason and keeps the first
// MaxExamples of each reason with file and line, for the stage report.
type Skips struct {
	Counts   map[string]int `json:"counts"`
	Examples []Problem      `json:"examples"`
	// Records holds every record added with AddRecord (bad input, as
	// opposed to records that are merely not used), for a quarantine file.
	Records []Problem `json:"-"`
}

// Add counts p under p.Reason and keeps it as an example if there are fewer
// than MaxExamples of that reason so far.
func (s *Skips) Add(p Problem) {
	if s.Counts == nil {
		s.Counts = map[string]int{}
	}
	s.Counts[p.Reason]++
	if s.Counts[p.Reason] <= MaxExamples {
		s.Examples = append(s.Examples, p)
	}
}

// AddRecord is Add for a bad input record, which is also kept in Records.
func (s *Skips) AddRecord(p Problem) {
	s.Add(p)
	s.Records = append(s.Records, p)
}

// WriteQuarantine writes records as TSV with the header
// file, line, field, reason, detail (tabs and line breaks in a value become
// spaces).
func WriteQuarantine(w io.Writer, records []Problem) error {
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	bw := bufio.NewWriter(w)
	bw.WriteString("file\tline\tfield\treason\tdetail\n")
	for _, p := range records {
		fmt.Fprintf(bw, "%s\t%d\t%s\t%s\t%s\n", clean.Replace(p.File), p.Line, clean.Replace(p.Field), p.Reason, clean.Replace(p.Detail))
	}
	return bw.Flush()
}

// Count adds n records under reason without an example (for records that
// have no single line, such as a whole query).
func (s *Skips) Count(reason string, n int) {
	if n == 0 {
		return
	}
	if s.Counts == nil {
		s.Counts = map[string]int{}
	}
	s.Counts[reason] += n
}

// Summary formats the counts as "N rows rejected: reason n, ..." (reasons
// sorted), or "" when nothing was skipped.
func (s *Skips) Summary() string {
	if s.Total() == 0 {
		return ""
	}
	keys := make([]string, 0, len(s.Counts))
	for k := range s.Counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, s.Counts[k])
	}
	return fmt.Sprintf("%d rows rejected: %s", s.Total(), strings.Join(parts, ", "))
}

// Total is the number of records counted over all reasons.
func (s *Skips) Total() int {
	t := 0
	for _, n := range s.Counts {
		t += n
	}
	return t
}

// Reasons returns the reasons in sorted order.
func (s *Skips) Reasons() []string {
	r := make([]string, 0, len(s.Counts))
	for k := range s.Counts {
		r = append(r, k)
	}
	sort.Strings(r)
	return r
}
