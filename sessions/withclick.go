package sessions

import "encoding/binary"

// LOVBench's cleaning rule 1 (docs/method.md section 2) keeps only the
// user sessions with at least one click. ingest keeps the other sessions
// too, by default, as evidence for the click models (a SERP nobody
// clicked says its results were seen and did not attract); what the
// benchmark is made of, the queries that get labels and their first
// SERPs, still follows the rule: labels come only from SERPs of
// sessions with a click. This file is the one home of that test.
//
// A user session is a run of consecutive SERPs with the same session ID:
// ingest writes each session's SERPs together, and PyClick reads the
// Yandex format so (a SessionID that comes back later is a new session).

// SessionRuns follows the user sessions of a log read in order, one SERP
// at a time, holding back a session's SERPs until it is known whether it
// has a click. The zero value is ready; Flush hands on the last session.
type SessionRuns[T any] struct {
	id      []byte
	started bool
	clicked bool
	held    []T
	// Emit receives every SERP held, in order, once its session has
	// ended, with whether the session has a click.
	Emit func(serp T, withClick bool) error
}

// Add adds the next SERP of the log, of session id (only read during the
// call), with clicks clicks; serp is what Emit gets back for it. It is
// Begin and Hold.
func (s *SessionRuns[T]) Add(id []byte, clicks int, serp T) error {
	if err := s.Begin(id); err != nil {
		return err
	}
	s.Hold(clicks, serp)
	return nil
}

// Begin starts the next SERP of the log, of session id (only read during
// the call): if id starts a new session, the session before it ends and
// its SERPs go to Emit (then Held is 0). Hold adds the SERP.
func (s *SessionRuns[T]) Begin(id []byte) error {
	if s.started && string(id) == string(s.id) {
		return nil
	}
	if err := s.Flush(); err != nil {
		return err
	}
	s.id = append(s.id[:0], id...)
	s.started = true
	return nil
}

// Hold holds serp, with clicks clicks, in the session Begin started.
func (s *SessionRuns[T]) Hold(clicks int, serp T) {
	s.clicked = s.clicked || clicks > 0
	s.held = append(s.held, serp)
}

// Held is the number of SERPs of the current session held so far.
func (s *SessionRuns[T]) Held() int { return len(s.held) }

// Flush ends the current session, handing its SERPs to Emit.
func (s *SessionRuns[T]) Flush() error {
	for _, v := range s.held {
		if err := s.Emit(v, s.clicked); err != nil {
			return err
		}
	}
	clear(s.held)
	s.held, s.clicked = s.held[:0], false
	return nil
}

// WithClick reports, for every SERP of l, whether its user session has a
// click (SessionRuns' sessions). A log without user sessions (Session
// nil) counts each SERP as a session of its own.
func (l *Log) WithClick() []bool {
	out := make([]bool, l.Len())
	runs := SessionRuns[int]{Emit: func(i int, withClick bool) error {
		out[i] = withClick
		return nil
	}}
	var id [4]byte
	for i := range l.Len() {
		s := uint32(i) // no sessions: every SERP its own
		if l.Session != nil {
			s = uint32(l.Session[i])
		}
		binary.LittleEndian.PutUint32(id[:], s)
		clicks := 0
		if l.Clicks[i] != 0 {
			clicks = 1
		}
		_ = runs.Add(id[:], clicks, i) // Emit returns no error
	}
	_ = runs.Flush()
	return out
}
