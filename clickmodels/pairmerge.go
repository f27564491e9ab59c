package clickmodels

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// WritePairFile writes a pair file. A pair file holds a shard model's pairs while the models of a fit under
// a memory limit wait to be merged into the output files, so that no
// shard's names and values need stay in memory. It lives in the fit's
// temporary directory and is read back by a fileCursor. Per query, in the
// shard's order: one plus the log position of the query's first SERP, the
// query, the number of its pairs (unsigned varints; strings as varint
// length and bytes), then per pair the document and, if the model has
// them, the attractiveness and the satisfaction as little-endian float64
// bits, followed, with Evidence, by the pair's mean rank, its impressions
// (Evidence.Shown) and effective counts (K and N of attractiveness, then of
// satisfaction) and, for PBM and UBM (Evidence.Ranks), the bit set of the
// ranks it was shown at as a little-endian uint64, and, where the Gibbs
// sampler computed them (Evidence.Gibbs), its relevance's Beta
// (Evidence.RelAlpha, RelBeta) and, with GibbsSetting.Mean, mean
// (RelMean) as little-endian float64 bits. A 0 ends the file, so that a file cut between two queries is
// still known to be cut.
func WritePairFile(path string, sm ShardModel) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := bufio.NewWriterSize(f, 1<<16)
	var buf []byte
	m := sm.Model
	for p := 0; p < len(m.PairQuery); {
		q := m.PairQuery[p]
		end := p
		for end < len(m.PairQuery) && m.PairQuery[end] == q {
			end++
		}
		buf = binary.AppendUvarint(buf[:0], uint64(sm.QueryFirst[q])+1)
		buf = appendPairString(buf, m.QueryNames[q])
		buf = binary.AppendUvarint(buf, uint64(end-p))
		for ; p < end; p++ {
			buf = appendPairString(buf, m.DocNames[m.PairDoc[p]])
			if m.Attr != nil {
				buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(m.Attr[p]))
			}
			if m.Sat != nil {
				buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(m.Sat[p]))
			}
			if ev := m.Evidence; ev != nil {
				// The order fileCursor.emit reads.
				vals := [8]float64{ev.Rank[p], ev.Shown[p], ev.AttrK[p], ev.AttrN[p], infoOf(ev.AttrInfo, p)}
				n := 5
				if ev.SatK != nil {
					vals[5], vals[6], vals[7] = ev.SatK[p], ev.SatN[p], infoOf(ev.SatInfo, p)
					n = 8
				}
				for _, x := range vals[:n] {
					buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
				}
				if ev.Ranks != nil {
					buf = binary.LittleEndian.AppendUint64(buf, ev.Ranks[p])
				}
				if ev.RelAlpha != nil {
					buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(ev.RelAlpha[p]))
					buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(ev.RelBeta[p]))
				}
				if ev.RelMean != nil {
					buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(ev.RelMean[p]))
				}
			}
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	if err := w.WriteByte(0); err != nil {
		return err
	}
	return w.Flush()
}

func appendPairString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// fileCursor is a pairCursor over a pair file. A read error ends the
// cursor and is kept in *err (the first one) for the writer to return.
type fileCursor struct {
	path            string
	r               *bufio.Reader
	hasAttr, hasSat bool
	hasEv           bool
	hasRanks        bool // Evidence.Ranks (PBM, UBM)
	hasRel, hasMean bool // Evidence.RelAlpha and RelBeta, RelMean (the Gibbs sampler's)
	err             *error
	pos             int64
	q               string
	n               uint64
	ok              bool
	str             []byte
}

// openPairFile opens path and reads its first query's header.
func openPairFile(path string, hasAttr, hasSat, hasEv, hasRanks bool, gibbs *GibbsSetting, errp *error) (*fileCursor, *os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	c := &fileCursor{path: path, r: bufio.NewReaderSize(f, 1<<15), hasAttr: hasAttr, hasSat: hasSat, hasEv: hasEv, hasRanks: hasRanks, err: errp,
		hasRel: gibbs != nil, hasMean: gibbs != nil && gibbs.Mean}
	c.next()
	return c, f, nil
}

func (c *fileCursor) fail(err error) {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	if *c.err == nil {
		*c.err = fmt.Errorf("%s: %w", c.path, err)
	}
	c.ok = false
}

