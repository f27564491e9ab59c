package clickmodels

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/sessions"
)

// The prepared-shard file holds a PreparedShard in a compact binary form,
// so that a shard is prepared once and read back by each later pass (the
// Beam pipeline's EM iterations; docs/scale.md, "Prepared-shard file").
// Layout, little-endian:
//
//	magic      8 bytes "LBPSHARD"
//	version    uint32 (PreparedShardVersion)
//	ranks      uint32, R of the prepared data
//	serps      uint64, training SERPs before aggregation
//	queries    names: count uint64, then per name uvarint length + bytes
//	documents  names, as queries
//	records    recOff int64 x (records+1), recPair int32 x recOff[records],
//	           recClicks uint64 x records, recWeight float64 x records
//	pairs      pairQuery int32 x pairs, pairDoc int32 x pairs
//	chunks     count uint64, then recLo, recHi, pairLo, pairHi as int64
//	test       SERPs: Query int32 x n, Offsets int64 x (n+1), DocIDs int32
//	           x Offsets[n], Clicks uint64 x n
//	queryFirst int64 x queries
//	crc        uint32, CRC-32 (IEEE) of every byte before it
//
// Every array is preceded by its length as a uint64. A reader checks the
// checksum, every length against the bytes left and every index against
// its range, so a truncated or corrupted file is an error, never a wrong
// fit or a panic.
const (
	preparedMagic = "LBPSHARD"
	// PreparedShardVersion is the version of the prepared-shard file
	// format written by MarshalBinary; a reader refuses any other.
	PreparedShardVersion = 1
)

// MarshalBinary encodes p in the prepared-shard format.
func (p *PreparedShard) MarshalBinary() ([]byte, error) {
	d, t := p.Data, p.Test
	if d == nil || t == nil {
		return nil, errors.New("prepared shard: no data")
	}
	size := 64 + 8*len(d.recOff) + 4*len(d.recPair) + 16*len(d.recClicks) + 8*len(d.pairQuery) +
		32*len(d.chunks) + 16*len(t.Query) + 4*len(t.DocIDs) + 8*len(p.QueryFirst)
	for _, n := range d.log.Queries.Names {
		size += len(n) + 2
	}
	for _, n := range d.log.Docs.Names {
		size += len(n) + 2
	}
	b := make([]byte, 0, size)
	b = append(b, preparedMagic...)
	b = binary.LittleEndian.AppendUint32(b, PreparedShardVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(d.ranks))
	b = binary.LittleEndian.AppendUint64(b, uint64(d.serps))
	for _, names := range [][]string{d.log.Queries.Names, d.log.Docs.Names} {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(names)))
		for _, n := range names {
			b = binary.AppendUvarint(b, uint64(len(n)))
			b = append(b, n...)
		}
	}
	b = appendInt64s(b, d.recOff)
	b = appendInt32s(b, d.recPair)
	b = appendUint64s(b, d.recClicks)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(d.recWeight)))
	for _, w := range d.recWeight {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(w))
	}
	b = appendInt32s(b, d.pairQuery)
	b = appendInt32s(b, d.pairDoc)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(d.chunks)))
	for _, c := range d.chunks {
		for _, v := range [4]int{c.recLo, c.recHi, c.pairLo, c.pairHi} {
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	b = appendInt32s(b, t.Query)
	b = appendInt64s(b, t.Offsets)
	b = appendInt32s(b, t.DocIDs)
	b = appendUint64s(b, t.Clicks)
	b = appendInt64s(b, p.QueryFirst)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b)), nil
}

func appendInt32s(b []byte, v []int32) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(v)))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

func appendInt64s(b []byte, v []int64) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(v)))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}

func appendUint64s(b []byte, v []uint64) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(v)))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	return b
}

// prepReader decodes the arrays of a prepared-shard file; the first error
// sticks and later reads return zero values.
type prepReader struct {
	b   []byte
	err error
}

