package ingest

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/lovbench/lovbench/ingest/pii"
	"github.com/lovbench/lovbench/internal/hashes"
	"github.com/lovbench/lovbench/sessions"
)

// NormalizeQuery applies docs/method.md section 2 rule 2: trim, lower-case, remove
// "&quot;" (LOV ignores quotes). Runs of white space (tabs, line breaks) also
// become single spaces, because the Yandex output is tab-separated, and
// control characters (ControlKind) are removed, so that none reaches a
// dataset file. Plain queries that need no change are returned without
// allocation.
func NormalizeQuery(q string) string {
	n, _ := normalizeQuery(q)
	return n
}

// Control character kinds, the keys of Report.ControlCharacters.
const (
	ControlC0   = "c0"   // U+0000-U+001F other than white space: NUL, ESC, ...
	ControlDEL  = "del"  // U+007F
	ControlC1   = "c1"   // U+0080-U+009F other than NEL (white space)
	ControlBidi = "bidi" // bidirectional formatting: U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069
	// ControlEscape: terminal escape sequences (ECMA-48, "ANSI" colours,
	// titles, hyperlinks), removed whole (stripEscapes).
	ControlEscape = "escape"
)

// controlKinds lists the kinds in report order.
var controlKinds = [...]string{ControlC0, ControlDEL, ControlC1, ControlBidi, ControlEscape}

// escapeKind is the index of ControlEscape in controlKinds.
const escapeKind = 4

// ControlKinds returns the kinds of control characters that NormalizeQuery
// removes, the keys of Report.ControlCharacters, in report order.
func ControlKinds() []string { return controlKinds[:] }

// controlSet records which kinds of control character a query held, by
// index in controlKinds.
type controlSet uint8

// controlKind returns the index in controlKinds of r's kind, or -1 when r
// is not a control character that NormalizeQuery removes. White space
// (tab, line feed, NEL, ...) is not: it becomes a space.
func controlKind(r rune) int {
	switch {
	case r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r' || r == 0x85:
		return -1
	case r < 0x20:
		return 0
	case r == 0x7f:
		return 1
	case r >= 0x80 && r <= 0x9f:
		return 2
	case r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
		return 3
	}
	return -1
}

// normalizeQuery is NormalizeQuery, also returning the kinds of control
// characters it removed.
func normalizeQuery(q string) (string, controlSet) {
	clean := true
	prevSpace := true
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c >= utf8.RuneSelf || (c >= 'A' && c <= 'Z') || c == '&' || c < ' ' || c == 0x7f || (c == ' ' && prevSpace) {
			clean = false
			break
		}
		prevSpace = c == ' '
	}
	if clean && !prevSpace {
		return q, 0
	}
	var found controlSet
	if stripped, ok := stripEscapes(q); ok {
		q = stripped
		found |= 1 << escapeKind
	}
	q = strings.Map(func(r rune) rune {
		if k := controlKind(r); k >= 0 {
			found |= 1 << k
			return -1
		}
		return r
	}, q)
	q = strings.ReplaceAll(strings.ToLower(q), "&quot;", "")
	return strings.Join(strings.Fields(q), " "), found
}

