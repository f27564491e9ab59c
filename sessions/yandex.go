package sessions

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/lovbench/lovbench/internal/textio"
)

// YandexStats counts what ReadYandex did with each input line, so that the
// caller can report it: Queries + Clicks + Ignored* + Malformed = lines read.
type YandexStats struct {
	Lines            int // non-empty lines read
	Queries          int // Q lines, each one SERP
	Clicks           int // C lines applied to a SERP
	IgnoredClickDoc  int // C lines on a URL not in the latest SERP (PyClick ignores them)
	IgnoredClickSess int // C lines whose SessionID differs from the latest Q line's
	Malformed        int // lines of neither shape
	// Order counts the SERPs' click order from the C lines' TimePassed
	// (outside the identity above: repeated clicks are among Clicks).
	Order OrderCounts
}

// ReadYandex reads a log in the Yandex relevance-prediction format
// (docs/method.md section 1) with PyClick's semantics, so that click models fitted
// here are comparable with PyClick's:
//
//   - every Q line (SessionID TimePassed Q QueryID RegionID URL1 ... URLn,
//     at least one URL) starts a new SERP;
//   - a C line (SessionID TimePassed C URLID) marks the first occurrence of
//     URLID in the latest SERP as clicked, if that SERP has the same
//     SessionID; otherwise it is ignored (and counted); the C lines'
//     TimePassed give the click order (ClickOrder: by time, equal times in
//     rank order), counted in YandexStats.Order;
//   - any other line is rejected as ingest rejects it (ParseYandexLine: not
//     UTF-8, wrong column count, TimePassed not an integer >= 0, more than
//     MaxRanks URLs), as is a Q line without URL: with strict it is an
//     error naming the file, line and reason, otherwise it is counted as
//     Malformed and skipped;
//   - a line over MaxYandexLine bytes is an error (line_too_long), strict
//     or not.
//
// Lines may end in LF or CRLF. name is used in error messages.
func ReadYandex(r io.Reader, name string, strict bool) (*Log, YandexStats, error) {
	return readYandex(r, name, strict, true)
}

// readYandex is ReadYandex, keeping the user sessions only withSessions.
// It interns the session, query and document names from the scanner's
// bytes (Dict.IDBytes), so that only a name seen for the first time is
// copied into a string.
func readYandex(r io.Reader, name string, strict, withSessions bool) (*Log, YandexStats, error) {
	log := &Log{}
	st, err := scanYandex(r, name, strict, func(session, query []byte, results [][]byte, clicks []Click, order []uint8) error {
		s := int32(-1)
		if withSessions {
			s = log.Sessions.IDBytes(session)
		}
		log.startSERP(s, log.Queries.IDBytes(query))
		for _, u := range results {
			log.DocIDs = append(log.DocIDs, log.Docs.IDBytes(u))
		}
		log.endSERP(clickMask(clicks))
		if len(clicks) > 1 {
			log.setOrder(order)
		}
		return nil
	})
	if err != nil {
		return nil, st, err
	}
	return log, st, nil
}

// ScanYandex reads a Yandex log as ReadYandex does and calls fn for every
// SERP in log order, with its session ID, query, results and click mask
// (bit r: rank r clicked), instead of holding the log: what a reader
// bounded in memory needs. results is only valid during the call. An
// error of fn stops the scan and is returned as is.
func ScanYandex(r io.Reader, name string, strict bool, fn func(session, query string, results []string, clicks uint64) error) (YandexStats, error) {
	return ScanYandexClicks(r, name, strict, func(session, query string, results []string, clicks []Click) error {
		return fn(session, query, results, clickMask(clicks))
	})
}

// clickMask is the mask of the clicked ranks (bit r: rank r clicked).
func clickMask(clicks []Click) uint64 {
	var m uint64
	for _, c := range clicks {
		m |= 1 << uint(c.Rank)
	}
	return m
}

// ScanYandexClicks is ScanYandex calling fn with the SERP's clicks, one
// per C line applied in file order (repeated clicks included), each with
// its rank and TimePassed: what the click order needs (ClickOrder). clicks
// is only valid during the call.
func ScanYandexClicks(r io.Reader, name string, strict bool, fn func(session, query string, results []string, clicks []Click) error) (YandexStats, error) {
	var docs []string
	return scanYandex(r, name, strict, func(session, query []byte, results [][]byte, clicks []Click, _ []uint8) error {
		docs = docs[:0]
		for _, u := range results {
			docs = append(docs, string(u))
		}
		return fn(string(session), string(query), docs, clicks)
	})
}

