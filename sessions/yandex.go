package sessions

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

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
}

// ReadYandex reads a log in the Yandex relevance-prediction format
// (SPEC.md section 1) with PyClick's semantics, so that click models fitted
// here are comparable with PyClick's:
//
//   - every Q line (SessionID TimePassed Q QueryID RegionID URL1 ... URLn,
//     at least one URL) starts a new SERP;
//   - a C line (SessionID TimePassed C URLID) marks the first occurrence of
//     URLID in the latest SERP as clicked, if that SERP has the same
//     SessionID; otherwise it is ignored (and counted);
//   - any other line is malformed: with strict it is an error naming the file
//     and line, otherwise it is counted and skipped.
//
// Lines may end in LF or CRLF. name is used in error messages.
func ReadYandex(r io.Reader, name string, strict bool) (*Log, YandexStats, error) {
	var (
		log     = &Log{}
		st      YandexStats
		curSess = ""
		curDocs []string
		curMask uint64
		curQ    int32
		have    bool
	)
	flush := func() {
		if have {
			log.addRaw(log.Sessions.ID(curSess), curQ, curDocs, curMask)
			have = false
		}
	}
	sc := bufio.NewScanner(textio.NewReader(r))
	sc.Buffer(make([]byte, 0, 1<<16), 64<<20)
	lineNo := 0
	var fields []string
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), "\r\n")
		if strings.TrimSpace(line) == "" {
			continue
		}
		st.Lines++
		fields = splitTabs(fields[:0], line)
		switch {
		case len(fields) >= 6 && fields[2] == "Q":
			if len(fields)-5 > MaxRanks {
				if strict {
					return nil, st, fmt.Errorf("%s:%d: field URLs: %d results, at most %d supported", name, lineNo, len(fields)-5, MaxRanks)
				}
				st.Malformed++
				continue
			}
			if _, err := strconv.ParseInt(fields[1], 10, 64); err != nil {
				if strict {
					return nil, st, fmt.Errorf("%s:%d: field TimePassed: %s is not an integer", name, lineNo, textio.Quote(fields[1]))
				}
				st.Malformed++
				continue
			}
			flush()
			st.Queries++
			curSess = fields[0]
			curQ = log.Queries.ID(fields[3])
			curDocs = append(curDocs[:0], fields[5:]...)
			curMask = 0
			have = true
		case len(fields) == 4 && fields[2] == "C":
			if !have || fields[0] != curSess {
				st.IgnoredClickSess++
				continue
			}
			idx := -1
			for i, d := range curDocs {
				if d == fields[3] {
					idx = i
					break
				}
			}
			if idx < 0 {
				st.IgnoredClickDoc++
				continue
			}
			curMask |= 1 << uint(idx)
			st.Clicks++
		default:
			if strict {
				return nil, st, fmt.Errorf("%s:%d: not a Yandex Q or C line (%d tab-separated fields)", name, lineNo, len(fields))
			}
			st.Malformed++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, st, fmt.Errorf("%s:%d: %w", name, lineNo+1, err)
	}
	flush()
	return log, st, nil
}

func splitTabs(dst []string, s string) []string {
	for {
		i := strings.IndexByte(s, '\t')
		if i < 0 {
			return append(dst, s)
		}
		dst = append(dst, s[:i])
		s = s[i+1:]
	}
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
