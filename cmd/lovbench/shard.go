package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/internal/progress"
	"github.com/lovbench/lovbench/shards"
)

func newShardCmd(a *app) *cobra.Command {
	var (
		src, out string
		n        int
		sp       shards.SplitConfig
	)
	cmd := &cobra.Command{
		Use:   "shard",
		Short: "Split a click log into query shards for out-of-core fitting",
		Long: `shard writes one Parquet file per fnv1a64(query) mod --shards to --out, and
manifest.json. Every SERP keeps its position in the log and its train/test
flag under --split / --train-fraction / --seed, so that fit --shards DIR
gives exactly the same outputs as fit on the whole log. See docs/scale.md.`,
		Example: `  lovbench shard --sessions /tmp/lov-clean --shards 16 --out /tmp/lov-shards
  lovbench fit --shards /tmp/lov-shards --models dctr,ubm,dbn --out /tmp/cm`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if src == "" || out == "" {
				return usagef("shard: --sessions and --out are required")
			}
			if err := checkOutputs(paths{}.add("--sessions", src), paths{}.add("--out", out)); err != nil {
				return err
			}
			if _, err := clickmodels.ParseSplit(sp.Split); err != nil {
				return usagef("shard: --split: %v", err)
			}
			bar := progress.New(a.progress(), -1, "shard")
			m, err := shards.Write(cmd.Context(), src, n, sp, out, shards.WriteOptions{OnRow: func(int64) { bar.Add(65536) }})
			bar.Finish()
			if err != nil {
				return err
			}
			a.log.Info("shards written", "dir", out, "shards", m.Shards, "serps", m.SERPs, "train_serps", m.TrainSERPs)
			if !a.quiet {
				fmt.Fprintf(a.stdout, "%d SERPs (%d train) in %d shards in %s\n", m.SERPs, m.TrainSERPs, m.Shards, out)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&src, "sessions", "", "ingest output `DIR`, a sessions.parquet file or a Yandex log")
	intVar(f, &n, "shards", 16, atLeast(1), "number of shards")
	f.StringVar(&out, "out", "", "output `DIR`")
	f.StringVar(&sp.Split, "split", clickmodels.SplitSpec, "train/test split: spec, random or time (as fit)")
	floatVar(f, &sp.TrainFraction, "train-fraction", 0.75, between(0, 1), "share of SERPs that train")
	uint64Var(f, &sp.Seed, "seed", 1, "seed of --split random")
	return cmd
}
