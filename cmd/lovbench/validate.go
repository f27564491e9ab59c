package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newValidateCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "validate",
		Short:   "Check a dataset directory written by export",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("validate: not implemented yet")
		},
	}
}
