// Command lovbench-beam runs lovbench's stages that outgrow one machine on
// Apache Beam: ingest and cleaning of Yandex logs into query shards, and EM
// fitting of the DCTR, UBM and DBN click models over those shards. Its
// outputs are the files lovbench writes (shard Parquet files, report.json,
// quarantine.jsonl; <MODEL>_relevance.tsv, <MODEL>_params.json and
// metrics.json), so the rest of the pipeline runs on them unchanged.
//
// Usage:
//
//	lovbench-beam shard --log a.tsv,b.tsv.gz --shards 64 --out shards/ [--runner prism]
//	lovbench-beam fit --shard-dir shards/ --models dctr,ubm,dbn --out fit/ [--runner flink --endpoint host:8099]
//	lovbench-beam fit --log a.tsv --shards 16 --models ubm --out fit/   (shards into fit/shards first)
//
// The runner is Prism (in process) by default; --runner flink, spark or
// dataflow, with Beam's usual flags (--endpoint, --environment_type,
// --project, --region, --staging_location, ...), submits the same pipeline
// to a cluster. See docs/scale.md in the lovbench repository.
//
// Every path (--log, --shard-dir, --out, --pii-blacklist) is a local path
// or a gs:// or s3:// URL, read and written through Beam's file-system
// layer (fs.go registers them; credentials as the Google Cloud and AWS
// SDKs find them).
//
// Beam re-executes this binary on its workers with Go's standard flags
// (--worker and others), so all flags are Go flags and beam.Init is called
// right after they are parsed, before anything else runs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/lovbench/lovbench/beam/lbbeam"
	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/ingest/pii"
	"github.com/lovbench/lovbench/shards"
)

var (
	logs       = flag.String("log", "", "shard, fit: Yandex log files, plain or gzip, comma-separated, in log order (fit: shards them into OUT/shards first); local paths or gs://, s3:// URLs")
	numShards  = flag.Int("shards", 16, "shard and fit --log: number of query shards (hash(query) mod N)")
	out        = flag.String("out", "", "shard, fit: output directory (local, gs://bucket/dir or s3://bucket/dir)")
	partSize   = flag.Int64("part-size", lbbeam.DefaultPartSize, "shard and fit --log: bytes per part of a plain log (cut at session boundaries)")
	blacklist  = flag.String("pii-blacklist", "", "shard and fit --log: file of queries to drop as personal data, one per line")
	fullSERP   = flag.Int("full-serp", 0, "shard and fit --log: drop queries with fewer results (0: no threshold for Yandex logs)")
	maxLine    = flag.Int("max-line", 0, "shard and fit --log: longest accepted line in bytes (0: ingest's default)")
	shardDir   = flag.String("shard-dir", "", "fit: directory written by shard (lovbench-beam or lovbench shard); or give --log")
	models     = flag.String("models", "dctr,ubm,dbn", "fit: models to fit (dctr, ubm, dbn)")
	iterations = flag.Int("iterations", 50, "fit: EM iterations (PyClick's default 50)")
	piiSalt    = flag.String("pii-salt", "", "shard and fit --log: key of the session-ID pseudonymisation as text (default: random per run, written in no output)")
	keepIDs    = flag.Bool("keep-session-ids", false, "shard and fit --log: write session IDs as read, not pseudonymised")
	tolerance  = flag.Float64("tolerance", 0, "fit: stop EM once the training log-likelihood changes by less than this between iterations (0: run every iteration; as lovbench fit --tolerance)")
	interval   = flag.Float64("interval", clickmodels.DefaultLevel, "fit: level of the intervals written next to each relevance (0: none; as lovbench fit --interval)")
	exact      = flag.Bool("exact", false, "fit: DBN's exact E-step instead of PyClick's (as lovbench fit --exact)")
	split      = flag.String("split", "spec", "shard and fit --log: train/test split of the SERPs: spec, random or time")
	trainFrac  = flag.Float64("train-fraction", 0.75, "shard and fit --log: share of SERPs that train")
	seed       = flag.Uint64("seed", 1, "shard and fit --log: seed of the random split")
)

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: lovbench-beam shard|fit [flags]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	// The command may come first (lovbench-beam shard --log ...) or last;
	// the flags after it are parsed too. Workers get flags only.
	cmd := ""
	if flag.NArg() > 0 {
		cmd = flag.Arg(0)
		if err := flag.CommandLine.Parse(flag.Args()[1:]); err != nil {
			os.Exit(2)
		}
	}
	beam.Init() // on a worker this runs the worker harness and never returns
	if cmd == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(context.Background(), cmd); err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(os.Stderr, "lovbench-beam:", err)
			os.Exit(2)
		}
		slog.Error("lovbench-beam failed", "err", err)
		os.Exit(1)
	}
}

