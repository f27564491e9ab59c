package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/pipeline"
	"github.com/lovbench/lovbench/report"
)

func newReportCmd(a *app) *cobra.Command {
	var (
		workdir, out string
		asJSON       bool
	)
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Write the self-contained HTML report of a work directory",
		Long: `report renders one self-contained report.html (no external assets, every
chart an inline SVG) from the current stage outputs of a work directory:
cleaning counts, log analysis, click-model comparison, label distribution
beside LOVBench's, learning-to-rank results with NDCG@k curves, and, for a
simulated log, how well the labels recover the hidden true relevance.`,
		Example: `  lovbench report --workdir /srv/lovbench
  lovbench report --workdir /tmp/demo --out /tmp/demo.html --json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if workdir == "" {
				return usagef("report: --workdir is required")
			}
			if out == "" {
				out = filepath.Join(workdir, report.FileHTML)
			}
			if err := checkOutputs(paths{}.add("--workdir", workdir), paths{}.add("--out", out)); err != nil {
				return err
			}
			cfg, err := pipeline.WorkdirReportConfig(workdir)
			if err != nil {
				return err
			}
			cfg.HTML = out
			d, err := report.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					Report string        `json:"report"`
					Data   report.Report `json:"data"`
				}{out, d})
			}
			fmt.Fprintf(a.stdout, "report: %s\n", out)
			return nil
		},
	}
	cmd.Flags().StringVar(&workdir, "workdir", "", "work directory of lovbench run or demo")
	cmd.Flags().StringVar(&out, "out", "", "output file (default WORKDIR/report.html)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "also print the report's data as JSON")
	return cmd
}
