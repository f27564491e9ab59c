package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newRunCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "run",
		Short:   "Run the pipeline from a config file, cron-safe",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("run: not implemented yet")
		},
	}
}
