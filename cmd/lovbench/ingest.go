package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newIngestCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "ingest",
		Short:   "Clean raw LOV or Yandex search logs into sessions",
		Example: "  lovbench CMD --help",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("ingest: not implemented yet")
		},
	}
}
