package shards

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/hashes"
	"github.com/lovbench/lovbench/sessions"
	"github.com/lovbench/lovbench/sessions/split"
)

// SplitConfig says how the train flag of every SERP is computed; the rules
// are those of package split (clickmodels.Split, RandomSplit and TimeSplit
// on a whole log).
type SplitConfig struct {
	Split         split.Kind // spec (default), random or time
	TrainFraction float64    // default split.DefaultTrainFraction
	Seed          uint64     // random split only
}

// RowGroupRows is the number of rows per row group of a shard file: small
// enough that N open writers stay within memory.
const RowGroupRows = 16384

// Writer writes one shard file.
type Writer struct {
	w     *parquet.GenericWriter[Row]
	batch []Row
	n     int
	// enc, if set, encodes full batches on another goroutine
	// (writeShards); nil encodes them in Write.
	enc *encoder
}

// NewWriter returns a writer of shard-file content to w. The output is
// deterministic (no build stamp).
func NewWriter(w io.Writer) *Writer {
	pw := parquet.NewGenericWriter[Row](w,
		parquet.Compression(&parquet.Snappy),
		parquet.CreatedBy("lovbench", "1", "none"),
		parquet.MaxRowsPerRowGroup(RowGroupRows),
		parquet.SkipPageStatistics("session_id"),
		parquet.SkipPageStatistics("query"),
		parquet.SkipPageStatistics("results", "list", "element"),
		parquet.SkipPageBounds("session_id"),
		parquet.SkipPageBounds("query"),
		parquet.SkipPageBounds("results", "list", "element"),
	)
	return &Writer{w: pw, batch: make([]Row, 256)}
}

// Write appends a row (copied; rows must come in increasing Pos).
func (w *Writer) Write(r *Row) error {
	b := &w.batch[w.n]
	b.Pos, b.Train, b.SessionID, b.SERPIndex, b.Query = r.Pos, r.Train, r.SessionID, r.SERPIndex, r.Query
	b.Results = append(b.Results[:0], r.Results...)
	b.ClickRanks = append(b.ClickRanks[:0], r.ClickRanks...)
	w.n++
	if w.n == len(w.batch) {
		return w.flush()
	}
	return nil
}

func (w *Writer) flush() error {
	if w.n == 0 {
		return nil
	}
	if w.enc != nil {
		w.batch = w.enc.send(w, w.batch[:w.n])
		w.n = 0
		return w.enc.failed()
	}
	_, err := w.w.Write(w.batch[:w.n])
	w.n = 0
	return err
}

// Close flushes and writes the footer (it does not close the underlying
// writer). With an encoder, the encoder must have finished.
func (w *Writer) Close() error {
	if err := w.flush(); err != nil {
		return err
	}
	return w.w.Close()
}

// encoder encodes the full batches of several shard writers on one
// goroutine, in the order they were sent, while the caller goes on
// reading the log: writing shards is then about as fast as the slower of
// reading and encoding, not their sum. Every writer's rows reach its file
// in the same order as without it, so the files are the same.
type encoder struct {
	jobs chan encodeJob
	free chan []Row
	done chan struct{}
	mu   sync.Mutex
	err  error
}

type encodeJob struct {
	w    *Writer
	rows []Row
}

func newEncoder() *encoder {
	e := &encoder{jobs: make(chan encodeJob, 16), free: make(chan []Row, 64), done: make(chan struct{})}
	go func() {
		defer close(e.done)
		for j := range e.jobs {
			if e.failed() == nil {
				if _, err := j.w.w.Write(j.rows); err != nil {
					e.mu.Lock()
					e.err = err
					e.mu.Unlock()
				}
			}
			select {
			case e.free <- j.rows[:cap(j.rows)]:
			default:
			}
		}
	}()
	return e
}

// send queues rows of w for encoding and returns an empty batch for w to
// go on with.
func (e *encoder) send(w *Writer, rows []Row) []Row {
	e.jobs <- encodeJob{w, rows}
	select {
	case b := <-e.free:
		return b
	default:
		return make([]Row, len(w.batch))
	}
}

func (e *encoder) failed() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// finish waits for every queued batch to be encoded.
func (e *encoder) finish() error {
	close(e.jobs)
	<-e.done
	return e.failed()
}

// WriteOptions tune Write.
type WriteOptions struct {
	// OnRow, if set, is called every 65,536 source rows with the rows done.
	OnRow func(done int64)
}

// scanSource calls fn for every SERP of src (an ingest directory, a
// sessions.parquet file or a Yandex log; see sessions.Load) in log order.
func scanSource(src string, fn func(pos int64, s *sessions.SERP) error) error {
	scan, _, err := openSource(src)
	if err != nil {
		return err
	}
	return scan(fn)
}

