package outofcore

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
)

// TestPreparedShardTrainOnly: the E-step's read of a spilled shard
// (decodePreparedShard with whole false) keeps exactly the training data
// of the whole read, leaves out the names and the test SERPs, and still
// rejects every truncation and flipped byte (the checksum covers the
// sections it reads through).
func TestPreparedShardTrainOnly(t *testing.T) {
	sc := sim.DefaultSyntheticConfig()
	sc.Queries, sc.Shuffle, sc.Seed = 200, 0.3, 3
	src, err := sim.NewSyntheticSource(sc)
	if err != nil {
		t.Fatal(err)
	}
	log, _, err := sim.SimulateLog(t.Context(), sim.Config{Kind: clickmodels.DBN, SERPs: 3000, Seed: 4, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	train, test := log.Slice(0, 2000), log.Slice(2000, 3000)
	d, err := clickmodels.Prepare(train, 0)
	if err != nil {
		t.Fatal(err)
	}
	first := make([]int64, log.Queries.Len())
	for i := range first {
		first[i] = int64(3 * i)
	}
	b, err := (&PreparedShard{Data: d, Test: test, QueryFirst: first}).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if n, err := (&PreparedShard{Data: d, Test: test, QueryFirst: first}).WriteTo(&buf); err != nil || n != int64(len(b)) || !bytes.Equal(buf.Bytes(), b) {
		t.Fatalf("WriteTo: %d bytes, %v; MarshalBinary gave %d", n, err, len(b))
	}
	whole, err := decodePreparedShard(bytes.NewReader(b), int64(len(b)), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := decodePreparedShard(bytes.NewReader(b), int64(len(b)), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	pp, wp := p.Data.Parts(), whole.Data.Parts()
	if pp.Log.Queries.Names != nil || pp.Log.Docs.Names != nil || p.Test.Len() != 0 || p.QueryFirst != nil {
		t.Error("the training read keeps names, test SERPs or first positions")
	}
	if whole.Test.Len() != 1000 || len(whole.QueryFirst) != len(first) {
		t.Fatalf("whole read: %d test SERPs, %d first positions", whole.Test.Len(), len(whole.QueryFirst))
	}
	pp.Log, wp.Log = nil, nil
	if !reflect.DeepEqual(pp, wp) {
		t.Error("training data differ between the two reads")
	}
	// Decoded into the arrays of another shard's data (longer arrays, other
	// values), the same training data.
	other, err := clickmodels.Prepare(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	q, err := decodePreparedShard(bytes.NewReader(b), int64(len(b)), false, other)
	if err != nil {
		t.Fatal(err)
	}
	qp := q.Data.Parts()
	if &qp.RecPair[0] != &other.Parts().RecPair[0] {
		t.Error("the arrays of reuse were not reused")
	}
	qp.Log = nil
	if !reflect.DeepEqual(qp, pp) {
		t.Error("training data decoded into reused arrays differ")
	}
	for n := 0; n < len(b); n += 1 + n/16 {
		if _, err := decodePreparedShard(bytes.NewReader(b[:n]), int64(n), false, nil); err == nil {
			t.Fatalf("truncated to %d of %d bytes: accepted", n, len(b))
		}
	}
	for i := 0; i < len(b); i += 1 + i/32 {
		c := append([]byte(nil), b...)
		c[i] ^= 0x40
		if _, err := decodePreparedShard(bytes.NewReader(c), int64(len(c)), false, nil); err == nil {
			t.Fatalf("byte %d flipped: accepted", i)
		}
	}
}
