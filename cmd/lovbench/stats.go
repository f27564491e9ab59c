package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newStatsCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "stats",
		Short:   "Print the log analysis of the LOVBench paper (section 4.1)",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("stats: not implemented yet")
		},
	}
}
