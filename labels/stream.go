package labels

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"math"
	"unsafe"

	"github.com/lovbench/lovbench/sessions"
)

// loadFirstSERPs reads the sessions at path and returns a log holding, for
// every query that has a full SERP in a session with a click, only its
// first SERP under opts.Choice among those (its first opts.SERPSize
// results), and every query of the log in its query dictionary. The
// SERPs of sessions without a click, which ingest keeps for the click
// models, are no candidates: LOVBench's rule 1 keeps the benchmark to
// sessions with a click (sessions.SessionRuns). Assign on it equals
// Assign on the log of the sessions with a click. A sessions.parquet (or
// ingest directory) is streamed once, reading only its session, query,
// results and click columns (not the click times), and never held; a
// Yandex log is loaded whole.
//
// The most frequent list of a query is found in the one pass: each full
// SERP's list is counted under a 128-bit hash of the query and the list,
// and a query's leader (most SERPs, ties to the list shown first) changes
// only when the list just counted overtakes it, so the leader's results
// are copied from the SERP that makes it the leader, which shows that
// very list.
func loadFirstSERPs(ctx context.Context, path string, opts Options) (*sessions.Log, []bool, error) {
	l, _, noClick, err := loadFirstSERPsNamed(ctx, path, opts, false)
	return l, noClick, err
}

// loadFirstSERPsNamed is loadFirstSERPs; with compact, the log it returns
// from a sessions.parquet may have no document dictionary, its document
// IDs being names only docName can read (nil when the log has one). Each
// SERP then costs its names' bytes and 4 bytes a result, not a 16-byte
// string header more per result. noClick says, by query ID, which
// queries were shown only in sessions without a click.
func loadFirstSERPsNamed(ctx context.Context, path string, opts Options, compact bool) (log *sessions.Log, docName func(int32) string, noClick []bool, err error) {
	pq, isPq, err := sessions.ParquetPath(path)
	if err != nil {
		return nil, nil, nil, err
	}
	if !isPq {
		l, err := sessions.Load(path)
		if err != nil {
			return nil, nil, nil, err
		}
		l, noClick = withClickOnly(l)
		return l, nil, noClick, nil
	}
	opts = opts.withDefaults()
	fs := newFirstSERPs(opts)
	// A session's SERPs before its first click are held (copied into
	// arena) until it shows one or ends; the others go straight on.
	type held struct{ q, r0, r1 int } // query arena[q:offs[r0]], results r0..r1 of offs
	var arena []byte
	var offs []int
	var results [][]byte
	runs := sessions.SessionRuns[held]{Emit: func(h held, withClick bool) error {
		query := arena[h.q:offs[h.r0]]
		if !withClick {
			fs.addWithoutClick(query)
			return nil
		}
		results = results[:0]
		for j := h.r0; j < h.r1; j++ {
			results = append(results, arena[offs[j]:offs[j+1]])
		}
		return fs.add(query, results)
	}}
	pos := int64(-1)
	err = sessions.ScanParquetSessionResults(pq, func(session, query []byte, res [][]byte, clicks int) error {
		pos++
		if pos%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		with, err := runs.Next(session, clicks)
		if err != nil {
			return err
		}
		if with {
			return fs.add(query, res)
		}
		if runs.Held() == 0 {
			arena, offs = arena[:0], offs[:0]
		}
		h := held{q: len(arena)}
		arena = append(arena, query...)
		h.r0 = len(offs)
		offs = append(offs, len(arena))
		for _, r := range res {
			arena = append(arena, r...)
			offs = append(offs, len(arena))
		}
		h.r1 = len(offs) - 1
		runs.Hold(h)
		return nil
	})
	if err == nil {
		err = runs.Flush()
	}
	if err != nil {
		return nil, nil, nil, err
	}
	l, docName, noClick := fs.log(compact)
	return l, docName, noClick, nil
}

// withClickOnly returns the log of the SERPs of l's sessions with a click
// (sessions.Log.WithClick), sharing l's dictionaries, and by query
// whether it was shown only in sessions without a click.
func withClickOnly(l *sessions.Log) (*sessions.Log, []bool) {
	with := l.WithClick()
	noClick := make([]bool, l.Queries.Len())
	for i := range noClick {
		noClick[i] = true
	}
	all := true
	for i, w := range with {
		if w {
			noClick[l.Query[i]] = false
		}
		all = all && w
	}
	if all {
		return l, noClick
	}
	return l.Select(func(yield func(int) bool) {
		for i, w := range with {
			if w && !yield(i) {
				return
			}
		}
	}), noClick
}

// firstSERPsPass chooses every query's first SERP in one pass over a log.
type firstSERPsPass struct {
	opts    Options
	queries sessions.Dict
	lead    []leader // by query
	// withClick, by query: shown in a session with a click (one byte a
	// query beside lead's 32).
	withClick []bool
	// lists counts every (query, list) by a 128-bit hash. A query's list
	// found there needs no look-up of the query.
	lists listTable
	// arena holds the results of the leaders, each result as a uvarint
	// length and its bytes; a leader replaced leaves its bytes behind
	// until the arena is compacted.
	arena        leaderArena
	live         int    // bytes of arena still referenced by a leader
	key          []byte // scratch: the query and list that are hashed
	seed1, seed2 maphash.Seed
}

// leader is a query's chosen list so far: count -1 means no full SERP yet.
// The lists of a query are numbered in the order they are first shown
// (ord), so that the list shown first is the one of smaller ord.
type leader struct {
	count      int64
	ord, lists uint32 // the leader's ord; the query's lists so far
	at, n      int    // the results in arena[at:at+n]
}

func newFirstSERPs(opts Options) *firstSERPsPass {
	return &firstSERPsPass{opts: opts, arena: leaderArena{shift: leaderChunkShift}, seed1: maphash.MakeSeed(), seed2: maphash.MakeSeed()}
}