// stripEscapes removes the terminal escape sequences of ECMA-48 from q,
// each one whole, and reports whether it found any. Removing only their
// ESC byte would leave "[31m" and the like in the query.
//   - CSI (ESC '[' or U+009B): parameter bytes 0x30-0x3F, intermediate
//     bytes 0x20-0x2F, a final byte 0x40-0x7E ("\x1b[31m", "\x1b[0m").
//     A sequence cut short by another byte ends before that byte.
//   - Control strings: OSC (ESC ']' or U+009D), DCS (ESC 'P', U+0090), SOS
//     (ESC 'X', U+0098), PM (ESC '^', U+009E) and APC (ESC '_', U+009F), up
//     to and with their terminator, ST (ESC '\' or U+009C) or BEL (which
//     xterm accepts for OSC), or to the end of the query when none comes:
//     window titles and hyperlinks ("\x1b]8;;URL\x07text\x1b]8;;\x07" keeps
//     "text").
//   - Other escape sequences: ESC, intermediate bytes 0x20-0x2F, a final
//     byte 0x30-0x7E ("\x1b(B", "\x1b7").
//
// An ESC followed by none of these is no sequence: it is left for the
// control-character removal (kind c0).
func stripEscapes(q string) (string, bool) {
	if strings.IndexByte(q, 0x1b) < 0 && strings.IndexByte(q, 0xc2) < 0 { // ESC, or the first byte of U+0080-U+00BF
		return q, false
	}
	var b strings.Builder
	found := false
	for i := 0; i < len(q); {
		// The introducer at i: its kind ('c' CSI, 's' control string, 'e'
		// other escape sequence) and length n (0: none).
		var kind byte
		n := 0
		switch {
		case q[i] == 0x1b && i+1 < len(q):
			switch c := q[i+1]; {
			case c == '[':
				kind, n = 'c', 2
			case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
				kind, n = 's', 2
			case c >= 0x20 && c <= 0x7e:
				kind, n = 'e', 1
			}
		case q[i] == 0xc2 && i+1 < len(q):
			switch q[i+1] {
			case 0x9b:
				kind, n = 'c', 2
			case 0x9d, 0x90, 0x98, 0x9e, 0x9f:
				kind, n = 's', 2
			}
		}
		if n == 0 {
			b.WriteByte(q[i])
			i++
			continue
		}
		j := i + n
		switch kind {
		case 'c':
			for j < len(q) && q[j] >= 0x30 && q[j] <= 0x3f {
				j++
			}
			for j < len(q) && q[j] >= 0x20 && q[j] <= 0x2f {
				j++
			}
			if j < len(q) && q[j] >= 0x40 && q[j] <= 0x7e {
				j++
			}
		case 's':
			for j < len(q) {
				if q[j] == 0x07 {
					j++
					break
				}
				if q[j] == 0x1b && j+1 < len(q) && q[j+1] == '\\' || q[j] == 0xc2 && j+1 < len(q) && q[j+1] == 0x9c {
					j += 2
					break
				}
				j++
			}
		case 'e':
			for j < len(q) && q[j] >= 0x20 && q[j] <= 0x2f {
				j++
			}
			if j < len(q) && q[j] >= 0x30 && q[j] <= 0x7e {
				j++
			} else {
				// Intermediates without a final byte: no sequence.
				b.WriteByte(q[i])
				i++
				continue
			}
		}
		found = true
		i = j
	}
	return b.String(), found
}

// queryEvent is a parsed query event, in either input format.
type queryEvent struct {
	time         int64 // seconds (LOV: Unix time; Yandex: TimePassed)
	pageNotFirst bool
	filterSet    bool
	query        string     // normalised
	controls     controlSet // control characters removed from the query
	region       string
	results      []string
	nbResults    int // -1: unknown, len(results) is used
}

// session is the state of one open session while its events stream in.
type session struct {
	key         string // session ID in the input
	id          string // session ID in the output, before pseudonymisation
	pid         string // pseudonymised id (cleaner.outputID), "" until needed
	serps       []sessions.SERP
	sawQuery    bool // some query event arrived (kept or not)
	lastDropped bool // the latest query was dropped by rule 3
	multiTab    bool // rule 4 fired
	keptQ       int  // queries kept so far
	keptC       int  // clicks kept so far
	pendingMT   int  // clicks that triggered rule 4
	lastHash    uint64
	hasHash     bool
	prevLine    []byte // Yandex: the previous line without the session ID
	last        int64  // time of the latest event (idle window)
	prev, next  *session
}

func (s *session) reset(key, id string) {
	for i := range s.serps {
		s.serps[i].Results = s.serps[i].Results[:0]
	}
	*s = session{key: key, id: id, serps: s.serps[:0], prevLine: s.prevLine[:0]}
}

