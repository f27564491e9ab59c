package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newSearchCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "search",
		Short:   "Search a vocabulary corpus the way LOV ranks terms",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("search: not implemented yet")
		},
	}
}
