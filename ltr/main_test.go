package ltr

import (
	"os"
	"testing"

	"github.com/lovbench/lovbench/internal/testsize"
)

// TestMain runs the tests with their temporary files on a memory file
// system when the machine has one with room (testsize.RunWithMemoryTemp).
func TestMain(m *testing.M) { os.Exit(testsize.RunWithMemoryTemp(m.Run)) }