// cleaner applies the cleaning rules of docs/method.md section 2 to the events of
// open sessions and emits kept sessions.
type cleaner struct {
	rep       *Report
	det       *pii.Detector
	full      int  // rule 3: results of a full SERP
	needColon bool // rule 3 malformed results: IDs must be prefixed names
	q         *quarantine
	emit      func([]sessions.SERP) error
	pseudo    *pseudonymiser // nil: session IDs are written as read
	// dropClickless drops the sessions without a click (rule 1 as
	// written, Config.DropClickless); otherwise they are kept for the
	// click models and counted in Report.Sessions.
	dropClickless bool
}

// rule3 returns the drop rule that removes query event e, or "" to keep it.
// The checks follow docs/method.md section 2 rule 3 in order.
func (c *cleaner) rule3(e *queryEvent) string {
	switch {
	case e.pageNotFirst:
		return DropPageNotFirst
	case e.query == "":
		return DropEmptyQuery
	case e.filterSet:
		return DropFilterSet
	case len(e.results) == 0:
		return DropEmptyResults
	}
	n := e.nbResults
	if n < 0 {
		n = len(e.results)
	}
	if n < c.full {
		return DropShortSERP
	}
	if k := c.det.Detect(e.query); k != pii.None {
		return dropPIIPrefix + k.String()
	}
	if !c.wellFormed(e.results) {
		return DropMalformedResults
	}
	return ""
}

// wellFormed reports whether result IDs are non-empty, free of white space
// and control characters, distinct, and (for LOV term search) prefixed names
// "prefix:local" with both parts non-empty.
func (c *cleaner) wellFormed(res []string) bool {
	var hs [64]uint64 // len(res) <= 64: longer SERPs are quarantined earlier
	for i, r := range res {
		if r == "" {
			return false
		}
		h := hashes.FNVOffset64
		for j := 0; j < len(r); j++ {
			if r[j] <= ' ' || r[j] == 0x7f {
				return false
			}
			h = hashes.FNV1aByte(h, r[j])
		}
		if c.needColon {
			k := strings.IndexByte(r, ':')
			if k <= 0 || k == len(r)-1 {
				return false
			}
		}
		// Duplicates: compare hashes first, strings only on a hash match.
		for k := 0; k < i; k++ {
			if hs[k] == h && res[k] == r {
				return false
			}
		}
		hs[i] = h
	}
	return true
}

// duplicate reports (and quarantines) an event identical to the previous
// event of its session.
func (c *cleaner) duplicate(s *session, h uint64, file string, line int) bool {
	if s.hasHash && s.lastHash == h {
		c.q.add(file, line, QDuplicate)
		return true
	}
	s.lastHash, s.hasHash = h, true
	return false
}

// duplicateLine is duplicate for Yandex lines, compared exactly.
func (c *cleaner) duplicateLine(s *session, rest []byte, file string, line int) bool {
	if s.hasHash && bytes.Equal(s.prevLine, rest) {
		c.q.add(file, line, QDuplicate)
		return true
	}
	s.prevLine = append(s.prevLine[:0], rest...)
	s.hasHash = true
	return false
}

// query handles a query event of session s.
func (c *cleaner) query(s *session, e *queryEvent) {
	s.sawQuery = true
	for k, name := range controlKinds {
		if e.controls&(1<<k) != 0 {
			c.rep.ControlCharacters[name]++
		}
	}
	if r := c.rule3(e); r != "" {
		c.rep.Dropped[r]++
		s.lastDropped = true
		return
	}
	s.lastDropped = false
	s.keptQ++
	n := len(s.serps)
	if n < cap(s.serps) {
		s.serps = s.serps[:n+1]
	} else {
		s.serps = append(s.serps, sessions.SERP{})
	}
	sp := &s.serps[n]
	sp.SessionID = c.outputID(s)
	sp.Index = n
	sp.TimePassed = e.time
	sp.Query = e.query
	sp.Region = e.region
	sp.Results = append(sp.Results[:0], e.results...)
	sp.Clicks = sp.Clicks[:0]
}

// click handles a click on item at time t of session s (rules 1, 3 and 4).
func (c *cleaner) click(s *session, item string, t int64, file string, line int) {
	if sp := c.clickSERP(s, file, line); sp != nil {
		s.addClick(sp, slices.Index(sp.Results, item), t)
	}
}

