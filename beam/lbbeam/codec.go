package lbbeam

import (
	"encoding/binary"
	"errors"

	"github.com/lovbench/lovbench/sessions"
)

// appendSERP encodes a kept SERP with its place in the log (part index and
// ordinal within the part) compactly, for the shuffle between the cleaning
// and the shard-writing steps.
func appendSERP(b []byte, part, ord int, s *sessions.SERP) []byte {
	b = binary.AppendUvarint(b, uint64(part))
	b = binary.AppendUvarint(b, uint64(ord))
	b = appendString(b, s.SessionID)
	b = binary.AppendUvarint(b, uint64(s.Index))
	b = binary.AppendVarint(b, s.TimePassed)
	b = appendString(b, s.Query)
	b = appendString(b, s.Region)
	b = binary.AppendUvarint(b, uint64(len(s.Results)))
	for _, r := range s.Results {
		b = appendString(b, r)
	}
	b = binary.AppendUvarint(b, uint64(len(s.Clicks)))
	for _, c := range s.Clicks {
		b = binary.AppendUvarint(b, uint64(c.Rank))
		b = binary.AppendVarint(b, c.TimePassed)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

var errCodec = errors.New("lbbeam: corrupt SERP record")

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCodec
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errCodec
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errCodec
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// decodeSERP is the inverse of appendSERP.
func decodeSERP(b []byte) (part, ord int, s sessions.SERP, err error) {
	d := &decoder{b: b}
	part, ord = int(d.uvarint()), int(d.uvarint())
	s.SessionID = d.str()
	s.Index = int(d.uvarint())
	s.TimePassed = d.varint()
	s.Query = d.str()
	s.Region = d.str()
	if n := d.uvarint(); d.err == nil && n <= uint64(len(d.b)) {
		s.Results = make([]string, n)
		for i := range s.Results {
			s.Results[i] = d.str()
		}
	}
	if n := d.uvarint(); d.err == nil && n <= uint64(len(d.b)) {
		s.Clicks = make([]sessions.Click, n)
		for i := range s.Clicks {
			s.Clicks[i].Rank = int(d.uvarint())
			s.Clicks[i].TimePassed = d.varint()
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errCodec
	}
	return part, ord, s, d.err
}
