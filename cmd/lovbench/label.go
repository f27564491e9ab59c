package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newLabelCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "label",
		Short:   "Turn click-model relevance into graded labels",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("label: not implemented yet")
		},
	}
}
