// Command lovbench-beam runs lovbench's stages that outgrow one machine on
// Apache Beam: ingest and cleaning of Yandex logs into query shards, and EM
// fitting of the DCTR, UBM, DBN, SDBN, DCM, CCM and PSCM click models over those shards. Its
// outputs are the files lovbench writes (shard Parquet files, report.json,
// quarantine.jsonl; <MODEL>_relevance.tsv, <MODEL>_params.json and
// metrics.json), so the rest of the pipeline runs on them unchanged.
//
// Usage:
//
//	lovbench-beam shard --log a.tsv,b.tsv.gz --shards 64 --out shards/ [--runner prism]
//	lovbench-beam fit --shard-dir shards/ --models dctr,ubm,dbn --out fit/ [--runner flink --endpoint host:8099]
//	lovbench-beam fit --log a.tsv --shards 16 --models ubm --out fit/   (reads the log as lovbench fit --log does, shards it into fit/shards first)
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
	"io"
	"log/slog"
	"math"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/lovbench/lovbench/beam/lbbeam"
	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/ingest/pii"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"github.com/lovbench/lovbench/internal/bytesize"
	"github.com/lovbench/lovbench/sessions/split"
	"github.com/lovbench/lovbench/shards"
)

var (
	logs          = flag.String("log", "", "shard, fit: Yandex log files, plain or gzip, comma-separated, in log order; local paths or gs://, s3:// URLs (shard cleans them as lovbench ingest does; fit reads them as lovbench fit --log does and shards them into OUT/shards first)")
	numShards     = flag.Int("shards", 16, "shard and fit --log: number of query shards (hash(query) mod N)")
	out           = flag.String("out", "", "shard, fit: output directory (local, gs://bucket/dir or s3://bucket/dir)")
	partSize      = flag.Int64("part-size", lbbeam.DefaultPartSize, "shard and fit --log: bytes per part of a plain log (cut at session boundaries)")
	blacklist     = flag.String("pii-blacklist", "", "shard: file of queries to drop as personal data, one per line")
	fullSERP      = flag.Int("full-serp", 0, "shard: drop queries with fewer results (0: no threshold for Yandex logs)")
	maxLine       = flag.Int("max-line", 0, "shard and fit --log: longest accepted line in bytes (0: ingest's default)")
	shardDir      = flag.String("shard-dir", "", "fit: directory written by shard (lovbench-beam or lovbench shard); or give --log")
	models        = flag.String("models", clickmodels.DefaultModels, "fit: models to fit (dctr, ubm, dbn, sdbn, dcm, ccm, pscm)")
	estimator     = flag.String("estimator", string(clickmodels.DefaultEstimator), "fit: EM estimator, exact (the exact E-steps of DBN, SDBN, DCM and CCM, EM to convergence; the default) or pyclick (PyClick's, 50 iterations), as lovbench fit --estimator")
	iterations    = flag.Int("iterations", clickmodels.DefaultMaxIterations, "fit: EM iterations: at most this many (exact), exactly this many (pyclick; default 50)")
	piiSalt       = flag.String("pii-salt", "", "shard: key of the session-ID pseudonymisation as text (default: random per run, written in no output)")
	dropClickless = flag.Bool("drop-clickless", false, "shard: drop the sessions without a click, as LOVBench's rule 1 does (by default they are kept as evidence for the click models; as lovbench ingest --drop-clickless)")
	keepIDs       = flag.Bool("keep-session-ids", false, "shard: write session IDs as read, not pseudonymised")
	tolerance     = flag.Float64("tolerance", clickmodels.DefaultTolerance, "fit: stop EM once the training log-likelihood per SERP changes by less than this between iterations (0: run every iteration; default 0 with -estimator pyclick; as lovbench fit --tolerance)")
	accelerate    = flag.Bool("accelerate", true, "fit: with a tolerance (-estimator exact), accelerate EM by SQUAREM, the same stopping rule and limit in fewer iterations; -accelerate=false runs plain EM (as lovbench fit --accelerate)")
	interval      = flag.Float64("interval", clickmodels.DefaultLevel, "fit: level of the intervals written next to each relevance, in (0, 1) (as lovbench fit --interval)")
	noInterval    = flag.Bool("no-intervals", false, "fit: write no intervals (as lovbench fit --no-intervals)")
	intervalsFrom = flag.String("intervals-from", string(clickmodels.IntervalsAuto), "fit: how DBN's and SDBN's intervals are computed, as lovbench fit --intervals-from: auto (the default, with the exact estimator: gibbs for at most 300,000 training SERPs, gibbs-subset above; counts under --estimator pyclick or --no-intervals), counts, gibbs (the Gibbs sampler, one pipeline stage per sweep) or gibbs-subset (the sampler on a subset of the queries of about 50,000 training SERPs, its rate from the shard manifest's training SERPs, its posterior carried to the other pairs); the same bits as lovbench fit")
	exact         = flag.Bool("exact", false, "fit: the same as -estimator exact, the default (as lovbench fit --exact)")
	pscmAuthors   = flag.Bool("pscm-authors", false, "fit: PSCM as the authors' code (THUIR/PSCMModel), as lovbench fit --pscm-authors")
	empirical     = flag.Bool("empirical-prior", false, "fit: with -estimator exact, the empirical-Bayes prior of the attractiveness of DBN, SDBN, DCM and CCM (per-rank means from the log; off by default), as lovbench fit --empirical-prior")
	splitName     = flag.String("split", string(split.Spec), "shard and fit --log: train/test split of the SERPs: spec, random or time")
	trainFrac     = flag.Float64("train-fraction", split.DefaultTrainFraction, "shard and fit --log: share of SERPs that train")
	seed          = flag.Uint64("seed", 1, "shard and fit --log: seed of the random split")
	shardCache    = flag.String("shard-cache", bytesize.Format(lbbeam.DefaultShardCache), "fit: memory a worker process keeps opened shards in between EM steps, keyed by the prepared shard's content (0: none, every step reads its shard back)")
	cpuProfile    = flag.String("cpuprofile", "", "write a CPU profile of the whole run (pipeline construction and Prism's in-process execution) to this file")
)

