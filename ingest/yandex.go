package ingest

import (
	"context"

	"github.com/lovbench/lovbench/sessions"
)

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// ingestYandex cleans a Yandex relevance-prediction log. A session is a run
// of consecutive lines with the same SessionID (PyClick's reading); only one
// session is open at a time, so memory does not grow with the log.
func (c *cleaner) ingestYandex(ctx context.Context, lr *lineReader, file string, tick func(int)) error {
	var (
		cur      session
		open     bool
		fields   [][]byte
		qe       queryEvent
		results  []string
		sinceTck int
	)
	for {
		line, tooLong, ok := lr.next()
		if !ok {
			break
		}
		c.rep.InputLines++
		if sinceTck++; sinceTck == 1<<16 {
			sinceTck = 0
			tick(1 << 16)
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if !tooLong && isBlank(line) {
			c.rep.BlankLines++
			continue
		}
		c.rep.InputEvents++
		n := lr.lineNo
		if tooLong {
			c.q.add(file, n, QLineTooLong)
			continue
		}
		if lr.unterminated {
			c.q.add(file, n, QUnterminated)
			continue
		}
		// One parser for ingest and fit --log.
		yl, reason := sessions.ParseYandexLine(fields, line)
		fields = yl.Fields
		if reason != "" {
			c.q.add(file, n, reason)
			continue
		}
		if yl.Click {
			c.rep.RawClicks++
		} else {
			c.rep.RawQueries++
		}
		sid := fields[0]
		if len(sid) == 0 {
			c.rep.Dropped[DropNoSessionID]++
			continue
		}
		if !open || string(sid) != cur.key {
			if open {
				if err := c.finish(&cur); err != nil {
					return err
				}
			}
			key := string(sid)
			cur.reset(key, key)
			open = true
		}
		if c.duplicateLine(&cur, line[len(sid):], file, n) {
			continue
		}
		if yl.Click {
			c.clickBytes(&cur, fields[3], yl.Time, file, n)
			continue
		}
		// One allocation holds the query, region and result IDs.
		s := string(line[len(line)-restLen(fields[3:]):])
		off := 0
		take := func(f []byte) string {
			v := s[off : off+len(f)]
			off += len(f) + 1
			return v
		}
		qe.time = yl.Time
		qe.query, qe.controls = normalizeQuery(take(fields[3]))
		qe.region = take(fields[4])
		results = results[:0]
		for _, f := range fields[5:] {
			results = append(results, take(f))
		}
		qe.results = results
		qe.nbResults = -1
		c.query(&cur, &qe)
	}
	if lr.err != nil {
		return lr.err
	}
	if open {
		return c.finish(&cur)
	}
	return nil
}

// restLen is the length of the tab-joined fields.
func restLen(fs [][]byte) int {
	n := len(fs) - 1
	for _, f := range fs {
		n += len(f)
	}
	return n
}
