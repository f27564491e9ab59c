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
func Load(path string) (*Log, error) { return load(path, true) }

// LoadForFit is Load for a click-model fit whose split does not group
// SERPs by user session (PyClick's split in file order, or a random one).
// It keeps the SERP columns and the query and document dictionaries only:
//   - no user sessions: Session is nil and Sessions empty, as in a log
//     built for fitting only (a 5 M-SERP log has 5 M session IDs, about a
//     third of what Load holds);
//   - the dictionaries' string-to-ID indexes are dropped once the log is
//     read (Dict.DropIndex): Names stay, Lookup finds nothing and ID must
//     not be called.
//
// Every SERP, query, document and click is the same as with Load.
func LoadForFit(path string) (*Log, error) {
	log, err := load(path, false)
	if err != nil {
		return nil, err
	}
	log.Queries.DropIndex()
	log.Docs.DropIndex()
	return log, nil
}

func load(path string, withSessions bool) (*Log, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	if st.IsDir() {
		p := filepath.Join(path, ParquetName)
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("sessions: %s is a directory without %s (not an ingest output directory)", path, ParquetName)
		}
		return loadParquet(p, withSessions)
	}
	if isParquet(path) {
		return loadParquet(path, withSessions)
	}
	rc, err := Open(path)
	if err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	defer rc.Close()
	log, _, err := readYandex(rc, path, true, withSessions)
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

func loadParquet(path string, withSessions bool) (*Log, error) {
	log := &Log{}
	err := ScanParquet(path, func(s *SERP) error {
		if err := log.add(s, withSessions); err != nil {
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
