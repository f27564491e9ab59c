package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// lovRaw holds the fields of a LOV raw event (docs/method.md section 1) as raw JSON
// so that each field's type can be checked and reported by name.
type lovRaw struct {
	Date        json.RawMessage `json:"date"`
	SessionID   json.RawMessage `json:"sessionId"`
	SearchWords json.RawMessage `json:"searchWords"`
	FilterTypes json.RawMessage `json:"filterTypes"`
	FilterTags  json.RawMessage `json:"filterTags"`
	FilterVocs  json.RawMessage `json:"filterVocs"`
	FilterLangs json.RawMessage `json:"filterLangs"`
	Page        json.RawMessage `json:"page"`
	NbResults   json.RawMessage `json:"nbResults"`
	Results     json.RawMessage `json:"results"`
	ClickedTerm json.RawMessage `json:"clickedTerm"`
	ClickedVoc  json.RawMessage `json:"clickedVoc"`
}

// lovEvent is a parsed LOV event.
type lovEvent struct {
	line    int
	click   bool
	session string // "" = none (rule 1)
	q       queryEvent
	item    string // clicked term or vocabulary
	hash    uint64
}

// lovSource reads one LOV event file (queries or clicks).
type lovSource struct {
	c      *cleaner
	lr     *lineReader
	file   string
	clicks bool
	vocab  bool
	last   int64 // time of the previous event (date order check)
	have   bool
	ev     lovEvent
	done   bool
	raw    lovRaw
	tick   func(int)
	count  int
}

// isNull reports a missing or null field.
func isNull(r json.RawMessage) bool {
	r = bytes.TrimSpace(r)
	return len(r) == 0 || string(r) == "null"
}

// dateLayouts are the accepted date formats, in UTC.
var dateLayouts = []string{"2006-01-02 15:04:05", time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05.000"}

func parseDate(r json.RawMessage) (int64, bool) {
	s, ok := stringField(r)
	if !ok {
		var obj struct {
			Date json.RawMessage `json:"$date"`
		}
		if json.Unmarshal(r, &obj) != nil || isNull(obj.Date) {
			return 0, false
		}
		if json.Unmarshal(obj.Date, &s) != nil {
			var ms int64
			if json.Unmarshal(obj.Date, &ms) != nil {
				return 0, false
			}
			return ms / 1000, true // MongoDB extended JSON: milliseconds
		}
	}
	s = strings.TrimSpace(s)
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.Unix(), true
		}
	}
	return 0, false
}

// stringField decodes a JSON string field; ok is false for other types.
func stringField(r json.RawMessage) (string, bool) {
	// Fast path: the line is valid JSON, so a quoted value without escapes
	// is its own content.
	if n := len(r); n >= 2 && r[0] == '"' && r[n-1] == '"' && bytes.IndexByte(r, '\\') < 0 {
		return string(r[1 : n-1]), true
	}
	var s string
	if err := json.Unmarshal(r, &s); err != nil {
		return "", false
	}
	return s, true
}

// parseInt parses a decimal integer with an optional sign, without
// allocating (LOV's page and nbResults).
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
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
	if neg {
		v = -v
	}
	return v, true
}

// intField decodes an integer given as a JSON number or a numeric string.
func intField(r json.RawMessage) (int, bool) {
	// Fast path: a plain integer, bare or quoted.
	b := r
	if n := len(b); n >= 2 && b[0] == '"' && b[n-1] == '"' {
		b = b[1 : n-1]
	}
	if v, ok := parseInt(b); ok {
		return int(v), true
	}
	var v any
	if err := json.Unmarshal(r, &v); err != nil {
		return 0, false
	}
	switch x := v.(type) {
	case float64:
		if x != float64(int(x)) {
			return 0, false
		}
		return int(x), true
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		return n, err == nil
	}
	return 0, false
}

