package outofcore_test

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"reflect"
	"strings"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/outofcore"
	"github.com/lovbench/lovbench/sessions/split"
	"github.com/lovbench/lovbench/shards"
)

// preparedBytes prepares shard 0 of a 2-shard split of a 600-SERP log and
// encodes it.
func preparedBytes(t *testing.T) (*outofcore.PreparedShard, []byte) {
	t.Helper()
	ctx := context.Background()
	src := t.TempDir()
	simulatedParquet(t, src, 600, true)
	dir := t.TempDir()
	if _, err := shards.Write(ctx, src, 2, shards.SplitConfig{Split: split.Spec, TrainFraction: 0.75}, dir, shards.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	d, err := shards.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := outofcore.PrepareShard(ctx, d, 0, clickmodels.DefaultRanks)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return p, b
}

// withCRC replaces the trailing checksum of b so that damage inside
// reaches the structural checks.
func withCRC(b []byte) []byte {
	n := len(b) - 4
	binary.LittleEndian.PutUint32(b[n:], crc32.ChecksumIEEE(b[:n]))
	return b
}

// TestPreparedShardRoundTrip: decoding gives back the same shard, and
// encoding the decoded shard gives the same bytes. (TestShardFitAPI fits
// from the files and gets RunShards' outputs byte for byte.)
func TestPreparedShardRoundTrip(t *testing.T) {
	p, b := preparedBytes(t)
	q, err := outofcore.UnmarshalPreparedShard(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.QueryFirst, q.QueryFirst) || !reflect.DeepEqual(p.Test.Clicks, q.Test.Clicks) ||
		!reflect.DeepEqual(p.Test.DocIDs, q.Test.DocIDs) || !reflect.DeepEqual(p.Test.Queries.Names, q.Test.Queries.Names) {
		t.Error("decoded shard differs")
	}
	if p.Data.Records() != q.Data.Records() || p.Data.Pairs() != q.Data.Pairs() || p.Data.SERPs() != q.Data.SERPs() || p.Data.Ranks() != q.Data.Ranks() {
		t.Errorf("decoded data: %d records, %d pairs, %d SERPs, %d ranks; want %d, %d, %d, %d", q.Data.Records(), q.Data.Pairs(),
			q.Data.SERPs(), q.Data.Ranks(), p.Data.Records(), p.Data.Pairs(), p.Data.SERPs(), p.Data.Ranks())
	}
	b2, err := q.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if string(b2) != string(b) {
		t.Error("re-encoding the decoded shard changes its bytes")
	}
	if string(b[:8]) != "LBPSHARD" || binary.LittleEndian.Uint32(b[8:]) != outofcore.PreparedShardVersion {
		t.Errorf("header % x", b[:12])
	}
}

// TestPreparedShardRejectsDamage: every truncation and every flipped byte
// is an error (the checksum), never a panic; a file from another version,
// or damaged with a valid checksum (an index out of range, a length
// beyond the file), fails the structural checks with a message.
func TestPreparedShardRejectsDamage(t *testing.T) {
	_, b := preparedBytes(t)
	for n := 0; n < len(b); n += 1 + n/16 {
		if _, err := outofcore.UnmarshalPreparedShard(b[:n]); err == nil {
			t.Fatalf("truncated to %d of %d bytes: accepted", n, len(b))
		}
	}
	for i := 0; i < len(b); i += 1 + i/32 {
		c := append([]byte(nil), b...)
		c[i] ^= 0x40
		if _, err := outofcore.UnmarshalPreparedShard(c); err == nil {
			t.Fatalf("byte %d flipped: accepted", i)
		}
	}
	// Another version (1: before click orders), with a valid checksum.
	c := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(c[8:], 1)
	if _, err := outofcore.UnmarshalPreparedShard(withCRC(c)); err == nil || !strings.Contains(err.Error(), "version 1") {
		t.Errorf("version 1: %v", err)
	}
	// Any single byte set to 0xff with a valid checksum: either still a
	// valid shard (a name's byte, a weight's mantissa) or an error, and
	// never a panic.
	for i := 12; i < len(b)-4; i += 1 + i/64 {
		c := append([]byte(nil), b...)
		c[i] = 0xff
		outofcore.UnmarshalPreparedShard(withCRC(c))
	}
	// The number of query names made huge: a length beyond the file.
	c = append([]byte(nil), b...)
	binary.LittleEndian.PutUint64(c[24:], 1<<40)
	if _, err := outofcore.UnmarshalPreparedShard(withCRC(c)); err == nil || !strings.Contains(err.Error(), "query names") {
		t.Errorf("huge name count: %v", err)
	}
}
