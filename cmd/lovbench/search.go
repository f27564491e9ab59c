package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/features"
)

func newSearchCmd(a *app) *cobra.Command {
	var (
		corpus   []string
		by       string
		k        int
		asJSON   bool
		prefixes string
		lenient  bool
	)
	cmd := &cobra.Command{
		Use:   "search [flags] QUERY",
		Short: "Search a vocabulary corpus the way LOV ranks terms",
		Long: `search prints the top terms of a corpus for a query with their scores:
--by lov ranks by LOV's boosted multi-field BM25 (feature 2, LOV_Match_T),
--by label by BM25 on rdfs:label (feature 34, LabelSearch_T). Ties are
broken by URI, so the output is deterministic.`,
		Example: `  lovbench search --corpus vocabularies/ "person"
  lovbench search --corpus vocabs/ --by label -k 5 --json "birth date"`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(corpus) == 0 {
				return usagef("search: --corpus is required")
			}
			r, err := features.ParseRanking(by)
			if err != nil {
				return usagef("search: --by: %v", err)
			}
			if strings.TrimSpace(args[0]) == "" {
				return usagef("search: empty query")
			}
			c, err := features.Load(cmd.Context(), corpus, features.LoadOptions{Lenient: lenient, Prefixes: prefixes, Log: a.log})
			if err != nil {
				return err
			}
			hits := c.Search(args[0], r, k)
			if asJSON {
				if hits == nil {
					hits = []features.Hit{}
				}
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(hits)
			}
			for i, h := range hits {
				fmt.Fprintf(a.stdout, "%d\t%.6f\t%s\t%s\n", i+1, h.Score, h.Prefixed, h.URI)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&corpus, "corpus", nil, "corpus file or directory (repeatable)")
	f.StringVar(&by, "by", "lov", "ranking: lov (feature 2) or label (feature 34)")
	intVarP(f, &k, "k", "k", 10, atLeast(0), "number of results (0 = all)")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.StringVar(&prefixes, "prefixes", "", "optional LOV prefix file (SPARQL JSON) for prefixed names")
	f.BoolVar(&lenient, "lenient", false, "skip bad RDF statements (counted) instead of failing")
	return cmd
}