// subsetSERPs is -gibbs-subset-serps: its value, and whether it was
// given (given, any value is checked; not given, the fit takes
// clickmodels.GibbsSubsetSERPs).
var subsetSERPs = givenInt{n: clickmodels.GibbsSubsetSERPs}

func init() {
	flag.Var(&subsetSERPs, "gibbs-subset-serps", "fit: training SERPs (a positive number) of the subset of queries -intervals-from gibbs-subset runs the sampler on, as lovbench fit --gibbs-subset-serps: with auto it applies where auto picks gibbs-subset and is unused below; refused with counts or gibbs, -no-intervals and -estimator pyclick")
}

// givenInt is an int flag that records whether it was given.
type givenInt struct {
	n     int
	given bool
}

func (g *givenInt) String() string { return strconv.Itoa(g.n) }

func (g *givenInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not an integer")
	}
	g.n, g.given = n, true
	return nil
}

func main() {
	flag.Usage = func() { usage(flag.CommandLine.Output(), flag.CommandLine) }
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
	err := checkOverlap(cmd)
	var stop func() error
	if err == nil {
		stop, err = startCPUProfile(*cpuProfile)
	}
	if err == nil {
		err = run(context.Background(), cmd)
		if perr := stop(); err == nil {
			err = perr
		}
	}
	if err != nil {
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

// buildError classifies an error of building the shard pipeline: an input
// log that cannot be read whole (lbbeam.InputError, exit 1) or a bad
// option (usage, exit 2).
func buildError(err error) error {
	if ie := (*lbbeam.InputError)(nil); errors.As(err, &ie) {
		return err
	}
	return usageError{err}
}

// startCPUProfile starts writing a CPU profile to path (none if empty) and
// returns the function that stops it and publishes the file (atomically:
// a killed run leaves an earlier file of that name as it was).
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := atomicfile.Create(path) // published whole when the run ends
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Abort()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Commit()
	}, nil
}

