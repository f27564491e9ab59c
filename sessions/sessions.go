// Package sessions holds search sessions: one search engine result page
// (SERP) with the clicks it received, the unit every later stage works on
// (LOVBench paper, section 4.1; docs/method.md sections 1 and 3).
//
// Two representations are offered. SERP is the readable record that ingest
// writes to sessions.parquet and clean.yandex.tsv. Log is the compact,
// interned, column-oriented form that click models fit on: a 10-million-SERP
// log takes well under 1 GiB.
package sessions

import (
	"fmt"
	"slices"
)

// MaxRanks is the largest SERP length a Log can hold: clicks are a bit mask.
const MaxRanks = 64

// The size of a full first SERP (LOVBench's cleaning rule 3, and the page
// labels are assigned on): ten results for a term search, fifteen for LOV's
// vocabulary search.
const (
	FullSERPTerm  = 10
	FullSERPVocab = 15
)

// Click is one click on a SERP.
type Click struct {
	Rank       int   // 0-based rank of the clicked result
	TimePassed int64 // seconds since the session's first kept event
}

// SERP is one result page shown to a user and the clicks it received.
type SERP struct {
	SessionID  string   // the user session the page belongs to
	Index      int      // 0-based index of this SERP within its session
	TimePassed int64    // seconds since the session's first kept event
	Query      string   // normalised query text (Yandex: the QueryID)
	Region     string   // Yandex RegionID; "0" when unknown
	Results    []string // result IDs in rank order (LOV: prefixed names)
	Clicks     []Click  // in time order
}

// Dict interns strings to dense int32 IDs in order of first appearance.
type Dict struct {
	Names []string
	ids   map[string]int32
}

// ID returns the ID of s, adding it if new.
func (d *Dict) ID(s string) int32 {
	if d.ids == nil {
		d.ids = make(map[string]int32)
	}
	if id, ok := d.ids[s]; ok {
		return id
	}
	id := int32(len(d.Names))
	d.Names = append(d.Names, s)
	d.ids[s] = id
	return id
}

// IDBytes is ID(string(b)), copying b into a string only when it is new.
func (d *Dict) IDBytes(b []byte) int32 {
	if id, ok := d.ids[string(b)]; ok {
		return id
	}
	return d.ID(string(b))
}

// Lookup returns the ID of s and whether it is known.
func (d *Dict) Lookup(s string) (int32, bool) {
	id, ok := d.ids[s]
	return id, ok
}

// DropIndex frees the string-to-ID index, keeping Names: for a dictionary
// that is complete, whose IDs are only turned back into strings from now
// on (Lookup then finds nothing; ID must not be called). Copies of d (a
// Dict is a value) keep their reference to the index.
func (d *Dict) DropIndex() { d.ids = nil }

// Len is the number of distinct strings.
func (d *Dict) Len() int { return len(d.Names) }

// Log is a compact click log: SERP i shows documents
// DocIDs[Offsets[i]:Offsets[i+1]] in rank order for query Query[i], and rank
// r was clicked iff bit r of Clicks[i] is set. Session[i] is the interned
// session ID, so SERPs of one user session can be grouped; a log built for
// fitting only may leave Session nil (no user sessions).
//
// The click order (see ClickOrder) is kept only for the SERPs whose clicks
// were not made in rank order, a small share of all: OrderSERP lists them
// in increasing SERP index, and SERP OrderSERP[j] was clicked in the order
// OrderRanks[OrderOff[j]:OrderOff[j+1]] (its distinct clicked ranks). Every
// other SERP was clicked in rank order, or its log has no click times.
type Log struct {
	Queries  Dict
	Docs     Dict
	Sessions Dict

	Query   []int32
	Session []int32
	Offsets []int64 // len(Query)+1 once the first SERP is added
	DocIDs  []int32
	Clicks  []uint64

	OrderSERP  []int32
	OrderOff   []int64 // len(OrderSERP)+1 once the first order is added
	OrderRanks []uint8
}

// Len is the number of SERPs in the log.
func (l *Log) Len() int { return len(l.Query) }

// Ranks returns the number of results shown on SERP i.
func (l *Log) Ranks(i int) int { return int(l.Offsets[i+1] - l.Offsets[i]) }

// SERPDocs returns the document IDs of SERP i in rank order (shared memory).
func (l *Log) SERPDocs(i int) []int32 { return l.DocIDs[l.Offsets[i]:l.Offsets[i+1]] }

// Clicked reports whether rank r of SERP i was clicked.
func (l *Log) Clicked(i, r int) bool { return l.Clicks[i]&(1<<uint(r)) != 0 }

