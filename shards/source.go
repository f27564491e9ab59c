package shards

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
)

// Dir is a shard directory opened for reading; it implements
// split.Source.
type Dir struct {
	dir string
	m   Manifest
}

// Open reads the manifest of a shard directory.
func Open(dir string) (*Dir, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	return &Dir{dir: dir, m: m}, nil
}

// Manifest returns the directory's manifest.
func (d *Dir) Manifest() Manifest { return d.m }

// NumShards is the number of shards.
func (d *Dir) NumShards() int { return d.m.Shards }

// Info returns the log's size, training size, longest SERP and split.
func (d *Dir) Info() (serps, trainSERPs int64, maxRanks int, kind split.Kind) {
	return d.m.SERPs, d.m.TrainSERPs, d.m.MaxRanks, d.m.Split
}

// Scan calls fn for every SERP of shard i in log order, with its position
// and train flag. The SERP is only valid during the call.
func (d *Dir) Scan(ctx context.Context, i int, fn func(pos int64, train bool, s *sessions.SERP) error) error {
	var s sessions.SERP
	k := 0
	return Scan(d.m.Path(d.dir, i), func(r *Row) error {
		if k++; k%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if r.Pos >= d.m.SERPs {
			return fmt.Errorf("shards: %s: pos %d beyond the %d SERPs of the manifest", d.m.Path(d.dir, i), r.Pos, d.m.SERPs)
		}
		s.SessionID, s.Index, s.Query, s.Results = r.SessionID, int(r.SERPIndex), r.Query, r.Results
		rowSERPClicks(&s, r.ClickRanks)
		return fn(r.Pos, r.Train, &s)
	})
}

// Stream is a whole log read as one shard, with the train flags of a split
// computed on the fly: fit's in-memory path, which streams sessions.parquet
// instead of materialising the log. It implements split.Source.
type Stream struct {
	src   string
	m     Manifest
	train func(pos int64, s *sessions.SERP) bool
}

// NewStream reads src (an ingest directory, a sessions.parquet file or a
// Yandex log) once, twice for the time split, to size it and compute the
// split.
func NewStream(ctx context.Context, src string, sp SplitConfig) (*Stream, error) {
	m := Manifest{Format: Format, Shards: 1, Hash: "fnv1a64", Split: sp.Split, TrainFraction: sp.TrainFraction}
	scan, size, err := openSource(src)
	if err != nil {
		return nil, err
	}
	train, err := trainFlags(ctx, scan, size, &m, sp)
	if err != nil {
		return nil, err
	}
	st := &Stream{src: src, m: m, train: train}
	// TrainSERPs needs a pass for the time split only; for spec and
	// random it is the cut.
	if m.Split == split.Time {
		err = scan(func(pos int64, s *sessions.SERP) error {
			if train(pos, s) {
				st.m.TrainSERPs++
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	} else {
		st.m.TrainSERPs = cutPoint(m.SERPs, m.TrainFraction)
	}
	return st, nil
}

// NumShards is 1.
func (s *Stream) NumShards() int { return 1 }

// Info returns the log's size, training size, longest SERP and split.
func (s *Stream) Info() (serps, trainSERPs int64, maxRanks int, kind split.Kind) {
	return s.m.SERPs, s.m.TrainSERPs, s.m.MaxRanks, s.m.Split
}

// Scan calls fn for every SERP of the log (shard 0) in order.
func (s *Stream) Scan(ctx context.Context, i int, fn func(pos int64, train bool, s *sessions.SERP) error) error {
	if i != 0 {
		return fmt.Errorf("shards: stream has one shard, not %d", i+1)
	}
	return scanSource(s.src, func(pos int64, x *sessions.SERP) error {
		if pos%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return fn(pos, s.train(pos, x), x)
	})
}

// WriteManifest writes dir/manifest.json atomically (what Write does last;
// for engines that write the shard files themselves with NewWriter).
func WriteManifest(dir string, m Manifest) error {
	return atomicfile.WriteFile(filepath.Join(dir, ManifestName), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(m)
	})
}

// TrainFlags returns the train flag by log position for the spec and
// random splits of a log of total SERPs, without reading the log. The time
// split needs the user sessions of the SERPs before the cut, so only Write
// and NewStream (which read the log) compute it.
func TrainFlags(sp SplitConfig, total int64) (func(pos int64) bool, error) {
	frac, err := split.TrainFraction(sp.TrainFraction)
	if err != nil {
		return nil, fmt.Errorf("shards: %w", err)
	}
	kind, err := split.Parse(string(sp.Split))
	if err != nil {
		return nil, fmt.Errorf("shards: %w", err)
	}
	cut := cutPoint(total, frac)
	switch kind {
	case split.Spec:
		return func(pos int64) bool { return pos < cut }, nil
	case split.Random:
		bits := make([]uint64, (total+63)/64)
		for _, i := range split.RandomTrainPositions(int(total), frac, sp.Seed) {
			bits[i/64] |= 1 << uint(i%64)
		}
		return func(pos int64) bool { return bits[pos/64]&(1<<uint(pos%64)) != 0 }, nil
	}
	return nil, fmt.Errorf("shards: the time split needs the log's user sessions: use Write or NewStream")
}
