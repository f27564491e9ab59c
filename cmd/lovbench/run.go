package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/pipeline"
)

func newRunCmd(a *app) *cobra.Command {
	var (
		config, workdir string
		force           []string
		asJSON          bool
		degenerate      bool
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run every stage on real inputs in a work directory, skipping unchanged stages, and publish a release",
		Long: `run executes the whole benchmark construction described by a YAML
configuration (see examples/lovbench.yaml): ingest, click models, labels,
sampling, features, export, learning to rank and the report. Each stage's
output is named by a fingerprint of its inputs and parameters, so unchanged
stages are skipped; --force STAGE reruns one (or "all"). A lock refuses a
second concurrent run on the same work directory. Outputs are committed by
rename and the finished dataset is published as releases/TIMESTAMP with
releases/latest pointing at it, so a run killed at any point leaves no partial
output and is simply run again (safe for cron). A dataset below the minimums
of a benchmark (a fold's test set with fewer than 5 queries or none with a
relevant label) is not published (exit 1) unless --allow-degenerate.`,
		Example: `  lovbench run --config lovbench.yaml
  lovbench run --config lovbench.yaml --workdir /srv/lovbench --force fit
  lovbench run --config lovbench.yaml --quiet --json   # cron`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if config == "" {
				return usagef("run: --config is required")
			}
			cfg, err := pipeline.LoadConfig(config)
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return err // a file that cannot be read: bad input (exit 1)
			}
			if err != nil {
				// A configuration that is wrong is a usage error (exit
				// 2), found before any stage runs.
				return usageError{err}
			}
			if cfg.Workdir == "" && workdir == "" {
				return usagef("run: no work directory: set workdir in %s or pass --workdir", config)
			}
			limit, err := cfg.MemoryLimitBytes()
			if err != nil {
				return usageError{err}
			}
			defer setSoftLimit(a, limit)()
			res, err := pipeline.Run(cmd.Context(), cfg, pipeline.RunOptions{Workdir: workdir, Force: force, Log: a.pipelineLog(), Progress: a.progress(),
				// Crash-test builds only (crashpoint.go): kill the run at a named point.
				CrashAt: testCrashAt(), AllowDegenerate: degenerate})
			if errors.Is(err, pipeline.ErrUnknownStage) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			return printRunResult(a, res, asJSON)
		},
	}
	cmd.Flags().StringVar(&config, "config", "", "YAML configuration (see examples/lovbench.yaml)")
	cmd.Flags().StringVar(&workdir, "workdir", "", "work directory (overrides workdir in the configuration)")
	cmd.Flags().StringSliceVar(&force, "force", nil, "rerun these stages even if unchanged (comma-separated, or all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the run summary as JSON")
	cmd.Flags().BoolVar(&degenerate, "allow-degenerate", false, "publish a dataset below the minimums of a benchmark (5 test queries per fold, one with a relevant label), with a warning banner in the report")
	return cmd
}

// pipelineLog is the log of run and demo: their stages log a great deal,
// so by default only warnings and errors are shown (the few lines of
// printRunResult say what happened); -v shows every stage's log, down to
// the click models' EM iterations.
func (a *app) pipelineLog() *slog.Logger {
	if a.verbose {
		return a.log
	}
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// printRunResult prints what a run or demo did: nothing with --quiet
// (--json output stays), the release and the report by default, and
// with --verbose first a table of the stages (ran or unchanged,
// fingerprint, seconds).
func printRunResult(a *app, res *pipeline.RunResult, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	if a.quiet {
		return nil
	}
	for _, s := range res.Stages {
		status := "ran"
		if s.Skipped {
			status = "unchanged"
		}
		if a.verbose {
			fmt.Fprintf(a.stdout, "%-9s %-9s %s  %.1fs\n", s.Name, status, s.Fingerprint[:16], s.Seconds)
		}
	}
	if res.Published {
		fmt.Fprintf(a.stdout, "published release %s\n", res.ReleaseDir)
	} else {
		fmt.Fprintf(a.stdout, "nothing changed; latest release is %s\n", res.ReleaseDir)
	}
	if res.Report != "" {
		fmt.Fprintf(a.stdout, "report: %s\n", res.Report)
	}
	return nil
}
