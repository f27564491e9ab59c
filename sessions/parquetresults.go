package sessions

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// ScanParquetResults reads only the query and results columns of a
// sessions.parquet file and calls fn for each SERP in file order with its
// query and its result IDs in rank order. The other columns (session,
// times, region, clicks) are neither decoded nor checked, which makes it
// several times faster than ScanParquet for a reader that needs no more
// (label's choice of first SERPs). fn runs on the caller's goroutine
// while another decodes the next row group. The byte slices passed to fn
// are only valid during the call: a caller that keeps one copies it. An
// error of fn stops the scan and is returned as is.
func ScanParquetResults(path string, fn func(query []byte, results [][]byte) error) error {
	return scanResults(path, false, func(b *resultsBatch, i int, results [][]byte) error {
		return fn(b.qbuf[b.qoff[i]:b.qoff[i+1]], results)
	})
}

// ScanParquetSessionResults is ScanParquetResults that also reads the
// session_id column and counts each SERP's clicks (the click_ranks
// column; times are not read): what the choice of SERPs of sessions with
// a click needs (SessionRuns).
func ScanParquetSessionResults(path string, fn func(session, query []byte, results [][]byte, clicks int) error) error {
	return scanResults(path, true, func(b *resultsBatch, i int, results [][]byte) error {
		return fn(b.sbuf[b.soff[i]:b.soff[i+1]], b.qbuf[b.qoff[i]:b.qoff[i+1]], results, b.clicks[i])
	})
}

// scanResults runs ScanParquetResults, withSessions also decoding the
// session and click columns into the batches; fn gets the batch, the
// row's index in it and its results.
func scanResults(path string, withSessions bool, fn func(b *resultsBatch, i int, results [][]byte) error) error {
	f, pf, err := openParquet(path, &parquet.FileConfig{SkipPageIndex: true, SkipBloomFilters: true})
	if err != nil {
		return err
	}
	defer f.Close()
	qcol, ok := pf.Schema().Lookup("query")
	if !ok || qcol.MaxRepetitionLevel != 0 {
		return fmt.Errorf("sessions: %s: column %q is not a flat string column", path, "query")
	}
	rcol, ok := pf.Schema().Lookup("results", "list", "element")
	if !ok || rcol.MaxRepetitionLevel != 1 {
		return fmt.Errorf("sessions: %s: column %q is not a list of strings", path, "results")
	}
	var scol, ccol parquet.LeafColumn
	if withSessions {
		if scol, ok = pf.Schema().Lookup("session_id"); !ok || scol.MaxRepetitionLevel != 0 {
			return fmt.Errorf("sessions: %s: column %q is not a flat string column", path, "session_id")
		}
		if ccol, ok = pf.Schema().Lookup("click_ranks", "list", "element"); !ok || ccol.MaxRepetitionLevel != 1 {
			return fmt.Errorf("sessions: %s: column %q is not a list of integers", path, "click_ranks")
		}
	}
	// One goroutine decodes row groups while fn runs on the previous one:
	// decoding is about a third of a label pass.
	full := make(chan *resultsBatch, 1)
	free := make(chan *resultsBatch, 2)
	for range 2 {
		free <- &resultsBatch{}
	}
	stop, decoded := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(decoded)
		defer close(full)
		d := resultsDecoder{path: path, qcol: qcol.ColumnIndex, rcol: rcol.ColumnIndex, maxDef: rcol.MaxDefinitionLevel, vals: make([]parquet.Value, 1024), scol: -1}
		if withSessions {
			d.scol, d.ccol, d.cmaxDef = scol.ColumnIndex, ccol.ColumnIndex, ccol.MaxDefinitionLevel
		}
		row := int64(0)
		for _, rg := range pf.RowGroups() {
			var b *resultsBatch
			select {
			case b = <-free:
			case <-stop:
				return
			}
			b.err = d.decode(rg, row, b)
			row += rg.NumRows()
			select {
			case full <- b:
			case <-stop:
				return
			}
			if b.err != nil {
				return
			}
		}
	}()
	defer func() {
		close(stop)
		<-decoded // the decoder reads f, closed on return
	}()
	var results [][]byte
	for b := range full {
		if b.err != nil {
			return b.err
		}
		for i := 0; i+1 < len(b.qoff); i++ {
			results = results[:0]
			for j := b.rows[i]; j < b.rows[i+1]; j++ {
				results = append(results, b.rbuf[b.roff[j]:b.roff[j+1]])
			}
			if err := fn(b, i, results); err != nil {
				return err
			}
		}
		free <- b
	}
	return nil
}

// resultsBatch is one row group's queries and results, decoded.
type resultsBatch struct {
	qbuf []byte // the queries, back to back
	qoff []int  // query i is qbuf[qoff[i]:qoff[i+1]]
	rbuf []byte // the results, back to back
	roff []int  // result j is rbuf[roff[j]:roff[j+1]]
	rows []int  // row i's results are j in [rows[i], rows[i+1])
	// With sessions (ScanParquetSessionResults): row i's session is
	// sbuf[soff[i]:soff[i+1]] and clicks[i] its number of clicks.
	sbuf   []byte
	soff   []int
	clicks []int
	err    error
}

