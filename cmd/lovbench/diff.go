package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newDiffCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "diff",
		Short:   "List queries and labels that changed between two releases",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("diff: not implemented yet")
		},
	}
}
