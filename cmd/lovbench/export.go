package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newExportCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "export",
		Short:   "Write the benchmark: ground truth, folds, Parquet and Arrow",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("export: not implemented yet")
		},
	}
}
