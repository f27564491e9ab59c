package ingest

import (
	"bufio"
	"context"
	"errors"
	"io"
	"maps"
	"slices"

	"github.com/lovbench/lovbench/ingest/pii"
	"github.com/lovbench/lovbench/sessions"
)

// This file exposes the Yandex cleaner one part of a log at a time, for
// engines that split a log across workers (the Apache Beam pipeline in the
// beam/ module). A part is a run of whole sessions: cleaning the parts of a
// log one by one gives exactly what Run gives on the whole log, because the
// cleaner's state is reset at every session boundary (a session is a run of
// consecutive lines with the same SessionID).

// YandexSessionKey returns the SessionID that a Yandex log line (without its
// line terminator, and not over the line limit) joins in the cleaner, and
// ok = false for a line that joins no session: a blank, quarantined or
// session-less line, which the cleaner skips without closing the open
// session. A part may start at a line for which ok is true and whose
// SessionID differs from that of the previous such line.
func YandexSessionKey(line []byte) (sid []byte, ok bool) {
	if isBlank(line) {
		return nil, false
	}
	var buf [8][]byte
	yl, reason := sessions.ParseYandexLine(buf[:0], line)
	if reason != "" || len(yl.Fields[0]) == 0 {
		return nil, false
	}
	return yl.Fields[0], true
}

// PartOptions configure CleanYandexPart.
type PartOptions struct {
	// File names the log in quarantine records; FirstLine is the line
	// number (1-based) of the part's first line in that file.
	File      string
	FirstLine int
	// Blacklist, FullSERP and MaxLine are as in Config.
	Blacklist []string
	FullSERP  int
	MaxLine   int
	// PIISalt keys the session-ID pseudonymisation (Config.PIISalt). The
	// parts of one log must share it, so it is required unless
	// KeepSessionIDs writes the IDs as read.
	PIISalt        []byte
	KeepSessionIDs bool
	// DropClickless is Config.DropClickless.
	DropClickless bool
}

// CleanYandexPart cleans r, a part of a Yandex log made of whole sessions,
// with the rules and accounting of Run. Kept sessions are passed to emit in
// log order; quarantine records (quarantine.jsonl lines, as Run writes them)
// go to quar, which may be nil. The report counts only this part; its
// Inputs field is empty (see MergeReports).
func CleanYandexPart(ctx context.Context, r io.Reader, o PartOptions, quar io.Writer, emit func([]sessions.SERP) error) (*Report, error) {
	if emit == nil {
		return nil, errors.New("ingest: CleanYandexPart needs an emit function")
	}
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	rep := newReport()
	rep.Format = FormatYandex
	c := &cleaner{rep: rep, det: pii.New(o.Blacklist, NormalizeQuery), full: o.FullSERP, emit: emit, dropClickless: o.DropClickless}
	if !o.KeepSessionIDs {
		if len(o.PIISalt) == 0 {
			return nil, errors.New("ingest: the parts of a log need one pseudonymisation key (PartOptions.PIISalt), or KeepSessionIDs")
		}
		var err error
		if c.pseudo, err = newPseudonymiser(o.PIISalt); err != nil {
			return nil, err
		}
	}
	rep.Blacklisted = c.det.BlacklistLen()
	rep.FullSERP = c.full
	c.q = &quarantine{w: quar, rep: rep, names: map[string][]byte{}}
	lr := newLineReader(r, o.MaxLine)
	if o.FirstLine > 1 {
		lr.lineNo = o.FirstLine - 1
	}
	if err := c.ingestYandex(ctx, lr, o.File, func(int) {}); err != nil {
		return nil, err
	}
	if c.q.err != nil {
		return nil, c.q.err
	}
	return rep, rep.Check()
}

