package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lovbench/lovbench/features"
)

func newFeaturesCmd(a *app) *cobra.Command {
	var (
		corpus   []string
		pairs    string
		out      string
		report   string
		feats    string
		prefixes string
		unknown  string
		lenient  bool
		workers  int
		sem      string
	)
	cmd := &cobra.Command{
		Use:   "features",
		Short: "Extract the 33 LOVBench ranking features + the LabelSearch baseline (34) for query-term pairs",
		Long: `features loads a vocabulary corpus (N-Quads, N-Triples or Turtle files or
directories, plain or gzip; one named graph per vocabulary), reads a CSV of
query,term pairs (term as full URI or prefixed name) and writes one row per
pair with the columns query, term (full URI) and the selected features named
as in LOVBench's feature_list.csv, in ID order. The output is CSV or Parquet
by the --out extension. Terms not in the corpus fail the run unless
--unknown is zero (written with zero features) or skip (left out); both
count them in the log. A Parquet output records the semantics, the corpus'
SHA-256 and the program version in its metadata, which export takes into the
dataset. --semantics chooses the feature definitions (docs/features.md gives
every feature in both):
  reference (the default): ` + features.SemanticsReference.Description() + `.
  paper: ` + features.SemanticsPaper.Description() + `.`,
		Example: `  lovbench features --corpus vocabularies/ --pairs pairs.csv --out features.parquet
  lovbench features --corpus vocabs/ --prefixes lov_prefixes.json --pairs pairs.csv \
    --out f.csv --features 1-33 --unknown zero
  lovbench features --corpus vocabs/ --pairs pairs.csv --out f.csv --semantics paper`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(corpus) == 0 || pairs == "" || out == "" {
				return usagef("features: --corpus, --pairs and --out are required")
			}
			ins := paths{}.add("--pairs", pairs).add("--prefixes", prefixes).add("--corpus", corpus...)
			if err := checkOutputs(ins, paths{}.add("--out", out).add("--report", report)); err != nil {
				return err
			}
			if l := strings.ToLower(out); !strings.HasSuffix(l, ".csv") && !strings.HasSuffix(l, ".parquet") {
				return usagef("features: --out must end in .csv or .parquet")
			}
			semantics, err := features.ParseSemantics(sem)
			if err != nil {
				return usagef("features: --semantics: %v", err)
			}
			ids, err := features.ParseFeatureList(feats)
			if err != nil {
				return usagef("features: --features: %v", err)
			}
			pol, err := features.ParseUnknownPolicy(unknown)
			if err != nil {
				return usagef("features: --unknown: %v", err)
			}
			cfg := features.DefaultConfig()
			cfg.CorpusPaths, cfg.Prefixes, cfg.Lenient, cfg.Semantics = corpus, prefixes, lenient, semantics
			cfg.Pairs, cfg.Features, cfg.Unknown, cfg.Workers, cfg.AllowEmpty = pairs, ids, pol, workers, a.allowEmpty
			cfg.Out, cfg.Report, cfg.Log, cfg.Progress = out, report, a.log, a.progress()
			rep, err := features.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			if !a.quiet {
				fmt.Fprintf(a.stderr, "%d rows, %d features -> %s\n", rep.Extract.Rows, len(ids), out)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&corpus, "corpus", nil, "corpus file or directory (repeatable)")
	f.StringVar(&pairs, "pairs", "", "CSV with header query,term")
	f.StringVar(&out, "out", "", "output file, .csv or .parquet")
	f.StringVar(&report, "report", "", "optional JSON report: corpus files read and not read, vocabularies named by their file, constant features (as the pipeline's "+features.FileReport+")")
	f.StringVar(&feats, "features", features.DefaultFeatureList, "feature IDs and ranges, e.g. 1-33 or 2,8-10")
	f.StringVar(&prefixes, "prefixes", "", "optional LOV prefix file (SPARQL JSON) to resolve prefixed names")
	f.StringVar(&unknown, "unknown", "error", "terms not in the corpus: error, zero or skip")
	f.BoolVar(&lenient, "lenient", false, "skip bad RDF statements (counted) instead of failing")
	semanticsFlag(f, &sem)
	intVar(f, &workers, "workers", 0, atLeast(0), "worker goroutines (0 = number of CPUs); the output does not depend on it")
	return cmd
}

// semanticsFlag defines --semantics (features and explain).
func semanticsFlag(f *pflag.FlagSet, sem *string) {
	f.StringVar(sem, "semantics", string(features.DefaultSemantics), "feature definitions: reference (LOVBench's Java) or paper (the formulas as printed)")
}