func run(ctx context.Context, cmd string) error {
	if err := checkOverlap(cmd); err != nil {
		return err
	}
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
		outDir, err := createOutput(ctx, *out, shards.ManifestName, shards.OutputNames...)
		if err != nil {
			return err
		}
		defer outDir.Abort()
		o.OutDir = outDir.Path()
		if err := lbbeam.BuildShard(s, o); err != nil {
			return buildError(err)
		}
		if err := outDir.Start(ctx); err != nil {
			return refusedAsUsage(err)
		}
		if err := beamx.Run(ctx, p); err != nil {
			return err
		}
		// Nothing kept (an empty or binary log): the outputs are published,
		// so that report.json and quarantine.jsonl say why, and the run
		// fails, as lovbench ingest does.
		kept := lbbeam.CheckKept(ctx, outDir.Path())
		if err := outDir.Commit(ctx); err != nil {
			return err
		}
		return kept
	case "fit":
		if (*shardDir == "") == (*logs == "") || *out == "" {
			return usageError{errors.New("fit needs --out and either --shard-dir or --log")}
		}
		kinds, err := clickmodels.ParseKinds(*models)
		if err != nil {
			return usageError{err}
		}
		est, err := clickmodels.ParseEstimator(*estimator)
		if err != nil {
			return usageError{fmt.Errorf("--estimator: %w", err)}
		}
		if *exact && est != clickmodels.EstimatorExact {
			return usageError{fmt.Errorf("--exact contradicts --estimator %s", est)}
		}
		if err := est.CheckEmpiricalPrior(*empirical); err != nil {
			return usageError{fmt.Errorf("--empirical-prior %w", err)}
		}
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		def := est.Options()
		if !set["iterations"] {
			*iterations = def.Iterations
		}
		if !set["tolerance"] {
			*tolerance = def.Tolerance
		}
		if !set["accelerate"] {
			*accelerate = def.Accelerate
		}
		*exact = def.Exact
		if *iterations < 1 {
			return usageError{fmt.Errorf("--iterations must be at least 1, got %d", *iterations)}
		}
		if !(*tolerance >= 0) || math.IsInf(*tolerance, 0) {
			return usageError{fmt.Errorf("--tolerance must be a finite number >= 0, got %v", *tolerance)}
		}
		level, noIntervals, err := intervalFlags()
		if err != nil {
			return err
		}
		method, err := clickmodels.ParseIntervalMethod(*intervalsFrom)
		if err != nil {
			return usageError{fmt.Errorf("--intervals-from: %w", err)}
		}
		var subset float64
		if subsetSERPs.given {
			if err := clickmodels.CheckSubsetSERPs(float64(subsetSERPs.n)); err != nil {
				return usageError{fmt.Errorf("--gibbs-subset-serps: %w", err)}
			}
			subset = float64(subsetSERPs.n)
		}
		if err := (clickmodels.Options{Intervals: method, Exact: *exact, NoIntervals: noIntervals, SubsetSERPs: subset}).CheckIntervals(); err != nil {
			return usageError{err}
		}
		cache, err := bytesize.Parse(*shardCache)
		if err != nil {
			return usageError{fmt.Errorf("--shard-cache: %w", err)}
		}
		if cache == 0 {
			cache = -1 // FitOptions: none
		}
		// lovbench fit's marker and files, and the shards of a fit from
		// a plain log.
		names := append([]string{"shards/" + shards.ManifestName}, clickmodels.OutputNames...)
		for _, n := range shards.OutputNames {
			names = append(names, "shards/"+n)
		}
		outDir, err := createOutput(ctx, *out, clickmodels.MetricsFile, names...)
		if err != nil {
			return err
		}
		defer outDir.Abort()
		started := false
		dir := *shardDir
		if *logs != "" {
			// From a plain log: read it as lovbench fit --log does
			// (no cleaning: that is shard's, or lovbench ingest's, job)
			// and shard it into OUT/shards first (its own pipeline: the
			// fit reads the manifest when it is built). The shards stay
			// for later fits.
			if err := cleaningFlagsUnset(); err != nil {
				return err
			}
			dir = lbbeam.JoinPath(outDir.Path(), "shards")
			o, err := shardOptions(ctx, dir)
			if err != nil {
				return err
			}
			o.AsRead = true
			if err := lbbeam.BuildShard(s, o); err != nil {
				return buildError(err)
			}
			if err := outDir.Start(ctx); err != nil {
				return refusedAsUsage(err)
			}
			started = true
			if err := beamx.Run(ctx, p); err != nil {
				return err
			}
			p, s = beam.NewPipelineWithRoot()
		}
		// The shards are prepared once into OUT/.prepared, read by every
		// EM iteration and removed when the pipeline has run. OUT is
		// empty or an earlier output with no .prepared (createOutput;
		// locally a new directory), so the scratch directory is the
		// run's own, and only its files are removed.
		prep := lbbeam.JoinPath(outDir.Path(), ".prepared")
		if err := lbbeam.BuildFit(s, lbbeam.FitOptions{ShardDir: dir, Kinds: kinds, Iterations: *iterations,
			Tolerance: *tolerance, Exact: *exact, Accelerate: *accelerate, PSCMAuthors: *pscmAuthors, EmpiricalPrior: *empirical, Level: level, NoIntervals: noIntervals, Intervals: method, SubsetSERPs: subset, OutDir: outDir.Path(), PrepDir: prep, ShardCache: cache}); err != nil {
			return usageError{err}
		}
		if !started {
			if err := outDir.Start(ctx); err != nil {
				return refusedAsUsage(err)
			}
		}
		err = beamx.Run(ctx, p)
		if rerr := lbbeam.RemoveScratch(ctx, prep); rerr != nil {
			if err == nil {
				return rerr
			}
			slog.Warn("prepared shards not removed", "dir", prep, "err", rerr)
		}
		if err != nil {
			return err
		}
		return outDir.Commit(ctx)
	default:
		return usageError{fmt.Errorf("unknown command %q (want shard or fit)", cmd)}
	}
}

