package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/sampling"
)

func newSampleCmd(a *app) *cobra.Command {
	cfg := sampling.DefaultConfig()
	var (
		corpus  []string
		loadOpt features.LoadOptions
		asJSON  bool
	)
	cmd := &cobra.Command{
		Use:   "sample",
		Short: "Build the LETOR-style ground truth: labelled SERP terms plus sampled non-relevant matches",
		Long: `sample builds the ground truth (` + sampling.GroundTruthHeader + `) of docs/method.md section 5: per
query its labelled first-SERP terms, resolved to URIs in the corpus, plus
terms matching the query that were not labelled, drawn at random (seeded,
independent of query order) and labelled 0, so that the average number of
judgments per query is --per-query when the pools allow (see docs/dataset.md).
Labelled terms the corpus does not know are left out and listed in the report
(--report, default OUT.report.json). Each labelled term keeps its label's
confidence; sampled terms have none (an empty field).`,
		Example: `  lovbench sample --labels labels.csv --corpus vocabularies/ --seed 1 --out ground_truth.csv
  lovbench sample --labels labels.csv --corpus lov.nq.gz --prefixes lov_prefixes.json --per-query 30 --seed 7 --out gt.csv`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cfg.Labels == "" || len(corpus) == 0 || cfg.Out == "" {
				return usagef("sample: --labels, --corpus and --out are required")
			}
			ins := paths{}.add("--labels", cfg.Labels).add("--prefixes", loadOpt.Prefixes).add("--corpus", corpus...)
			if err := checkOutputs(ins, paths{}.add("--out", cfg.Out).add("--report", cfg.Report)); err != nil {
				return err
			}
			loadOpt.Log = a.log
			if err := fileOutputs(paths{}.add("--out", cfg.Out).add("--report", cfg.Report), sampling.FileGroundTruth); err != nil {
				return err
			}
			c, err := features.Load(cmd.Context(), corpus, loadOpt)
			if err != nil {
				return fmt.Errorf("corpus: %w", err)
			}
			cfg.AllowEmpty, cfg.Candidates = a.allowEmpty, c
			rep, err := sampling.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			if err := carryProvenance(a, cfg.Labels, cfg.Out); err != nil {
				return err
			}
			a.log.Info("ground truth written", "file", cfg.Out, "queries", rep.Queries, "rows", rep.Rows, "unknown_labelled", rep.UnknownLabelled)
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			if a.quiet { // --quiet: the summary too, as ingest, fit, features and ltr
				return nil
			}
			fmt.Fprintf(a.stdout, "%d queries, %d labelled + %d sampled = %d pairs, %.2f per query (target %g)\n",
				rep.Queries, rep.Labelled, rep.Sampled, rep.Rows, rep.AveragePerQuery, rep.PerQueryTarget)
			fmt.Fprintf(a.stdout, "labelled pairs unknown to the corpus: %d (%d distinct terms; listed in the report)\n", rep.UnknownLabelled, len(rep.UnknownTerms))
			fmt.Fprintf(a.stdout, "queries left out with no known term: %d; queries with no candidate: %d; pools exhausted: %d; duplicate URIs: %d\n",
				rep.NoKnownTerms, rep.QueriesNoMatches, rep.ExhaustedPools, rep.DuplicateURIs)
			fmt.Fprint(a.stdout, labels.FormatDistribution(rep.Distribution))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Labels, "labels", "", "labels CSV of lovbench label ("+labels.LabelsHeader+")")
	f.StringSliceVar(&corpus, "corpus", nil, "RDF corpus files or directories (N-Quads, N-Triples, Turtle; plain or gzip)")
	f.StringVar(&loadOpt.Prefixes, "prefixes", "", "LOV prefix file (SPARQL JSON) to resolve prefixed names")
	f.BoolVar(&loadOpt.Lenient, "lenient", false, "skip bad RDF statements (counted) instead of failing")
	uint64Var(f, &cfg.Options.Seed, "seed", cfg.Options.Seed, "random seed of the draws")
	floatVar(f, &cfg.Options.PerQuery, "per-query", cfg.Options.PerQuery, above(0), "target average judgments per query (labelled + sampled)")
	f.StringVar(&cfg.Out, "out", "", "ground-truth CSV to write ("+sampling.GroundTruthHeader+")")
	f.StringVar(&cfg.Report, "report", "", "report JSON to write (default OUT.report.json)")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}
