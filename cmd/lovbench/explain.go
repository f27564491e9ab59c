package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/features"
)

func newExplainCmd(a *app) *cobra.Command {
	var (
		corpus   []string
		prefixes string
		query    string
		term     string
		sem      string
		lenient  bool
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "explain",
		Short: "Explain why a (query, term) pair got its 34 feature values",
		Long: `explain loads a vocabulary corpus as features does, computes the 34 features
of one (query, term) pair and prints, for each, its value, the inputs that
produced it (the term's ontology and how it was chosen, the words and labels
that matched and in which field, the counts behind TF, IDF and BM25, the graph
and its size for the graph features, the neighbours counted for the structure
features) and the Java class and line (--semantics reference) or the paper's
equation (--semantics paper) that defines it. The values are those features
writes for the same pair. docs/features.md explains every definition.`,
		Example: `  lovbench explain --corpus vocabularies/ --query person --term foaf:Person
  lovbench explain --corpus vocabularies/ --query "organization" --term http://purl.org/goodrelations/v1#BusinessEntity --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(corpus) == 0 || term == "" {
				return usagef("explain: --corpus and --term are required")
			}
			semantics, err := features.ParseSemantics(sem)
			if err != nil {
				return usagef("explain: --semantics: %v", err)
			}
			c, err := features.Load(cmd.Context(), corpus, features.LoadOptions{Lenient: lenient, Prefixes: prefixes, Semantics: semantics, Trace: term, Log: a.log})
			if err != nil {
				return err
			}
			ex, err := c.Explain(cmd.Context(), query, term)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(ex)
			}
			_, err = fmt.Fprint(a.stdout, ex.String())
			return err
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&corpus, "corpus", nil, "corpus file or directory (repeatable)")
	f.StringVar(&prefixes, "prefixes", "", "optional LOV prefix file (SPARQL JSON), as for features")
	f.StringVar(&query, "query", "", "the query")
	f.StringVar(&term, "term", "", "the term, a full URI or a prefixed name")
	semanticsFlag(f, &sem)
	f.BoolVar(&lenient, "lenient", false, "skip bad RDF statements instead of failing")
	f.BoolVar(&asJSON, "json", false, "print JSON instead of text")
	return cmd
}