// createOutput checks --out and starts the run's output directory
// (lbbeam.CreateOutput): a directory that may hold files the command did
// not write is refused as a usage error, before the pipeline runs.
func createOutput(ctx context.Context, target, marker string, names ...string) (*lbbeam.Output, error) {
	if err := lbbeam.CheckPath(target); err != nil {
		return nil, usageError{err}
	}
	o, err := lbbeam.CreateOutput(ctx, target, marker, names...)
	return o, refusedAsUsage(err)
}

// refusedAsUsage makes an output directory's refusal
// (atomicfile.RefusedError) a usage error.
func refusedAsUsage(err error) error {
	var refused *atomicfile.RefusedError
	if errors.As(err, &refused) {
		return usageError{err}
	}
	return err
}

// checkOverlap refuses, as a usage error, outputs that would write over
// an input (lbbeam.CheckOutputs), before anything is written.
func checkOverlap(cmd string) error {
	var ins []atomicfile.Arg
	if *logs != "" {
		for _, l := range strings.Split(*logs, ",") {
			ins = append(ins, atomicfile.Arg{Flag: "--log", Path: l})
		}
	}
	ins = append(ins, atomicfile.Arg{Flag: "--shard-dir", Path: *shardDir}, atomicfile.Arg{Flag: "--pii-blacklist", Path: *blacklist})
	outs := []atomicfile.Arg{{Flag: "--cpuprofile", Path: *cpuProfile}}
	if cmd == "shard" || cmd == "fit" {
		outs = append(outs, atomicfile.Arg{Flag: "--out", Path: *out})
	}
	if err := lbbeam.CheckOutputs(ins, outs); err != nil {
		return usageError{err}
	}
	return nil
}

