package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newFeaturesCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "features",
		Short:   "Extract the 33 LOVBench ranking features for query-term pairs",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("features: not implemented yet")
		},
	}
}
