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
	var modelPath, dataPath, outPath, tag, norm string
	cmd := &cobra.Command{
		Use:   "rank",
		Short: "Apply a saved ranking model to SVMlight data and write a TREC run",
		Long: `rank scores every line of an SVMlight/RankLib file with a model saved by
'lovbench ltr' (JSON, see docs/ltr.md) or a RankLib 2.x text model
(LambdaMART, Coordinate Ascent, AdaRank, RankNet; the file's first line
names the ranker) and writes a TREC run
(qid Q0 docid rank score tag). The docid is read from the line's comment:
"#docid = X ..." (LETOR 3.0/4.0, e.g. MQ2008) gives X, lovbench's
"# query term" gives the term (the last word), a line without a comment
gets row<N> for the N-th data line; other key = value comments are an
error. See docs/ltr.md.`,
		Example: `  lovbench rank --model out/models/lambdamart_LOVBenchFull_Fold1.json --data folds/Fold1/test.txt --out run.txt
  lovbench rank --model ranklib-lambdamart.txt --norm zscore --data folds/Fold1/test.txt --out run.txt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if modelPath == "" || dataPath == "" {
				return usagef("rank: --model and --data are required")
			}
			if err := checkOutputs(paths{}.add("--model", modelPath).add("--data", dataPath), paths{}.add("--out", outPath)); err != nil {
				return err
			}
			var nm ltr.Normalization
			if norm != "" {
				n, err := ltr.ParseNormalization(norm)
				if err != nil {
					return usagef("rank: --norm: %v", err)
				}
				nm = n
			}
			m, err := ltr.LoadModel(modelPath)
			if err != nil {
				return err
			}
			if nm != "" {
				m.Normalization = nm
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
	f.StringVar(&modelPath, "model", "", "model file: lovbench's JSON or a RankLib text model (LambdaMART, Coordinate Ascent, AdaRank, RankNet)")
	f.StringVar(&norm, "norm", "", "per-query normalisation before scoring: none, sum, zscore, linear (default: the model's; RankLib models do not store it, so give RankLib's -norm here)")
	f.StringVar(&dataPath, "data", "", "SVMlight/RankLib file to rank")
	f.StringVar(&outPath, "out", "", "TREC run file (default stdout)")
	f.StringVar(&tag, "tag", "", "run tag (default lovbench-<algorithm>)")
	return cmd
}
