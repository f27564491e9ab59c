package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/features"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/ltr/measures"
)

// evalFlags are the flags of `lovbench eval`.
type evalFlags struct {
	qrels        string
	runs         []string
	measures     string
	gain         string
	discount     string
	beta         float64
	cutoff       int
	relevantFrom float64
	json         bool
	perQuery     string
	sensitivity  bool
	corpus       []string
	prefixes     string
	proximity    string
	seed         uint64
	trials       int
	ties         string
	fromRun      bool
	baseline     string
	correction   string
}

func newEvalCmd(a *app) *cobra.Command {
	var f evalFlags
	cmd := &cobra.Command{
		Use:   "eval --qrels FILE --run FILE [--run FILE2 ...]",
		Short: "Evaluate TREC runs against qrels, compare them and test significance",
		Long: `eval scores TREC run files against TREC qrels with ranking measures
(NDCG, DCG, MAP, P, R, MRR, ERR), the graded measures of Küster and
König-Ries (awp, awdp, q, genavep, ancg, andcg, genavep_prime, tau_prime),
the beyond-accuracy measures hr@k, pc, cc@k, ltp@k and relaxed precision and
recall (rp@k, rr@k) over the class/property hierarchy of --corpus.

Runs are ordered as trec_eval orders them (score descending, ties by docid
descending); --ties optimistic|pessimistic|average bound or average over the
orders of tied documents instead. With several runs, every run is compared with the first on every
measure by the paired t-test, the Wilcoxon signed-rank test and a seeded
randomisation test, with the mean difference and its 95% paired t interval,
the randomisation p-value corrected for the number of runs compared
(--correction, Holm by default), Cohen's d_z and the queries won, tied and
lost; --baseline names another run as the baseline. --sensitivity reports how often the order of the runs
swaps between measures and between gain settings. See docs/measures.md.`,
		Example: `  lovbench eval --qrels test.qrels --run ranknet.run
  lovbench eval --qrels test.qrels --run baseline.run --run ranknet.run --measures all --json
  lovbench eval --qrels test.qrels --run a.run --run b.run --run c.run --baseline b.run --correction bonferroni
  lovbench eval --qrels q --run a.run --run b.run --measures ndcg@10,awp,ancg,andcg --gain identity --discount sqrt --sensitivity
  lovbench eval --qrels q --run a.run --measures rp@10,rr@10 --corpus vocabularies/ --proximity oriented`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEval(cmd, a, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.qrels, "qrels", "", "TREC qrels file: qid iter docid grade (required)")
	fl.StringArrayVar(&f.runs, "run", nil, "TREC run file: qid Q0 docid rank score tag (required; repeat to compare runs, the first is the baseline)")
	fl.StringVar(&f.measures, "measures", measures.DefaultMeasures, "comma-separated measures, or all")
	fl.StringVar(&f.gain, "gain", "exp", "gain of a grade g: exp (2^g-1), identity (g), binary:G, or a map like 0=0,1=1,2=3")
	fl.StringVar(&f.discount, "discount", "log2", "discount of rank i: log2 (log2(i+1)), sqrt, none, logb:B (logB(i+B-1)) or original:B (max(1,logB(i)))")
	floatVar(fl, &f.beta, "beta", 1, atLeast(0), "beta of the Q-measure")
	intVar(fl, &f.cutoff, "cutoff", 0, atLeast(0), "list length for measures without @k (0: whole list)")
	floatVar(fl, &f.relevantFrom, "relevant-from", 1, atLeast(0), "a document is relevant when its grade is >= this (map, p@k, r@k, mrr, hr@k, ltp@k, rp@k, rr@k)")
	fl.BoolVar(&f.json, "json", false, `print JSON: {"mean": {...}, "per_query": {...}} (plus runs, comparisons and sensitivity)`)
	fl.StringVar(&f.perQuery, "per-query", "", "also write per-query values (run, measure, qid, value) to this file")
	fl.BoolVar(&f.sensitivity, "sensitivity", false, "report how often the order of the runs swaps between measures and between gain settings")
	fl.StringArrayVar(&f.corpus, "corpus", nil, "RDF file or directory giving the class/property hierarchy for rp@k and rr@k (repeatable)")
	fl.StringVar(&f.prefixes, "prefixes", "", "LOV prefix file used to resolve prefixed names in --corpus")
	fl.StringVar(&f.proximity, "proximity", "symmetric", "relaxed precision/recall proximity: symmetric, effort, precision, recall, oriented or equality")
	fl.BoolVar(&f.fromRun, "queries-from-run", false, "evaluate only the judged queries the runs answer (default: every judged query; an unanswered one scores 0, as trec_eval -c)")
	fl.StringVar(&f.baseline, "baseline", "", "the run the others are compared with: one of the --run files, as given (default: the first --run)")
	fl.StringVar(&f.correction, "correction", "holm", "correction of the randomisation p-values for the number of runs compared (per measure): holm, bonferroni or none")
	uint64Var(fl, &f.seed, "seed", 1, "seed of the randomisation test")
	fl.StringVar(&f.ties, "ties", "docid", "order of documents with equal scores: docid (trec_eval: docid descending), optimistic (higher grade first), pessimistic (lower grade first), average (exact expected value over random tie orders; ndcg, dcg, p, r, map, err, hr, mrr, pc)")
	intVar(fl, &f.trials, "trials", measures.DefaultTrials, atLeast(1), "random sign assignments of the randomisation test (exact enumeration up to 16 queries)")
	return cmd
}

func runEval(cmd *cobra.Command, a *app, f evalFlags) error {
	if f.qrels == "" || len(f.runs) == 0 {
		return usagef("eval: --qrels and at least one --run are required")
	}
	ins := paths{}.add("--qrels", f.qrels).add("--run", f.runs...).add("--corpus", f.corpus...).add("--prefixes", f.prefixes)
	if err := checkOutputs(ins, paths{}.add("--per-query", f.perQuery)); err != nil {
		return err
	}
	opts := measures.DefaultOptions()
	var err error
	if opts.Measures, err = measures.ParseMeasures(f.measures); err != nil {
		return usagef("eval: --measures: %v", err)
	}
	if opts.Gain, err = measures.ParseGain(f.gain); err != nil {
		return usagef("eval: --gain: %v", err)
	}
	if opts.Discount, err = measures.ParseDiscount(f.discount); err != nil {
		return usagef("eval: --discount: %v", err)
	}
	if opts.Proximity, err = measures.ParseProximity(f.proximity); err != nil {
		return usagef("eval: --proximity: %v", err)
	}
	if opts.Ties, err = measures.ParseTies(f.ties); err != nil {
		return usagef("eval: --ties: %v", err)
	}
	corr, err := measures.ParseCorrection(f.correction)
	if err != nil {
		return usagef("eval: --correction: %v", err)
	}
	base := 0
	if f.baseline != "" {
		base = -1
		for i, p := range f.runs {
			if p == f.baseline {
				base = i
				break
			}
		}
		if base < 0 {
			return usagef("eval: --baseline %q is none of the --run files (%s)", f.baseline, strings.Join(f.runs, ", "))
		}
	}
	opts.Beta, opts.Cutoff, opts.RelevantFrom, opts.QueriesFromRun = f.beta, f.cutoff, f.relevantFrom, f.fromRun
	ctx := cmd.Context()
	if len(f.corpus) > 0 {
		a.log.Info("loading corpus", "paths", f.corpus)
		c, err := features.Load(ctx, f.corpus, features.LoadOptions{Lenient: true, Prefixes: f.prefixes, Log: a.log})
		if err != nil {
			return fmt.Errorf("eval: --corpus: %w", err)
		}
		opts.Hierarchy = c
		if f.measures == "all" {
			extra, _ := measures.ParseMeasures("rp@10,rr@10")
			opts.Measures = append(opts.Measures, extra...)
		}
	}
	q, err := measures.ReadQrels(f.qrels)
	if err != nil {
		return err
	}
	if len(q.Queries()) == 0 {
		// Nothing to evaluate: an error even with --allow-empty.
		return fmt.Errorf("eval: %s: the qrels judge no query", f.qrels)
	}
	runs := make([]*measures.Run, len(f.runs))
	for i, p := range f.runs {
		if runs[i], err = measures.ReadRun(p); err != nil {
			return err
		}
		if len(runs[i].Queries()) == 0 && !a.allowEmpty {
			return &textio.EmptyError{File: p, What: "retrieved document"}
		}
	}
	results, err := measures.EvaluateRuns(ctx, q, runs, opts)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	for _, r := range results {
		if c := r.Coverage; c.Answered < c.Judged && !c.FromRun {
			a.log.Warn(fmt.Sprintf("run %s answers %d of the %d judged queries; the other %d score 0 (use --queries-from-run to evaluate only the answered ones)",
				r.Run, c.Answered, c.Judged, c.Judged-c.Answered))
		}
	}
	rep := &measures.Report{Results: results, Baseline: base, Trials: f.trials, Seed: f.seed, Correction: corr}
	rep.Comparisons = measures.Compare(results, measures.CompareOptions{Baseline: base, Trials: f.trials, Seed: f.seed, Correction: corr})
	if f.sensitivity {
		if rep.Sensitivity, err = measures.AnalyseSensitivity(ctx, q, runs, results, opts); err != nil {
			return fmt.Errorf("eval: %w", err)
		}
	}
	if f.perQuery != "" {
		if err := atomicfile.WriteFile(f.perQuery, func(w io.Writer) error {
			return measures.WritePerQuery(w, results)
		}); err != nil {
			return fmt.Errorf("eval: --per-query: %w", err)
		}
	}
	if f.json {
		return rep.WriteJSON(a.stdout)
	}
	return rep.WriteText(a.stdout)
}