// MergeReports adds up the reports of the parts of one log, in order, into
// one report equal to the report Run writes for the whole log. inputs is
// the report's input file list.
func MergeReports(parts []*Report, inputs []InputFile) (*Report, error) {
	out := newReport()
	out.Format = FormatYandex
	out.Inputs = inputs
	for i, p := range parts {
		if i == 0 {
			out.Format, out.Kind, out.FullSERP, out.SessionIdle, out.Blacklisted = p.Format, p.Kind, p.FullSERP, p.SessionIdle, p.Blacklisted
		}
		out.InputLines += p.InputLines
		out.BlankLines += p.BlankLines
		out.InputEvents += p.InputEvents
		out.RawQueries += p.RawQueries
		out.RawClicks += p.RawClicks
		for _, k := range slices.Sorted(maps.Keys(p.Quarantined)) {
			out.Quarantined[k] += p.Quarantined[k]
		}
		for _, k := range slices.Sorted(maps.Keys(p.Dropped)) {
			out.Dropped[k] += p.Dropped[k]
		}
		for _, k := range slices.Sorted(maps.Keys(p.ControlCharacters)) {
			out.ControlCharacters[k] += p.ControlCharacters[k]
		}
		out.KeptQueries += p.KeptQueries
		out.KeptClicks += p.KeptClicks
		out.ClickOrder.Add(p.ClickOrder)
		out.Sessions.Seen += p.Sessions.Seen
		out.Sessions.Kept += p.Sessions.Kept
		out.Sessions.KeptWithoutClick += p.Sessions.KeptWithoutClick
		out.SERPsWithoutClickSession += p.SERPsWithoutClickSession
		out.SERPsWithClickSession += p.SERPsWithClickSession
		out.Sessions.DroppedNoClick += p.Sessions.DroppedNoClick
		out.Sessions.DroppedMultiTab += p.Sessions.DroppedMultiTab
	}
	return out, out.Check()
}

// DecodeReport reads a report.json from r; name is used in errors.
func DecodeReport(r io.Reader, name string) (*Report, error) { return decodeReport(r, name) }

// YandexPartStart returns the offset of the first part boundary at or after
// byte at of a Yandex log of size bytes read through r: the start of the
// first line L at or after at such that L and an earlier line after at both
// join a session (YandexSessionKey) and L's SessionID differs from that of
// the latest such line before it. Cutting a log at such offsets cuts it
// between sessions, whatever the other lines around the cut. The answer
// depends only on the bytes from at on, so the worker that ends a part and
// the worker that starts the next one find the same boundary. It returns
// 0 for at <= 0 and size when no boundary follows at. maxLine is the line
// limit of the cleaner (0: DefaultMaxLine); longer lines join no session.
func YandexPartStart(r io.ReaderAt, size, at int64, maxLine int) (int64, error) {
	if at <= 0 {
		return 0, nil
	}
	if at >= size {
		return size, nil
	}
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r, at-1, size-(at-1)), 64<<10)
	// Find the first line start p >= at: p-1 is LF, or CR not followed by LF.
	prev, err := br.ReadByte()
	if err != nil {
		return size, nil
	}
	pos := at
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return size, nil
		}
		if err != nil {
			return 0, err
		}
		if prev == '\n' || (prev == '\r' && c != '\n') {
			if err := br.UnreadByte(); err != nil {
				return 0, err
			}
			break
		}
		prev = c
		pos++
	}
	// Scan whole lines from pos.
	var (
		line    = make([]byte, 0, 256)
		prevSID []byte
		seen    bool
	)
	for {
		start := pos
		line = line[:0]
		tooLong, eof := false, false
		for {
			c, err := br.ReadByte()
			if err == io.EOF {
				eof = true
				break
			}
			if err != nil {
				return 0, err
			}
			pos++
			if c == '\n' {
				break
			}
			if c == '\r' {
				if n, err := br.Peek(1); err == nil && n[0] == '\n' {
					br.ReadByte()
					pos++
				}
				break
			}
			if len(line) <= maxLine {
				line = append(line, c)
			} else {
				tooLong = true
			}
		}
		if len(line) > maxLine {
			tooLong = true
		}
		if eof && start == pos {
			return size, nil
		}
		if !tooLong {
			if sid, ok := YandexSessionKey(line); ok {
				if seen && string(sid) != string(prevSID) {
					return start, nil
				}
				prevSID = append(prevSID[:0], sid...)
				seen = true
			}
		}
		if eof {
			return size, nil
		}
	}
}

// CountLines returns the number of lines in r as the cleaner counts them
// (terminated by LF, CRLF or a lone CR; a last line without a terminator
// counts too).
func CountLines(r io.Reader) (int, error) {
	buf := make([]byte, 256<<10)
	n, prevCR, pending := 0, false, false
	for {
		k, err := r.Read(buf)
		for _, c := range buf[:k] {
			switch {
			case c == '\n':
				if !prevCR {
					n++
				}
				prevCR, pending = false, false
			case c == '\r':
				n++
				prevCR, pending = true, false
			default:
				prevCR, pending = false, true
			}
		}
		if err == io.EOF {
			if pending {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
