package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/sessions"
)

func newStatsCmd(a *app) *cobra.Command {
	var (
		path   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Print the log analysis of the LOVBench paper (section 4.1)",
		Long: `stats prints sessions, queries, distinct queries, clicks, the query length
distribution, clicks per rank, and class versus property views and clicks
(a local name starting upper-case is a class, lower-case a property) of an
ingest output directory, a sessions.parquet file or a Yandex log. For an
ingest directory the raw volume from its report.json is shown too.`,
		Example: "  lovbench stats --sessions /tmp/lov-clean\n  lovbench stats --sessions /tmp/lov-clean --json",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if path == "" {
				return usagef("stats: --sessions is required")
			}
			l, err := sessions.Load(path)
			if err != nil {
				return err
			}
			if l.Len() == 0 && !a.allowEmpty { // as every other reader (exit 1)
				return &textio.EmptyError{File: path, What: "SERP"}
			}
			st := sessions.Analyze(l)
			if rp := filepath.Join(path, ingest.ReportFile); isFile(rp) {
				rep, err := ingest.ReadReport(rp)
				if err != nil {
					return err
				}
				raw := rep.Raw()
				st.Raw = &raw
			}
			if asJSON {
				return st.WriteJSON(a.stdout)
			}
			return st.WriteText(a.stdout)
		},
	}
	cmd.Flags().StringVar(&path, "sessions", "", "ingest output directory, sessions.parquet, or Yandex log")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
