package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/ingest/pii"
	"github.com/lovbench/lovbench/internal/textio"
)

func newIngestCmd(a *app) *cobra.Command {
	o := ingest.DefaultConfig()
	var (
		blacklist string
		salt      string
		asJSON    bool
	)
	cmd := &cobra.Command{
		Use:   "ingest",
		Short: "Clean raw LOV or Yandex search logs into sessions",
		Long: `ingest streams a raw search log (plain or gzip), applies the LOVBench cleaning
rules in order (docs/method.md section 2), drops queries with personal data, and
writes to --out: sessions.parquet, clean.yandex.tsv, report.json (every rule
counted) and quarantine.jsonl (bad records: file, line, reason).

LOV logs come as two date-ordered JSON-lines files, queries and clicks; a
session ends after --session-idle without events. Yandex logs are one
tab-separated file; a session is a run of lines with the same SessionID.

Sessions without a click (which LOVBench's rule 1 drops) are kept by
default: for the click models a SERP nobody clicked is evidence that its
results were seen and did not attract. The benchmark still follows rule 1:
labels are drawn only from SERPs of sessions with a click (lovbench label),
and report.json counts both. --drop-clickless drops them, as LOVBench did.
See docs/ingest.md.`,
		Example: `  lovbench ingest --format lov --queries ingest/testdata/lov/queries.jsonl \
    --clicks ingest/testdata/lov/clicks.jsonl \
    --pii-blacklist ingest/testdata/lov/blacklist.txt --out /tmp/lov-clean
  lovbench ingest --format yandex --log YandexClicks.txt.gz --out /tmp/yandex-clean`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch o.Format {
			case ingest.FormatLOV:
				if o.Queries == "" || o.Clicks == "" {
					return usagef("ingest: --format lov needs --queries and --clicks")
				}
				if o.Log != "" {
					return usagef("ingest: --log is for --format yandex")
				}
				if o.Kind != ingest.KindTerm && o.Kind != ingest.KindVocab {
					return usagef("ingest: --kind must be term or vocab, not %q", o.Kind)
				}
			case ingest.FormatYandex:
				if o.Log == "" {
					return usagef("ingest: --format yandex needs --log")
				}
				if o.Queries != "" || o.Clicks != "" {
					return usagef("ingest: --queries and --clicks are for --format lov")
				}
			default:
				return usagef("ingest: --format must be lov or yandex, not %q", o.Format)
			}
			if o.OutDir == "" {
				return usagef("ingest: --out is required")
			}
			ins := paths{}.add("--queries", o.Queries).add("--clicks", o.Clicks).add("--log", o.Log).add("--pii-blacklist", blacklist)
			if err := checkOutputs(ins, paths{}.add("--out", o.OutDir)); err != nil {
				return err
			}
			if o.SessionIdle < time.Second {
				return usagef("ingest: --session-idle must be at least 1s")
			}
			if blacklist != "" {
				f, err := textio.Open(blacklist)
				if err != nil {
					return fmt.Errorf("ingest: PII blacklist: %w", err)
				}
				o.Blacklist, err = pii.ReadBlacklist(f, blacklist)
				f.Close()
				if err != nil {
					return err
				}
			}
			o.Progress = a.progress()
			o.Logger = a.log
			o.AllowEmpty = a.allowEmpty
			if o.KeepSessionIDs && salt != "" {
				return usagef("ingest: --keep-session-ids and --pii-salt exclude each other")
			}
			o.PIISalt = []byte(salt)
			rep, err := ingest.Run(cmd.Context(), o)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(a.stdout, rep)
			}
			if !a.quiet {
				fmt.Fprintf(a.stdout, "ingest: %d events -> %d sessions, %d queries, %d clicks kept; %d quarantined (see %s)\n",
					rep.InputEvents, rep.Sessions.Kept, rep.KeptQueries, rep.KeptClicks, sum(rep.Quarantined), o.OutDir)
				if rep.SERPsWithoutClickSession > 0 {
					fmt.Fprintf(a.stdout, "SERPs: %d of sessions with a click (labels come from these), %d of sessions without a click (evidence for the click models only; --drop-clickless drops them)\n",
						rep.SERPsWithClickSession, rep.SERPsWithoutClickSession)
				}
				var ctl []string
				for _, k := range ingest.ControlKinds() {
					if n := rep.ControlCharacters[k]; n > 0 {
						ctl = append(ctl, fmt.Sprintf("%s %d", k, n))
					}
				}
				if len(ctl) > 0 {
					fmt.Fprintf(a.stdout, "queries with control characters, removed (query events per kind, see report.json): %s\n", strings.Join(ctl, ", "))
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Format, "format", o.Format, "input format: lov (JSON-lines events) or yandex (relevance-prediction TSV)")
	f.StringVar(&o.Queries, "queries", "", "LOV query event file (.jsonl, plain or gzip)")
	f.StringVar(&o.Clicks, "clicks", "", "LOV click event file (.jsonl, plain or gzip)")
	f.StringVar(&o.Log, "log", "", "Yandex log file (plain or gzip)")
	f.StringVar(&o.Kind, "kind", o.Kind, "LOV search kind: term (10 results per SERP) or vocab (15)")
	f.StringVar(&blacklist, "pii-blacklist", "", "file of queries to drop as personal data, one per line ('#' comments)")
	f.StringVar(&o.OutDir, "out", "", "output directory")
	f.BoolVar(&asJSON, "json", false, "print the cleaning report (as report.json) instead of the summary line")
	intVar(f, &o.FullSERP, "full-serp", 0, atLeast(0), "results of a full SERP for rule 3 (default: 10 term, 15 vocab, none for yandex)")
	f.DurationVar(&o.SessionIdle, "session-idle", o.SessionIdle, "LOV: a session ends after this long without events")
	intVar(f, &o.MaxLine, "max-line", o.MaxLine, atLeast(1), "longest accepted input line in bytes; longer lines are quarantined")
	f.StringVar(&salt, "pii-salt", "", "key of the session-ID pseudonymisation as text (default: random, recorded nowhere; give one for byte-identical reruns)")
	f.BoolVar(&o.DropClickless, "drop-clickless", false, "drop the sessions without a click from the sessions, as LOVBench's rule 1 does (by default they are kept as evidence for the click models, while labels come only from sessions with a click; docs/ingest.md, rule 1)")
	// The default since issue 36: kept for scripts that still pass it.
	f.Bool("keep-clickless", false, "")
	_ = f.MarkDeprecated("keep-clickless", "sessions without a click are kept by default; --drop-clickless drops them")
	f.BoolVar(&o.KeepSessionIDs, "keep-session-ids", false, "write session IDs as read, not pseudonymised (only for logs whose IDs are already pseudonymous)")
	return cmd
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
