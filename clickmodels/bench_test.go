package clickmodels

import (
	"context"
	"testing"
)

// BenchmarkFitReference fits each model (50 EM iterations) on the 4,500
// training SERPs of the shared PyClick reference log; compare with
// fit_seconds_pyclick in its metrics.json (bench/clickmodels prints the
// table).
func BenchmarkFitReference(b *testing.B) {
	log, _, _ := loadReference(b)
	train, _ := Split(log, 0.75)
	for _, k := range AllKinds() {
		b.Run(k.String(), func(b *testing.B) {
			for b.Loop() {
				d, err := Prepare(train, 0)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Fit(context.Background(), d, k, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