// scanFunc calls fn for every SERP of a log in log order.
type scanFunc func(fn func(pos int64, s *sessions.SERP) error) error

// sizeFunc returns the number of SERPs of a log and the length of its
// longest SERP.
type sizeFunc func(ctx context.Context) (serps int64, maxRanks int, err error)

// openSource returns the scan of src for scanSource and its size. Parquet
// inputs are streamed on every scan, and sized by reading their query and
// results columns only (sessions.ScanParquetResults, several times faster
// than a whole scan); a Yandex log is read into a compact Log once, here,
// so a caller making several passes does not parse it again.
func openSource(src string) (scanFunc, sizeFunc, error) {
	p, isPq, err := sessions.ParquetPath(src)
	if err != nil {
		return nil, nil, err
	}
	if isPq {
		scan := func(fn func(pos int64, s *sessions.SERP) error) error {
			pos := int64(0)
			return sessions.ScanParquet(p, func(s *sessions.SERP) error {
				err := fn(pos, s)
				pos++
				return err
			})
		}
		size := func(ctx context.Context) (n int64, maxRanks int, err error) {
			err = sessions.ScanParquetResults(p, func(_ []byte, results [][]byte) error {
				if n%65536 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				n++
				maxRanks = max(maxRanks, len(results))
				return nil
			})
			return n, maxRanks, err
		}
		return scan, size, nil
	}
	log, err := sessions.Load(src)
	if err != nil {
		return nil, nil, err
	}
	size := func(context.Context) (int64, int, error) {
		longest := 0
		for i := range log.Len() {
			longest = max(longest, log.Ranks(i))
		}
		return int64(log.Len()), longest, nil
	}
	return func(fn func(pos int64, s *sessions.SERP) error) error {
		var s sessions.SERP
		var order [sessions.MaxRanks]uint8
		idx := make([]int32, log.Sessions.Len())
		for i := 0; i < log.Len(); i++ {
			s.SessionID = log.Sessions.Names[log.Session[i]]
			s.Index = int(idx[log.Session[i]])
			idx[log.Session[i]]++
			s.Query = log.Queries.Names[log.Query[i]]
			s.Results = s.Results[:0]
			for _, d := range log.SERPDocs(i) {
				s.Results = append(s.Results, log.Docs.Names[d])
			}
			s.Clicks = s.Clicks[:0]
			for j, r := range log.ClickOrder(order[:0], i) {
				s.Clicks = append(s.Clicks, sessions.Click{Rank: int(r), TimePassed: int64(j)})
			}
			if err := fn(int64(i), &s); err != nil {
				return err
			}
		}
		return nil
	}, size, nil
}

// SessionKey is the 128-bit hash by which the time split remembers the
// user sessions started before the cut (the shard writers of this package
// and of the beam module use the same one).
func SessionKey(id string) [2]uint64 { return sessionKey(id) }

// sessionKey is a 128-bit hash of a session ID (two independent 64-bit
// hashes: a collision among 10^9 sessions has probability about 1e-20).
func sessionKey(id string) [2]uint64 {
	var k [2]uint64
	k[0] = hashes.FNV1a(id)
	h := uint64(0x6c6f7662656e6368)
	for i := 0; i < len(id); i++ {
		h = (h ^ uint64(id[i])) * 0x100000001b3
		h ^= h >> 29
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], h^uint64(len(id)))
	k[1] = binary.LittleEndian.Uint64(b[:])
	return k
}

// cutPoint is split.TrainCut for a log position count.
func cutPoint(n int64, fraction float64) int64 {
	return int64(split.TrainCut(int(n), fraction))
}

// OutputNames are the files of a shard directory besides its manifest
// (atomicfile.CreateDir's names): what its index may list. The shard
// files, and the cleaning report and quarantine that lovbench-beam shard
// writes beside them (either command may replace the other's output).
var OutputNames = []string{"shard-*-of-*.parquet", ingest.ReportFile, ingest.QuarantineFile}

// Write reads src once or twice (three times for the time split; a Yandex
// log is parsed once and its passes run over the loaded Log) and writes
// n shard files and the manifest to outDir. The directory is built beside
// outDir and published whole (atomicfile.CreateDir, marker manifest.json):
// outDir must be missing, empty, or an earlier shard directory exactly as
// it was written (a directory of a user's files, or an edited one, is
// refused), and a rerun with fewer shards leaves none of the earlier
// ones.
func Write(ctx context.Context, src string, n int, sp SplitConfig, outDir string, opt WriteOptions) (Manifest, error) {
	m := Manifest{Format: Format, Shards: n, Hash: "fnv1a64", Split: sp.Split, TrainFraction: sp.TrainFraction, Source: filepath.Base(src)}
	if n < 1 {
		return m, fmt.Errorf("shards: %d shards, want at least 1", n)
	}
	out, err := atomicfile.CreateDir(outDir, ManifestName, OutputNames...)
	if err != nil {
		return m, fmt.Errorf("shards: %w", err)
	}
	defer out.Abort()
	scan, size, err := openSource(src)
	if err != nil {
		return m, err
	}
	train, err := trainFlags(ctx, scan, size, &m, sp)
	if err != nil {
		return m, err
	}
	if m, err = writeShards(ctx, scan, m, train, out.Path(), opt); err != nil {
		return m, err
	}
	if err := out.Commit(); err != nil {
		return m, fmt.Errorf("shards: %w", err)
	}
	return m, nil
}

