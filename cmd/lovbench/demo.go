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
		profile        string
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
stages) and prints where the report is. The report compares the label
shares with LOVBench's and shows how well the inferred labels recover the
hidden truth. A log too small for a benchmark (a fold's test set with fewer
than 5 queries or none with a relevant label) fails with exit 1 unless
--allow-degenerate.

--profile chooses the log (docs/pipeline.md):
  lovbench  (default) shaped like LOVBench's log: 2,000 SERPs whose
            queries are drawn from a pool of 400 by Zipf popularity (220
            distinct queries appear at seed 1), few clicks per result,
            users who come back to the results page after a click; label
            shares within 5 points of LOVBench's Table 4, labels that
            follow the hidden relevance only loosely
  dense     40,000 SERPs drawn from the same pool of 400 queries (all 400
            appear), many clicks per result; labels that recover the
            hidden relevance well (Pearson about 0.9)
--serps and --queries override the profile's sizes (--queries is the size
of the pool).`,
		Example: `  lovbench demo --out /tmp/lovbench-demo
  lovbench demo --out /tmp/lovbench-dense --profile dense
  lovbench demo --out /tmp/lovbench-demo --serps 20000 --queries 400 --seed 7`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("demo: --out is required")
			}
			start := time.Now()
			p, err := pipeline.ParseDemoProfile(profile)
			if err != nil {
				return usagef("demo: --profile: %v", err)
			}
			cfg := pipeline.DemoConfig(out, p, serps, queries, seed)
			res, err := pipeline.Run(cmd.Context(), cfg, pipeline.RunOptions{Log: a.pipelineLog(), Progress: a.progress(), AllowDegenerate: degenerate,
				Remedy: "a larger log (more --serps and --queries)"})
			if err != nil {
				return err
			}
			if err := printRunResult(a, res, asJSON); err != nil {
				return err
			}
			if !asJSON && !a.quiet {
				fmt.Fprintf(a.stdout, "demo finished in %.1fs; open %s\n", time.Since(start).Seconds(), res.Report)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "work directory for the demo (created)")
	cmd.Flags().StringVar(&profile, "profile", string(pipeline.DemoLOVBench), "simulated log: lovbench (LOVBench's label shares) or dense (many clicks per result)")
	intVar(cmd.Flags(), &serps, "serps", 0, atLeast(1), "SERPs to simulate (default: the profile's, 2,000 for lovbench, 40,000 for dense)")
	intVar(cmd.Flags(), &queries, "queries", 0, atLeast(1), "size of the pool the SERPs' queries are drawn from by Zipf popularity; fewer distinct queries may appear (default: the profile's, 400)")
	uint64Var(cmd.Flags(), &seed, "seed", 1, "seed of the simulation, sampling, folds and rankers")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the run summary as JSON")
	cmd.Flags().BoolVar(&degenerate, "allow-degenerate", false, "publish a dataset below the minimums of a benchmark (5 test queries per fold, one with a relevant label), with a warning banner in the report")
	return cmd
}
