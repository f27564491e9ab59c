package sessions

import (
	"bytes"
	"unicode/utf8"
)

// The reasons ParseYandexLine rejects a line. They are ingest's quarantine
// reasons (docs/ingest.md), so that `ingest` and `fit --log` judge a line
// the same way.
const (
	YandexInvalidUTF8    = "invalid_utf8"
	YandexMalformed      = "malformed_yandex_line"
	YandexBadTimePassed  = "bad_field_TimePassed"
	YandexTooManyResults = "too_many_results"
	YandexLineTooLong    = "line_too_long"
)

// MaxYandexLine is the default longest accepted line of a Yandex log, in
// bytes (ingest's --max-line default).
const MaxYandexLine = 1 << 20

// YandexLine is one parsed line of a Yandex relevance-prediction log.
type YandexLine struct {
	// Fields are the tab-separated fields: SessionID, TimePassed, "Q" or
	// "C", then QueryID, RegionID, URL1..URLn (Q) or URLID (C).
	Fields [][]byte
	Click  bool  // a C line; otherwise a Q line
	Time   int64 // TimePassed, >= 0
}

// ParseYandexLine splits and checks one non-blank line (without its line
// terminator), reusing dst for the fields. It returns the reason the line
// is rejected, or "" for a good line:
//
//   - YandexInvalidUTF8: not valid UTF-8;
//   - YandexMalformed: neither SessionID TimePassed Q QueryID RegionID
//     URL... (at least 5 fields; a Q line without URL is a SERP without
//     results) nor SessionID TimePassed C URLID (exactly 4 fields);
//   - YandexBadTimePassed: TimePassed is not a decimal integer >= 0 (at most
//     18 digits, optional '+'; "NaN", "1e3", "-5" are rejected);
//   - YandexTooManyResults: more than MaxRanks URLs.
//
// The fields alias line. Used by ingest (which quarantines) and ReadYandex
// (which fails in strict mode).
func ParseYandexLine(dst [][]byte, line []byte) (YandexLine, string) {
	l := YandexLine{Fields: dst[:0]}
	if !utf8.Valid(line) {
		return l, YandexInvalidUTF8
	}
	for {
		i := bytes.IndexByte(line, '\t')
		if i < 0 {
			l.Fields = append(l.Fields, line)
			break
		}
		l.Fields = append(l.Fields, line[:i])
		line = line[i+1:]
	}
	f := l.Fields
	isQ := len(f) >= 5 && len(f[2]) == 1 && f[2][0] == 'Q'
	isC := len(f) == 4 && len(f[2]) == 1 && f[2][0] == 'C'
	if !isQ && !isC {
		return l, YandexMalformed
	}
	t, ok := parseTimePassed(f[1])
	if !ok {
		return l, YandexBadTimePassed
	}
	if isQ && len(f)-5 > MaxRanks {
		return l, YandexTooManyResults
	}
	l.Click, l.Time = isC, t
	return l, ""
}

// parseTimePassed parses a non-negative decimal integer (optional '+', at
// most 18 digits so that it cannot overflow) without allocating.
func parseTimePassed(b []byte) (int64, bool) {
	if len(b) > 0 && b[0] == '+' {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}