// errListCount is returned for a log whose list counts do not fit the
// 32-bit counters of listTable.
var errListCount = errors.New("more than 4,294,967,294 SERPs of one query or one result list")

// queryID returns the ID of query, adding it to the dictionary if new.
func (fs *firstSERPsPass) queryID(query []byte) int32 {
	q, ok := fs.queries.Lookup(unsafe.String(unsafe.SliceData(query), len(query)))
	if !ok {
		q = fs.queries.ID(string(query))
		fs.lead = append(fs.lead, leader{count: -1})
		fs.withClick = append(fs.withClick, false)
	}
	return q
}

// addWithoutClick notes a SERP of query in a session without a click:
// the query enters the dictionary, the SERP is no candidate.
func (fs *firstSERPsPass) addWithoutClick(query []byte) { fs.queryID(query) }

// add counts the next SERP of the log of a session with a click, of query
// with results.
func (fs *firstSERPsPass) add(query []byte, results [][]byte) error {
	size := fs.opts.SERPSize
	if len(results) < size || fs.opts.Choice == Earliest {
		q := fs.queryID(query)
		fs.withClick[q] = true
		if l := &fs.lead[q]; len(results) >= size && l.count < 0 {
			fs.setLeader(l, 1, 0, results[:size])
		}
		return nil
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
	c, ok := fs.lists.slot(maphash.Bytes(fs.seed1, k), maphash.Bytes(fs.seed2, k))
	if !ok {
		// The query's first SERP with this list: the query is looked up
		// (added at its first SERP, as the dictionary's order wants).
		c.i = fs.queryID(query)
		l := &fs.lead[c.i]
		if l.lists == math.MaxUint32 {
			return errListCount
		}
		c.v.ord = l.lists
		l.lists++
	}
	if c.v.count == math.MaxUint32 {
		return errListCount
	}
	c.v.count++
	fs.withClick[c.i] = true
	l := &fs.lead[c.i]
	// Most frequent list; ties to the list shown first (as firstSERPs).
	switch count := int64(c.v.count); {
	case l.ord == c.v.ord && l.count >= 0:
		l.count = count // the leader shown again
	case count > l.count || (count == l.count && c.v.ord < l.ord):
		fs.setLeader(l, count, c.v.ord, results)
	}
	return nil
}

// setLeader makes the list results, shown count times, the leader l; ord
// is its number among the query's lists.
func (fs *firstSERPsPass) setLeader(l *leader, count int64, ord uint32, results [][]byte) {
	fs.live -= l.n
	l.n = 0 // l's old bytes are garbage now: compact leaves them
	if fs.arena.used > 1<<20 && fs.arena.used > 2*fs.live {
		fs.arena.compact(fs.lead)
	}
	n := 0
	for _, r := range results {
		n += uvarintLen(len(r)) + len(r)
	}
	at, b := fs.arena.alloc(n)
	w := 0
	for _, r := range results {
		w += binary.PutUvarint(b[w:], uint64(len(r)))
		w += copy(b[w:], r)
	}
	l.count, l.ord, l.at, l.n = count, ord, at, n
	fs.live += n
}

// uvarintLen is the length of n as a uvarint.
func uvarintLen(n int) int {
	w := 1
	for ; n >= 0x80; n >>= 7 {
		w++
	}
	return w
}

// log returns the first-SERP log: every query in its dictionary, in order
// of first appearance, and each chosen list as one SERP, in query order.
// The document dictionary is not interned: each query's docs get their own
// IDs (a doc shown twice on a SERP one ID), named by substrings of one
// string; Assign only turns them back into names and compares them within
// a SERP. With compact (and an arena of less than 2 GiB), there is no
// dictionary: a doc's ID is the offset in the arena of its name, which
// the function returned reads. noClick says by query whether it was shown
// only in sessions without a click.
func (fs *firstSERPsPass) log(compact bool) (*sessions.Log, func(int32) string, []bool) {
	noClick := fs.withClick // turned into its complement in place
	fs.withClick = nil
	for q, w := range noClick {
		noClick[q] = !w
	}
	out := &sessions.Log{Queries: fs.queries, Offsets: []int64{0}}
	fs.queries, fs.lists = sessions.Dict{}, listTable{}
	// The arena is not written again: its names are substrings of it.
	if fs.arena.used > fs.live {
		fs.arena.compact(fs.lead)
	}
	arena := fs.arena
	fs.arena = leaderArena{}
	compact = compact && arena.end <= math.MaxInt32
	leaders := 0
	for q := range fs.lead {
		if fs.lead[q].count >= 0 {
			leaders++
		}
	}
	out.Query = make([]int32, 0, leaders)
	out.Offsets = make([]int64, 1, leaders+1)
	out.DocIDs = make([]int32, 0, leaders*fs.opts.SERPSize)
	var names []string
	for q := range fs.lead {
		l := &fs.lead[q]
		if l.count < 0 {
			continue
		}
		first := len(names)
		rest := arena.str(l.at, l.n)
		for len(rest) > 0 {
			at := l.at + l.n - len(rest)
			var name string
			name, rest = nextName(rest)
			if compact {
				// The first of the SERP's results of this name.
				id := int32(at)
				for j := int(out.Offsets[len(out.Offsets)-1]); j < len(out.DocIDs); j++ {
					if arena.name(out.DocIDs[j]) == name {
						id = out.DocIDs[j]
						break
					}
				}
				out.DocIDs = append(out.DocIDs, id)
				continue
			}
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
	out.Clicks = make([]uint64, len(out.Query))
	if compact {
		return out, arena.name, noClick
	}
	out.Docs = sessions.Dict{Names: names}
	return out, nil, noClick
}
