package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/export"
	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/internal/textio"
)

func newValidateCmd(a *app) *cobra.Command {
	var asJSON, allowDegenerate bool
	cmd := &cobra.Command{
		Use:   "validate DIR",
		Short: "Check a dataset directory written by export",
		Long: `validate re-reads a dataset directory and checks it: checksums and sizes
match the manifest and no file is unlisted; the ground truth, Parquet, Arrow,
qrels and fold files hold the same rows; feature columns 1..33 are all there
and finite; each query has one qid and one partition; the folds follow the
LETOR rotation with train, vali and test disjoint; every query is in exactly
one test fold; the partition files hold the rows of their partition, with
dataset.parquet's schema (types and nullable columns, nulls in place); the
card's front matter has only fields the Hugging Face Hub documents and its
configs name files that exist; croissant.json has what Croissant 1.0
requires and its checksums match the files. It exits 1 and lists the
problems if the directory is invalid. A valid dataset with a feature column
that has one value in every row gets a warning (such a feature cannot rank).

A dataset whose files are sound but that is below the minimums of a
benchmark (5 test queries in every fold, one with a relevant label; the
check run and demo make, docs/method.md) is not valid either: validate
lists what is missing and exits 1, unless --allow-degenerate, which accepts
it with a warning.`,
		Example: `  lovbench validate dataset/
  lovbench validate --json dataset/`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := export.Validate(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(v); err != nil {
					return err
				}
			} else if v.Valid && len(v.Degenerate) > 0 && !allowDegenerate {
				fmt.Fprintf(a.stdout, "%s: sound files (%d rows, %d queries, %d folds), but too small to be a benchmark:\n", v.Dir, v.Rows, v.Queries, v.Folds)
				for _, p := range v.Degenerate {
					fmt.Fprintln(a.stdout, p)
				}
			} else if v.Valid {
				fmt.Fprintf(a.stdout, "%s: valid (%d rows, %d queries, %d folds)\n", v.Dir, v.Rows, v.Queries, v.Folds)
				if len(v.Degenerate) > 0 {
					fmt.Fprintf(a.stdout, "warning: below the minimums of a benchmark, accepted because of --allow-degenerate: %s\n", strings.Join(v.Degenerate, "; "))
				}
				if note := export.ExtremeNote(v.Extreme); note != "" {
					fmt.Fprintln(a.stdout, "note: "+note)
				}
				if note := features.ConstantNote(v.Constant, v.Rows); note != "" {
					fmt.Fprintln(a.stdout, "warning: "+note)
				}
				if note := export.CroissantNote(v.CroissantMissing); note != "" {
					fmt.Fprintln(a.stdout, "note: "+note)
				}
			} else {
				for _, p := range v.Problems {
					fmt.Fprintln(a.stdout, p)
				}
				if v.More > 0 {
					fmt.Fprintf(a.stdout, "... and %s more\n", textio.Count(v.More, "problem", "problems"))
				}
			}
			if !v.Valid {
				return fmt.Errorf("validate: %s is invalid: %s", v.Dir, textio.Count(len(v.Problems)+v.More, "problem", "problems"))
			}
			if len(v.Degenerate) > 0 && !allowDegenerate {
				return fmt.Errorf("validate: %s is too small to be a benchmark: %s. Export it from more queries or into fewer folds (--folds), or pass --allow-degenerate to accept it", v.Dir, strings.Join(v.Degenerate, "; "))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	cmd.Flags().BoolVar(&allowDegenerate, "allow-degenerate", false, "accept a dataset below the minimums of a benchmark (5 test queries per fold, one with a relevant label), with a warning")
	return cmd
}
