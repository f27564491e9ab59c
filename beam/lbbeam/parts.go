package lbbeam

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/internal/textio"
)

// Part is a byte range of one input log that holds whole sessions: the unit
// of work of the ingest pipeline. Parts of one file are numbered in file
// order, and the parts of all files in the order the files were given, so
// that merging the parts' outputs by Index gives what one sequential ingest
// gives.
type Part struct {
	Index int
	File  string
	// FileIndex is the position of File among the inputs; Start and End
	// are byte offsets (End exclusive); Whole marks a compressed file,
	// which is read as one part from its beginning.
	FileIndex  int
	Start, End int64
	Whole      bool
}

// isGzip reports whether the file starts with the gzip magic bytes.
func isGzip(ctx context.Context, path string) (bool, error) {
	f, err := openRead(ctx, path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var b [2]byte
	n, err := io.ReadFull(f, b[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false, pathErr(path, err)
	}
	return n == 2 && bytes.Equal(b[:], gzipMagic), nil
}

// InputError is an input log that cannot be read whole (a truncated or
// corrupt gzip stream), found before the pipeline runs: its message is
// one line naming the file, not a failed bundle's stack.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// checkGzip decompresses a gzip log to its end, so that a truncated or
// corrupt stream fails the run before the pipeline starts, with one error
// naming the file (lovbench ingest's error for the same file). It costs
// one more pass of decompression over each gzip log (docs in
// beam/README.md).
func checkGzip(ctx context.Context, path string) error {
	r, err := OpenText(ctx, path)
	if err != nil {
		return &InputError{pathErr(path, err)}
	}
	defer r.Close()
	if _, err := io.Copy(io.Discard, r); err != nil {
		return &InputError{pathErr(path, err)}
	}
	return nil
}

// CheckKept reads the report.json that the shard pipeline wrote in dir and
// returns ingest.NothingKept's error when no SERP was kept (an empty or
// binary log, every event quarantined or dropped), as lovbench ingest
// fails on the same log; nil otherwise.
func CheckKept(ctx context.Context, dir string) error {
	b, err := readFile(ctx, JoinPath(dir, ingest.ReportFile))
	if err != nil {
		return err
	}
	rep, err := ingest.DecodeReport(bytes.NewReader(b), ingest.ReportFile)
	if err != nil {
		return err
	}
	return ingest.NothingKept(rep, dir)
}

// PlanParts cuts the files into parts of about partSize bytes, at session
// boundaries (ingest.YandexPartStart), reading only a few lines around
// each cut point. A gzip file is one part, and so is a file named by a
// URL (gs://, s3://: IsRemote): Beam's file systems read a file from its
// beginning only, so a part in the middle of a remote file would cost a
// read of everything before it. Give a big remote log as several files
// to read it in parallel.
func PlanParts(files []string, partSize int64, maxLine int) ([]Part, error) {
	if partSize <= 0 {
		return nil, fmt.Errorf("part size must be positive, got %d", partSize)
	}
	ctx := context.Background()
	var parts []Part
	for fi, path := range files {
		gz, err := isGzip(ctx, path)
		if err != nil {
			return nil, err
		}
		size, err := fileSize(ctx, path)
		if err != nil {
			return nil, err
		}
		if gz {
			if err := checkGzip(ctx, path); err != nil {
				return nil, err
			}
		}
		if gz || IsRemote(path) {
			parts = append(parts, Part{Index: len(parts), File: path, FileIndex: fi, End: size, Whole: true})
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		starts := []int64{0}
		for at := partSize; at < size; at += partSize {
			b, err := ingest.YandexPartStart(f, size, at, maxLine)
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			if b > starts[len(starts)-1] && b < size {
				starts = append(starts, b)
			}
		}
		f.Close()
		starts = append(starts, size)
		for i := 0; i+1 < len(starts); i++ {
			parts = append(parts, Part{Index: len(parts), File: path, FileIndex: fi, Start: starts[i], End: starts[i+1]})
		}
		if size == 0 {
			parts = append(parts, Part{Index: len(parts), File: path, FileIndex: fi})
		}
	}
	return parts, nil
}

// partReader opens the bytes of a part (decompressed for a gzip file).
func partReader(ctx context.Context, p Part) (io.ReadCloser, error) {
	if p.Whole {
		return OpenText(ctx, p.File)
	}
	f, err := os.Open(p.File)
	if err != nil {
		return nil, err
	}
	var r io.Reader = io.NewSectionReader(f, p.Start, p.End-p.Start)
	if p.Start == 0 {
		r = textio.NewReader(r) // a leading BOM is no data, as in ingest
	}
	return struct {
		io.Reader
		io.Closer
	}{r, f}, nil
}
