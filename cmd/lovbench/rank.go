package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newRankCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "rank",
		Short:   "Apply a saved ranking model to SVMlight data",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("rank: not implemented yet")
		},
	}
}
