package features

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/lovbench/lovbench/features/rdf"
	"github.com/lovbench/lovbench/internal/filehash"
)

// Keys of the Parquet key-value metadata in which a features file records
// how it was computed (Origin). docs/features.md describes them.
const (
	MetaSemantics    = "lovbench.features.semantics"
	MetaCorpusSHA256 = "lovbench.features.corpus_sha256"
	MetaVersion      = "lovbench.features.version"
)

// Origin is how a features table was computed: the feature semantics, the
// digest of the corpus (CorpusDigest) and the program version. A Parquet
// features file carries it in its key-value metadata (MetaSemantics,
// MetaCorpusSHA256, MetaVersion); a CSV features file cannot.
type Origin struct {
	Semantics    Semantics `json:"semantics,omitempty"`
	CorpusSHA256 string    `json:"corpus_sha256,omitempty"`
	Version      string    `json:"version,omitempty"`
}

// Meta returns the key-value metadata of o, in a fixed order; empty fields
// are left out.
func (o Origin) Meta() [][2]string {
	var kv [][2]string
	for _, p := range [][2]string{{MetaSemantics, string(o.Semantics)}, {MetaCorpusSHA256, o.CorpusSHA256}, {MetaVersion, o.Version}} {
		if p[1] != "" {
			kv = append(kv, p)
		}
	}
	return kv
}

// OriginFromMeta reads an Origin from the key-value metadata of a features
// file. ok is false when the file records no semantics (a file written
// before features recorded its origin, or by another program); a recorded
// semantics that is not known is an error.
func OriginFromMeta(meta map[string]string) (o Origin, ok bool, err error) {
	s, ok := meta[MetaSemantics]
	if !ok {
		return Origin{}, false, nil
	}
	if s == "" {
		return Origin{}, false, fmt.Errorf("metadata %s is empty", MetaSemantics)
	}
	sem, err := ParseSemantics(s)
	if err != nil {
		return Origin{}, false, fmt.Errorf("metadata %s: %w", MetaSemantics, err)
	}
	return Origin{Semantics: sem, CorpusSHA256: meta[MetaCorpusSHA256], Version: meta[MetaVersion]}, true, nil
}

// CorpusDigest returns the SHA-256 that identifies a corpus by content:
// the files Load reads for paths, in the order it reads them (each path in
// turn, directories as rdf.Files lists them), then the prefix file if not
// empty; the digest is the SHA-256 of one line per file holding the
// lowercase hex SHA-256 of the file's bytes as stored (gzip files
// compressed). File names and places do not count, so a moved or renamed
// corpus keeps its digest. For files a, b in that order it equals
//
//	sha256sum a b | cut -c1-64 | sha256sum
func CorpusDigest(ctx context.Context, paths []string, prefixes string) (string, error) {
	var files []string
	for _, p := range paths {
		fs, err := rdf.Files(p)
		if err != nil {
			return "", fmt.Errorf("corpus %s: %w", p, err)
		}
		files = append(files, fs...)
	}
	if prefixes != "" {
		files = append(files, prefixes)
	}
	all := sha256.New()
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		sum, err := filehash.SHA256(f)
		if err != nil {
			return "", err
		}
		io.WriteString(all, sum+"\n")
	}
	return hex.EncodeToString(all.Sum(nil)), nil
}
