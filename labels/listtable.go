package labels

import "math/bits"

// hashTable maps 96 bits of 128-bit hashes to a 32-bit value i and a value
// v by an open-addressing table of slots of 16 bytes plus v (24 bytes for
// an 8-byte v), in place of a Go map (about twice as many bytes an entry).
// It is split into hashShards tables by the top bits of the hash, each
// grown on its own by half again when 4/5 full, so that growing copies one
// shard at a time. Two tables use it: listTable, the distinct (query,
// result list) pairs of a log, and readRows' (query, doc) pairs seen.
//
// A key is 96 bits of its 128-bit hash: two distinct keys among n share
// them with probability about n²/2^97 (1e-15 for 10 M keys).
type hashTable[V any] struct {
	shards [hashShards]hashShard[V]
}

// listTable counts the distinct (query, result list) pairs of a log: i is
// the list's query.
type listTable = hashTable[listCount]

// listCount is how many SERPs showed a list so far and its ordinal among
// its query's lists (0 for the first list shown).
type listCount struct{ count, ord uint32 }

// hashShards is the number of independently grown parts of a hashTable.
const hashShards = 256

// hashShard is one open-addressing table with linear probing.
type hashShard[V any] struct {
	slots []hashSlot[V]
	n     int // slots in use
}

// hashSlot is one key: its hash, and its values. h1 == 0 marks an empty
// slot.
type hashSlot[V any] struct {
	h1 uint64
	h2 uint32
	i  int32
	v  V
}

// slot returns the slot of hash (h1, h2), and whether it was already in
// use; a new slot has zero values and must be filled by the caller.
func (t *hashTable[V]) slot(h1, h2 uint64) (*hashSlot[V], bool) {
	if h1 == 0 {
		h1 = 1 // 0 marks an empty slot
	}
	sh := &t.shards[h1>>56]
	if 5*(sh.n+1) > 4*len(sh.slots) {
		sh.grow()
	}
	k2 := uint32(h2)
	n := uint64(len(sh.slots))
	i, _ := bits.Mul64(h1<<8, n) // the hash's other bits, scaled to the shard
	for {
		s := &sh.slots[i]
		if s.h1 == h1 && s.h2 == k2 {
			return s, true
		}
		if s.h1 == 0 {
			s.h1, s.h2 = h1, k2
			sh.n++
			return s, false
		}
		if i++; i == n {
			i = 0
		}
	}
}

// grow makes the shard half as large again (at least 64 slots) and puts
// its keys back in.
func (sh *hashShard[V]) grow() {
	old := sh.slots
	sh.slots = make([]hashSlot[V], max(64, len(old)+len(old)/2))
	n := uint64(len(sh.slots))
	for _, s := range old {
		if s.h1 == 0 {
			continue
		}
		i, _ := bits.Mul64(s.h1<<8, n)
		for sh.slots[i].h1 != 0 {
			if i++; i == n {
				i = 0
			}
		}
		sh.slots[i] = s
	}
}

// len returns the number of keys in the table.
func (t *hashTable[V]) len() int {
	n := 0
	for i := range t.shards {
		n += t.shards[i].n
	}
	return n
}
