//go:build ignore

package main

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"github.com/lovbench/lovbench/clickmodels"
	"github.com/lovbench/lovbench/shards"
)

func live(msg string) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("%-30s live heap %6.1f MiB\n", msg, float64(ms.HeapAlloc)/(1<<20))
}

func main() {
	ctx := context.Background()
	st, err := shards.NewStream(ctx, os.Args[1], shards.SplitConfig{})
	if err != nil {
		panic(err)
	}
	live("stream")
	p, err := clickmodels.PrepareShard(ctx, st, 0, 10)
	if err != nil {
		panic(err)
	}
	live("prepared")
	fmt.Println("records", p.Data.Records(), "pairs", p.Data.Pairs(), "test", p.Test.Len(), "docs", p.Test.Docs.Len(), "queries", p.Test.Queries.Len())
	for _, k := range []clickmodels.Kind{clickmodels.UBM, clickmodels.DBN} {
		f := clickmodels.NewShardFit(ctx, p, k, clickmodels.Options{})
		live("fitter " + k.String())
		runtime.KeepAlive(f)
	}
}