// scanYandex is the one reader of ScanYandexClicks and readYandex: fn
// gets the SERP's session ID, query and results as bytes, its clicks and
// their click order (ClickOrder's, which the scan computes for its
// counts anyway), all valid only during the call (they live in buffers
// the next SERP reuses).
func scanYandex(r io.Reader, name string, strict bool, fn func(session, query []byte, results [][]byte, clicks []Click, order []uint8) error) (YandexStats, error) {
	var (
		st YandexStats
		// The current SERP's Q line fields, copied out of the scanner's
		// buffer: serp holds session ID, query and results back to back,
		// ends[i] is where field i ends (0 session, 1 query, 2... results).
		serp      []byte
		ends      []int
		curSess   []byte
		curQ      []byte
		curDocs   [][]byte
		curClicks []Click
		have      bool
		orderBuf  [MaxRanks]uint8
	)
	flush := func() error {
		if have {
			have = false
			order, _ := ClickOrder(orderBuf[:0], curClicks, &st.Order)
			return fn(curSess, curQ, curDocs, curClicks, order)
		}
		return nil
	}
	sc := bufio.NewScanner(textio.NewReader(r))
	// A line of MaxYandexLine bytes plus CR LF fits; a longer one stops the
	// scanner (ErrTooLong), reported as line_too_long below.
	sc.Buffer(make([]byte, 0, 1<<16), MaxYandexLine+2)
	lineNo := 0
	var fields [][]byte
	bad := func(reason, detail string) error {
		if !strict {
			st.Malformed++
			return nil
		}
		return fmt.Errorf("%s:%d: %s: %s", name, lineNo, reason, detail)
	}
	for sc.Scan() {
		lineNo++
		line := bytes.TrimRight(sc.Bytes(), "\r\n")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		st.Lines++
		// One parser for ingest and fit.
		l, reason := ParseYandexLine(fields, line)
		fields = l.Fields
		var err error
		switch {
		case reason == YandexInvalidUTF8:
			err = bad(reason, "the line is not valid UTF-8")
		case reason == YandexMalformed:
			err = bad(reason, fmt.Sprintf("not a Yandex Q or C line (%d tab-separated fields)", len(l.Fields)))
		case reason == YandexBadTimePassed:
			err = bad(reason, "field TimePassed: "+textio.QuoteBytes(l.Fields[1])+" is not an integer >= 0")
		case reason == YandexTooManyResults:
			err = bad(reason, fmt.Sprintf("field URLs: %d results, at most %d supported", len(l.Fields)-5, MaxRanks))
		case !l.Click && len(l.Fields) == 5:
			err = bad(YandexMalformed, "Q line without results")
		case !l.Click:
			if err := flush(); err != nil {
				return st, err
			}
			st.Queries++
			serp = append(serp[:0], l.Fields[0]...)
			ends = append(ends[:0], len(serp))
			serp = append(serp, l.Fields[3]...)
			ends = append(ends, len(serp))
			for _, u := range l.Fields[5:] {
				serp = append(serp, u...)
				ends = append(ends, len(serp))
			}
			curSess = serp[:ends[0]]
			curQ = serp[ends[0]:ends[1]]
			curDocs = curDocs[:0]
			for i := 2; i < len(ends); i++ {
				curDocs = append(curDocs, serp[ends[i-1]:ends[i]])
			}
			curClicks = curClicks[:0]
			have = true
		default:
			if !have || !bytes.Equal(l.Fields[0], curSess) {
				st.IgnoredClickSess++
				continue
			}
			idx := -1
			for i, d := range curDocs {
				if bytes.Equal(d, l.Fields[3]) {
					idx = i
					break
				}
			}
			if idx < 0 {
				st.IgnoredClickDoc++
				continue
			}
			curClicks = append(curClicks, Click{Rank: idx, TimePassed: l.Time})
			st.Clicks++
		}
		if err != nil {
			return st, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return st, fmt.Errorf("%s:%d: %s: longer than %d bytes", name, lineNo+1, YandexLineTooLong, MaxYandexLine)
		}
		return st, fmt.Errorf("%s:%d: %w", name, lineNo+1, err)
	}
	return st, flush()
}

// WriteYandex writes SERPs in the Yandex relevance-prediction format: one Q
// line per SERP followed by one C line per click (in the SERP's click order).
func WriteYandex(w io.Writer, serps []SERP) error {
	bw := bufio.NewWriter(w)
	for i := range serps {
		if err := AppendYandex(bw, &serps[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// AppendYandex writes one SERP in Yandex format to w.
func AppendYandex(w io.Writer, s *SERP) error {
	_, err := w.Write(AppendYandexBytes(nil, s))
	return err
}

// AppendYandexBytes appends one SERP in Yandex format (its Q line and one C
// line per click) to dst and returns the extended buffer; reusing dst avoids
// allocation. An empty Region is written as "0".
func AppendYandexBytes(dst []byte, s *SERP) []byte {
	region := s.Region
	if region == "" {
		region = "0"
	}
	dst = append(dst, s.SessionID...)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, s.TimePassed, 10)
	dst = append(dst, "\tQ\t"...)
	dst = append(dst, s.Query...)
	dst = append(dst, '\t')
	dst = append(dst, region...)
	for _, r := range s.Results {
		dst = append(dst, '\t')
		dst = append(dst, r...)
	}
	dst = append(dst, '\n')
	for _, c := range s.Clicks {
		dst = append(dst, s.SessionID...)
		dst = append(dst, '\t')
		dst = strconv.AppendInt(dst, c.TimePassed, 10)
		dst = append(dst, "\tC\t"...)
		dst = append(dst, s.Results[c.Rank]...)
		dst = append(dst, '\n')
	}
	return dst
}
