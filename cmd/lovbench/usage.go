package main

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/internal/atomicfile"
)

// isCobraUsage recognises the errors cobra itself returns for a bad command
// line (unknown command, wrong number of arguments), which carry no type.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "requires at most", "received ", "unknown flag", "unknown shorthand", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// exactArgs is cobra.ExactArgs whose error is a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// printJSON writes v to w as indented JSON (the --json output of commands).
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// checkOutputs refuses, as a usage error, outputs that would write over an
// input (atomicfile.CheckOutputs); commands call it before reading
// anything.
func checkOutputs(inputs, outputs paths) error {
	if err := atomicfile.CheckOutputs(inputs, outputs); err != nil {
		return usageError{err}
	}
	return nil
}

// paths are the files of a command line, each with its flag, for
// checkOutputs.
type paths []atomicfile.Arg

// add returns l with each of ps named by flag.
func (l paths) add(flag string, ps ...string) paths {
	for _, p := range ps {
		l = append(l, atomicfile.Arg{Flag: flag, Path: p})
	}
	return l
}
