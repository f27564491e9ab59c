package features

import (
	"context"
	"testing"

	"github.com/lovbench/lovbench/internal/refdata"
)

// BenchmarkExtractPaper is BenchmarkExtract (whose corpus has the default,
// reference semantics) with the paper semantics, features 1-34.
func BenchmarkExtractPaper(b *testing.B) {
	dir := refdata.Path(b, "vocabularies")
	c, err := Load(context.Background(), []string{dir}, LoadOptions{Semantics: SemanticsPaper})
	if err != nil {
		b.Fatal(err)
	}
	pairs := benchPairs(c, 20000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := c.Extract(context.Background(), pairs, ExtractOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(pairs)*b.N)/b.Elapsed().Seconds(), "pairs/s")
}
