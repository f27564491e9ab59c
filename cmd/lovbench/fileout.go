package main

import (
	"os"
	"path/filepath"
)

// fileOutputs refuses, as a usage error before any work, a file output
// (--out of label and sample, their --quarantine and --report) that names
// an existing directory: the file is written beside it and renamed over
// it at the end, which fails with the system's "rename ...: file exists"
// after the whole stage has run. name is the file the message suggests
// inside the directory.
func fileOutputs(outs paths, name string) error {
	for _, o := range outs {
		if o.Path == "" {
			continue
		}
		if st, err := os.Stat(o.Path); err == nil && st.IsDir() {
			return usagef("%s %s is a directory; give the name of the file to write, e.g. %s", o.Flag, o.Path, filepath.Join(o.Path, name))
		}
	}
	return nil
}
