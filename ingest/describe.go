package ingest

import "strings"

// dropText says in words what each drop rule of Report.Dropped removed
// (docs/method.md section 2, rules numbered as there).
var dropText = map[string]string{
	DropNoSessionID:       "event without a session ID",
	DropClickWithoutQuery: "click before any query of its session",
	DropSessionNoClick:    "events of sessions left without a click",
	DropPageNotFirst:      "query for a later result page",
	DropEmptyQuery:        "query empty after normalisation",
	DropFilterSet:         "query with a type, tag, vocabulary or language filter",
	DropEmptyResults:      "query with no results shown",
	DropShortSERP:         "query with fewer results than a full page",
	DropMalformedResults:  "query with empty, duplicate or ill-formed result IDs",
	DropClickAfterDropped: "click following a dropped query",
	DropMultiTab:          "events of sessions with a click outside their result page (multi-tab)",
}

// quarantineText says in words why a malformed event was quarantined.
var quarantineText = map[string]string{
	QInvalidUTF8:     "not valid UTF-8",
	QLineTooLong:     "line too long",
	QInvalidJSON:     "not valid JSON",
	QMissingDate:     "no date",
	QBadDate:         "unreadable date",
	QBadSessionID:    "unreadable session ID",
	QMissingWords:    "no search words",
	QBadWords:        "unreadable search words",
	QMissingResults:  "no results",
	QBadResults:      "unreadable results",
	QBadPage:         "unreadable page number",
	QBadNbResults:    "unreadable number of results",
	QMissingClicked:  "no clicked term",
	QBadClicked:      "unreadable clicked term",
	QDateOutOfOrder:  "date out of order",
	QDuplicate:       "duplicate event",
	QTooManyResults:  "more results than a SERP holds",
	QMalformedYandex: "malformed Yandex-format line",
	QBadTimePassed:   "unreadable TimePassed",
	QUnterminated:    "final line without a line end (the log was cut in that line)",
}

// controlText names the control character kinds of
// Report.ControlCharacters.
var controlText = map[string]string{
	ControlC0:     "C0 controls (NUL, ESC, ...)",
	ControlDEL:    "DEL",
	ControlC1:     "C1 controls",
	ControlBidi:   "bidirectional formatting",
	ControlEscape: "terminal escape sequences (ANSI colours, cursor moves, ...), removed whole",
}

// DescribeDrop says in words what the drop rule key of Report.Dropped
// removed, with its rule number: "rule 1: events of sessions left without a
// click". An unknown key is returned as it is.
func DescribeDrop(key string) string {
	r, _, _ := strings.Cut(key, "_")
	n, ok := strings.CutPrefix(r, "rule")
	if !ok {
		return key
	}
	if kind, ok := strings.CutPrefix(key, dropPIIPrefix); ok {
		return "rule " + n + ": query holding personal data (" + strings.ReplaceAll(kind, "_", " ") + ")"
	}
	if t, ok := dropText[key]; ok {
		return "rule " + n + ": " + t
	}
	return key
}

// DescribeQuarantine says in words why events of the quarantine reason key
// were malformed; an unknown key is returned as it is.
func DescribeQuarantine(key string) string {
	if t, ok := quarantineText[key]; ok {
		return t
	}
	return key
}

// DescribeControl names the control character kind key of
// Report.ControlCharacters; an unknown key is returned as it is.
func DescribeControl(key string) string {
	if t, ok := controlText[key]; ok {
		return t
	}
	return key
}
