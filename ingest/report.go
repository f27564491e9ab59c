package ingest

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/lovbench/lovbench/ingest/pii"
	"github.com/lovbench/lovbench/sessions"
)

// Drop rule names used as keys of Report.Dropped. Each counts input events
// (lines); the number says which docs/method.md section 2 rule removed them.
const (
	DropNoSessionID       = "rule1_no_session_id"             // event without a session ID
	DropClickWithoutQuery = "rule1_click_without_query"       // click before any query of its session
	DropSessionNoClick    = "rule1_session_without_click"     // kept events of sessions left without a click
	DropPageNotFirst      = "rule3_page_not_first"            // query for a later result page
	DropEmptyQuery        = "rule3_empty_query"               // search words empty after normalisation
	DropFilterSet         = "rule3_filter_set"                // a type/tag/vocabulary/language filter was set
	DropEmptyResults      = "rule3_empty_results"             // no results shown
	DropShortSERP         = "rule3_short_serp"                // fewer results than a full SERP
	DropMalformedResults  = "rule3_malformed_results"         // empty, duplicate or ill-formed result IDs
	DropClickAfterDropped = "rule3_click_after_dropped_query" // click following a dropped query
	DropMultiTab          = "rule4_multi_tab_session"         // kept events of sessions with a click outside its SERP
	dropPIIPrefix         = "rule3_pii_"                      // + detector name, e.g. rule3_pii_email
)

// Quarantine reasons used as keys of Report.Quarantined.
const (
	QInvalidUTF8     = sessions.YandexInvalidUTF8 // "invalid_utf8"
	QLineTooLong     = sessions.YandexLineTooLong // "line_too_long"
	QInvalidJSON     = "invalid_json"
	QMissingDate     = "missing_field_date"
	QBadDate         = "bad_field_date"
	QBadSessionID    = "bad_field_sessionId"
	QMissingWords    = "missing_field_searchWords"
	QBadWords        = "bad_field_searchWords"
	QMissingResults  = "missing_field_results"
	QBadResults      = "bad_field_results"
	QBadPage         = "bad_field_page"
	QBadNbResults    = "bad_field_nbResults"
	QMissingClicked  = "missing_field_clicked"
	QBadClicked      = "bad_field_clicked"
	QDateOutOfOrder  = "date_out_of_order"
	QDuplicate       = "duplicate_event"
	QTooManyResults  = sessions.YandexTooManyResults // "too_many_results"
	QMalformedYandex = sessions.YandexMalformed      // "malformed_yandex_line"
	QBadTimePassed   = sessions.YandexBadTimePassed  // "bad_field_TimePassed"
	// QUnterminated is a final line without a line terminator: the log was
	// probably cut in the middle of it (a copy or download stopped short),
	// so even a line that parses may have lost its end ("http://schema.o"
	// for "http://schema.org/Person"). It is quarantined whether it parses
	// or not (docs/ingest.md).
	QUnterminated     = "unterminated_final_line"
	QClickNoQueryNote = DropClickWithoutQuery // also listed in quarantine.jsonl (counted in Dropped)
)

// quarantineReasons lists every quarantine reason so the report always shows
// all of them, zero or not.
var quarantineReasons = []string{
	QInvalidUTF8, QLineTooLong, QInvalidJSON, QMissingDate, QBadDate, QBadSessionID,
	QMissingWords, QBadWords, QMissingResults, QBadResults, QBadPage, QBadNbResults,
	QMissingClicked, QBadClicked, QDateOutOfOrder, QDuplicate,
	QTooManyResults, QMalformedYandex, QBadTimePassed, QUnterminated,
}

func dropRules() []string {
	r := []string{DropNoSessionID, DropClickWithoutQuery, DropSessionNoClick, DropPageNotFirst,
		DropEmptyQuery, DropFilterSet, DropEmptyResults, DropShortSERP}
	for _, k := range pii.Kinds() {
		r = append(r, dropPIIPrefix+k.String())
	}
	return append(r, DropMalformedResults, DropClickAfterDropped, DropMultiTab)
}

// InputFile describes one input file of the run.
type InputFile struct {
	Role  string `json:"role"` // "queries", "clicks" or "log"
	Path  string `json:"path"`
	Lines int    `json:"lines"` // lines read, blank ones included
}

// SessionCounts accounts for every session seen:
// Seen = Kept + DroppedNoClick + DroppedMultiTab. KeptWithoutClick (part of
// Kept) counts the sessions without a click kept for the click models
// (the default; Config.DropClickless drops them, as LOVBench's rule 1
// does).
type SessionCounts struct {
	Seen             int `json:"seen"`
	Kept             int `json:"kept"`
	KeptWithoutClick int `json:"kept_without_click,omitempty"`
	DroppedNoClick   int `json:"dropped_without_click"`
	DroppedMultiTab  int `json:"dropped_multi_tab"`
}

