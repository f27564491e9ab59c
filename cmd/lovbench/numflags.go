package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// bound is the interval a numeric flag must lie in.
// Every numeric flag of lovbench is declared with floatVar or intVar, which
// check the value when the flag is parsed: NaN, an infinity or a value
// outside the bound is a flag error, i.e. a usage error (exit 2) naming the
// flag.
type bound struct {
	lo, hi         float64
	loOpen, hiOpen bool
}

// atLeast is [x, +inf); above is (x, +inf); within is [lo, hi]; between
// is (lo, hi).
func atLeast(x float64) bound      { return bound{lo: x, hi: math.Inf(1)} }
func above(x float64) bound        { return bound{lo: x, hi: math.Inf(1), loOpen: true} }
func within(lo, hi float64) bound  { return bound{lo: lo, hi: hi} }
func between(lo, hi float64) bound { return bound{lo: lo, hi: hi, loOpen: true, hiOpen: true} }

// String describes the bound, e.g. ">= 0", "in (0, 1)".
func (b bound) String() string {
	loInf, hiInf := math.IsInf(b.lo, -1), math.IsInf(b.hi, 1)
	switch {
	case loInf && hiInf:
		return "finite"
	case hiInf && b.loOpen:
		return "> " + fmtNum(b.lo)
	case hiInf:
		return ">= " + fmtNum(b.lo)
	}
	l, r := "[", "]"
	if b.loOpen {
		l = "("
	}
	if b.hiOpen {
		r = ")"
	}
	return "in " + l + fmtNum(b.lo) + ", " + fmtNum(b.hi) + r
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// check returns an error when v is not finite or outside b.
func (b bound) check(v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("must be a finite number %s", b)
	}
	if v < b.lo || v > b.hi || (b.loOpen && v == b.lo) || (b.hiOpen && v == b.hi) {
		return fmt.Errorf("must be %s", b)
	}
	return nil
}

type floatValue struct {
	p *float64
	b bound
}

func (f *floatValue) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("not a number")
	}
	if err := f.b.check(v); err != nil {
		return err
	}
	*f.p = v
	return nil
}

func (f *floatValue) String() string { return fmtNum(*f.p) }
func (f *floatValue) Type() string   { return "float" }

type intValue struct {
	p *int
	b bound
}

func (f *intValue) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil {
		return fmt.Errorf("not an integer")
	}
	if err := f.b.check(float64(v)); err != nil {
		return err
	}
	*f.p = int(v)
	return nil
}

func (f *intValue) String() string { return strconv.Itoa(*f.p) }
func (f *intValue) Type() string   { return "int" }

// floatVar defines a float64 flag whose values must lie in b; the bound is
// added to the help text.
func floatVar(fs *pflag.FlagSet, p *float64, name string, def float64, b bound, usage string) {
	*p = def
	fs.Var(&floatValue{p, b}, name, usage+" ("+b.String()+")")
}

// intVar defines an int flag whose values must lie in b.
func intVar(fs *pflag.FlagSet, p *int, name string, def int, b bound, usage string) {
	intVarP(fs, p, name, "", def, b, usage)
}

// intVarP is intVar with a shorthand letter.
func intVarP(fs *pflag.FlagSet, p *int, name, short string, def int, b bound, usage string) {
	*p = def
	fs.VarP(&intValue{p, b}, name, short, usage+" ("+b.String()+")")
}

// uint64Value is an unsigned integer flag (seeds) whose parse error says
// what is wanted instead of strconv's message.
type uint64Value struct{ p *uint64 }

func (f *uint64Value) Set(s string) error {
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return fmt.Errorf("must be a whole number from 0 to %d", uint64(math.MaxUint64))
	}
	*f.p = v
	return nil
}

func (f *uint64Value) String() string { return strconv.FormatUint(*f.p, 10) }
func (f *uint64Value) Type() string   { return "uint" }

// uint64Var defines an unsigned integer flag (a seed).
func uint64Var(fs *pflag.FlagSet, p *uint64, name string, def uint64, usage string) {
	*p = def
	fs.Var(&uint64Value{p}, name, usage)
}

// floatListValue is a comma-separated list of numbers with no default
// value: unset, it prints nothing, so that the help shows only the
// defaults its usage text states.
type floatListValue struct{ p *[]float64 }

func (f *floatListValue) Set(s string) error {
	var out []float64
	for _, x := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%q is not a finite number", x)
		}
		out = append(out, v)
	}
	*f.p = out
	return nil
}

func (f *floatListValue) String() string {
	s := make([]string, len(*f.p))
	for i, v := range *f.p {
		s[i] = fmtNum(v)
	}
	return strings.Join(s, ",")
}
func (f *floatListValue) Type() string { return "floats" }

// floatListVar defines a flag taking comma-separated numbers, unset by
// default.
func floatListVar(fs *pflag.FlagSet, p *[]float64, name, usage string) {
	*p = nil
	fs.Var(&floatListValue{p}, name, usage)
}
