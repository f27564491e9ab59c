package testsize

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
)

// ToolDir returns a directory, made if missing, where the tests of this
// checkout keep an executable they build with the go command (name tells
// the executables apart: "crashtest", "readme-bin"). It is kept between
// runs, under the user's cache directory and a key of the checkout's
// root (the directory of go.mod above the working directory), so that
// the go command finds the executable up to date and does not link it
// again: go build -o and go install compare the file's build ID with the
// sources' and rewrite it when any source changed. Linking cmd/lovbench
// costs 1.5-3 CPU-s; a build that finds it up to date 0.4. Two checkouts
// get two directories; nothing else is written there.
func ToolDir(name string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(cache, "lovbench-test", hex.EncodeToString(sum[:6]), name)
	return dir, os.MkdirAll(dir, 0o755)
}

// moduleRoot is the nearest directory at or above the working directory
// that holds a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("testsize: no go.mod at or above the working directory")
		}
		dir = up
	}
}
