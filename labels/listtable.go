package labels

import "math/bits"

// listTable counts the distinct (query, result list) pairs of a log by an
// open-addressing hash table of 24-byte slots, in place of a Go map and a
// slice of candidates (about 2.5 times as many bytes per list). It is split
// into listShards tables by the top bits of the hash, each grown on its own
// by half again when 4/5 full, so that growing copies one shard at a time.
//
// A pair is known by 96 bits of its 128-bit hash: two distinct pairs among
// n share them with probability about n²/2^97 (1e-15 for 10 M lists).
type listTable struct {
	shards [listShards]listShard
}

// listShards is the number of independently grown parts of a listTable.
const listShards = 256

// listShard is one open-addressing table with linear probing.
type listShard struct {
	slots []listSlot
	n     int // slots in use
}

// listSlot is one (query, list): its hash, its query, how many SERPs showed
// it so far and its ordinal among its query's lists (0 for the first list
// shown). h1 == 0 marks an empty slot.
type listSlot struct {
	h1         uint64
	h2         uint32
	q          int32
	count, ord uint32
}

// slot returns the slot of hash (h1, h2), and whether it was already in
// use; a new slot has count 0 and must be filled by the caller.
func (t *listTable) slot(h1, h2 uint64) (*listSlot, bool) {
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
// its lists back in.
func (sh *listShard) grow() {
	old := sh.slots
	sh.slots = make([]listSlot, max(64, len(old)+len(old)/2))
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

// len returns the number of lists in the table.
func (t *listTable) len() int {
	n := 0
	for i := range t.shards {
		n += t.shards[i].n
	}
	return n
}