// writeShards is Write's last pass: m has the log's size and split, train
// the flags.
func writeShards(ctx context.Context, scan scanFunc, m Manifest, train func(pos int64, s *sessions.SERP) bool, outDir string, opt WriteOptions) (Manifest, error) {
	n := m.Shards
	m.TrainSERPs = 0
	files := make([]*atomicfile.File, n)
	writers := make([]*Writer, n)
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Abort()
			}
		}
	}()
	enc := newEncoder()
	finished := false
	defer func() {
		if !finished {
			enc.finish()
		}
	}()
	for i := range n {
		f, err := atomicfile.Create(m.Path(outDir, i))
		if err != nil {
			return m, err
		}
		files[i], writers[i] = f, NewWriter(f)
		writers[i].enc = enc
	}
	var row Row
	err := scan(func(pos int64, s *sessions.SERP) error {
		if pos%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if opt.OnRow != nil && pos > 0 {
				opt.OnRow(pos)
			}
		}
		row.Pos, row.SessionID, row.SERPIndex, row.Query, row.Results = pos, s.SessionID, int32(s.Index), s.Query, s.Results
		row.Train = train(pos, s)
		if row.Train {
			m.TrainSERPs++
		}
		row.ClickRanks = RowClicks(row.ClickRanks[:0], s.Clicks)
		return writers[Of(s.Query, n)].Write(&row)
	})
	if err != nil {
		return m, err
	}
	for i := range n {
		if err := writers[i].flush(); err != nil {
			return m, fmt.Errorf("shards: %s: %w", files[i].Name(), err)
		}
		writers[i].enc = nil
	}
	finished = true
	if err := enc.finish(); err != nil {
		return m, fmt.Errorf("shards: %w", err)
	}
	for i := range n {
		if err := writers[i].Close(); err != nil {
			return m, fmt.Errorf("shards: %s: %w", files[i].Name(), err)
		}
		if err := files[i].Commit(); err != nil {
			return m, err
		}
		files[i] = nil
	}
	return m, WriteManifest(outDir, m)
}

type stopError struct{}

func (stopError) Error() string { return "stop" }

var errStop error = stopError{}

// trainFlags defaults m.Split (spec) and m.TrainFraction
// (split.DefaultTrainFraction) and checks
// the fraction, reads src once (twice for the time split) to fill m.SERPs
// and m.MaxRanks, and returns the train flag of a SERP at a log position
// under the split sp. Write and NewStream share it.
func trainFlags(ctx context.Context, scan scanFunc, size sizeFunc, m *Manifest, sp SplitConfig) (func(pos int64, s *sessions.SERP) bool, error) {
	kind, err := split.Parse(string(m.Split))
	if err != nil {
		return nil, fmt.Errorf("shards: %w", err)
	}
	m.Split = kind
	if m.TrainFraction, err = split.TrainFraction(m.TrainFraction); err != nil {
		return nil, fmt.Errorf("shards: %w", err)
	}
	// Pass 1: size and longest SERP.
	if m.SERPs, m.MaxRanks, err = size(ctx); err != nil {
		return nil, err
	}
	var train func(pos int64, s *sessions.SERP) bool
	switch m.Split {
	case split.Spec, split.Random:
		if m.Split == split.Random {
			m.Seed = sp.Seed
		}
		f, err := TrainFlags(SplitConfig{Split: m.Split, TrainFraction: m.TrainFraction, Seed: sp.Seed}, m.SERPs)
		if err != nil {
			return nil, err
		}
		train = func(pos int64, _ *sessions.SERP) bool { return f(pos) }
	case split.Time:
		// A session trains iff its first SERP lies before the cut
		// (split.TimeSplit): the sessions of the SERPs before it.
		ts := split.NewTimeSplit[[2]uint64](m.SERPs, m.TrainFraction)
		err := scan(func(pos int64, s *sessions.SERP) error {
			if !ts.Before(pos) {
				return errStop
			}
			ts.Start(sessionKey(s.SessionID))
			return nil
		})
		if err != nil && err != errStop {
			return nil, err
		}
		train = func(pos int64, s *sessions.SERP) bool { return ts.Train(pos, sessionKey(s.SessionID)) }
	}

	return train, nil
}
