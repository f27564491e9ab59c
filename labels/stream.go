package labels

import (
	"context"
	"hash/maphash"

	"github.com/lovbench/lovbench/sessions"
)

// loadFirstSERPs reads the sessions at path and returns a log holding, for
// every query that has a full SERP, only its first SERP under opts.Choice,
// and every query of the log in its query dictionary: all that Assign
// reads, so Assign on it equals Assign on the whole log. A sessions.parquet
// (or ingest directory) is streamed twice and never held: the first pass
// counts each query's distinct full result lists by a 128-bit hash, the
// second keeps the chosen SERPs. A Yandex log is loaded whole.
func loadFirstSERPs(ctx context.Context, path string, opts Options) (*sessions.Log, error) {
	pq, isPq, err := sessions.ParquetPath(path)
	if err != nil {
		return nil, err
	}
	if !isPq {
		return sessions.Load(path)
	}
	opts = opts.withDefaults()
	size := opts.SERPSize
	type key struct {
		q      int32
		h1, h2 uint64
	}
	type cand struct{ count, first int64 }
	var qd sessions.Dict
	cands := map[key]*cand{}
	var earliest []int64 // by query: position of the first full SERP, -1 if none
	seed1, seed2 := maphash.MakeSeed(), maphash.MakeSeed()
	var h1, h2 maphash.Hash
	h1.SetSeed(seed1)
	h2.SetSeed(seed2)
	pos := int64(-1)
	err = sessions.ScanParquet(pq, func(s *sessions.SERP) error {
		pos++
		if pos%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		q := qd.ID(s.Query)
		for int(q) >= len(earliest) {
			earliest = append(earliest, -1)
		}
		if len(s.Results) < size {
			return nil
		}
		if earliest[q] < 0 {
			earliest[q] = pos
		}
		if opts.Choice == Earliest {
			return nil
		}
		h1.Reset()
		h2.Reset()
		for _, r := range s.Results[:size] {
			h1.WriteString(r)
			h1.WriteByte(0)
			h2.WriteString(r)
			h2.WriteByte(0)
		}
		k := key{q, h1.Sum64(), h2.Sum64()}
		c := cands[k]
		if c == nil {
			c = &cand{first: pos}
			cands[k] = c
		}
		c.count++
		return nil
	})
	if err != nil {
		return nil, err
	}
	chosen := earliest
	if opts.Choice != Earliest {
		// Most frequent list; ties to the list shown first (as firstSERPs).
		best := make([]*cand, qd.Len())
		for k, c := range cands {
			b := best[k.q]
			if b == nil || c.count > b.count || (c.count == b.count && c.first < b.first) {
				best[k.q] = c
			}
		}
		cands = nil
		chosen = make([]int64, qd.Len())
		for q, b := range best {
			chosen[q] = -1
			if b != nil {
				chosen[q] = b.first
			}
		}
	}
	out := &sessions.Log{Offsets: []int64{0}}
	for _, n := range qd.Names {
		out.Queries.ID(n)
	}
	pos = -1
	err = sessions.ScanParquet(pq, func(s *sessions.SERP) error {
		pos++
		q, _ := qd.Lookup(s.Query)
		if chosen[q] == pos {
			return out.Add(s)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
