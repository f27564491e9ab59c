package sessions

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"

	"github.com/lovbench/lovbench/internal/pqfile"
)

// ParquetRow is the schema of sessions.parquet: one row per kept SERP
// (docs/ingest.md, "sessions.parquet"). Lists are Parquet LIST columns.
type ParquetRow struct {
	SessionID  string   `parquet:"session_id"`
	SERPIndex  int32    `parquet:"serp_index"`
	TimePassed int64    `parquet:"time_passed"`
	Query      string   `parquet:"query"`
	Region     string   `parquet:"region"`
	Results    []string `parquet:"results,list"`
	ClickRanks []int32  `parquet:"click_ranks,list"`
	ClickTimes []int64  `parquet:"click_times,list"`
}

// DefaultRowGroupRows is the number of SERPs per Parquet row group written by
// ParquetWriter.
const DefaultRowGroupRows = 131072

// ParquetWriter streams SERPs to a sessions.parquet file in row groups of a
// fixed number of rows, so memory stays bounded whatever the log size.
type ParquetWriter struct {
	w     *parquet.GenericWriter[ParquetRow]
	batch []ParquetRow
	n     int   // rows in the current batch
	group int64 // rows in the current row group
	limit int64
}

// NewParquetWriter returns a writer of sessions.parquet content to w.
// rowGroupRows <= 0 selects DefaultRowGroupRows. The output is deterministic:
// the created-by field names only this program, without a build stamp.
func NewParquetWriter(w io.Writer, rowGroupRows int) *ParquetWriter {
	if rowGroupRows <= 0 {
		rowGroupRows = DefaultRowGroupRows
	}
	pw := parquet.NewGenericWriter[ParquetRow](w,
		parquet.Compression(pqfile.FastSnappy{}),
		parquet.CreatedBy("lovbench", "1", "none"),
		parquet.MaxRowsPerRowGroup(int64(rowGroupRows)),
		// Min/max bounds of string columns cost much of the encoding time
		// and help no reader of this file: no page statistics for them.
		parquet.SkipPageStatistics("session_id"),
		parquet.SkipPageStatistics("query"),
		parquet.SkipPageStatistics("region"),
		parquet.SkipPageStatistics("results", "list", "element"),
		parquet.SkipPageBounds("session_id"),
		parquet.SkipPageBounds("query"),
		parquet.SkipPageBounds("region"),
		parquet.SkipPageBounds("results", "list", "element"),
	)
	return &ParquetWriter{w: pw, batch: make([]ParquetRow, 1024), limit: int64(rowGroupRows)}
}

// Write appends one SERP. The SERP's slices may be reused by the caller after
// Write returns only once the internal batch is flushed, so Write copies what
// it keeps.
func (p *ParquetWriter) Write(s *SERP) error {
	r := &p.batch[p.n]
	r.SessionID = s.SessionID
	r.SERPIndex = int32(s.Index)
	r.TimePassed = s.TimePassed
	r.Query = s.Query
	r.Region = s.Region
	r.Results = append(r.Results[:0], s.Results...)
	r.ClickRanks = r.ClickRanks[:0]
	r.ClickTimes = r.ClickTimes[:0]
	for _, c := range s.Clicks {
		r.ClickRanks = append(r.ClickRanks, int32(c.Rank))
		r.ClickTimes = append(r.ClickTimes, c.TimePassed)
	}
	p.n++
	if p.n == len(p.batch) {
		return p.flushBatch()
	}
	return nil
}

func (p *ParquetWriter) flushBatch() error {
	if p.n == 0 {
		return nil
	}
	if _, err := p.w.Write(p.batch[:p.n]); err != nil {
		return err
	}
	p.group += int64(p.n)
	p.n = 0
	if p.group >= p.limit {
		p.group = 0
		return p.w.Flush()
	}
	return nil
}

// Close flushes the remaining rows and writes the Parquet footer. It does not
// close the underlying writer.
func (p *ParquetWriter) Close() error {
	if err := p.flushBatch(); err != nil {
		return err
	}
	return p.w.Close()
}

// WriteParquet writes serps as sessions.parquet content to w.
func WriteParquet(w io.Writer, serps []SERP) error {
	pw := NewParquetWriter(w, 0)
	for i := range serps {
		if err := pw.Write(&serps[i]); err != nil {
			return err
		}
	}
	return pw.Close()
}

// ScanParquet reads a sessions.parquet file and calls fn for each SERP in file
// order. The SERP passed to fn is only valid during the call.
func ScanParquet(path string, fn func(*SERP) error) error {
	f, pf, err := openParquet(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := parquet.NewGenericReader[ParquetRow](pf)
	defer r.Close()
	buf := make([]ParquetRow, 512)
	var s SERP
	row := int64(0)
	for {
		n, err := r.Read(buf)
		for i := 0; i < n; i++ {
			row++
			pr := &buf[i]
			if len(pr.ClickRanks) != len(pr.ClickTimes) {
				return fmt.Errorf("sessions: %s: row %d: field click_ranks has %d entries, click_times %d", path, row, len(pr.ClickRanks), len(pr.ClickTimes))
			}
			s.SessionID = pr.SessionID
			s.Index = int(pr.SERPIndex)
			s.TimePassed = pr.TimePassed
			s.Query = pr.Query
			s.Region = pr.Region
			s.Results = pr.Results
			s.Clicks = s.Clicks[:0]
			for j, rk := range pr.ClickRanks {
				if rk < 0 || int(rk) >= len(pr.Results) {
					return fmt.Errorf("sessions: %s: row %d: field click_ranks: rank %d outside SERP of %d results", path, row, rk, len(pr.Results))
				}
				s.Clicks = append(s.Clicks, Click{Rank: int(rk), TimePassed: pr.ClickTimes[j]})
			}
			if err := fn(&s); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("sessions: %s: row %d: %w", path, row+1, err)
		}
	}
}

// openParquet opens a sessions.parquet file and checks that it has every
// column of ParquetRow; the caller closes the returned file.
func openParquet(path string, opts ...parquet.FileOption) (*os.File, *parquet.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("sessions: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("sessions: %w", err)
	}
	pf, err := parquet.OpenFile(f, st.Size(), opts...)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("sessions: %s: not a readable Parquet file: %w", path, err)
	}
	for _, name := range []string{"session_id", "serp_index", "time_passed", "query", "results", "click_ranks", "click_times"} {
		if _, ok := pf.Schema().Lookup(name); !ok {
			if _, ok := pf.Schema().Lookup(name, "list", "element"); !ok {
				f.Close()
				return nil, nil, fmt.Errorf("sessions: %s: column %q missing: not a sessions.parquet file", path, name)
			}
		}
	}
	return f, pf, nil
}