func (r *prepReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *prepReader) u32() uint32 {
	if r.err != nil || len(r.b) < 4 {
		r.fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *prepReader) u64() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

// count reads an array length and checks that size bytes per element
// remain.
func (r *prepReader) count(size int, what string) int {
	n := r.u64()
	if r.err == nil && n > uint64(len(r.b)/size) {
		r.fail("%s: %d elements, only %d bytes left", what, n, len(r.b))
		return 0
	}
	return int(n)
}

func (r *prepReader) names(what string) []string {
	n := r.count(1, what)
	out := make([]string, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		l, k := binary.Uvarint(r.b)
		if k <= 0 || l > uint64(len(r.b)-k) {
			r.fail("%s: name %d truncated", what, i)
			return nil
		}
		out = append(out, string(r.b[k:k+int(l)]))
		r.b = r.b[k+int(l):]
	}
	return out
}

// array reads an array of n elements of size bytes each, decoded by conv.
func array[T any](r *prepReader, size int, what string, conv func([]byte) T) []T {
	n := r.count(size, what)
	if r.err != nil {
		return nil
	}
	v := make([]T, n)
	for i := range v {
		v[i] = conv(r.b[size*i:])
	}
	r.b = r.b[size*n:]
	return v
}

func (r *prepReader) int32s(what string) []int32 {
	return array(r, 4, what, func(b []byte) int32 { return int32(binary.LittleEndian.Uint32(b)) })
}

func (r *prepReader) int64s(what string) []int64 {
	return array(r, 8, what, func(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b)) })
}

func (r *prepReader) uint64s(what string) []uint64 {
	return array(r, 8, what, binary.LittleEndian.Uint64)
}

// UnmarshalPreparedShard decodes a prepared-shard file's bytes
// (MarshalBinary) and checks them: the checksum, the version, every
// length and every index. The dictionaries have no string index (as after
// PrepareShard): IDs only turn back into names.
func UnmarshalPreparedShard(b []byte) (*PreparedShard, error) {
	if len(b) < len(preparedMagic)+8 || string(b[:len(preparedMagic)]) != preparedMagic {
		return nil, errors.New("prepared shard: not a prepared-shard file (no LBPSHARD header)")
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errors.New("prepared shard: checksum mismatch (truncated or corrupted file)")
	}
	r := &prepReader{b: body[len(preparedMagic):]}
	if v := r.u32(); v != PreparedShardVersion {
		return nil, fmt.Errorf("prepared shard: format version %d, this program reads %d", v, PreparedShardVersion)
	}
	d := &Data{ranks: int(r.u32()), serps: int(r.u64())}
	qn := r.names("query names")
	dn := r.names("document names")
	d.log = &sessions.Log{Queries: sessions.Dict{Names: qn}, Docs: sessions.Dict{Names: dn}}
	d.recOff = r.int64s("record offsets")
	d.recPair = r.int32s("record pairs")
	d.recClicks = r.uint64s("record clicks")
	w := r.uint64s("record weights")
	d.recWeight = make([]float64, len(w))
	for i, x := range w {
		d.recWeight[i] = math.Float64frombits(x)
	}
	d.pairQuery = r.int32s("pair queries")
	d.pairDoc = r.int32s("pair documents")
	nc := r.count(32, "chunks")
	for i := 0; i < nc && r.err == nil; i++ {
		d.chunks = append(d.chunks, chunk{recLo: int(r.u64()), recHi: int(r.u64()), pairLo: int(r.u64()), pairHi: int(r.u64())})
	}
	t := &sessions.Log{Queries: d.log.Queries, Docs: d.log.Docs}
	t.Query = r.int32s("test queries")
	t.Offsets = r.int64s("test offsets")
	t.DocIDs = r.int32s("test documents")
	t.Clicks = r.uint64s("test clicks")
	first := r.int64s("query first positions")
	if r.err == nil && len(r.b) != 0 {
		r.fail("%d bytes after the last section", len(r.b))
	}
	if r.err != nil {
		return nil, fmt.Errorf("prepared shard: %w", r.err)
	}
	p := &PreparedShard{Data: d, Test: t, QueryFirst: first}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("prepared shard: %w", err)
	}
	return p, nil
}

