package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newLTRCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "ltr",
		Short:   "Train and evaluate rankers on the folds",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("ltr: not implemented yet")
		},
	}
}
