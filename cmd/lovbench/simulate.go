package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/clickmodels/sim"
	"github.com/lovbench/lovbench/corpussim"
	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/sessions"
)

func newSimulateCmd(a *app) *cobra.Command {
	var (
		model, out, truthFile string
		serps                 int
		seed                  uint64
		sc                    = sim.DefaultSyntheticConfig()
		corpus                []string
		prefixes              string
		examination           []float64
		returnAfterClick      float64
	)
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Simulate a click log from a click model with known parameters",
		Long: `simulate writes a click log in the Yandex relevance-prediction format whose
clicks come from the click model --model with known parameters: queries with
Zipf popularity, a pool of documents per query with random true
attractiveness and satisfaction, SERPs showing the best documents in order or
(--shuffle of them) a random sample in random order. The true parameters go
to --truth in the format of fit's <MODEL>_params.json. Same flags and seed,
same files. Beside the log, OUT.provenance.json says that it was simulated
and how (with the log's SHA-256): ingest, label, sample and export carry
it, so that the dataset card says the log was simulated. See
docs/clickmodels.md.

With --corpus the SERPs come from a vocabulary corpus instead (corpus mode,
docs/pipeline.md): queries are words of term labels with Zipf popularity,
each SERP is the top --serp-length terms of the LOV-like search, and the
hidden true relevance of a (query, term) pair is a documented function of how
well the query matches the term. --corpus embedded uses the embedded demo
corpus.`,
		Example: `  lovbench simulate --model ubm --sessions 100000 --queries 500 --seed 1 \
    --out /tmp/sim.tsv --truth /tmp/sim_truth.json
  lovbench simulate --model dbn --corpus embedded --sessions 20000 --queries 300 --out /tmp/lov.tsv
  lovbench fit --log /tmp/sim.tsv --format yandex --models ubm --out /tmp/sim-fit`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind, err := clickmodels.ParseKind(model)
			if err != nil {
				return usagef("simulate: --model: %v", err)
			}
			if out == "" {
				return usagef("simulate: --out is required")
			}
			if err := checkOutputs(paths{}.add("--corpus", corpus...).add("--prefixes", prefixes), paths{}.add("--out", out).add("--truth", truthFile)); err != nil {
				return err
			}
			var src sim.SERPSource
			if len(corpus) > 0 {
				var paths []string
				for _, p := range corpus {
					if p != "embedded" {
						paths = append(paths, p)
					}
				}
				cs, err := corpussim.Load(cmd.Context(), paths, features.LoadOptions{Prefixes: prefixes, Log: a.log},
					corpussim.Options{Queries: sc.Queries, SERPSize: sc.SERPLength, ZipfS: sc.ZipfS, Seed: seed,
						SplitSatisfaction: kind == clickmodels.DBN || kind == clickmodels.SDBN})
				if err != nil {
					return err
				}
				src = cs
			} else {
				sc.Seed = seed
				ss, err := sim.NewSyntheticSource(sc)
				if err != nil {
					return usagef("simulate: %v", err)
				}
				src = ss
			}
			cfg := sim.Config{Kind: kind, SERPs: serps, Seed: seed, Source: src, ReturnAfterClick: returnAfterClick}
			if len(examination) > 0 {
				if len(examination) != 2 {
					return usagef("simulate: --examination: want FIRST,DECAY, got %d values", len(examination))
				}
				g, err := sim.ExaminationGlobal(kind, sc.SERPLength, examination[0], examination[1])
				if err != nil {
					return usagef("simulate: --%v", err)
				}
				cfg.Global, cfg.Ranks = g, sc.SERPLength
			}
			var truth *clickmodels.Model
			err = atomicfile.WriteFile(out, func(w io.Writer) error {
				var err error
				truth, err = sim.SimulateYandex(cmd.Context(), cfg, w)
				return err
			})
			if err != nil {
				return err
			}
			// The log says it was simulated, in a sidecar file (the
			// Yandex format has no room for it): ingest, label, sample
			// and export carry it to the dataset card.
			summary := sim.Summary(serps, sc.Queries, kind.String(), sc.ZipfS, seed)
			if len(corpus) > 0 {
				summary += ", SERPs from the corpus"
			}
			if err := sessions.WriteProvenance(out, sessions.Provenance{Simulated: true, Simulation: summary}); err != nil {
				return err
			}
			if truthFile != "" {
				if err := atomicfile.WriteFile(truthFile, truth.WriteJSON); err != nil {
					return err
				}
			}
			a.log.Info("simulated click log written", "model", kind.String(), "serps", serps, "pairs", truth.NumPairs(), "out", out)
			if !a.quiet {
				fmt.Fprintf(a.stdout, "%d SERPs from %v over %d (query, document) pairs written to %s\n", serps, kind, truth.NumPairs(), out)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&model, "model", "", "click model generating the clicks (ubm, dbn, pbm, ...)")
	intVar(f, &serps, "sessions", 10000, atLeast(1), "number of SERPs (each its own session, as in PyClick)")
	intVar(f, &sc.Queries, "queries", sc.Queries, atLeast(1), "number of distinct queries")
	uint64Var(f, &seed, "seed", 1, "random seed (parameters, SERPs and clicks)")
	f.StringVar(&out, "out", "", "output Yandex log `FILE`")
	f.StringVar(&truthFile, "truth", "", "write the true parameters to `FILE` (JSON, as fit's <MODEL>_params.json)")
	intVar(f, &sc.PoolSize, "pool", sc.PoolSize, atLeast(1), "documents per query")
	intVar(f, &sc.SERPLength, "serp-length", sc.SERPLength, atLeast(1), "results per SERP")
	floatVar(f, &sc.Shuffle, "shuffle", sc.Shuffle, within(0, 1), "share of SERPs in random order")
	floatVar(f, &sc.ZipfS, "zipf", sc.ZipfS, above(1), "Zipf exponent of query popularity")
	floatListVar(f, &examination, "examination", "UBM and PBM: examination probability `FIRST,DECAY`: FIRST at the first rank (UBM: also after a click), times DECAY per rank further down (default 0.97,0.8 for UBM, 0.95,0.82 for PBM)")
	floatVar(f, &returnAfterClick, "return-after-click", 0, within(0, 1), "probability that the user comes back to the results page after a click, which logs the page again, without clicking the terms already read")
	f.StringSliceVar(&corpus, "corpus", nil, "corpus mode: draw queries and SERPs from this RDF `PATH` (file or directory, repeatable; \"embedded\" = the embedded demo corpus)")
	f.StringVar(&prefixes, "prefixes", "", "corpus mode: LOV prefix JSON `FILE` for prefixed names")
	return cmd
}