// filterSet reports whether a filter field restricts the search: a
// non-blank string, a non-empty array with a non-blank member, a non-empty
// object, true or any number. (The raw value is valid JSON: the whole line
// was parsed already.)
func filterSet(r json.RawMessage) bool {
	if isNull(r) {
		return false
	}
	var v any
	if err := json.Unmarshal(r, &v); err != nil {
		return true
	}
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x) != ""
	case []any:
		for _, e := range x {
			if s, isStr := e.(string); !isStr || strings.TrimSpace(s) != "" {
				return true
			}
		}
		return false
	case map[string]any:
		return len(x) > 0
	case bool:
		return x
	}
	return true // a number
}

// resultsField decodes results: a comma-separated string (LOV) or an array
// of strings. Items are trimmed; empty items are kept so that rule 3 can
// report the list as malformed.
func resultsField(r json.RawMessage) ([]string, bool) {
	var s string
	if err := json.Unmarshal(r, &s); err == nil {
		if strings.TrimSpace(s) == "" {
			return nil, true
		}
		parts := strings.Split(s, ",")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		return parts, true
	}
	var a []string
	if err := json.Unmarshal(r, &a); err != nil {
		return nil, false
	}
	for i := range a {
		a[i] = strings.TrimSpace(a[i])
	}
	return a, true
}

// validSessionID rejects IDs that would break the tab-separated output.
func validSessionID(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] == 0x7f {
			return false
		}
	}
	return true
}

// next reads lines until it has a valid event (stored in src.ev) or the
// file ends. Bad lines are quarantined, blank lines counted.
func (src *lovSource) next() bool {
	c := src.c
	for {
		line, tooLong, ok := src.lr.next()
		if !ok {
			src.done = true
			return false
		}
		c.rep.InputLines++
		src.count++
		if src.count&0xffff == 0 {
			src.tick(1 << 16)
		}
		if !tooLong && len(bytes.TrimSpace(line)) == 0 {
			c.rep.BlankLines++
			continue
		}
		c.rep.InputEvents++
		n := src.lr.lineNo
		reason := src.parse(line, tooLong)
		if reason == "" && src.lr.unterminated {
			reason = QUnterminated
		}
		if reason != "" {
			c.q.add(src.file, n, reason)
			continue
		}
		if src.have && src.ev.q.time < src.last {
			c.q.add(src.file, n, QDateOutOfOrder)
			continue
		}
		src.last, src.have = src.ev.q.time, true
		if src.clicks {
			c.rep.RawClicks++
		} else {
			c.rep.RawQueries++
		}
		src.ev.line = n
		return true
	}
}

// parse fills src.ev from line, or returns a quarantine reason.
func (src *lovSource) parse(line []byte, tooLong bool) string {
	if tooLong {
		return QLineTooLong
	}
	if !utf8.Valid(line) {
		return QInvalidUTF8
	}
	r := &src.raw
	*r = lovRaw{}
	if err := json.Unmarshal(line, r); err != nil {
		return QInvalidJSON
	}
	e := &src.ev
	*e = lovEvent{click: src.clicks}
	if isNull(r.Date) {
		return QMissingDate
	}
	t, ok := parseDate(r.Date)
	if !ok {
		return QBadDate
	}
	e.q.time = t
	if !isNull(r.SessionID) {
		s, ok := stringField(r.SessionID)
		if !ok || !validSessionID(s) {
			return QBadSessionID
		}
		e.session = strings.TrimSpace(s)
	}
	h := newFNV().int(t).str(e.session)
	if src.clicks {
		raw := r.ClickedTerm
		if src.vocab {
			raw = r.ClickedVoc
		}
		if isNull(raw) {
			return QMissingClicked
		}
		item, ok := stringField(raw)
		if !ok {
			return QBadClicked
		}
		e.item = strings.TrimSpace(item)
		if e.item == "" {
			return QMissingClicked
		}
		e.hash = uint64(h.str("C").str(e.item))
		return ""
	}
	if isNull(r.SearchWords) {
		return QMissingWords
	}
	words, ok := stringField(r.SearchWords)
	if !ok {
		return QBadWords
	}
	if isNull(r.Results) {
		return QMissingResults
	}
	res, ok := resultsField(r.Results)
	if !ok {
		return QBadResults
	}
	if len(res) > 64 {
		return QTooManyResults
	}
	page := 1
	if !isNull(r.Page) {
		if page, ok = intField(r.Page); !ok {
			return QBadPage
		}
	}
	nb := -1
	if !isNull(r.NbResults) {
		if nb, ok = intField(r.NbResults); !ok {
			return QBadNbResults
		}
	}
	set := false
	filters := []json.RawMessage{r.FilterTypes, r.FilterTags, r.FilterVocs}
	if src.vocab {
		filters = append(filters, r.FilterLangs)
	}
	for _, f := range filters {
		set = set || filterSet(f)
	}
	e.q.pageNotFirst = page != 1
	e.q.filterSet = set
	e.q.query, e.q.controls = normalizeQuery(words)
	e.q.region = "0"
	e.q.results = res
	e.q.nbResults = nb
	h = h.str("Q").str(e.q.query).int(int64(page)).int(int64(nb)).int(int64(len(res)))
	if set {
		h = h.str("F")
	}
	for _, x := range res {
		h = h.str(x)
	}
	e.hash = uint64(h)
	return ""
}

