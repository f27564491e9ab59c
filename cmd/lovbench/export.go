package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/export"
	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/labels"
	"github.com/lovbench/lovbench/sampling"
	"github.com/lovbench/lovbench/sessions"
)

func newExportCmd(a *app) *cobra.Command {
	cfg := export.DefaultConfig()
	var (
		asJSON              bool
		ingestRep, labelRep string
		pub                 export.Publication
	)
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the benchmark: ground truth, folds, Parquet and Arrow",
		Long: `export joins a ground truth (` + sampling.GroundTruthHeader + `) with a features file (CSV or
Parquet: query, term, one column per feature name) and writes the dataset
directory: Fold1..FoldN/{train,vali,test}.txt in RankLib/SVMlight format
(queries split at random, seeded, into N equal partitions, rotated as in
LETOR: 3 train, 1 vali, 1 test for N=5), dataset.parquet, dataset.arrow,
partitions/partition-K.parquet, qrels.txt (TREC), ground_truth.csv, a Hugging
Face dataset card (README.md, one config per fold), LICENSE.md, croissant.json
(Croissant 1.0) and manifest.json (inputs and outputs with SHA-256,
parameters, seed, version, row counts). The feature semantics, corpus
checksum and version come from the features file's metadata; a
--feature-semantics that disagrees fails. Reruns with the same inputs and
seed are byte-identical. Junk (-2) is written as 0 in the SVMlight files
unless --keep-junk. --min-confidence C builds the dataset from the labels
whose confidence is at least C: a query keeps its sampled terms (which have no
confidence) when one of its labels reaches C, and is left out otherwise.
--min-query-agreement A (with --query-order, the labels' .query_order.csv)
keeps only the queries whose labels' order has an expected agreement with
the true order of at least A. The manifest and the dataset card count what
was left out and give the label shares before and after: a minimum
confidence favours the labels with wide bands. --keep-confident F keeps the
shares instead: each label keeps the fraction F of its rows, its most
confident, and the sampled terms F of theirs, spread over the kept queries
(it excludes --min-confidence and --min-query-agreement).
--keep-agreeing-queries F (with --query-order) keeps whole queries and the
shares: of the queries with an expected agreement it aims at the fraction F,
walking them from the most agreeing and keeping each that leaves every
label's share within its bound of its input share (the share tolerance,
--agreeing-share-tolerance, default 0.01, or half the label's input share
when that is less, so a rare label does not vanish), or the largest
difference over its bound no higher than before, then exchanging a kept
query for another while that lowers it (it excludes the other filters);
the manifest records the queries aimed at and the largest share
difference reached. docs/dataset.md documents every
file.`,
		Example: `  lovbench export --ground-truth ground_truth.csv --features features.parquet --folds 5 --seed 1 --out dataset/
  lovbench export --ground-truth gt.csv --features f.parquet --out dataset/ \
    --log-license cc-by-4.0 --corpus-license cc-by-4.0 --url https://huggingface.co/datasets/me/lov \
    --creator "A. Person" --date-published 2026-11-26
  lovbench validate dataset/`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cfg.GroundTruth == "" || cfg.Features == "" || cfg.Out == "" {
				return usagef("export: --ground-truth, --features and --out are required")
			}
			if cfg.Options.KeepConfident > 0 && (cfg.Options.MinConfidence > 0 || cfg.Options.MinQueryAgreement > 0) {
				return usagef("export: --keep-confident excludes --min-confidence and --min-query-agreement")
			}
			if cfg.Options.KeepAgreeing > 0 && (cfg.Options.MinConfidence > 0 || cfg.Options.MinQueryAgreement > 0 || cfg.Options.KeepConfident > 0) {
				return usagef("export: --keep-agreeing-queries excludes --min-confidence, --min-query-agreement and --keep-confident")
			}
			if cfg.Options.KeepAgreeing > 0 && cfg.QueryOrder == "" {
				return usagef("export: --keep-agreeing-queries needs --query-order (the labels' .query_order.csv)")
			}
			if cmd.Flags().Changed("agreeing-share-tolerance") && cfg.Options.KeepAgreeing == 0 {
				return usagef("export: --agreeing-share-tolerance applies to --keep-agreeing-queries only")
			}
			ins := paths{}.add("--ground-truth", cfg.GroundTruth).add("--features", cfg.Features).
				add("--ingest-report", ingestRep).add("--label-report", labelRep).add("--query-order", cfg.QueryOrder)
			if err := checkOutputs(ins, paths{}.add("--out", cfg.Out)); err != nil {
				return err
			}
			if _, err := features.ParseSemantics(cfg.Options.FeatureSemantics); err != nil {
				return usagef("export: --feature-semantics: %v", err)
			}
			if err := pub.Check(); err != nil {
				return usagef("export: %v", err)
			}
			// The ground truth says whether the log behind it was
			// simulated (its sidecar, carried from lovbench simulate by
			// ingest, label and sample); --simulated-log says so of any.
			if !pub.SimulatedLog {
				pv, err := sessions.ReadProvenance(cfg.GroundTruth)
				if errors.Is(err, sessions.ErrStaleProvenance) {
					a.log.Warn("the log's provenance is not carried", "reason", err)
				} else if err != nil {
					return err
				} else if pv != nil && pv.Simulated {
					pub.SimulatedLog, pub.Simulation = true, pv.Simulation
					a.log.Info("the log was simulated (from the ground truth's provenance); the card says so", "provenance", sessions.ProvenanceFile(cfg.GroundTruth))
				}
			}
			if pub != (export.Publication{}) {
				cfg.Options.Publication = &pub
			}
			if ingestRep != "" || labelRep != "" {
				pv, err := export.ReportsProvenance(ingestRep, labelRep)
				if err != nil {
					return err
				}
				cfg.Options.Provenance = pv
			}
			m, err := export.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			a.log.Info("dataset written", "dir", cfg.Out, "rows", m.Rows, "queries", m.Queries)
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(m)
			}
			if a.quiet { // --quiet: the summary too, as ingest, fit, features and ltr
				return nil
			}
			fmt.Fprintf(a.stdout, "%s: %d rows, %d queries, %d features, %d folds (seed %d)\n", cfg.Out, m.Rows, m.Queries, len(m.Features), m.Parameters.Folds, m.Parameters.Seed)
			for _, p := range m.Partitions {
				fmt.Fprintf(a.stdout, "partition %d: %d queries, %d rows\n", p.Partition, p.Queries, p.Rows)
			}
			if m.UnusedFeatures > 0 {
				fmt.Fprintf(a.stdout, "feature rows without a ground-truth row (ignored): %d\n", m.UnusedFeatures)
			}
			if cf := m.ConfidenceFilter; cf != nil && cf.KeepConfident > 0 {
				fmt.Fprintf(a.stdout, "keep confident %v of each label: %d of %d rows kept, %d below their label's threshold, %d left out with their query, %d sampled terms beyond their share; %d of %d queries lost all their rows\n",
					cf.KeepConfident, cf.Kept, cf.Rows, cf.Below, cf.WithQuery, cf.BeyondShare, cf.DroppedQueries, cf.Queries)
				fmt.Fprintf(a.stdout, "%-6s %12s %12s %10s\n", "label", "share before", "share after", "threshold")
				for _, n := range cf.ByLabel {
					th := "-"
					if n.KeptMinConfidence != nil {
						th = fmt.Sprintf("%.4f", *n.KeptMinConfidence)
					}
					fmt.Fprintf(a.stdout, "%-6d %11.2f%% %11.2f%% %10s\n", n.Label, 100*n.ShareBefore, 100*n.ShareAfter, th)
				}
			} else if cf != nil && cf.Agreeing != nil {
				ag := cf.Agreeing
				fmt.Fprintf(a.stdout, "keep agreeing queries %v: %d of %d queries kept (target %d of the %d with an agreement), %d of %d rows; %d rows left out with the other queries; largest share difference %.2f points (tolerance %.2f), largest over its label's bound %.2f\n",
					cf.KeepAgreeing, cf.KeptQueries, cf.Queries, ag.TargetQueries, ag.EligibleQueries, cf.Kept, cf.Rows, cf.NotChosen, 100*ag.ShareDeviation, 100*ag.ShareTolerance, ag.ToleranceRatio)
				if o := m.OrderAgreement; o != nil {
					fmt.Fprintf(a.stdout, "mean expected agreement of the kept queries %.4f, lowest %.4f\n", o.Mean, o.Min)
				}
				fmt.Fprintf(a.stdout, "%-6s %12s %12s %12s\n", "label", "share before", "share after", "bound")
				for _, n := range cf.ByLabel {
					fmt.Fprintf(a.stdout, "%-6d %11.2f%% %11.2f%% %12.2f\n", n.Label, 100*n.ShareBefore, 100*n.ShareAfter, 100*n.ShareTolerance)
				}
			} else if cf != nil {
				fmt.Fprintf(a.stdout, "min confidence %v, min query agreement %v: %d of %d rows kept, %d below the confidence, %d left out with their query, %d with a query below the agreement; %d of %d queries lost all their rows\n",
					cf.MinConfidence, cf.MinQueryAgreement, cf.Kept, cf.Rows, cf.Below, cf.WithQuery, cf.QueryBelowAgreement, cf.DroppedQueries, cf.Queries)
				fmt.Fprintf(a.stdout, "%-6s %12s %12s\n", "label", "share before", "share after")
				for _, n := range cf.ByLabel {
					fmt.Fprintf(a.stdout, "%-6d %11.2f%% %11.2f%%\n", n.Label, 100*n.ShareBefore, 100*n.ShareAfter)
				}
			}
			fmt.Fprint(a.stdout, labels.FormatDistribution(m.Labels))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.GroundTruth, "ground-truth", "", "ground-truth CSV of lovbench sample (query,term,label[,confidence])")
	f.StringVar(&cfg.Features, "features", "", "features file of lovbench features (CSV or Parquet)")
	f.StringVar(&cfg.Out, "out", "", "dataset directory to write")
	intVar(f, &cfg.Options.Folds, "folds", cfg.Options.Folds, atLeast(export.MinFolds), "partitions and folds")
	uint64Var(f, &cfg.Options.Seed, "seed", cfg.Options.Seed, "seed of the query partition")
	f.BoolVar(&cfg.Options.KeepJunk, "keep-junk", false, "write junk (-2) labels as -2 in the SVMlight files instead of 0")
	f.StringVar(&cfg.Options.FeatureSemantics, "feature-semantics", "", "semantics the features were computed with (reference or paper); a Parquet features file of lovbench features records them and must agree; for a CSV file or an older Parquet file, recorded as stated")
	f.StringVar(&pub.LogLicense, "log-license", "", "licence of the search log: a Hugging Face licence identifier (cc-by-4.0, ...) or free text; stated in the card, LICENSE.md and croissant.json")
	f.StringVar(&pub.CorpusLicense, "corpus-license", "", "licence of the vocabulary corpus: a Hugging Face licence identifier or free text")
	f.BoolVar(&pub.SimulatedLog, "simulated-log", false, "the log was simulated, not collected from users; the card and croissant.json say so (needed only when the ground truth has no GT.provenance.json saying so, which lovbench simulate, ingest, label and sample carry)")
	f.StringVar(&pub.URL, "url", "", "the dataset's web page, for croissant.json (Croissant requires it of a published dataset)")
	f.StringVar(&pub.Creator, "creator", "", "who made the dataset, for croissant.json and the citation")
	f.StringVar(&pub.DatePublished, "date-published", "", "publication date YYYY-MM-DD, for croissant.json and the citation")
	f.StringVar(&pub.Version, "dataset-version", "", "the dataset's version MAJOR.MINOR.PATCH (e.g. 1.0.0), for croissant.json")
	floatVar(f, &cfg.Options.MinConfidence, "min-confidence", 0, within(0, 1), "keep only the labels whose confidence is at least this (0: all); queries left without one are left out")
	floatVar(f, &cfg.Options.MinQueryAgreement, "min-query-agreement", 0, within(0, 1), "keep only the queries whose labels' order has an expected agreement with the true order of at least this (0: all; needs --query-order)")
	floatVar(f, &cfg.Options.KeepConfident, "keep-confident", 0, within(0, 1), "keep the label shares: each label keeps this fraction of its rows, its most confident, and the sampled terms this fraction of theirs (0: off; excludes --min-confidence and --min-query-agreement)")
	floatVar(f, &cfg.Options.KeepAgreeing, "keep-agreeing-queries", 0, within(0, 1), "keep whole queries and the label shares: this fraction of the queries with an expected agreement, the most agreeing whose rows keep every label's share within its bound of its input share (--agreeing-share-tolerance; 0: off; needs --query-order; excludes the other filters)")
	floatVar(f, &cfg.Options.ShareTolerance, "agreeing-share-tolerance", labels.ShareTolerance, between(0, 1), "--keep-agreeing-queries' share tolerance: a label's share may differ from its input share by this, or by half its input share when that is less")
	f.StringVar(&cfg.QueryOrder, "query-order", "", "the labels' per-query order file (lovbench label writes it beside labels.csv: labels.query_order.csv), for --min-query-agreement and --keep-agreeing-queries")
	f.BoolVar(&asJSON, "json", false, "print the manifest as JSON")
	f.StringVar(&ingestRep, "ingest-report", "", "optional report.json of lovbench ingest, summarised in the dataset card and manifest")
	f.StringVar(&labelRep, "label-report", "", "optional report of lovbench label (its --json output), summarised in the dataset card and manifest")
	return cmd
}
