package sessions

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A log's sidecar says it was simulated and records the log's size and
// SHA-256 (computed here with crypto/sha256); CarryProvenance passes it to
// a derived file; a file without a sidecar has none; a sidecar whose file
// was edited is stale and not carried.
func TestProvenanceSidecar(t *testing.T) {
	dir := t.TempDir()
	log, derived := filepath.Join(dir, "log.tsv"), filepath.Join(dir, "labels.csv")
	content := []byte("1\t0\tQ\t0\t0\tfoaf:Person\n")
	if err := os.WriteFile(log, content, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(derived, []byte("query,term,label,probability\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := ReadProvenance(log); p != nil || err != nil {
		t.Fatalf("no sidecar: %+v %v", p, err)
	}
	if p, err := CarryProvenance(log, derived); p != nil || err != nil {
		t.Fatalf("carry without a sidecar: %+v %v", p, err)
	}
	if _, err := os.Stat(ProvenanceFile(derived)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a sidecar made from nothing: %v", err)
	}
	if err := WriteProvenance(log, Provenance{Simulated: true, Simulation: "10 SERPs"}); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(content)
	p, err := ReadProvenance(log)
	if err != nil || p == nil || !p.Simulated || p.Simulation != "10 SERPs" || p.Bytes != int64(len(content)) || p.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("read back %+v %v", p, err)
	}
	if p, err := CarryProvenance(log, derived); err != nil || p == nil {
		t.Fatalf("carry: %+v %v", p, err)
	}
	q, err := ReadProvenance(derived)
	if err != nil || q == nil || !q.Simulated || q.Simulation != "10 SERPs" || q.Bytes != 29 {
		t.Fatalf("carried %+v %v", q, err)
	}
	// The log edited, same size: its sidecar no longer describes it.
	content[0] = '2'
	if err := os.WriteFile(log, content, 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := ReadProvenance(log); p != nil || !errors.Is(err, ErrStaleProvenance) {
		t.Fatalf("edited log: %+v %v", p, err)
	}
	os.Remove(ProvenanceFile(derived))
	if p, err := CarryProvenance(log, derived); p != nil || !errors.Is(err, ErrStaleProvenance) {
		t.Fatalf("carry of a stale sidecar: %+v %v", p, err)
	}
	if _, err := os.Stat(ProvenanceFile(derived)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a stale provenance carried: %v", err)
	}
}