// Report is report.json: what ingest read, kept and dropped. The event
// counts add up: InputEvents = sum(Quarantined) + sum(Dropped) +
// KeptQueries + KeptClicks, and InputLines = InputEvents + BlankLines.
type Report struct {
	Format      string      `json:"format"`
	Kind        string      `json:"kind,omitempty"`
	FullSERP    int         `json:"full_serp_results"`
	SessionIdle string      `json:"session_idle,omitempty"`
	Inputs      []InputFile `json:"inputs"`
	InputLines  int         `json:"input_lines"`
	BlankLines  int         `json:"blank_lines"`
	InputEvents int         `json:"input_events"`
	// RawQueries and RawClicks count the well-formed query and click
	// events before cleaning (the raw log volume of the LOVBench paper,
	// section 4.1): events not quarantined for their format, date or
	// fields. Duplicates and events without a session are included.
	RawQueries  int            `json:"raw_queries"`
	RawClicks   int            `json:"raw_clicks"`
	Quarantined map[string]int `json:"quarantined"`
	Dropped     map[string]int `json:"dropped"`
	KeptQueries int            `json:"kept_queries"` // = kept SERPs, the SERPs the click models see
	// SERPsWithoutClickSession counts the kept SERPs of sessions without a
	// click (kept for the click models unless Config.DropClickless), and
	// SERPsWithClickSession those of sessions with a click: the SERPs that
	// pass LOVBench's rule 1, the only ones the benchmark's labels are
	// drawn from. The two add up to KeptQueries.
	SERPsWithoutClickSession int           `json:"serps_of_sessions_without_click"`
	SERPsWithClickSession    int           `json:"serps_of_sessions_with_click"`
	KeptClicks               int           `json:"kept_clicks"`
	Sessions                 SessionCounts `json:"sessions"`
	Blacklisted              int           `json:"blacklist_entries"`
	// ControlCharacters counts, per kind (ControlC0, ...), the query events
	// whose query held control characters, removed by the normalisation
	// (rule 2; an event can count under several kinds). It is not part of
	// the accounting above: these events are kept or dropped as any other.
	ControlCharacters map[string]int `json:"query_control_characters"`
	// ClickOrder counts, over the kept SERPs, the order of their clicks
	// read from the click times (sessions.ClickOrder): out-of-order and
	// repeated clicks, and SERPs whose clicks have equal times (taken in
	// rank order). Not part of the accounting above.
	ClickOrder sessions.OrderCounts `json:"click_order"`
}

func newReport() *Report {
	r := &Report{Quarantined: map[string]int{}, Dropped: map[string]int{}, ControlCharacters: map[string]int{}}
	for _, k := range controlKinds {
		r.ControlCharacters[k] = 0
	}
	for _, q := range quarantineReasons {
		r.Quarantined[q] = 0
	}
	for _, d := range dropRules() {
		r.Dropped[d] = 0
	}
	return r
}

// Check verifies the accounting identities of the report and returns an
// error describing the first one that fails.
func (r *Report) Check() error {
	sum := r.KeptQueries + r.KeptClicks
	for _, v := range r.Quarantined {
		sum += v
	}
	for _, v := range r.Dropped {
		sum += v
	}
	if sum != r.InputEvents {
		return fmt.Errorf("report: quarantined + dropped + kept = %d, input events %d", sum, r.InputEvents)
	}
	if r.InputEvents+r.BlankLines != r.InputLines {
		return fmt.Errorf("report: input events %d + blank lines %d != input lines %d", r.InputEvents, r.BlankLines, r.InputLines)
	}
	s := r.Sessions
	if s.KeptWithoutClick > s.Kept || r.SERPsWithoutClickSession > r.KeptQueries {
		return fmt.Errorf("report: %d sessions (%d SERPs) kept without a click, more than the %d (%d) kept", s.KeptWithoutClick, r.SERPsWithoutClickSession, s.Kept, r.KeptQueries)
	}
	if r.SERPsWithClickSession+r.SERPsWithoutClickSession != r.KeptQueries {
		return fmt.Errorf("report: SERPs of sessions with a click %d + without %d != kept SERPs %d", r.SERPsWithClickSession, r.SERPsWithoutClickSession, r.KeptQueries)
	}
	if s.Kept+s.DroppedNoClick+s.DroppedMultiTab != s.Seen {
		return fmt.Errorf("report: sessions kept + dropped = %d, seen %d", s.Kept+s.DroppedNoClick+s.DroppedMultiTab, s.Seen)
	}
	return nil
}

// Raw returns the raw log volume: sessions seen, and well-formed query and
// click events before cleaning.
func (r *Report) Raw() sessions.RawCounts {
	return sessions.RawCounts{Sessions: r.Sessions.Seen, Queries: r.RawQueries, Clicks: r.RawClicks}
}

// WriteJSON writes the report as indented JSON (map keys sorted, so the
// output is deterministic).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func jsonDecode(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
