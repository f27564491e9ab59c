package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/internal/buildinfo"
)

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the module version and VCS revision of this build",
		Long:    `version prints the module version ("(devel)" for a build from a source tree) and the VCS revision ("unknown" when the build recorded none, e.g. with -buildvcs=false) of this binary; lovbench --version prints the same.`,
		Example: "  lovbench version\n  lovbench --version",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(a.stdout, "lovbench "+buildinfo.Line())
			return err
		},
	}
}