// resultsDecoder decodes the query and results columns of row groups.
type resultsDecoder struct {
	path       string
	qcol, rcol int // column indexes
	maxDef     int // of results' elements
	vals       []parquet.Value
	// scol < 0: the session and click columns are not read; else their
	// column indexes and click_ranks' elements' definition level.
	scol, ccol, cmaxDef int
}

// readColumn calls add for every value of column chunk cc, in order.
func (d *resultsDecoder) readColumn(cc parquet.ColumnChunk, name string, add func(v *parquet.Value) error) error {
	pages := cc.Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("sessions: %s: column %s: %w", d.path, name, err)
		}
		vr := p.Values()
		for {
			n, err := vr.ReadValues(d.vals)
			for i := range d.vals[:n] {
				if aerr := add(&d.vals[i]); aerr != nil {
					parquet.Release(p)
					return aerr
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				parquet.Release(p)
				return fmt.Errorf("sessions: %s: column %s: %w", d.path, name, err)
			}
		}
		parquet.Release(p)
	}
}

// readStrings reads the flat string column chunk cc (named name) of a
// row group of nrows rows, whose first row is row of the file, into buf
// back to back, value i being buf[off[i]:off[i+1]] (buf and off are
// reused).
func (d *resultsDecoder) readStrings(cc parquet.ColumnChunk, name string, row int64, nrows int, buf []byte, off []int) ([]byte, []int, error) {
	buf, off = buf[:0], append(off[:0], 0)
	err := d.readColumn(cc, name, func(v *parquet.Value) error {
		if v.IsNull() {
			return fmt.Errorf("sessions: %s: row %d: field %s is null", d.path, row+int64(len(off)), name)
		}
		buf = append(buf, v.ByteArray()...)
		off = append(off, len(buf))
		return nil
	})
	if err != nil {
		return buf, off, err
	}
	if len(off)-1 != nrows {
		return buf, off, fmt.Errorf("sessions: %s: column %s has %d values in a row group of %d rows", d.path, name, len(off)-1, nrows)
	}
	return buf, off, nil
}

// decode fills b with row group rg, whose first row is row (0-based) of
// the file. The values are copied: b outlives the pages.
func (d *resultsDecoder) decode(rg parquet.RowGroup, row int64, b *resultsBatch) error {
	nrows := int(rg.NumRows())
	chunks := rg.ColumnChunks()
	var err error
	if b.qbuf, b.qoff, err = d.readStrings(chunks[d.qcol], "query", row, nrows, b.qbuf, b.qoff); err != nil {
		return err
	}
	b.rbuf, b.roff, b.rows = b.rbuf[:0], append(b.roff[:0], 0), b.rows[:0]
	err = d.readColumn(chunks[d.rcol], "results", func(v *parquet.Value) error {
		if v.RepetitionLevel() == 0 {
			if len(b.rows) == nrows {
				return fmt.Errorf("sessions: %s: column results has more rows than the row group's %d", d.path, nrows)
			}
			b.rows = append(b.rows, len(b.roff)-1)
		} else if len(b.rows) == 0 {
			return fmt.Errorf("sessions: %s: column results starts inside a row", d.path)
		}
		if v.DefinitionLevel() == d.maxDef {
			b.rbuf = append(b.rbuf, v.ByteArray()...)
			b.roff = append(b.roff, len(b.rbuf))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(b.rows) != nrows {
		return fmt.Errorf("sessions: %s: column results has %d rows in a row group of %d rows", d.path, len(b.rows), nrows)
	}
	b.rows = append(b.rows, len(b.roff)-1)
	if d.scol < 0 {
		return nil
	}
	if b.sbuf, b.soff, err = d.readStrings(chunks[d.scol], "session_id", row, nrows, b.sbuf, b.soff); err != nil {
		return err
	}
	b.clicks = b.clicks[:0]
	err = d.readColumn(chunks[d.ccol], "click_ranks", func(v *parquet.Value) error {
		if v.RepetitionLevel() == 0 {
			if len(b.clicks) == nrows {
				return fmt.Errorf("sessions: %s: column click_ranks has more rows than the row group's %d", d.path, nrows)
			}
			b.clicks = append(b.clicks, 0)
		} else if len(b.clicks) == 0 {
			return fmt.Errorf("sessions: %s: column click_ranks starts inside a row", d.path)
		}
		if v.DefinitionLevel() == d.cmaxDef {
			b.clicks[len(b.clicks)-1]++
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(b.clicks) != nrows {
		return fmt.Errorf("sessions: %s: column click_ranks has %d rows in a row group of %d rows", d.path, len(b.clicks), nrows)
	}
	return nil
}
