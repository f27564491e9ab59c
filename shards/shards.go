// Package shards splits a click log into query shards for out-of-core
// fitting: one Parquet file per fnv1a64(query) mod N, each SERP
// keeping its position in the log and its train/test flag, so that the
// spec, random and time splits of docs/method.md section 3 (package
// sessions/split) stay exactly as on the whole log. The format is
// described in docs/scale.md ("Shard format").
package shards

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/lovbench/lovbench/internal/hashes"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
)

// Format is the value of Manifest.Format.
const Format = "lovbench-shards/1"

// ManifestName is the name of the manifest inside a shard directory.
const ManifestName = "manifest.json"

// Row is one SERP of a shard file (its Parquet schema).
type Row struct {
	Pos        int64    `parquet:"pos"`              // 0-based position in the source log
	Train      bool     `parquet:"train"`            // the SERP trains under the manifest's split
	SessionID  string   `parquet:"session_id"`       // user session
	SERPIndex  int32    `parquet:"serp_index"`       // index of the SERP in its session
	Query      string   `parquet:"query"`            // query
	Results    []string `parquet:"results,list"`     // result IDs in rank order
	ClickRanks []int32  `parquet:"click_ranks,list"` // clicked ranks (0-based), in click order (RowClicks)
}

// RowClicks appends to dst a shard row's ClickRanks for a SERP's clicks:
// its distinct clicked ranks in click order (sessions.ClickOrder: by the
// time of each rank's first click, equal times in rank order), so that a
// shard carries the order PSCM reads (repeated clicks are dropped: a fit
// reads a clicked rank once); a rank outside [0, 64) is kept, last, for
// the reader to reject. The shard writers
// of this package and of the beam module both call it.
func RowClicks(dst []int32, clicks []sessions.Click) []int32 {
	var buf [sessions.MaxRanks]uint8
	order, _ := sessions.ClickOrder(buf[:0], clicks, nil)
	for _, r := range order {
		dst = append(dst, int32(r))
	}
	for _, c := range clicks { // ranks ClickOrder skips: kept for the reader to reject
		if c.Rank < 0 || c.Rank >= sessions.MaxRanks {
			dst = append(dst, int32(c.Rank))
		}
	}
	return dst
}

// rowSERPClicks sets s's clicks from a row's ClickRanks, in click order:
// the j-th at time j, so that sessions.ClickOrder reads the row's order.
func rowSERPClicks(s *sessions.SERP, ranks []int32) {
	s.Clicks = s.Clicks[:0]
	for j, c := range ranks {
		s.Clicks = append(s.Clicks, sessions.Click{Rank: int(c), TimePassed: int64(j)})
	}
}

// Manifest describes a shard directory (manifest.json).
type Manifest struct {
	Format        string     `json:"format"`
	Shards        int        `json:"shards"`
	Hash          string     `json:"hash"`
	SERPs         int64      `json:"serps"`
	MaxRanks      int        `json:"max_ranks"`
	Split         split.Kind `json:"split"`
	TrainFraction float64    `json:"train_fraction"`
	Seed          uint64     `json:"seed"`
	TrainSERPs    int64      `json:"train_serps"`
	Source        string     `json:"source"`
}

// Of is the shard of query among n: fnv1a64 of its UTF-8 bytes, mod n.
func Of(query string, n int) int {
	return int(hashes.FNV1a(query) % uint64(n))
}

// FileName is the name of shard i of n.
func FileName(i, n int) string { return fmt.Sprintf("shard-%05d-of-%05d.parquet", i, n) }

// Path is the path of shard i of the directory dir described by m.
func (m Manifest) Path(dir string, i int) string { return filepath.Join(dir, FileName(i, m.Shards)) }

// ReadManifest reads and checks dir/manifest.json.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	p := filepath.Join(dir, ManifestName)
	b, err := os.ReadFile(p)
	if err != nil {
		return m, fmt.Errorf("shards: %w (not a shard directory?)", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("shards: %s: %w", p, err)
	}
	switch {
	case m.Format != Format:
		return m, fmt.Errorf("shards: %s: field format is %q, want %q", p, m.Format, Format)
	case m.Shards < 1:
		return m, fmt.Errorf("shards: %s: field shards is %d, want at least 1", p, m.Shards)
	case m.Hash != "fnv1a64":
		return m, fmt.Errorf("shards: %s: field hash is %q, want fnv1a64", p, m.Hash)
	case m.SERPs < 0 || m.TrainSERPs < 0 || m.TrainSERPs > m.SERPs:
		return m, fmt.Errorf("shards: %s: fields serps %d / train_serps %d inconsistent", p, m.SERPs, m.TrainSERPs)
	}
	return m, nil
}

// Scan reads one shard file and calls fn for every row in file order (pos
// increasing). The Row is only valid during the call.
func Scan(path string, fn func(*Row) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("shards: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("shards: %w", err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return fmt.Errorf("shards: %s: not a readable Parquet file: %w", path, err)
	}
	for _, name := range []string{"pos", "train", "session_id", "serp_index", "query"} {
		if _, ok := pf.Schema().Lookup(name); !ok {
			return fmt.Errorf("shards: %s: column %q missing: not a shard file", path, name)
		}
	}
	r := parquet.NewGenericReader[Row](pf)
	defer r.Close()
	buf := make([]Row, 256)
	row := int64(0)
	prev := int64(-1)
	for {
		n, err := r.Read(buf)
		for i := 0; i < n; i++ {
			row++
			x := &buf[i]
			if x.Pos <= prev {
				return fmt.Errorf("shards: %s: row %d: field pos %d not after the previous row's %d", path, row, x.Pos, prev)
			}
			prev = x.Pos
			for _, rk := range x.ClickRanks {
				if rk < 0 || int(rk) >= len(x.Results) {
					return fmt.Errorf("shards: %s: row %d: field click_ranks: rank %d outside SERP of %d results", path, row, rk, len(x.Results))
				}
			}
			if err := fn(x); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("shards: %s: row %d: %w", path, row+1, err)
		}
	}
}
