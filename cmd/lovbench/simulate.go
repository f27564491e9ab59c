package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newSimulateCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "simulate",
		Short:   "Simulate a click log from a click model with known parameters",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("simulate: not implemented yet")
		},
	}
}
