package main

import (
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/textio"
	"github.com/lovbench/lovbench/ltr"
)

func newRankCmd(a *app) *cobra.Command {
	var modelPath, dataPath, outPath, tag string
	cmd := &cobra.Command{
		Use:   "rank",
		Short: "Apply a saved ranking model to SVMlight data and write a TREC run",
		Long: `rank scores every line of an SVMlight/RankLib file with a model saved by
'lovbench ltr' (JSON, see docs/ltr.md) and writes a TREC run
(qid Q0 docid rank score tag). The docid is the term of the line's comment
("# query term": its last token), or row<N> for the N-th data line when the
line has no comment.`,
		Example: "  lovbench rank --model out/models/lambdamart_LOVBenchFull_Fold1.json --data folds/Fold1/test.txt --out run.txt",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if modelPath == "" || dataPath == "" {
				return usagef("rank: --model and --data are required")
			}
			m, err := ltr.LoadModel(modelPath)
			if err != nil {
				return err
			}
			ds, err := ltr.ReadSVMLightFile(dataPath)
			if err != nil {
				return err
			}
			if ds.NumDocs() == 0 && !a.allowEmpty {
				return &textio.EmptyError{File: dataPath, What: "data line"}
			}
			if mx := slices.Max(m.Features); mx > ds.NumFeatures {
				a.log.Warn("model uses features the data never sets; they are read as 0", "model_max_feature", mx, "data_max_feature", ds.NumFeatures)
			}
			if tag == "" {
				tag = "lovbench-" + string(m.Algorithm)
			}
			write := func(w io.Writer) error { return ltr.WriteRun(w, ds, m, tag) }
			if outPath == "" || outPath == "-" {
				return write(a.stdout)
			}
			if err := atomicfile.WriteFile(outPath, write); err != nil {
				return err
			}
			a.log.Info("run written", "path", outPath, "queries", len(ds.Queries), "documents", ds.NumDocs())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&modelPath, "model", "", "model JSON written by 'lovbench ltr'")
	f.StringVar(&dataPath, "data", "", "SVMlight/RankLib file to rank")
	f.StringVar(&outPath, "out", "", "TREC run file (default stdout)")
	f.StringVar(&tag, "tag", "", "run tag (default lovbench-<algorithm>)")
	return cmd
}
