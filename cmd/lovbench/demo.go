package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newDemoCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "demo",
		Short:   "Run the whole pipeline on the embedded demo data",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("demo: not implemented yet")
		},
	}
}
