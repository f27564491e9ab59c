package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/internal/bytesize"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/sessions"
)

func newLabelCmd(a *app) *cobra.Command {
	cfg := labels.DefaultConfig()
	var (
		memLimit   string
		thresholds string
		firstSERP  string
		asJSON     bool
		corpus     []string
		loadOpt    features.LoadOptions
	)
	cmd := &cobra.Command{
		Use:   "label",
		Short: "Turn click-model relevance into graded labels of each query's first SERP",
		Long: `label maps the satisfaction probability of every result of a query's first
SERP to a graded label (docs/method.md section 4: < 0.2 junk -2, then 0..4 at 0.2,
0.45, 0.5, 0.6, 0.7) and keeps only queries whose whole first SERP got a
label. First SERPs are chosen among the SERPs of sessions with a click only
(LOVBench's rule 1; ingest keeps the others for the click models): a query
shown only in sessions without a click gets no label. It writes the columns ` + labels.LabelsHeader + ` and, beside it
(OUT without .csv, then .query_order.csv and .pair_order.csv), the order
confidence: per pair of labelled terms of a query with different labels the
probability that their relevances are in the labels' order, and per query
the expected agreement of the labels' order with the true order
(docs/dataset.md, "Order confidence"). It prints the label
distribution beside LOVBench's for the same pairs: the shares of its 73,950
labelled first-page pairs, i.e. Table 4 without the 110,274 pairs sampled
as label 0 (sample adds those; its table and the report compare with
Table 4 as printed). With --expert it also prints the
Pearson and Kendall correlation of the predictions with expert judgments
(CBRBench format) per query and pooled.`,
		Example: `  lovbench label --relevance ubm.tsv --sessions ingest/ --out labels.csv
  lovbench label --relevance ubm.tsv --sessions clean.yandex.tsv --out labels.csv \
      --expert CBRBenchGroundTruth.csv --corpus vocabularies/ --json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cfg.Relevance == "" || cfg.Sessions == "" || cfg.Out == "" {
				return usagef("label: --relevance, --sessions and --out are required")
			}
			ins := paths{}.add("--relevance", cfg.Relevance).add("--sessions", cfg.Sessions).add("--expert", cfg.Expert).
				add("--prefixes", loadOpt.Prefixes).add("--corpus", corpus...)
			if err := checkOutputs(ins, paths{}.add("--out", cfg.Out, labels.QueryOrderPath(cfg.Out), labels.PairOrderPath(cfg.Out)).add("--quarantine", cfg.Quarantine)); err != nil {
				return err
			}
			if err := fileOutputs(paths{}.add("--out", cfg.Out).add("--quarantine", cfg.Quarantine), labels.FileLabels); err != nil {
				return err
			}
			th, err := labels.ParseThresholds(thresholds)
			if err != nil {
				return usagef("label: --thresholds: %v", err)
			}
			ch, err := labels.ParseSERPChoice(firstSERP)
			if err != nil {
				return usagef("label: --first-serp: %v", err)
			}
			cfg.Options.Thresholds, cfg.Options.Choice = th, ch
			if memLimit != "" {
				limit, err := bytesize.ParseLimit(memLimit)
				if err != nil {
					return usagef("label: --memory-limit: %v", err)
				}
				defer setSoftLimit(a, limit)()
			}
			if len(corpus) > 0 {
				loadOpt.Log = a.log
				c, err := features.Load(cmd.Context(), corpus, loadOpt)
				if err != nil {
					return fmt.Errorf("corpus: %w", err)
				}
				cfg.Resolver = c
			}
			cfg.AllowEmpty = a.allowEmpty
			rep, err := labels.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			if from, _, err := sessions.ParquetPath(cfg.Sessions); err == nil {
				if err := carryProvenance(a, from, cfg.Out); err != nil {
					return err
				}
			}
			if rep.Labels == 0 {
				a.log.Warn("no query got a label: every first SERP lacks a relevance (see the skip counts)", "file", cfg.Out)
			}
			a.log.Info("labels written", "file", cfg.Out, "queries", rep.LabelledQueries, "labels", rep.Labels, "skipped_rows", rep.RowSkips.Total())
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			if a.quiet { // --quiet: the summary too, as ingest, fit, features and ltr
				return nil
			}
			fmt.Fprintf(a.stdout, "%d of %d queries labelled, %d labels (first SERP: %s, %d results)\n", rep.LabelledQueries, rep.LogQueries, rep.Labels, rep.FirstSERP, rep.SERPSize)
			fmt.Fprint(a.stdout, labels.FormatDistribution(rep.Distribution))
			fmt.Fprintf(a.stdout, "(first-page labels; LOVBench: its %d labelled pairs, Table 4 without the %d sampled zeros)\n",
				labels.LOVBenchLabelledPairs, labels.LOVBenchSampledPairs)
			if o := rep.Order; o != nil && o.Pairs > 0 {
				fmt.Fprintf(a.stdout, "order confidence: %d pairs of labelled terms with different labels in %d of %d queries, mean %.3f; expected agreement of the labels' order with the true order, mean over those queries %.3f (%s, %s)\n",
					o.Pairs, o.WithPairs, o.Queries, o.MeanPair, o.MeanAgreement, o.QueryFile, o.PairFile)
			}
			if rep.Quarantined > 0 {
				fmt.Fprintf(a.stdout, "bad relevance rows: %d, listed in %s\n", rep.Quarantined, rep.QuarantineFile)
			}
			for _, r := range rep.RowSkips.Reasons() {
				fmt.Fprintf(a.stdout, "relevance rows skipped, %s: %d\n", r, rep.RowSkips.Counts[r])
			}
			for _, r := range rep.QuerySkips.Reasons() {
				fmt.Fprintf(a.stdout, "queries left out, %s: %d\n", r, rep.QuerySkips.Counts[r])
			}
			if rep.Agreement != nil {
				for _, p := range rep.ExpertSkips.Examples {
					fmt.Fprintf(a.stdout, "expert file: %s\n", p)
				}
				fmt.Fprint(a.stdout, labels.FormatAgreement(*rep.Agreement))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Relevance, "relevance", "", "relevance TSV of lovbench fit (query, doc, relevance)")
	f.StringVar(&cfg.Sessions, "sessions", "", "sessions: ingest directory, sessions.parquet or Yandex log")
	f.StringVar(&cfg.Out, "out", "", "labels CSV to write ("+labels.LabelsHeader+")")
	f.StringVar(&memLimit, "memory-limit", "", "soft memory limit while labelling, e.g. 1GiB: 0 (no limit) or at least 1MiB; the collector works harder to stay under it (see docs/scale.md)")
	f.StringVar(&cfg.Quarantine, "quarantine", "", "TSV of bad relevance rows (default OUT.quarantine.tsv)")
	f.StringVar(&cfg.Expert, "expert", "", "expert judgments in CBRBench format (query,term URI,rating,label) to compare with")
	f.StringVar(&thresholds, "thresholds", cfg.Options.Thresholds.String(), "five increasing probability cut points for the labels -2|0|1|2|3|4")
	intVar(f, &cfg.Options.SERPSize, "serp-size", labels.DefaultSERPSize, within(1, sessions.MaxRanks), "results of a full first SERP (10 terms; 15 for LOV vocabulary search)")
	f.StringVar(&firstSERP, "first-serp", string(cfg.Options.Choice), "which SERP of a query is its first: most-frequent or first")
	f.StringSliceVar(&corpus, "corpus", nil, "RDF corpus to resolve prefixed names to the expert file's URIs (with --expert)")
	f.StringVar(&loadOpt.Prefixes, "prefixes", "", "LOV prefix file (SPARQL JSON) to resolve prefixed names (with --corpus)")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}