// lovSessions tracks the open LOV sessions in order of their latest event,
// so that the sessions idle for longer than the window are closed first.
type lovSessions struct {
	open       map[string]*session
	seen       map[string]int // session ID -> number of sessions opened with it
	head, tail *session
	idle       int64
}

func (ls *lovSessions) unlink(s *session) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		ls.head = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		ls.tail = s.prev
	}
	s.prev, s.next = nil, nil
}

func (ls *lovSessions) pushBack(s *session) {
	s.prev = ls.tail
	if ls.tail != nil {
		ls.tail.next = s
	} else {
		ls.head = s
	}
	ls.tail = s
}

// ingestLOV merges the query and click files by date (a query and a click
// at the same second: the query first) and cleans the events. A session is
// finished when it had no event for longer than the idle window; a later
// event with the same sessionId opens a new session named "<id>~2", "<id>~3",
// ... Sessions are emitted in the order they finish.
func (c *cleaner) ingestLOV(ctx context.Context, qs, cs *lovSource, idle time.Duration) error {
	ls := &lovSessions{open: map[string]*session{}, seen: map[string]int{}, idle: int64(idle / time.Second)}
	qOK, cOK := qs.next(), cs.next()
	steps := 0
	for qOK || cOK {
		if steps++; steps&0xfff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		src := qs
		if !qOK || (cOK && cs.ev.q.time < qs.ev.q.time) {
			src = cs
		}
		e := &src.ev
		now := e.q.time
		// Close sessions idle for longer than the window.
		for ls.head != nil && now-ls.head.last > ls.idle {
			s := ls.head
			ls.unlink(s)
			delete(ls.open, s.key)
			if err := c.finish(s); err != nil {
				return err
			}
		}
		if e.session == "" {
			c.rep.Dropped[DropNoSessionID]++
		} else {
			s := ls.open[e.session]
			if s == nil {
				ls.seen[e.session]++
				id := e.session
				if k := ls.seen[e.session]; k > 1 {
					id = e.session + "~" + strconv.Itoa(k)
				}
				s = &session{}
				s.reset(e.session, id)
				ls.open[e.session] = s
			} else {
				ls.unlink(s)
			}
			s.last = now
			ls.pushBack(s)
			if !c.duplicate(s, e.hash, src.file, e.line) {
				if e.click {
					c.click(s, e.item, now, src.file, e.line)
				} else {
					c.query(s, &e.q)
				}
			}
		}
		if src == qs {
			qOK = qs.next()
		} else {
			cOK = cs.next()
		}
	}
	for _, src := range []*lovSource{qs, cs} {
		if src.lr.err != nil {
			return src.lr.err
		}
	}
	for ls.head != nil {
		s := ls.head
		ls.unlink(s)
		if err := c.finish(s); err != nil {
			return err
		}
	}
	return nil
}
