//go:build !linux

package atomicfile

import (
	"fmt"
	"os"
	"time"
)

// changeTime returns the modification time of path (outside Linux, where
// the status-change time is not read portably): a file copied with its
// times preserved can then pass for an earlier output's.
func changeTime(path string) (time.Time, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return time.Time{}, fmt.Errorf("stat %s: %w", path, err)
	}
	return st.ModTime(), nil
}
