package export

import (
	"fmt"
	"maps"
	"slices"

	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/labels"
)

// ReportsProvenance collects, for the dataset card and manifest, what the
// ingest report (ingestReport, ingest.ReportFile of lovbench ingest) and
// the label report (labelReport, labels.FileReport) say; "" leaves a
// report out, and reasons that counted nothing are left out too. It is
// what `lovbench export --ingest-report --label-report` records; the
// pipeline adds the fit summary and the run's settings to it.
func ReportsProvenance(ingestReport, labelReport string) (*Provenance, error) {
	pv := &Provenance{}
	if ingestReport != "" {
		var ing ingest.Report
		if err := textio.ReadJSON(ingestReport, &ing); err != nil {
			return nil, err
		}
		c := &pv.Collection
		AddFact(c, "log format", "%s", ing.Format)
		AddFact(c, "input lines", "%d", ing.InputLines)
		AddFact(c, "input events", "%d (%d queries and %d clicks well-formed)", ing.InputEvents, ing.RawQueries, ing.RawClicks)
		quarantined := 0
		for _, n := range ing.Quarantined {
			quarantined += n
		}
		AddFact(c, "quarantined (malformed)", "%d", quarantined)
		for _, k := range slices.Sorted(maps.Keys(ing.Dropped)) {
			if n := ing.Dropped[k]; n > 0 {
				AddFact(c, "dropped: "+k, "%d", n)
			}
		}
		AddFact(c, "kept SERPs", "%d", ing.KeptQueries)
		AddFact(c, "kept clicks", "%d", ing.KeptClicks)
		AddFact(c, "sessions kept", "%d of %d", ing.Sessions.Kept, ing.Sessions.Seen)
	}
	if labelReport != "" {
		var lab labels.RunReport
		if err := textio.ReadJSON(labelReport, &lab); err != nil {
			return nil, err
		}
		l := &pv.Labelling
		AddFact(l, "thresholds (junk, 0, 1, 2, 3, 4)", "%s", lab.Thresholds)
		AddFact(l, "SERP labelled per query", "%s, %d results", lab.FirstSERP, lab.SERPSize)
		AddFact(l, "queries", "%d in the log, %d labelled", lab.LogQueries, lab.LabelledQueries)
		for _, k := range slices.Sorted(maps.Keys(lab.QuerySkips.Counts)) {
			if n := lab.QuerySkips.Counts[k]; n > 0 {
				AddFact(l, "queries left out: "+k, "%d", n)
			}
		}
		AddFact(l, "labels", "%d", lab.Labels)
	}
	return pv, nil
}

// AddFact appends the fact name = the formatted value to list.
func AddFact(list *[]Fact, name string, format string, args ...any) {
	*list = append(*list, Fact{Name: name, Value: fmt.Sprintf(format, args...)})
}
