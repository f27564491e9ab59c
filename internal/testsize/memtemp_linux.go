package testsize

import "syscall"

// tmpfsMagic is statfs(2)'s file system type of tmpfs (TMPFS_MAGIC).
const tmpfsMagic = 0x01021994

// memoryFSFree returns the bytes left to an unprivileged user on dir's
// file system, and whether that file system is tmpfs.
func memoryFSFree(dir string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil || st.Type != tmpfsMagic {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}
