package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newReportCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "report",
		Short:   "Write the HTML report of a workdir",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("report: not implemented yet")
		},
	}
}