// shardOptions checks the shard flags and returns the options of a shard
// pipeline writing to outDir.
func shardOptions(ctx context.Context, outDir string) (lbbeam.ShardOptions, error) {
	o := lbbeam.ShardOptions{Logs: strings.Split(*logs, ","), Shards: *numShards, OutDir: outDir,
		PartSize: *partSize, FullSERP: *fullSERP, MaxLine: *maxLine,
		Split:   shards.SplitConfig{Split: split.Kind(*splitName), TrainFraction: *trainFrac, Seed: *seed},
		PIISalt: []byte(*piiSalt), KeepSessionIDs: *keepIDs, DropClickless: *dropClickless}
	if *keepIDs && *piiSalt != "" {
		return o, usageError{errors.New("--keep-session-ids and --pii-salt exclude each other")}
	}
	if *numShards < 1 || *partSize < 1 {
		return o, usageError{errors.New("--shards and --part-size must be positive")}
	}
	if _, err := split.Parse(*splitName); err != nil {
		return o, usageError{fmt.Errorf("--split: %w", err)}
	}
	if err := split.CheckTrainFraction(*trainFrac); err != nil {
		return o, usageError{fmt.Errorf("--train-fraction: %w", err)}
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

// cleaningFlagsUnset refuses the flags of ingest's cleaning with fit --log,
// which reads the log as it is.
func cleaningFlagsUnset() error {
	var set []string
	if *blacklist != "" {
		set = append(set, "--pii-blacklist")
	}
	if *fullSERP != 0 {
		set = append(set, "--full-serp")
	}
	if *piiSalt != "" {
		set = append(set, "--pii-salt")
	}
	if *keepIDs {
		set = append(set, "--keep-session-ids")
	}
	if *dropClickless {
		set = append(set, "--drop-clickless")
	}
	if len(set) > 0 {
		return usageError{fmt.Errorf("fit --log reads the log as lovbench fit --log does, without cleaning: %s apply to shard only (lovbench-beam shard, then fit --shard-dir)", strings.Join(set, ", "))}
	}
	return nil
}

// intervalFlags reads --interval and --no-intervals as lovbench fit does:
// the level must lie in (0, 1); --interval 0, the old spelling of
// --no-intervals, still does the same, with a warning.
func intervalFlags() (level float64, none bool, err error) {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "interval" })
	switch {
	case set && *noInterval:
		return 0, false, usageError{errors.New("give --interval or --no-intervals, not both")}
	case *noInterval:
		return 0, true, nil
	case set && *interval == 0:
		slog.Warn("--interval 0 is the old spelling of --no-intervals, and does the same: the relevance files get no intervals and labels made from them no confidence; write --no-intervals")
		return 0, true, nil
	}
	if err := clickmodels.CheckLevel(*interval); err != nil {
		return 0, false, usageError{fmt.Errorf("--interval: %w; --no-intervals fits without intervals", err)}
	}
	return *interval, false, nil
}

// ownFlags are the flags of lovbench-beam itself; every other flag of the
// command line is one of Beam's pipeline options (registered by the SDK,
// its runners and file systems).
var ownFlags = map[string]bool{
	"log": true, "shards": true, "out": true, "part-size": true, "pii-blacklist": true, "full-serp": true,
	"max-line": true, "shard-dir": true, "models": true, "iterations": true, "pii-salt": true,
	"keep-session-ids": true, "tolerance": true, "accelerate": true, "exact": true, "pscm-authors": true, "empirical-prior": true, "estimator": true, "drop-clickless": true, "split": true, "train-fraction": true, "seed": true,
	"cpuprofile": true, "shard-cache": true, "interval": true, "no-intervals": true, "intervals-from": true,
}

// usage prints the help in lovbench's style: what the command does, its
// commands and its own flags, then Beam's pipeline options after them.
func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `lovbench-beam runs lovbench's log stages that outgrow one machine on Apache
Beam; its files are those lovbench writes (see beam/README.md).

Usage:
  lovbench-beam shard --log FILES --out DIR [flags]
  lovbench-beam fit (--shard-dir DIR | --log FILES) --out DIR [flags]

Available Commands:
  shard       clean Yandex logs as lovbench ingest does and cut them into query shards
  fit         fit DCTR, UBM, DBN, SDBN, DCM, CCM and PSCM by EM over query shards, or over a log read as lovbench fit --log reads it

Flags:
`)
	printFlags(w, fs, func(name string) bool { return ownFlags[name] })
	fmt.Fprint(w, "\nBeam pipeline options (the runner and its settings; default runner: prism, in process):\n")
	printFlags(w, fs, func(name string) bool { return !ownFlags[name] })
}

// printFlags prints the flags of fs that keep selects, sorted by name, one
// per line as "  --name type   usage (default value)".
func printFlags(w io.Writer, fs *flag.FlagSet, keep func(string) bool) {
	type line struct{ left, usage string }
	var lines []line
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		if !keep(f.Name) {
			return
		}
		typ, use := flag.UnquoteUsage(f)
		left := "  --" + f.Name
		if typ != "" {
			left += " " + typ
		}
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
			use += " (default " + f.DefValue + ")"
		}
		lines = append(lines, line{left, strings.ReplaceAll(use, "\n", " ")})
		width = max(width, len(left))
	})
	for _, l := range lines {
		fmt.Fprintf(w, "%-*s   %s\n", width, l.left, l.usage)
	}
}