// next reads the next query's header; the end mark ends the cursor.
func (c *fileCursor) next() {
	pos1, err := binary.ReadUvarint(c.r)
	if err == nil && pos1 == 0 {
		c.ok = false
		return
	}
	pos := pos1 - 1
	if err != nil {
		c.fail(err)
		return
	}
	q, err := c.readString()
	if err != nil {
		c.fail(err)
		return
	}
	n, err := binary.ReadUvarint(c.r)
	if err != nil {
		c.fail(err)
		return
	}
	if pos > math.MaxInt64 || n == 0 {
		c.fail(fmt.Errorf("damaged pair file (position %d, %d pairs)", pos, n))
		return
	}
	c.pos, c.q, c.n, c.ok = int64(pos), q, n, true
}

func (c *fileCursor) readString() (string, error) {
	n, err := binary.ReadUvarint(c.r)
	if err != nil {
		return "", err
	}
	if n > 1<<30 {
		return "", fmt.Errorf("damaged pair file (string of %d bytes)", n)
	}
	if uint64(cap(c.str)) < n {
		c.str = make([]byte, n)
	}
	b := c.str[:n]
	if _, err := io.ReadFull(c.r, b); err != nil {
		return "", err
	}
	return string(b), nil
}

func (c *fileCursor) readFloat() (float64, error) {
	var b [8]byte
	if _, err := io.ReadFull(c.r, b[:]); err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b[:])), nil
}

func (c *fileCursor) head() (int64, bool) { return c.pos, c.ok }

func (c *fileCursor) emit(yield func(q, d string, v *pairVal) bool) bool {
	var v pairVal
	for range c.n {
		d, err := c.readString()
		v = pairVal{}
		if err == nil && c.hasAttr {
			v.a, err = c.readFloat()
		}
		if err == nil && c.hasSat {
			v.s, err = c.readFloat()
		}
		if c.hasEv {
			for _, x := range []*float64{&v.rank, &v.shown, &v.ak, &v.an, &v.ainfo, &v.sk, &v.sn, &v.sinfo}[:5+3*b2i(c.hasSat)] {
				if err == nil {
					*x, err = c.readFloat()
				}
			}
			if err == nil && c.hasRanks {
				var f float64
				f, err = c.readFloat()
				v.ranks = math.Float64bits(f)
			}
			for _, x := range []*float64{&v.relA, &v.relB, &v.relMean}[:2*b2i(c.hasRel)+b2i(c.hasMean)] {
				if err == nil {
					*x, err = c.readFloat()
				}
			}
		}
		if err != nil {
			c.fail(err)
			return false
		}
		if !yield(c.q, d, &v) {
			return false
		}
	}
	c.next()
	return c.ok || *c.err == nil
}

// spilledPairs is mergedPairs over pair files (WritePairFile); a read
// error stops the pairs and is returned by the writer.
func spilledPairs(m0 *Model, paths []string) *pairWriter {
	pw := shardPairWriter(m0)
	var readErr error
	pw.err = func() error { return readErr }
	pw.pairs = func(yield func(q, d string, v *pairVal) bool) {
		readErr = nil // each pass reads the files afresh
		cs := make([]pairCursor, 0, len(paths))
		for _, path := range paths {
			c, f, err := openPairFile(path, pw.hasAttr, pw.hasSat, pw.hasEv, pw.hasEv && pw.kind.ScaleRidge() && pw.ranks <= maxGraphRanks, pw.gibbs, &readErr)
			if err != nil {
				readErr = err
				return
			}
			defer f.Close()
			cs = append(cs, c)
		}
		if readErr == nil {
			mergePairs(cs, yield)
		}
	}
	return pw
}

// WriteModelFilesFromPairs writes the files of a model whose shards'
// pairs wait in the pair files at paths (WritePairFile), merged in log
// order; first is shard 0's model (the files' header) and pairs counts the
// pairs of all shards.
func WriteModelFilesFromPairs(outDir string, first *Model, paths []string, pairs int, format ParamsFileFormat) (*UncertaintyReport, error) {
	return writeModelFiles(outDir, func() *pairWriter { return spilledPairs(first, paths) }, pairs, format)
}
