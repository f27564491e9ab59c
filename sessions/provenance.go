package sessions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/filehash"
)

// Provenance is what is known of where a log came from, carried from the
// log to every file derived from it (sessions, labels, ground truth) and
// so to the dataset card: today, whether the log was simulated (lovbench
// simulate, or the simulate stage of demo and run) rather than collected
// from an engine's users.
//
// A log's formats cannot say it themselves: the Yandex TSV has no room for
// a comment that PyClick and other readers of the format would not take
// for a record. So the provenance of a file F is a sidecar file beside it,
// ProvenanceFile(F) = F + ".provenance.json", written atomically, which
// records the size and SHA-256 of F: a sidecar that does not describe the
// file beside it (the file was edited or replaced) is not trusted
// (ErrStaleProvenance), and a file without one has no known provenance.
type Provenance struct {
	// Simulated is set when the log was simulated, not collected from users.
	Simulated bool `json:"simulated"`
	// Simulation describes the simulation (SERPs, queries, click model,
	// seed), when Simulated.
	Simulation string `json:"simulation,omitempty"`
	// Bytes and SHA256 are the size and SHA-256 of the file the sidecar
	// describes.
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// ProvenanceFile is the sidecar file that holds the provenance of path.
func ProvenanceFile(path string) string { return path + ".provenance.json" }

// ErrStaleProvenance is returned (wrapped) by ReadProvenance when the
// sidecar of a file does not describe it: its size or SHA-256 differs.
var ErrStaleProvenance = errors.New("the provenance file does not describe the file beside it (edited or replaced since?)")

// WriteProvenance writes the sidecar of path (ProvenanceFile) with p and
// the size and SHA-256 path has now.
func WriteProvenance(path string, p Provenance) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	sum, err := filehash.SHA256(path)
	if err != nil {
		return err
	}
	p.Bytes, p.SHA256 = st.Size(), sum
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(ProvenanceFile(path), append(b, '\n'))
}

// ReadProvenance returns the provenance of path from its sidecar: nil
// without one; an error wrapping ErrStaleProvenance when the sidecar does
// not describe path as it is; another error when the sidecar cannot be
// read or parsed.
func ReadProvenance(path string) (*Provenance, error) {
	side := ProvenanceFile(path)
	b, err := os.ReadFile(side)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var p Provenance
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", side, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() != p.Bytes {
		return nil, fmt.Errorf("%s: %w: it records %d bytes, %s has %d", side, ErrStaleProvenance, p.Bytes, path, st.Size())
	}
	sum, err := filehash.SHA256(path)
	if err != nil {
		return nil, err
	}
	if sum != p.SHA256 {
		return nil, fmt.Errorf("%s: %w: it records SHA-256 %s, %s has %s", side, ErrStaleProvenance, p.SHA256, path, sum)
	}
	return &p, nil
}

// CarryProvenance gives the file to the provenance of the file from
// (ReadProvenance), when from has one, and returns it (nil when from has
// none). A sidecar that no longer describes from is not carried: the
// error wraps ErrStaleProvenance and the caller decides (the commands log
// a warning and go on without it).
func CarryProvenance(from, to string) (*Provenance, error) {
	p, err := ReadProvenance(from)
	if err != nil || p == nil {
		return nil, err
	}
	if err := WriteProvenance(to, Provenance{Simulated: p.Simulated, Simulation: p.Simulation}); err != nil {
		return nil, err
	}
	return p, nil
}
