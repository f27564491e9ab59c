package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newEvalCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "eval",
		Short:   "Evaluate TREC runs against qrels",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("eval: not implemented yet")
		},
	}
}
