package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The binary links one Parquet library (parquet-go) and only the Arrow IPC
// part of arrow-go: arrow-go's Parquet packages pulled in
// Arrow Flight, gRPC and the compute kernels (493 packages, a 67 MB binary).
func TestNoArrowParquetInBinary(t *testing.T) {
	t.Parallel()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found; cannot list the dependencies")
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	pkgs := strings.Fields(string(out))
	for _, p := range pkgs {
		for _, bad := range []string{
			"github.com/apache/arrow-go/v18/parquet",
			"github.com/apache/arrow-go/v18/arrow/compute",
			"github.com/apache/arrow-go/v18/arrow/flight",
			"google.golang.org/grpc",
		} {
			if p == bad || strings.HasPrefix(p, bad+"/") {
				t.Errorf("the binary links %s", p)
			}
		}
	}
	// 382 packages after the move (493 before); a margin for other work.
	if len(pkgs) > 420 {
		t.Errorf("the binary links %d packages, want at most 420", len(pkgs))
	}
}
