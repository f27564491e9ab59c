package labels

import (
	"cmp"
	"slices"
	"unsafe"
)

// leaderArena holds the result lists of firstSERPsPass's leaders in
// chunks of 1<<shift bytes, each list at one offset (its chunk's number
// times the chunk size, plus its place in the chunk). It grows a chunk at
// a time, so growing never copies what it holds: a slice grown by append
// holds its old and its new array at once while it copies (at 35 M SERPs
// the leaders' 141 MB grew by one allocation of 154 MB, which took the
// heap past the soft memory limit). A list never straddles two chunks: a
// list that does not fit in the rest of the last chunk starts the next
// one, and a list longer than a chunk gets an allocation of whole chunks
// of its own, each chunk of it the allocation from that chunk's offset on.
type leaderArena struct {
	shift  uint
	chunks [][]byte // chunk i holds the offsets [i<<shift, (i+1)<<shift); nil once dropped
	end    int      // the next free offset
	used   int      // bytes handed out by alloc: end less the chunks' unused tails
}

// leaderChunkShift makes the chunks of the label stage's arena 1 MiB.
const leaderChunkShift = 20

// alloc returns the offset of n new bytes and the bytes, to be filled by
// the caller.
func (a *leaderArena) alloc(n int) (int, []byte) {
	if n == 0 {
		return a.end, nil
	}
	size := 1 << a.shift
	at := a.end
	if off := at & (size - 1); off == 0 || off+n > size {
		if off != 0 {
			at += size - off // the next chunk; the rest of this one stays unused
		}
		m := max(1, (n+size-1)>>a.shift) // chunks the list takes
		all := make([]byte, m<<a.shift)
		for j := range m {
			a.chunks = append(a.chunks, all[j<<a.shift:])
		}
	}
	a.end = at + n
	a.used += n
	return at, a.bytes(at, n)
}

// bytes returns the n bytes at offset at.
func (a *leaderArena) bytes(at, n int) []byte {
	if n == 0 {
		return nil
	}
	off := at & (1<<a.shift - 1)
	return a.chunks[at>>a.shift][off : off+n : off+n]
}

// str is bytes as a string: the arena's bytes are not written again once
// handed out (compact copies them to a new arena).
func (a *leaderArena) str(at, n int) string {
	b := a.bytes(at, n)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// held returns the bytes of the chunks the arena still refers to.
func (a *leaderArena) held() int {
	n := 0
	for _, c := range a.chunks {
		if c != nil {
			n += 1 << a.shift
		}
	}
	return n
}

// compact moves the lists of the leaders of lead (count >= 0) to new
// chunks, in the order of their offsets, dropping each old chunk as soon
// as the lists in it have moved: it never holds more than the lists, the
// old chunks not yet passed and one new chunk, where a copy to one new
// array would hold the old arena and the new one at once.
func (a *leaderArena) compact(lead []leader) {
	order := make([]int32, 0, len(lead))
	for i := range lead {
		if lead[i].count >= 0 {
			order = append(order, int32(i))
		}
	}
	slices.SortFunc(order, func(x, y int32) int { return cmp.Compare(lead[x].at, lead[y].at) })
	old := *a
	*a = leaderArena{shift: old.shift}
	passed := 0 // old chunks dropped
	for _, i := range order {
		l := &lead[i]
		for ; passed < min(l.at>>old.shift, len(old.chunks)); passed++ {
			old.chunks[passed] = nil
		}
		at, b := a.alloc(l.n)
		copy(b, old.bytes(l.at, l.n))
		l.at = at
	}
}

// name returns the name whose length (a uvarint) starts at offset at.
func (a *leaderArena) name(at int32) string {
	c := a.chunks[int(at)>>a.shift][int(at)&(1<<a.shift-1):]
	name, _ := nextName(unsafe.String(unsafe.SliceData(c), len(c)))
	return name
}

// nextName splits s, which starts with a name's length (a uvarint) and
// its bytes, into the name and what follows it.
func nextName(s string) (name, rest string) {
	n, w := 0, 0
	for shift := 0; ; shift += 7 {
		b := s[w]
		w++
		n |= int(b&0x7f) << shift
		if b < 0x80 {
			break
		}
	}
	return s[w : w+n], s[w+n:]
}