// clickBytes is click for an item given as bytes (no allocation).
func (c *cleaner) clickBytes(s *session, item []byte, t int64, file string, line int) {
	sp := c.clickSERP(s, file, line)
	if sp == nil {
		return
	}
	r := -1
	for i, id := range sp.Results {
		if id == string(item) {
			r = i
			break
		}
	}
	s.addClick(sp, r, t)
}

// clickSERP applies rules 1 and 3 to a click of session s: it returns the
// SERP the click belongs to, or nil (counted) when the click is dropped
// because no query preceded it or its query was dropped.
func (c *cleaner) clickSERP(s *session, file string, line int) *sessions.SERP {
	switch {
	case !s.sawQuery:
		c.rep.Dropped[DropClickWithoutQuery]++
		c.q.note(file, line, QClickNoQueryNote)
		return nil
	case s.lastDropped:
		c.rep.Dropped[DropClickAfterDropped]++
		return nil
	}
	return &s.serps[len(s.serps)-1]
}

// addClick records a click on rank r of sp at time t; r < 0 (an item not
// in the SERP) marks the session as multi-tab (rule 4).
func (s *session) addClick(sp *sessions.SERP, r int, t int64) {
	if r < 0 {
		s.multiTab = true
		s.pendingMT++
		return
	}
	sp.Clicks = append(sp.Clicks, sessions.Click{Rank: r, TimePassed: t})
	s.keptC++
}

// finish closes session s: rule 4 (multi-tab) drops it whole, rule 1 drops
// it if no click is left, otherwise rule 5 rebases times on its first kept
// event and the session is emitted.
func (c *cleaner) finish(s *session) error {
	c.rep.Sessions.Seen++
	switch {
	case s.multiTab:
		c.rep.Dropped[DropMultiTab] += s.keptQ + s.keptC + s.pendingMT
		c.rep.Sessions.DroppedMultiTab++
		return nil
	case s.keptC == 0 && (c.dropClickless || len(s.serps) == 0):
		c.rep.Dropped[DropSessionNoClick] += s.keptQ
		c.rep.Sessions.DroppedNoClick++
		return nil
	case s.keptC == 0:
		// Kept for the click models: a SERP nobody clicked is evidence
		// that its results were seen and did not attract (issue 36).
		c.rep.Sessions.KeptWithoutClick++
		c.rep.SERPsWithoutClickSession += s.keptQ
	default:
		c.rep.SERPsWithClickSession += s.keptQ
	}
	// Rule 5 rebases on the session's earliest kept event. In a log whose
	// times never go back within a session that is its first event; a
	// click logged with a time before its query's (a Yandex log is not
	// checked for order) would otherwise get a negative TimePassed, which
	// no reader accepts.
	t0 := s.serps[0].TimePassed
	for i := range s.serps {
		t0 = min(t0, s.serps[i].TimePassed)
		for _, c := range s.serps[i].Clicks {
			t0 = min(t0, c.TimePassed)
		}
	}
	var order [sessions.MaxRanks]uint8
	for i := range s.serps {
		sp := &s.serps[i]
		sp.TimePassed -= t0
		for j := range sp.Clicks {
			sp.Clicks[j].TimePassed -= t0
		}
		sessions.ClickOrder(order[:0], sp.Clicks, &c.rep.ClickOrder)
	}
	c.rep.KeptQueries += s.keptQ
	c.rep.KeptClicks += s.keptC
	c.rep.Sessions.Kept++
	return c.emit(s.serps)
}

// fnv64 hashes for duplicate detection: FNV-1a (internal/hashes) over
// the fields of an event, XORed with 0xff after each string (a field
// separator).
type fnv64 uint64

func newFNV() fnv64 { return fnv64(hashes.FNVOffset64) }

func (h fnv64) str(s string) fnv64 {
	return fnv64(hashes.FNV1aString(uint64(h), s)) ^ 0xff // field separator
}

func (h fnv64) int(v int64) fnv64 { return fnv64(hashes.FNV1aUint64(uint64(h), uint64(v))) }
