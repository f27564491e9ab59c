package sessions

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

// ScanParquetResults reads only the query and results columns of a
// sessions.parquet file and calls fn for each SERP in file order with its
// query and its result IDs in rank order. The other columns (session,
// times, region, clicks) are neither decoded nor checked, which makes it
// several times faster than ScanParquet for a reader that needs no more
// (label's choice of first SERPs). The byte slices passed to fn are only
// valid during the call: a caller that keeps one copies it.
func ScanParquetResults(path string, fn func(query []byte, results [][]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("sessions: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("sessions: %w", err)
	}
	pf, err := parquet.OpenFile(f, st.Size(), &parquet.FileConfig{SkipPageIndex: true, SkipBloomFilters: true})
	if err != nil {
		return fmt.Errorf("sessions: %s: not a readable Parquet file: %w", path, err)
	}
	for _, name := range []string{"session_id", "serp_index", "time_passed", "query", "results", "click_ranks", "click_times"} {
		if _, ok := pf.Schema().Lookup(name); !ok {
			if _, ok := pf.Schema().Lookup(name, "list", "element"); !ok {
				return fmt.Errorf("sessions: %s: column %q missing: not a sessions.parquet file", path, name)
			}
		}
	}
	qcol, ok := pf.Schema().Lookup("query")
	if !ok || qcol.MaxRepetitionLevel != 0 {
		return fmt.Errorf("sessions: %s: column %q is not a flat string column", path, "query")
	}
	rcol, ok := pf.Schema().Lookup("results", "list", "element")
	if !ok || rcol.MaxRepetitionLevel != 1 {
		return fmt.Errorf("sessions: %s: column %q is not a list of strings", path, "results")
	}
	var (
		vals    = make([]parquet.Value, 1024)
		qbuf    []byte // the row group's queries, back to back
		qoff    []int  // query i is qbuf[qoff[i]:qoff[i+1]]
		rbuf    []byte // the current row's results, back to back
		roff    []int
		results [][]byte
		row     int64 // rows before the current row group
	)
	// readColumn calls add for every value of column chunk cc, in order.
	readColumn := func(cc parquet.ColumnChunk, name string, add func(v *parquet.Value) error) error {
		pages := cc.Pages()
		defer pages.Close()
		for {
			p, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("sessions: %s: column %s: %w", path, name, err)
			}
			vr := p.Values()
			for {
				n, err := vr.ReadValues(vals)
				for i := range vals[:n] {
					if aerr := add(&vals[i]); aerr != nil {
						parquet.Release(p)
						return aerr
					}
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					parquet.Release(p)
					return fmt.Errorf("sessions: %s: column %s: %w", path, name, err)
				}
			}
			parquet.Release(p)
		}
	}
	for _, rg := range pf.RowGroups() {
		nrows := int(rg.NumRows())
		chunks := rg.ColumnChunks()
		qbuf, qoff = qbuf[:0], append(qoff[:0], 0)
		err := readColumn(chunks[qcol.ColumnIndex], "query", func(v *parquet.Value) error {
			if v.IsNull() {
				return fmt.Errorf("sessions: %s: row %d: field query is null", path, row+int64(len(qoff)))
			}
			qbuf = append(qbuf, v.ByteArray()...)
			qoff = append(qoff, len(qbuf))
			return nil
		})
		if err != nil {
			return err
		}
		if len(qoff)-1 != nrows {
			return fmt.Errorf("sessions: %s: column query has %d values in a row group of %d rows", path, len(qoff)-1, nrows)
		}
		cur := -1 // the row whose results rbuf holds
		flush := func() error {
			if cur < 0 {
				return nil
			}
			results = results[:0]
			for i := 0; i+1 < len(roff); i++ {
				results = append(results, rbuf[roff[i]:roff[i+1]])
			}
			return fn(qbuf[qoff[cur]:qoff[cur+1]], results)
		}
		err = readColumn(chunks[rcol.ColumnIndex], "results", func(v *parquet.Value) error {
			if v.RepetitionLevel() == 0 {
				if err := flush(); err != nil {
					return err
				}
				cur++
				if cur >= nrows {
					return fmt.Errorf("sessions: %s: column results has more rows than the row group's %d", path, nrows)
				}
				rbuf, roff = rbuf[:0], append(roff[:0], 0)
			} else if cur < 0 {
				return fmt.Errorf("sessions: %s: column results starts inside a row", path)
			}
			if v.DefinitionLevel() == rcol.MaxDefinitionLevel {
				rbuf = append(rbuf, v.ByteArray()...)
				roff = append(roff, len(rbuf))
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := flush(); err != nil {
			return err
		}
		if cur+1 != nrows {
			return fmt.Errorf("sessions: %s: column results has %d rows in a row group of %d rows", path, cur+1, nrows)
		}
		row += int64(nrows)
	}
	return nil
}
