package sessions

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lovbench/lovbench/internal/textio"
)

// Open opens a plain or gzip-compressed file for reading, without a
// leading UTF-8 BOM; it is textio.Open (compression detected from the
// gzip magic bytes, errors name the file), kept here for callers of this
// package.
func Open(path string) (io.ReadCloser, error) { return textio.Open(path) }

// ParquetName is the name of the sessions file inside an ingest output
// directory.
const ParquetName = "sessions.parquet"

// Load reads sessions into a compact Log. path may be
//   - an ingest output directory (its sessions.parquet is read),
//   - a sessions.parquet file (recognised by the Parquet magic "PAR1"), or
//   - a Yandex relevance-prediction log, plain or gzip, read strictly with
//     PyClick's semantics (see ReadYandex).
func Load(path string) (*Log, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	if st.IsDir() {
		p := filepath.Join(path, ParquetName)
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("sessions: %s is a directory without %s (not an ingest output directory)", path, ParquetName)
		}
		return loadParquet(p)
	}
	if isParquet(path) {
		return loadParquet(path)
	}
	rc, err := Open(path)
	if err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	defer rc.Close()
	log, _, err := ReadYandex(rc, path, true)
	if err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	return log, nil
}

func isParquet(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var m [4]byte
	if _, err := io.ReadFull(f, m[:]); err != nil {
		return false
	}
	return string(m[:]) == "PAR1"
}

func loadParquet(path string) (*Log, error) {
	log := &Log{}
	err := ScanParquet(path, func(s *SERP) error {
		if err := log.Add(s); err != nil {
			return fmt.Errorf("sessions: %s: %w", path, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(log.Offsets) == 0 {
		log.Offsets = []int64{0}
	}
	return log, nil
}

// ParquetPath resolves path as sessions.Load does: for an ingest directory
// or a sessions.parquet file it returns the Parquet file and true; for
// anything else (a Yandex log) path and false.
func ParquetPath(path string) (string, bool, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", false, fmt.Errorf("sessions: %w", err)
	}
	if st.IsDir() {
		p := filepath.Join(path, ParquetName)
		if _, err := os.Stat(p); err != nil {
			return "", false, fmt.Errorf("sessions: %s is a directory without %s (not an ingest output directory)", path, ParquetName)
		}
		return p, true, nil
	}
	return path, isParquet(path), nil
}
