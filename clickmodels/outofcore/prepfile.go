package outofcore

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/lovbench/lovbench/clickmodels"
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
//	orders     click orders other than rank order (PSCM; empty arrays when
//	           none): recVar int32 x (records+1), varOff int64 x
//	           (variants+1), varOrd uint8 x varOff[variants], varWeight
//	           float64 x variants (clickmodels.DataParts)
//	test       SERPs: Query int32 x n, Offsets int64 x (n+1), DocIDs int32
//	           x Offsets[n], Clicks uint64 x n, then their click orders
//	           other than rank order: OrderSERP int32 x k, OrderOff int64 x
//	           (k+1), OrderRanks uint8 x OrderOff[k] (sessions.Log; empty
//	           when none)
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
	PreparedShardVersion = 2
)

// MarshalBinary encodes p in the prepared-shard format.
func (p *PreparedShard) MarshalBinary() ([]byte, error) {
	var buf bytes.Buffer
	if _, err := p.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteTo writes p in the prepared-shard format to w, 64 KiB at a time,
// so that a shard is never in memory twice, as arrays and as bytes. It
// returns the bytes written.
func (p *PreparedShard) WriteTo(w io.Writer) (int64, error) {
	if p.Data == nil || p.Test == nil {
		return 0, errors.New("prepared shard: no data")
	}
	d, t := p.Data.Parts(), p.Test
	e := &prepWriter{w: w, crc: crc32.NewIEEE(), b: make([]byte, 0, prepBlock+64)}
	e.b = append(e.b, preparedMagic...)
	e.b = binary.LittleEndian.AppendUint32(e.b, PreparedShardVersion)
	e.b = binary.LittleEndian.AppendUint32(e.b, uint32(d.Ranks))
	e.b = binary.LittleEndian.AppendUint64(e.b, uint64(d.SERPs))
	for _, names := range [][]string{d.Log.Queries.Names, d.Log.Docs.Names} {
		e.b = binary.LittleEndian.AppendUint64(e.b, uint64(len(names)))
		for _, n := range names {
			e.b = binary.AppendUvarint(e.b, uint64(len(n)))
			e.b = append(e.b, n...)
			e.flush()
		}
	}
	putArray(e, d.RecOff, put64)
	putArray(e, d.RecPair, put32)
	putArray(e, d.RecClicks, binary.LittleEndian.AppendUint64)
	putArray(e, d.RecWeight, putF64)
	putArray(e, d.PairQuery, put32)
	putArray(e, d.PairDoc, put32)
	e.b = binary.LittleEndian.AppendUint64(e.b, uint64(len(d.Chunks)))
	for _, c := range d.Chunks {
		for _, v := range [4]int{c[0], c[1], c[2], c[3]} {
			e.b = binary.LittleEndian.AppendUint64(e.b, uint64(v))
		}
		e.flush()
	}
	putArray(e, d.RecVar, put32)
	putArray(e, d.VarOff, put64)
	putArray(e, d.VarOrd, put8)
	putArray(e, d.VarWeight, putF64)
	putArray(e, t.Query, put32)
	putArray(e, t.Offsets, put64)
	putArray(e, t.DocIDs, put32)
	putArray(e, t.Clicks, binary.LittleEndian.AppendUint64)
	putArray(e, t.OrderSERP, put32)
	putArray(e, t.OrderOff, put64)
	putArray(e, t.OrderRanks, put8)
	putArray(e, p.QueryFirst, put64)
	if e.write(); e.err != nil {
		return e.n, e.err
	}
	k, err := w.Write(binary.LittleEndian.AppendUint32(nil, e.crc.Sum32()))
	return e.n + int64(k), err
}

// prepWriter is WriteTo's buffer: it passes its bytes through the
// checksum to the writer once it holds a block, counting them. The first
// error sticks.
type prepWriter struct {
	w   io.Writer
	crc hash.Hash32
	b   []byte
	n   int64
	err error
}

// flush writes the buffer once it holds a block.
func (e *prepWriter) flush() {
	if len(e.b) >= prepBlock {
		e.write()
	}
}

// write writes the buffer.
func (e *prepWriter) write() {
	if e.err == nil {
		e.crc.Write(e.b)
		var k int
		k, e.err = e.w.Write(e.b)
		e.n += int64(k)
	}
	e.b = e.b[:0]
}

// putArray appends v's length as a uint64, then its elements by put.
func putArray[T any](e *prepWriter, v []T, put func([]byte, T) []byte) {
	e.b = binary.LittleEndian.AppendUint64(e.b, uint64(len(v)))
	for _, x := range v {
		e.b = put(e.b, x)
		e.flush()
	}
}

func put8(b []byte, v uint8) []byte  { return append(b, v) }
func put32(b []byte, v int32) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v)) }
func put64(b []byte, v int64) []byte { return binary.LittleEndian.AppendUint64(b, uint64(v)) }
func putF64(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

// prepReader decodes a prepared-shard file as a stream: it reads through
// a buffered reader, below which the checksum is kept over the blocks
// read from the file, counts the bytes left before the checksum, and never
// holds more of the file than one block of an array. The first error
// sticks and later reads return zero values.
type prepReader struct {
	r    *bufio.Reader
	left int64 // bytes before the checksum not yet read
	buf  []byte
	err  error
}

func (r *prepReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

// next returns the next n bytes, valid until the next call.
func (r *prepReader) next(n int) []byte {
	if r.err != nil {
		return nil
	}
	if int64(n) > r.left {
		r.fail("truncated")
		return nil
	}
	if cap(r.buf) < n {
		r.buf = make([]byte, max(n, 4096))
	}
	b := r.buf[:n]
	if _, err := io.ReadFull(r.r, b); err != nil {
		r.fail("read: %v", err)
		return nil
	}
	r.left -= int64(n)
	return b
}

func (r *prepReader) u32() uint32 {
	if b := r.next(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *prepReader) u64() uint64 {
	if b := r.next(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// count reads an array length and checks that size bytes per element
// remain.
func (r *prepReader) count(size int, what string) int {
	n := r.u64()
	if r.err == nil && n > uint64(r.left/int64(size)) {
		r.fail("%s: %d elements, only %d bytes left", what, n, r.left)
		return 0
	}
	return int(n)
}

// uvarint reads an unsigned varint of at most 10 bytes.
func (r *prepReader) uvarint() uint64 {
	var x uint64
	for shift := 0; shift < 70 && r.err == nil; shift += 7 {
		if r.left < 1 {
			r.fail("truncated")
			return 0
		}
		c, err := r.r.ReadByte()
		if err != nil {
			r.fail("read: %v", err)
			return 0
		}
		r.left--
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x
		}
	}
	r.fail("bad length")
	return 0
}

// skip reads through the next n bytes.
func (r *prepReader) skip(n int) {
	if r.err != nil {
		return
	}
	if int64(n) > r.left {
		r.fail("truncated")
		return
	}
	if _, err := r.r.Discard(n); err != nil {
		r.fail("read: %v", err)
		return
	}
	r.left -= int64(n)
}

// names reads a list of names; with keep false it only checks and counts
// them (nil, count).
func (r *prepReader) names(what string, keep bool) ([]string, int) {
	n := r.count(1, what)
	var out []string
	if keep {
		out = make([]string, 0, n)
	}
	for i := 0; i < n && r.err == nil; i++ {
		l := r.uvarint()
		if r.err == nil && l > uint64(r.left) {
			r.fail("%s: name %d truncated", what, i)
			return nil, 0
		}
		if !keep {
			r.skip(int(l))
			continue
		}
		if b := r.next(int(l)); r.err == nil {
			out = append(out, string(b))
		}
	}
	return out, n
}

// prepBlock is the number of bytes an array is read in at a time.
const prepBlock = 1 << 16

// array reads an array of elements of size bytes each, decoded by conv;
// with keep false it only reads through it (nil).
// into, if its capacity allows, is reused.
func array[T any](r *prepReader, size int, what string, keep bool, conv func([]byte) T, into []T) []T {
	n := r.count(size, what)
	if r.err != nil {
		return nil
	}
	if !keep {
		r.skip(size * n)
		return nil
	}
	v := into[:0]
	if cap(v) < n {
		v = make([]T, n)
	}
	v = v[:n]
	for lo := 0; lo < n && r.err == nil; {
		k := min(n-lo, prepBlock/size)
		b := r.next(size * k)
		if b != nil {
			for i := range k {
				v[lo+i] = conv(b[size*i:])
			}
		}
		lo += k
	}
	return v
}

func le8(b []byte) uint8     { return b[0] }
func le32(b []byte) int32    { return int32(binary.LittleEndian.Uint32(b)) }
func le64(b []byte) int64    { return int64(binary.LittleEndian.Uint64(b)) }
func lef64(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }

// UnmarshalPreparedShard decodes a prepared-shard file's bytes
// (MarshalBinary) and checks them: the checksum, the version, every
// length and every index. The dictionaries have no string index (as after
// PrepareShard): IDs only turn back into names.
func UnmarshalPreparedShard(b []byte) (*PreparedShard, error) {
	return decodePreparedShard(bytes.NewReader(b), int64(len(b)), true, nil)
}

// decodePreparedShard reads a prepared-shard file of size bytes from r.
// With whole false it keeps only what the E-step needs (RunShards'
// passes over a spilled shard): the names, the test SERPs and the first
// positions are read through and checked against the checksum, not kept.
// reuse, if not nil, lends its training arrays to the result (RunShards
// decodes every spilled shard into the arrays of the one before).
func decodePreparedShard(src io.Reader, size int64, whole bool, reuse *clickmodels.Data) (*PreparedShard, error) {
	var ru clickmodels.DataParts // the arrays lent by reuse
	if reuse != nil {
		ru = reuse.Parts()
	}
	if size < int64(len(preparedMagic))+12 {
		return nil, errors.New("prepared shard: not a prepared-shard file (no LBPSHARD header)")
	}
	// The checksum covers every byte before its own four: it is kept
	// over the blocks the buffered reader takes from the file, which
	// never reads past them.
	crc := crc32.NewIEEE()
	r := &prepReader{r: bufio.NewReaderSize(io.TeeReader(io.LimitReader(src, size-4), crc), prepBlock), left: size - 4}
	if string(r.next(len(preparedMagic))) != preparedMagic {
		return nil, errors.New("prepared shard: not a prepared-shard file (no LBPSHARD header)")
	}
	if v := r.u32(); v != PreparedShardVersion {
		if r.err != nil {
			return nil, fmt.Errorf("prepared shard: %w", r.err)
		}
		return nil, fmt.Errorf("prepared shard: format version %d, this program reads %d", v, PreparedShardVersion)
	}
	d := clickmodels.DataParts{Ranks: int(r.u32()), SERPs: int(r.u64())}
	qn, nq := r.names("query names", whole)
	dn, nd := r.names("document names", whole)
	d.Log = &sessions.Log{Queries: sessions.Dict{Names: qn}, Docs: sessions.Dict{Names: dn}}
	d.RecOff = array(r, 8, "record offsets", true, le64, ru.RecOff)
	d.RecPair = array(r, 4, "record pairs", true, le32, ru.RecPair)
	d.RecClicks = array(r, 8, "record clicks", true, binary.LittleEndian.Uint64, ru.RecClicks)
	d.RecWeight = array(r, 8, "record weights", true, lef64, ru.RecWeight)
	d.PairQuery = array(r, 4, "pair queries", true, le32, ru.PairQuery)
	d.PairDoc = array(r, 4, "pair documents", true, le32, ru.PairDoc)
	nc := r.count(32, "chunks")
	d.Chunks = ru.Chunks[:0]
	for i := 0; i < nc && r.err == nil; i++ {
		d.Chunks = append(d.Chunks, [4]int{int(r.u64()), int(r.u64()), int(r.u64()), int(r.u64())})
	}
	d.RecVar = array(r, 4, "record click orders", true, le32, ru.RecVar)
	d.VarOff = array(r, 8, "click order offsets", true, le64, ru.VarOff)
	d.VarOrd = array(r, 1, "click orders", true, le8, ru.VarOrd)
	d.VarWeight = array(r, 8, "click order weights", true, lef64, ru.VarWeight)
	t := &sessions.Log{Queries: d.Log.Queries, Docs: d.Log.Docs}
	t.Query = array(r, 4, "test queries", whole, le32, nil)
	t.Offsets = array(r, 8, "test offsets", whole, le64, nil)
	t.DocIDs = array(r, 4, "test documents", whole, le32, nil)
	t.Clicks = array(r, 8, "test clicks", whole, binary.LittleEndian.Uint64, nil)
	t.OrderSERP = array(r, 4, "test click order SERPs", whole, le32, nil)
	t.OrderOff = array(r, 8, "test click order offsets", whole, le64, nil)
	t.OrderRanks = array(r, 1, "test click orders", whole, le8, nil)
	if len(t.OrderSERP) == 0 {
		t.OrderSERP, t.OrderOff, t.OrderRanks = nil, nil, nil
	}
	first := array(r, 8, "query first positions", whole, le64, nil)
	if r.err == nil && r.left != 0 {
		r.fail("%d bytes after the last section", r.left)
	}
	if r.err == nil {
		var sum [4]byte
		if _, err := io.ReadFull(src, sum[:]); err != nil || binary.LittleEndian.Uint32(sum[:]) != crc.Sum32() {
			r.fail("checksum mismatch (truncated or corrupted file)")
		}
	}
	if r.err != nil {
		return nil, fmt.Errorf("prepared shard: %w", r.err)
	}
	p := &PreparedShard{Data: clickmodels.DataFromParts(d), Test: t, QueryFirst: first}
	if err := p.check(nq, nd, whole); err != nil {
		return nil, fmt.Errorf("prepared shard: %w", err)
	}
	return p, nil
}

// check verifies the invariants the fitting code relies on, for nq
// queries and nd documents; without the test SERPs (whole false) only
// those of the training data.
func (p *PreparedShard) check(nqs, nds int, whole bool) error {
	d, t := p.Data.Parts(), p.Test
	nq, nd := int32(nqs), int32(nds)
	if d.Ranks < 1 || d.Ranks > clickmodels.MaxSERP {
		return fmt.Errorf("%d ranks, want 1 to %d", d.Ranks, clickmodels.MaxSERP)
	}
	nr := len(d.RecClicks)
	if len(d.RecWeight) != nr || len(d.RecOff) != nr+1 || d.RecOff[0] != 0 || d.RecOff[nr] != int64(len(d.RecPair)) {
		return errors.New("record arrays disagree in length")
	}
	for i := 0; i < nr; i++ {
		n := d.RecOff[i+1] - d.RecOff[i]
		if n < 1 || n > int64(d.Ranks) || d.RecClicks[i]>>uint(n) != 0 {
			return fmt.Errorf("record %d: %d ranks or clicks beyond them", i, n)
		}
		if w := d.RecWeight[i]; !(w > 0) || math.IsInf(w, 0) {
			return fmt.Errorf("record %d: weight %v", i, w)
		}
	}
	np := int32(len(d.PairQuery))
	if len(d.PairDoc) != int(np) {
		return errors.New("pair arrays disagree in length")
	}
	for _, x := range d.RecPair {
		if x < 0 || x >= np {
			return fmt.Errorf("record pair %d outside %d pairs", x, np)
		}
	}
	for i := range d.PairQuery {
		if d.PairQuery[i] < 0 || d.PairQuery[i] >= nq || d.PairDoc[i] < 0 || d.PairDoc[i] >= nd {
			return fmt.Errorf("pair %d: query %d or document %d out of range", i, d.PairQuery[i], d.PairDoc[i])
		}
	}
	rec, pair := 0, 0
	for i, c := range d.Chunks {
		if c[0] != rec || c[1] < c[0] || c[2] != pair || c[3] < c[2] || c[3] > int(np) {
			return fmt.Errorf("chunk %d: records [%d, %d), pairs [%d, %d) do not follow on", i, c[0], c[1], c[2], c[3])
		}
		rec, pair = c[1], c[3]
	}
	if rec != nr || (pair != int(np) && len(d.Chunks) > 0) {
		return errors.New("chunks do not cover the records and pairs")
	}
	if err := checkOrders(d, nr); err != nil {
		return err
	}
	if !whole {
		return nil
	}
	n := len(t.Query)
	if len(t.Clicks) != n || len(t.Offsets) != n+1 || t.Offsets[0] != 0 || t.Offsets[n] != int64(len(t.DocIDs)) {
		return errors.New("test arrays disagree in length")
	}
	for i := 0; i < n; i++ {
		k := t.Offsets[i+1] - t.Offsets[i]
		if k < 1 || k > int64(d.Ranks) || t.Clicks[i]>>uint(k) != 0 || t.Query[i] < 0 || t.Query[i] >= nq {
			return fmt.Errorf("test SERP %d: %d ranks, clicks beyond them or query out of range", i, k)
		}
	}
	for _, x := range t.DocIDs {
		if x < 0 || x >= nd {
			return fmt.Errorf("test document %d out of range", x)
		}
	}
	if k := len(t.OrderSERP); k > 0 {
		if len(t.OrderOff) != k+1 || t.OrderOff[0] != 0 || t.OrderOff[k] != int64(len(t.OrderRanks)) {
			return errors.New("test click order arrays disagree in length")
		}
		for j, i := range t.OrderSERP {
			if i < 0 || int(i) >= n || (j > 0 && i <= t.OrderSERP[j-1]) {
				return fmt.Errorf("test click order %d: SERP %d out of range or order", j, i)
			}
			if !isClickOrder(t.OrderRanks, t.OrderOff[j], t.OrderOff[j+1], t.Clicks[i]) {
				return fmt.Errorf("test click order %d: not an order of SERP %d's clicks", j, i)
			}
		}
	}
	if len(p.QueryFirst) != int(nq) {
		return fmt.Errorf("%d first positions for %d queries", len(p.QueryFirst), nq)
	}
	return nil
}

// checkOrders checks the click orders of the nr records of d: every
// record's variants in range and in turn, each an order of the record's
// clicks, their weights positive and at most the record's.
func checkOrders(d clickmodels.DataParts, nr int) error {
	if len(d.RecVar) == 0 {
		if len(d.VarOff)+len(d.VarOrd)+len(d.VarWeight) != 0 {
			return errors.New("click orders without records")
		}
		return nil
	}
	nv := len(d.VarWeight)
	if len(d.RecVar) != nr+1 || d.RecVar[0] != 0 || int(d.RecVar[nr]) != nv ||
		len(d.VarOff) != nv+1 || d.VarOff[0] != 0 || d.VarOff[nv] != int64(len(d.VarOrd)) {
		return errors.New("click order arrays disagree in length")
	}
	for i := 0; i < nr; i++ {
		lo, hi := d.RecVar[i], d.RecVar[i+1]
		if hi < lo {
			return fmt.Errorf("record %d: click orders out of turn", i)
		}
		sum := 0.0
		for j := lo; j < hi; j++ {
			w := d.VarWeight[j]
			if !(w > 0) || d.VarOff[j+1] < d.VarOff[j] || !isClickOrder(d.VarOrd, d.VarOff[j], d.VarOff[j+1], d.RecClicks[i]) {
				return fmt.Errorf("record %d: click order %d is not an order of its clicks or has weight %v", i, j, w)
			}
			sum += w
		}
		if sum > d.RecWeight[i] {
			return fmt.Errorf("record %d: click orders of weight %v, the record %v", i, sum, d.RecWeight[i])
		}
	}
	return nil
}

// isClickOrder reports whether ranks[lo:hi] lists each rank of mask once.
func isClickOrder(ranks []uint8, lo, hi int64, mask uint64) bool {
	if lo < 0 || hi < lo || hi > int64(len(ranks)) {
		return false
	}
	var seen uint64
	for _, r := range ranks[lo:hi] {
		bit := uint64(1) << (r & 63)
		if r >= 64 || seen&bit != 0 || mask&bit == 0 {
			return false
		}
		seen |= bit
	}
	return seen == mask
}

// WritePreparedShardFile writes p to path atomically.
func WritePreparedShardFile(path string, p *PreparedShard) error {
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		_, err := p.WriteTo(w)
		return err
	})
}

// ReadPreparedShardFile reads a prepared-shard file (UnmarshalPreparedShard),
// naming the file in errors. The file is decoded as it is read, never held
// whole.
func ReadPreparedShardFile(path string) (*PreparedShard, error) {
	return readPreparedShardFile(path, true, nil)
}

// readPreparedShardFile is ReadPreparedShardFile; with whole false it
// keeps only the training data (decodePreparedShard).
func readPreparedShardFile(path string, whole bool, reuse *clickmodels.Data) (*PreparedShard, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	p, err := decodePreparedShard(f, st.Size(), whole, reuse)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}
