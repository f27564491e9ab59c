package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newSampleCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "sample",
		Short:   "Sample LETOR-style query-term sets",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("sample: not implemented yet")
		},
	}
}
