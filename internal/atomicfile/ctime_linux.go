//go:build linux

package atomicfile

import (
	"fmt"
	"syscall"
	"time"
)

// changeTime returns the status-change time (ctime) of path, without
// following a final symbolic link. The kernel sets it on every write,
// rename, chmod or utimes; no user call can set it back, so a file copied
// with its times preserved still shows when it arrived.
func changeTime(path string) (time.Time, error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return time.Time{}, fmt.Errorf("stat %s: %w", path, err)
	}
	return time.Unix(st.Ctim.Sec, st.Ctim.Nsec), nil
}
