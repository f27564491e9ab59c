package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/pipeline"
)

func newDiffCmd(a *app) *cobra.Command {
	var (
		workdir string
		asJSON  bool
	)
	cmd := &cobra.Command{
		Use:   "diff RELEASE_A RELEASE_B",
		Short: "List the queries and labels that changed between two releases",
		Long: `diff compares the ground truth (ground_truth.csv) of two releases: queries
added and removed, and (query, term) pairs added, removed or relabelled.
A release is a directory (or a ground_truth.csv file); with --workdir, a bare
name such as 20261101T030000Z or latest is looked up in WORKDIR/releases.`,
		Example: `  lovbench diff --workdir /srv/lovbench 20261001T030000Z latest
  lovbench diff releases/20261001T030000Z releases/20261101T030000Z --json`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			paths := make([]string, 2)
			for i, r := range args {
				paths[i] = r
				if _, err := os.Stat(r); err != nil && workdir != "" {
					paths[i] = filepath.Join(workdir, "releases", r)
				}
			}
			d, err := pipeline.Diff(paths[0], paths[1])
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(d)
			}
			fmt.Fprintf(a.stdout, "queries: %d -> %d (+%d -%d); pairs: %d -> %d (+%d -%d, %d relabelled)\n",
				d.QueriesA, d.QueriesB, len(d.QueriesAdded), len(d.QueriesRemoved), d.PairsA, d.PairsB, d.Added, d.Removed, d.Changed)
			for _, q := range d.QueriesAdded {
				fmt.Fprintf(a.stdout, "+ query %q\n", q)
			}
			for _, q := range d.QueriesRemoved {
				fmt.Fprintf(a.stdout, "- query %q\n", q)
			}
			for _, c := range d.Labels {
				switch c.Kind {
				case "added":
					fmt.Fprintf(a.stdout, "+ %q %s label %d\n", c.Query, c.Term, *c.New)
				case "removed":
					fmt.Fprintf(a.stdout, "- %q %s label %d\n", c.Query, c.Term, *c.Old)
				default:
					fmt.Fprintf(a.stdout, "~ %q %s label %d -> %d\n", c.Query, c.Term, *c.Old, *c.New)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&workdir, "workdir", "", "work directory whose releases/ holds named releases")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the differences as JSON")
	return cmd
}
