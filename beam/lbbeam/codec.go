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

// A batch is a run of SERPs encoded by appendSERP, each preceded by its
// length as a uvarint: the cleaning step emits a part's SERPs of one shard
// in batches, not one element per SERP, so that a runner moves a few
// hundred elements per million SERPs instead of a million (with Prism,
// its per-element work was most of the shard pipeline's CPU). The shard
// writer orders SERPs by their place in the log, so how they are batched
// does not change a file.
const (
	// batchBytes is the size at which a shard's batch is emitted.
	batchBytes = 256 << 10
	// batchedBytes bounds the bytes one part holds in unfinished batches:
	// past it every batch is emitted.
	batchedBytes = 16 << 20
)

// batcher gathers one part's encoded SERPs by shard.
type batcher struct {
	batches [][]byte
	held    int
	rec     []byte
	emit    func(int, []byte)
}

func newBatcher(shards int, emit func(int, []byte)) *batcher {
	return &batcher{batches: make([][]byte, shards), emit: emit}
}

// add appends a SERP with its place in the log to its shard's batch.
func (b *batcher) add(shard, part, ord int, s *sessions.SERP) {
	b.rec = appendSERP(b.rec[:0], part, ord, s)
	n := len(b.batches[shard])
	b.batches[shard] = append(binary.AppendUvarint(b.batches[shard], uint64(len(b.rec))), b.rec...)
	b.held += len(b.batches[shard]) - n
	if len(b.batches[shard]) >= batchBytes {
		b.held -= len(b.batches[shard])
		b.emit(shard, b.batches[shard])
		b.batches[shard] = nil
	}
	if b.held >= batchedBytes {
		b.flush()
	}
}

// flush emits every unfinished batch.
func (b *batcher) flush() {
	for i, x := range b.batches {
		if len(x) > 0 {
			b.emit(i, x)
			b.batches[i] = nil
		}
	}
	b.held = 0
}

// eachSERP calls fn with every SERP of a batch, decoded, in batch order.
func eachSERP(batch []byte, fn func(part, ord int, s *sessions.SERP) error) error {
	for len(batch) > 0 {
		n, k := binary.Uvarint(batch)
		if k <= 0 || n > uint64(len(batch)-k) {
			return errCodec
		}
		part, ord, s, err := decodeSERP(batch[k : k+int(n)])
		if err != nil {
			return err
		}
		if err := fn(part, ord, &s); err != nil {
			return err
		}
		batch = batch[k+int(n):]
	}
	return nil
}