type usageError struct{ error }

func run(ctx context.Context, cmd string) error {
	p, s := beam.NewPipelineWithRoot()
	switch cmd {
	case "shard":
		if *logs == "" || *out == "" {
			return usageError{errors.New("shard needs --log and --out")}
		}
		o, err := shardOptions(ctx, *out)
		if err != nil {
			return err
		}
		if err := lbbeam.BuildShard(s, o); err != nil {
			return usageError{err}
		}
	case "fit":
		if (*shardDir == "") == (*logs == "") || *out == "" {
			return usageError{errors.New("fit needs --out and either --shard-dir or --log")}
		}
		kinds, err := clickmodels.ParseKinds(*models)
		if err != nil {
			return usageError{err}
		}
		if *iterations < 1 {
			return usageError{fmt.Errorf("--iterations must be at least 1, got %d", *iterations)}
		}
		if !(*tolerance >= 0) || math.IsInf(*tolerance, 0) {
			return usageError{fmt.Errorf("--tolerance must be a finite number >= 0, got %v", *tolerance)}
		}
		level, err := clickmodels.IntervalLevel(*interval)
		if err != nil {
			return usageError{err}
		}
		dir := *shardDir
		if *logs != "" {
			// From a plain log: ingest and shard it into OUT/shards
			// first (its own pipeline: the fit reads the manifest when
			// it is built), as lovbench fit --log does in memory. The
			// shards stay, with the cleaning report, for later fits.
			dir = lbbeam.JoinPath(*out, "shards")
			o, err := shardOptions(ctx, dir)
			if err != nil {
				return err
			}
			if err := lbbeam.BuildShard(s, o); err != nil {
				return usageError{err}
			}
			if err := beamx.Run(ctx, p); err != nil {
				return err
			}
			p, s = beam.NewPipelineWithRoot()
		}
		// The shards are prepared once into OUT/.prepared, read by every
		// EM iteration and removed when the pipeline has run.
		prep := lbbeam.JoinPath(*out, ".prepared")
		if err := lbbeam.BuildFit(s, lbbeam.FitOptions{ShardDir: dir, Kinds: kinds, Iterations: *iterations,
			Tolerance: *tolerance, Exact: *exact, Level: level, OutDir: *out, PrepDir: prep}); err != nil {
			return usageError{err}
		}
		defer func() {
			if err := lbbeam.RemoveAll(ctx, prep); err != nil {
				slog.Warn("prepared shards not removed", "dir", prep, "err", err)
			}
		}()
	default:
		return usageError{fmt.Errorf("unknown command %q (want shard or fit)", cmd)}
	}
	return beamx.Run(ctx, p)
}

// shardOptions checks the shard flags and returns the options of a shard
// pipeline writing to outDir.
func shardOptions(ctx context.Context, outDir string) (lbbeam.ShardOptions, error) {
	o := lbbeam.ShardOptions{Logs: strings.Split(*logs, ","), Shards: *numShards, OutDir: outDir,
		PartSize: *partSize, FullSERP: *fullSERP, MaxLine: *maxLine,
		Split:   shards.SplitConfig{Split: *split, TrainFraction: *trainFrac, Seed: *seed},
		PIISalt: []byte(*piiSalt), KeepSessionIDs: *keepIDs}
	if *keepIDs && *piiSalt != "" {
		return o, usageError{errors.New("--keep-session-ids and --pii-salt exclude each other")}
	}
	if *numShards < 1 || *partSize < 1 {
		return o, usageError{errors.New("--shards and --part-size must be positive")}
	}
	if !(*trainFrac > 0 && *trainFrac < 1) {
		return o, usageError{fmt.Errorf("--train-fraction must be in (0, 1), got %v", *trainFrac)}
	}
	if *blacklist != "" {
		f, err := lbbeam.OpenText(ctx, *blacklist)
		if err != nil {
			return o, fmt.Errorf("PII blacklist: %w", err)
		}
		o.Blacklist, err = pii.ReadBlacklist(f, *blacklist)
		f.Close()
		if err != nil {
			return o, err
		}
	}
	return o, nil
}
