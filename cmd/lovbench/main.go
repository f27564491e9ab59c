// Command lovbench turns the search logs of a vocabulary search engine into a
// learning-to-rank benchmark, as the LOVBench paper did for Linked Open
// Vocabularies. This package only parses flags and calls the stage packages.
//
// Exit status: 0 on success, 1 on bad input or a failed stage, 2 on usage
// errors.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/internal/buildinfo"
	"github.com/lovbench/lovbench/internal/progress"
)

// app carries what every command shares: output streams, logging and the
// global flags. It is created in main and passed down (no global state).
type app struct {
	stdout, stderr io.Writer
	quiet          bool
	verbose        bool
	allowEmpty     bool // --allow-empty: an input without usable records is not an error
	log            *slog.Logger
}

// progress returns the progress-bar options for this invocation.
func (a *app) progress() progress.Options {
	return progress.Options{Quiet: a.quiet, Output: a.stderr}
}

// usageError marks an error as a usage error (exit status 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usage error (exit status 2).
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "lovbench",
		Short: "Build learning-to-rank benchmarks from vocabulary search logs",
		Long: `lovbench turns the query and click logs of a vocabulary search engine into a
learning-to-rank benchmark (LOVBench): ingest and clean logs, build sessions,
fit click models, derive graded labels, sample query-term sets, extract the
33 ranking features + the LabelSearch baseline (34), export folds, and train
and evaluate rankers.`,
		Example:       "  lovbench demo --out /tmp/lovbench-demo",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			level := slog.LevelInfo
			if a.quiet {
				level = slog.LevelWarn
			}
			if a.verbose {
				level = slog.LevelDebug
			}
			a.log = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
		},
	}
	// lovbench alone is a usage error: the usage, then exit status 2.
	root.RunE = func(cmd *cobra.Command, args []string) error {
		cmd.SetOut(a.stderr)
		_ = cmd.Usage()
		return usagef("a command is needed (lovbench --help lists them)")
	}
	root.Version = buildinfo.Line()
	root.SetVersionTemplate("lovbench {{.Version}}\n")
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.PersistentFlags().BoolVarP(&a.quiet, "quiet", "q", false, "no progress bars and only warnings in the log")
	root.PersistentFlags().BoolVarP(&a.verbose, "verbose", "v", false, "the whole log, debug level included (demo and run: also a table of their stages)")
	root.PersistentFlags().BoolVar(&a.allowEmpty, "allow-empty", false, "accept an input file with no usable record (empty, or every record rejected) instead of failing")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(
		newIngestCmd(a),
		newStatsCmd(a),
		newFitCmd(a),
		newShardCmd(a),
		newSimulateCmd(a),
		newFeaturesCmd(a),
		newExplainCmd(a),
		newSearchCmd(a),
		newLabelCmd(a),
		newSampleCmd(a),
		newExportCmd(a),
		newValidateCmd(a),
		newLTRCmd(a),
		newRankCmd(a),
		newEvalCmd(a),
		newDemoCmd(a),
		newRunCmd(a),
		newReportCmd(a),
		newDiffCmd(a),
		newVersionCmd(a),
	)
	return root
}

// run executes the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr, log: slog.New(slog.NewTextHandler(stderr, nil))}
	root := newRootCmd(a)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "lovbench:", err)
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		return 2
	}
	return 1
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
