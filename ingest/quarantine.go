package ingest

import (
	"encoding/json"
	"io"
	"strconv"
)

// quarantine writes quarantine.jsonl: one JSON object per bad record with
// the file, the line number and the reason. The record's content is never
// written (it may hold personal data).
type quarantine struct {
	w     io.Writer
	rep   *Report
	buf   []byte
	names map[string][]byte // file name -> JSON-quoted
	err   error
}

// add quarantines a record and counts its reason in the report.
func (q *quarantine) add(file string, line int, reason string) {
	q.rep.Quarantined[reason]++
	q.write(file, line, reason)
}

// note lists a record dropped by a rule (counted in Dropped by the caller).
func (q *quarantine) note(file string, line int, reason string) {
	q.write(file, line, reason)
}

func (q *quarantine) write(file string, line int, reason string) {
	if q.err != nil || q.w == nil {
		return
	}
	name, ok := q.names[file]
	if !ok {
		name, _ = json.Marshal(file)
		q.names[file] = name
	}
	b := append(q.buf[:0], `{"file":`...)
	b = append(b, name...)
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, int64(line), 10)
	b = append(b, `,"reason":"`...)
	b = append(b, reason...) // reasons are fixed ASCII identifiers
	b = append(b, "\"}\n"...)
	q.buf = b
	_, q.err = q.w.Write(b)
}