// Add appends a SERP. A click rank outside the SERP is an error. Multiple
// clicks on one rank count once, as in PyClick.
func (l *Log) Add(s *SERP) error { return l.add(s, true) }

// add is Add, keeping the user session of s only withSession.
func (l *Log) add(s *SERP, withSession bool) error {
	if len(s.Results) > MaxRanks {
		return fmt.Errorf("session %s: %d results, at most %d supported", s.SessionID, len(s.Results), MaxRanks)
	}
	var mask uint64
	for _, c := range s.Clicks {
		if c.Rank < 0 || c.Rank >= len(s.Results) {
			return fmt.Errorf("session %s: click rank %d outside SERP of %d results", s.SessionID, c.Rank, len(s.Results))
		}
		mask |= 1 << uint(c.Rank)
	}
	session := int32(-1)
	if withSession {
		session = l.Sessions.ID(s.SessionID)
	}
	l.addRaw(session, l.Queries.ID(s.Query), s.Results, mask)
	if len(s.Clicks) > 1 {
		var buf [MaxRanks]uint8
		order, _ := ClickOrder(buf[:0], s.Clicks, nil)
		l.setOrder(order)
	}
	return nil
}

// addRaw appends a SERP; session < 0 leaves the Session column out (a log
// without user sessions never has one).
func (l *Log) addRaw(session, query int32, results []string, mask uint64) {
	l.startSERP(session, query)
	for _, r := range results {
		l.DocIDs = append(l.DocIDs, l.Docs.ID(r))
	}
	l.endSERP(mask)
}

// startSERP appends a SERP's query and session (addRaw's first half);
// the caller appends its documents' IDs to DocIDs, then calls endSERP.
func (l *Log) startSERP(session, query int32) {
	if len(l.Offsets) == 0 {
		l.Offsets = append(l.Offsets, 0)
	}
	l.Query = append(l.Query, query)
	if session >= 0 {
		l.Session = append(l.Session, session)
	}
}

// endSERP closes the SERP startSERP opened, with its click mask.
func (l *Log) endSERP(mask uint64) {
	l.Offsets = append(l.Offsets, int64(len(l.DocIDs)))
	l.Clicks = append(l.Clicks, mask)
}

// Slice returns a log holding SERPs [from, to) of l. Dictionaries are shared
// (IDs keep their meaning); the per-SERP columns are re-based copies.
func (l *Log) Slice(from, to int) *Log {
	return l.Select(func(yield func(int) bool) {
		for i := from; i < to; i++ {
			if !yield(i) {
				return
			}
		}
	})
}

// Head returns a log of the first n SERPs of l (0 <= n <= l.Len()) that
// shares l's memory instead of copying it, as Slice(0, n) would: a
// read-only view (dictionaries shared too). Appending to l afterwards does
// not change it.
func (l *Log) Head(n int) *Log {
	if len(l.Offsets) == 0 {
		return &Log{Queries: l.Queries, Docs: l.Docs, Sessions: l.Sessions, Offsets: []int64{0}}
	}
	out := &Log{Queries: l.Queries, Docs: l.Docs, Sessions: l.Sessions,
		Query: l.Query[:n:n], Offsets: l.Offsets[: n+1 : n+1], Clicks: l.Clicks[:n:n]}
	end := l.Offsets[n]
	out.DocIDs = l.DocIDs[:end:end]
	if l.Session != nil {
		out.Session = l.Session[:n:n]
	}
	if j, _ := slices.BinarySearch(l.OrderSERP, int32(n)); j > 0 {
		out.OrderSERP = l.OrderSERP[:j:j]
		out.OrderOff = l.OrderOff[: j+1 : j+1]
		e := l.OrderOff[j]
		out.OrderRanks = l.OrderRanks[:e:e]
	}
	return out
}

// Select returns a log holding the SERPs whose indices idx yields, in that
// order. Dictionaries are shared with l.
func (l *Log) Select(idx func(yield func(int) bool)) *Log {
	out := &Log{Queries: l.Queries, Docs: l.Docs, Sessions: l.Sessions, Offsets: []int64{0}}
	for i := range idx {
		out.Query = append(out.Query, l.Query[i])
		if l.Session != nil {
			out.Session = append(out.Session, l.Session[i])
		}
		out.DocIDs = append(out.DocIDs, l.SERPDocs(i)...)
		out.Offsets = append(out.Offsets, int64(len(out.DocIDs)))
		out.Clicks = append(out.Clicks, l.Clicks[i])
		if j, ok := l.orderIndex(i); ok {
			out.setOrder(l.OrderRanks[l.OrderOff[j]:l.OrderOff[j+1]])
		}
	}
	return out
}
