package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/pipeline"
)

func newDemoCmd(a *app) *cobra.Command {
	var (
		out            string
		serps, queries int
		seed           uint64
		asJSON         bool
		degenerate     bool
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole pipeline on a log simulated over the embedded vocabularies",
		Long: `demo simulates a click log over the vocabularies embedded in the binary
(queries from term labels with Zipf popularity, SERPs from the corpus search,
clicks from UBM on a hidden true relevance), then runs every stage of
lovbench run on it in DIR (a work directory: rerunning reuses unchanged
stages) and prints where the report is. The report shows how well the
inferred labels recover the hidden truth. A log too small for a benchmark
(a fold's test set with fewer than 5 queries or none with a relevant
label) fails with exit 1 unless --allow-degenerate.`,
		Example: `  lovbench demo --out /tmp/lovbench-demo
  lovbench demo --out /tmp/lovbench-demo --serps 20000 --queries 400 --seed 7`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("demo: --out is required")
			}
			start := time.Now()
			cfg := pipeline.DemoConfig(out, serps, queries, seed)
			res, err := pipeline.Run(cmd.Context(), cfg, pipeline.RunOptions{Log: a.log, Progress: a.progress(), AllowDegenerate: degenerate})
			if err != nil {
				return err
			}
			if err := printRunResult(a, res, asJSON); err != nil {
				return err
			}
			if !asJSON {
				fmt.Fprintf(a.stdout, "demo finished in %.1fs; open %s\n", time.Since(start).Seconds(), res.Report)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "work directory for the demo (created)")
	intVar(cmd.Flags(), &serps, "serps", 40000, atLeast(1), "SERPs to simulate")
	intVar(cmd.Flags(), &queries, "queries", 400, atLeast(1), "distinct queries")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the simulation, sampling, folds and rankers")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the run summary as JSON")
	cmd.Flags().BoolVar(&degenerate, "allow-degenerate", false, "publish a dataset below the minimums of a benchmark (5 test queries per fold, one with a relevant label), with a warning banner in the report")
	return cmd
}
