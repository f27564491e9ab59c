// Package progress shows progress bars for long work on stderr. Bars are
// silent when the caller asks for quiet output or when stderr is not a
// terminal (cron jobs, CI, pipes), so logs stay clean.
package progress

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Bar counts work done. The zero-cost no-op Bar is returned when output is
// disabled, so callers never need to check.
type Bar interface {
	Add(n int)
	Finish()
}

// Options select where and whether bars are drawn.
type Options struct {
	Quiet  bool      // never draw
	Output io.Writer // default os.Stderr; bars are drawn only if it is a terminal
}

// Enabled reports whether bars would be drawn with these options.
func (o Options) Enabled() bool {
	if o.Quiet {
		return false
	}
	w := o.Output
	if w == nil {
		w = os.Stderr
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// New returns a bar for total units of work described by desc; total < 0
// means unknown (a spinner).
func New(o Options, total int64, desc string) Bar {
	if !o.Enabled() {
		return nop{}
	}
	w := o.Output
	if w == nil {
		w = os.Stderr
	}
	b := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100_000_000),
		progressbar.OptionClearOnFinish(),
	)
	return bar{b}
}

type bar struct{ b *progressbar.ProgressBar }

func (b bar) Add(n int) { _ = b.b.Add(n) }
func (b bar) Finish()   { _ = b.b.Finish() }

type nop struct{}

func (nop) Add(int) {}
func (nop) Finish() {}
