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
// at a time, and tells for each SERP whether its session has a click. A
// SERP is known to be in a session with a click as soon as it or an
// earlier SERP of its session has one; the SERPs before that are held
// back until the session shows a click (they go to Emit with true) or
// ends (with false). The zero value is ready; Flush ends the last
// session.
type SessionRuns[T any] struct {
	id      []byte
	started bool
	clicked bool // the current session has a click so far
	held    []T
	// Emit receives the SERPs held, in order, with whether their session
	// has a click.
	Emit func(serp T, withClick bool) error
}

// Next starts the next SERP of the log, of session id (only read during
// the call) with clicks clicks. If id starts another session, the one
// before it ends (its SERPs still held go to Emit). It reports whether
// the SERP's session is known to have a click: then the SERPs held of it
// have gone to Emit (with true) and the caller handles this SERP itself,
// after them; otherwise the caller holds it (Hold).
func (s *SessionRuns[T]) Next(id []byte, clicks int) (withClick bool, err error) {
	if !s.started || string(id) != string(s.id) {
		if err := s.Flush(); err != nil {
			return false, err
		}
		s.id = append(s.id[:0], id...)
		s.started = true
	}
	if clicks > 0 && !s.clicked {
		s.clicked = true
		if err := s.emitHeld(); err != nil {
			return false, err
		}
	}
	return s.clicked, nil
}

// Hold holds serp, the SERP Next just started, until its session shows a
// click or ends.
func (s *SessionRuns[T]) Hold(serp T) { s.held = append(s.held, serp) }

// Held is the number of SERPs held.
func (s *SessionRuns[T]) Held() int { return len(s.held) }

// Flush ends the current session, handing the SERPs held to Emit.
func (s *SessionRuns[T]) Flush() error {
	err := s.emitHeld()
	s.clicked = false
	return err
}

// emitHeld hands the SERPs held to Emit with the session's click so far.
func (s *SessionRuns[T]) emitHeld() error {
	for _, v := range s.held {
		if err := s.Emit(v, s.clicked); err != nil {
			return err
		}
	}
	clear(s.held)
	s.held = s.held[:0]
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
		// Emit returns no error.
		if with, _ := runs.Next(id[:], clicks); with {
			out[i] = true
		} else {
			runs.Hold(i)
		}
	}
	_ = runs.Flush()
	return out
}
