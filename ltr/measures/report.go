package measures

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
)

// Report is everything `lovbench eval` prints: the results of the runs in
// the order given, the comparisons with the baseline (Results[Baseline])
// and, when asked for, the sensitivity analysis.
type Report struct {
	Results     []*Result
	Comparisons []Comparison
	Sensitivity *Sensitivity
	Baseline    int        // index of the baseline in Results
	Trials      int        // randomisation trials used by the comparisons
	Seed        uint64     // randomisation seed
	Correction  Correction // correction of the randomisation p-values
}

// reportJSON is the --json layout. "mean" and "per_query" are those of the
// first run, so a single-run report is exactly
// {"mean": {...}, "per_query": {...}}; more runs add "runs" (every run,
// the first included), "comparisons" and "sensitivity".
type reportJSON struct {
	JSONResult
	Runs        []namedResult `json:"runs,omitempty"`
	Comparisons []Comparison  `json:"comparisons,omitempty"`
	Sensitivity *Sensitivity  `json:"sensitivity,omitempty"`
}

type namedResult struct {
	Run string `json:"run"`
	JSONResult
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	if len(r.Results) == 0 {
		return fmt.Errorf("no result to write")
	}
	out := reportJSON{JSONResult: r.Results[0].JSON(), Comparisons: r.Comparisons, Sensitivity: r.Sensitivity}
	if len(r.Results) > 1 {
		for _, res := range r.Results {
			out.Runs = append(out.Runs, namedResult{Run: res.Run, JSONResult: res.JSON()})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func f4(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }

// WriteText writes the report as aligned text: one row per measure with
// each run's mean, then the comparisons and the sensitivity analysis.
func (r *Report) WriteText(w io.Writer) error {
	if len(r.Results) == 0 {
		return fmt.Errorf("no result to write")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "measure")
	for _, res := range r.Results {
		fmt.Fprintf(tw, "\t%s", res.Run)
	}
	fmt.Fprintln(tw)
	for _, m := range r.Results[0].Measures {
		fmt.Fprint(tw, m)
		for _, res := range r.Results {
			fmt.Fprintf(tw, "\t%s", f4(res.Mean[m]))
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintf(tw, "queries\t%d\n", len(r.Results[0].Queries))
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Comparisons) > 0 {
		c := r.Correction
		if c == "" {
			c = CorrectionHolm
		}
		fmt.Fprintf(w, "\nagainst %s, two-sided p-values:\n", r.Comparisons[0].Baseline)
		fmt.Fprint(w, Legend("p(rand)", fmt.Sprintf("paired randomisation test: %d trials, seed %d, exact up to %d queries", r.Trials, r.Seed, ExactRandomisationMax),
			c, len(r.Results)-1))
		fmt.Fprintln(w, "  p(t), t        paired t-test; p(wilcoxon): Wilcoxon signed-rank test")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "run\tmeasure\tdiff\t%g%% CI\tt\tp(t)\tp(wilcoxon)\tp(rand)\t%s\td_z\tW/T/L\tverdict\n", 100*ConfidenceLevel, c.Column())
		for _, c := range r.Comparisons {
			t := "inf"
			if c.T != nil {
				t = strconv.FormatFloat(*c.T, 'f', 3, 64)
			}
			sig := Significance{PairedStats: c.PairedStats, P: c.PRand, PAdjusted: c.PAdjusted}
			fmt.Fprintf(tw, "%s\t%s\t%+.4f\t[%+.4f, %+.4f]\t%s\t%s\t%s\t%s\t%s\t%s\t%d/%d/%d\t%s\n", c.Run, c.Measure, c.Diff, c.CILow, c.CIHigh, t,
				f4(c.PT), f4(c.PW), f4(c.PRand), f4(c.PAdjusted), FormatEffect(c.EffectSize), c.Wins, c.Ties, c.Losses, sig.Verdict(DefaultAlpha))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if s := r.Sensitivity; s != nil {
		fmt.Fprintf(w, "\nsensitivity: %d runs, %d run pairs; share of (measure pair, run pair) that swap: %.4f\n", len(s.Runs), s.RunPairs, s.MeasureSwapRate)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		any := false
		for i, m := range s.Measures {
			for j := i + 1; j < len(s.Measures); j++ {
				if n := s.MeasureSwaps[i][j]; n > 0 {
					if !any {
						fmt.Fprintln(tw, "measure\tmeasure\tswapped run pairs")
						any = true
					}
					fmt.Fprintf(tw, "%s\t%s\t%d\n", m, s.Measures[j], n)
				}
			}
		}
		if !any {
			fmt.Fprintln(tw, "no two measures order any pair of runs differently")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if len(s.GainSettings) > 0 {
			fmt.Fprintf(w, "\nsensitivity: swaps between gain settings %v\n", s.GainSettings)
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "measure\tswaps\trate")
			for _, m := range s.Measures {
				if n, ok := s.GainSwaps[m]; ok {
					fmt.Fprintf(tw, "%s\t%d\t%s\n", m, n, f4(s.GainSwapRate[m]))
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// WritePerQuery writes the per-query values as tab-separated lines
// "run measure qid value" after a header line, runs and measures in the
// order given, queries sorted; global measures (cc@k, ltp@k) appear once
// with the qid "all".
func WritePerQuery(w io.Writer, results []*Result) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "run\tmeasure\tqid\tvalue")
	for _, res := range results {
		for _, m := range res.Measures {
			vs, ok := res.PerQuery[m]
			if !ok {
				fmt.Fprintf(bw, "%s\t%s\tall\t%s\n", res.Run, m, strconv.FormatFloat(res.Mean[m], 'g', -1, 64))
				continue
			}
			for i, q := range res.Queries {
				fmt.Fprintf(bw, "%s\t%s\t%s\t%s\n", res.Run, m, q, strconv.FormatFloat(vs[i], 'g', -1, 64))
			}
		}
	}
	return bw.Flush()
}
