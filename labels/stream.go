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
// SERP's list is counted under a 128-bit hash of the query and the list,
// and a query's leader (most SERPs, ties to the list shown first) changes
// only when the list just counted overtakes it, so the leader's results
// are copied from the SERP that makes it the leader, which shows that
// very list.
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
	// lists maps a (query, list) by two 64-bit hashes to its index in
	// cands. A query's list found there needs no look-up of the query.
	lists map[[2]uint64]int
	cands []candidate
	// arena holds the results of the leaders back to back, each result
	// as a uvarint length and its bytes; a leader replaced leaves its
	// bytes behind until compact drops them.
	arena        []byte
	live         int    // bytes of arena still referenced by a leader
	key          []byte // scratch: the query and list that are hashed
	seed1, seed2 maphash.Seed
}

// candidate is a result list of a query: its SERPs so far and the position
// of the first.
type candidate struct {
	count, first int64
	q            int32
}

// leader is a query's chosen list so far: count -1 means no full SERP yet.
type leader struct {
	count, first int64
	at, n        int // the results in arena[at:at+n]
}

func newFirstSERPs(opts Options) *firstSERPsPass {
	return &firstSERPsPass{opts: opts, lists: map[[2]uint64]int{}, seed1: maphash.MakeSeed(), seed2: maphash.MakeSeed()}
}

// queryID returns the ID of query, adding it to the dictionary if new.
func (fs *firstSERPsPass) queryID(query []byte) int32 {
	q, ok := fs.queries.Lookup(unsafe.String(unsafe.SliceData(query), len(query)))
	if !ok {
		q = fs.queries.ID(string(query))
		fs.lead = append(fs.lead, leader{count: -1})
	}
	return q
}

// add counts SERP pos (0-based, in log order) of query with results.
func (fs *firstSERPsPass) add(pos int64, query []byte, results [][]byte) {
	size := fs.opts.SERPSize
	if len(results) < size || fs.opts.Choice == Earliest {
		q := fs.queryID(query)
		if l := &fs.lead[q]; len(results) >= size && l.count < 0 {
			fs.setLeader(l, 1, pos, results[:size])
		}
		return
	}
	results = results[:size]
	// The query and each result, length first: no two (query, list)
	// pairs give the same bytes.
	k := binary.AppendUvarint(fs.key[:0], uint64(len(query)))
	k = append(k, query...)
	for _, r := range results {
		k = binary.AppendUvarint(k, uint64(len(r)))
		k = append(k, r...)
	}
	fs.key = k
	h := [2]uint64{maphash.Bytes(fs.seed1, k), maphash.Bytes(fs.seed2, k)}
	i, ok := fs.lists[h]
	if !ok {
		// The query's first SERP with this list: the query is looked up
		// (added at its first SERP, as the dictionary's order wants).
		i = len(fs.cands)
		fs.cands = append(fs.cands, candidate{first: pos, q: fs.queryID(query)})
		fs.lists[h] = i
	}
	c := &fs.cands[i]
	c.count++
	l := &fs.lead[c.q]
	// Most frequent list; ties to the list shown first (as firstSERPs).
	switch {
	case l.first == c.first && l.count >= 0:
		l.count = c.count // the leader shown again
	case c.count > l.count || (c.count == l.count && c.first < l.first):
		fs.setLeader(l, c.count, c.first, results)
	}
}

// setLeader makes the list results, shown count times from position
// first on, the leader l.
func (fs *firstSERPsPass) setLeader(l *leader, count, first int64, results [][]byte) {
	fs.live -= l.n
	if len(fs.arena) > 1<<20 && len(fs.arena) > 2*fs.live {
		fs.compact()
	}
	l.count, l.first, l.at = count, first, len(fs.arena)
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
	out := &sessions.Log{Queries: fs.queries, Offsets: []int64{0}}
	fs.queries, fs.lists, fs.cands = sessions.Dict{}, nil, nil
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
