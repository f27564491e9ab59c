package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newFitCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "fit",
		Short:   "Fit click models by EM and evaluate them",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("fit: not implemented yet")
		},
	}
}
