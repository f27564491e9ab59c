// Package filehash computes the SHA-256 of files, the checksum every
// lovbench manifest, features file and Croissant description records
// (docs/dataset.md).
package filehash

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// SHA256 returns the lowercase hex SHA-256 of the bytes of the file p.
func SHA256(p string) (string, error) {
	_, sum, err := SizeSHA256(p)
	return sum, err
}

// SizeSHA256 returns the number of bytes of the file p and their lowercase
// hex SHA-256, from one read of the file.
func SizeSHA256(p string) (int64, string, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	n, sum, err := ReaderSizeSHA256(f)
	if err != nil {
		return 0, "", fmt.Errorf("%s: %w", p, err)
	}
	return n, sum, nil
}

// ReaderSizeSHA256 returns the number of bytes r holds up to its end and
// their lowercase hex SHA-256.
func ReaderSizeSHA256(r io.Reader) (int64, string, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}
