package labels

import (
	"context"
	"encoding/binary"
	"hash/maphash"
	"unsafe"

	"github.com/lovbench/lovbench/sessions"
)

// loadFirstSERPs reads the sessions at path and returns a log holding, for
// every query that has a full SERP, only its first SERP under opts.Choice
// (its first opts.SERPSize results), and every query of the log in its
// query dictionary: all that Assign reads, so Assign on it equals Assign
// on the whole log. A sessions.parquet (or ingest directory) is streamed
// once, reading only its query and results columns, and never held; a
// Yandex log is loaded whole.
//
// The most frequent list of a query is found in the one pass: each full
// SERP's list is counted under a 128-bit hash, and a query's leader (most
// SERPs, ties to the list shown first) changes only when the list just
// counted overtakes it, so the leader's results are copied from the SERP
// that makes it the leader, which shows that very list.
func loadFirstSERPs(ctx context.Context, path string, opts Options) (*sessions.Log, error) {
	pq, isPq, err := sessions.ParquetPath(path)
	if err != nil {
		return nil, err
	}
	if !isPq {
		return sessions.Load(path)
	}
	opts = opts.withDefaults()
	fs := newFirstSERPs(opts)
	pos := int64(-1)
	err = sessions.ScanParquetResults(pq, func(query []byte, results [][]byte) error {
		pos++
		if pos%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		fs.add(pos, query, results)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return fs.log(), nil
}

// firstSERPsPass chooses every query's first SERP in one pass over a log.
type firstSERPsPass struct {
	opts    Options
	queries sessions.Dict
	lead    []leader // by query
	cands   map[listKey]candidate
	// arena holds the results of the leaders back to back, each result
	// as a uvarint length and its bytes; a leader replaced leaves its
	// bytes behind until compact drops them.
	arena []byte
	live  int // bytes of arena still referenced by a leader
	h1    maphash.Hash
	h2    maphash.Hash
}

// listKey identifies a result list of a query by two 64-bit hashes.
type listKey struct {
	q      int32
	h1, h2 uint64
}

// candidate is a result list of a query: its SERPs so far and the position
// of the first.
type candidate struct{ count, first int64 }

// leader is a query's chosen list so far: count -1 means no full SERP yet.
type leader struct {
	candidate
	at, n int // the results in arena[at:at+n]
}

func newFirstSERPs(opts Options) *firstSERPsPass {
	fs := &firstSERPsPass{opts: opts, cands: map[listKey]candidate{}}
	fs.h1.SetSeed(maphash.MakeSeed())
	fs.h2.SetSeed(maphash.MakeSeed())
	return fs
}

// add counts SERP pos (0-based, in log order) of query with results.
func (fs *firstSERPsPass) add(pos int64, query []byte, results [][]byte) {
	q, ok := fs.queries.Lookup(unsafe.String(unsafe.SliceData(query), len(query)))
	if !ok {
		q = fs.queries.ID(string(query))
		fs.lead = append(fs.lead, leader{candidate: candidate{count: -1}})
	}
	size := fs.opts.SERPSize
	if len(results) < size {
		return
	}
	results = results[:size]
	l := &fs.lead[q]
	if fs.opts.Choice == Earliest {
		if l.count < 0 {
			fs.setLeader(l, candidate{1, pos}, results)
		}
		return
	}
	fs.h1.Reset()
	fs.h2.Reset()
	for _, r := range results {
		fs.h1.Write(r)
		fs.h1.WriteByte(0)
		fs.h2.Write(r)
		fs.h2.WriteByte(0)
	}
	k := listKey{q, fs.h1.Sum64(), fs.h2.Sum64()}
	c, ok := fs.cands[k]
	if !ok {
		c.first = pos
	}
	c.count++
	fs.cands[k] = c
	// Most frequent list; ties to the list shown first (as firstSERPs).
	switch {
	case l.first == c.first && l.count >= 0:
		l.count = c.count // the leader shown again
	case c.count > l.count || (c.count == l.count && c.first < l.first):
		fs.setLeader(l, c, results)
	}
}

// setLeader makes c, whose list is results, the leader l.
func (fs *firstSERPsPass) setLeader(l *leader, c candidate, results [][]byte) {
	fs.live -= l.n
	if len(fs.arena) > 1<<20 && len(fs.arena) > 2*fs.live {
		fs.compact()
	}
	l.candidate, l.at = c, len(fs.arena)
	for _, r := range results {
		fs.arena = binary.AppendUvarint(fs.arena, uint64(len(r)))
		fs.arena = append(fs.arena, r...)
	}
	l.n = len(fs.arena) - l.at
	fs.live += l.n
}

// compact drops the bytes of replaced leaders from the arena.
func (fs *firstSERPsPass) compact() {
	a := make([]byte, 0, 2*fs.live)
	for i := range fs.lead {
		l := &fs.lead[i]
		if l.count < 0 {
			continue
		}
		at := len(a)
		a = append(a, fs.arena[l.at:l.at+l.n]...)
		l.at = at
	}
	fs.arena = a
}

// log returns the first-SERP log: every query in its dictionary, in order
// of first appearance, and each chosen list as one SERP, in query order.
// The document dictionary is not interned: each query's docs get their own
// IDs (a doc shown twice on a SERP one ID), named by substrings of one
// string; Assign only turns them back into names and compares them within
// a SERP.
func (fs *firstSERPsPass) log() *sessions.Log {
	out := &sessions.Log{Offsets: []int64{0}}
	for _, n := range fs.queries.Names {
		out.Queries.ID(n)
	}
	fs.cands = nil
	// The arena is not written again: its names are substrings of it.
	a := fs.compacted()
	arena := unsafe.String(unsafe.SliceData(a), len(a))
	fs.arena = nil
	var names []string
	for q := range fs.lead {
		l := &fs.lead[q]
		if l.count < 0 {
			continue
		}
		first := len(names)
		rest := arena[l.at : l.at+l.n]
		for len(rest) > 0 {
			n, w := 0, 0
			for shift := 0; ; shift += 7 {
				b := rest[w]
				w++
				n |= int(b&0x7f) << shift
				if b < 0x80 {
					break
				}
			}
			name := rest[w : w+n]
			rest = rest[w+n:]
			id := int32(len(names))
			for j := first; j < len(names); j++ {
				if names[j] == name {
					id = int32(j)
					break
				}
			}
			if id == int32(len(names)) {
				names = append(names, name)
			}
			out.DocIDs = append(out.DocIDs, id)
		}
		out.Query = append(out.Query, int32(q))
		out.Offsets = append(out.Offsets, int64(len(out.DocIDs)))
	}
	out.Docs = sessions.Dict{Names: names}
	out.Clicks = make([]uint64, len(out.Query))
	return out
}

// compacted returns the arena with only the leaders' bytes, and the
// leaders pointing into it.
func (fs *firstSERPsPass) compacted() []byte {
	if len(fs.arena) > fs.live {
		fs.compact()
	}
	return fs.arena
}