// check verifies the invariants the fitting code relies on.
func (p *PreparedShard) check() error {
	d, t := p.Data, p.Test
	nq, nd := int32(len(d.log.Queries.Names)), int32(len(d.log.Docs.Names))
	if d.ranks < 1 || d.ranks > MaxSERP {
		return fmt.Errorf("%d ranks, want 1 to %d", d.ranks, MaxSERP)
	}
	nr := len(d.recClicks)
	if len(d.recWeight) != nr || len(d.recOff) != nr+1 || d.recOff[0] != 0 || d.recOff[nr] != int64(len(d.recPair)) {
		return errors.New("record arrays disagree in length")
	}
	for i := 0; i < nr; i++ {
		n := d.recOff[i+1] - d.recOff[i]
		if n < 1 || n > int64(d.ranks) || d.recClicks[i]>>uint(n) != 0 {
			return fmt.Errorf("record %d: %d ranks or clicks beyond them", i, n)
		}
		if w := d.recWeight[i]; !(w > 0) || math.IsInf(w, 0) {
			return fmt.Errorf("record %d: weight %v", i, w)
		}
	}
	np := int32(len(d.pairQuery))
	if len(d.pairDoc) != int(np) {
		return errors.New("pair arrays disagree in length")
	}
	for _, x := range d.recPair {
		if x < 0 || x >= np {
			return fmt.Errorf("record pair %d outside %d pairs", x, np)
		}
	}
	for i := range d.pairQuery {
		if d.pairQuery[i] < 0 || d.pairQuery[i] >= nq || d.pairDoc[i] < 0 || d.pairDoc[i] >= nd {
			return fmt.Errorf("pair %d: query %d or document %d out of range", i, d.pairQuery[i], d.pairDoc[i])
		}
	}
	rec, pair := 0, 0
	for i, c := range d.chunks {
		if c.recLo != rec || c.recHi < c.recLo || c.pairLo != pair || c.pairHi < c.pairLo || c.pairHi > int(np) {
			return fmt.Errorf("chunk %d: records [%d, %d), pairs [%d, %d) do not follow on", i, c.recLo, c.recHi, c.pairLo, c.pairHi)
		}
		rec, pair = c.recHi, c.pairHi
	}
	if rec != nr || (pair != int(np) && len(d.chunks) > 0) {
		return errors.New("chunks do not cover the records and pairs")
	}
	n := len(t.Query)
	if len(t.Clicks) != n || len(t.Offsets) != n+1 || t.Offsets[0] != 0 || t.Offsets[n] != int64(len(t.DocIDs)) {
		return errors.New("test arrays disagree in length")
	}
	for i := 0; i < n; i++ {
		k := t.Offsets[i+1] - t.Offsets[i]
		if k < 1 || k > int64(d.ranks) || t.Clicks[i]>>uint(k) != 0 || t.Query[i] < 0 || t.Query[i] >= nq {
			return fmt.Errorf("test SERP %d: %d ranks, clicks beyond them or query out of range", i, k)
		}
	}
	for _, x := range t.DocIDs {
		if x < 0 || x >= nd {
			return fmt.Errorf("test document %d out of range", x)
		}
	}
	if len(p.QueryFirst) != int(nq) {
		return fmt.Errorf("%d first positions for %d queries", len(p.QueryFirst), nq)
	}
	return nil
}

// WritePreparedShardFile writes p to path atomically.
func WritePreparedShardFile(path string, p *PreparedShard) error {
	b, err := p.MarshalBinary()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// ReadPreparedShardFile reads a prepared-shard file (UnmarshalPreparedShard),
// naming the file in errors.
func ReadPreparedShardFile(path string) (*PreparedShard, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := UnmarshalPreparedShard(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}
