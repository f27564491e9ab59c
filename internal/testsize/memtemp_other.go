//go:build !linux

package testsize

// memoryFSFree: no memory file system is looked for off Linux.
func memoryFSFree(string) (uint64, bool) { return 0, false }
