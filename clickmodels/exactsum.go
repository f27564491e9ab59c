package clickmodels

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
)

// ExactSum is an order-free accumulator of float64 values: each addend is
// quantised on its own to the fixed grid 2^-62 (its bits below 2^-62 are
// cut, towards zero) and the quantised values are added exactly in a
// 128-bit two's-complement fixed-point number (64 integer bits, 64
// fraction bits). Integer addition is associative, so the sum does not
// depend on the order or grouping of the additions, and Float64 rounds it
// once, to nearest even. Global parameters, log-likelihoods and evaluation
// sums are accumulated this way so that a fit gives the same bits whatever
// the chunking, the number of workers or the number of query shards
// (docs/scale.md, "Order-free sums").
//
// The grid costs less than 2^-62 (2.2e-19) per addend, far below the 1e-6 to
// which the fits equal PyClick's and below float64's own resolution for
// every count or log-likelihood of at least 2^-9. The range is that of
// click logs: |sum| < 2^63. An addend of magnitude 2^62 or more, or an
// infinite one, makes the sum infinite; a NaN makes it NaN.
//
// An earlier version kept a Kulisch accumulator of 69 32-bit limbs, exact
// over the whole float64 range; it made the EM loop up to ten times slower
// on small logs, mostly in merging and rounding its limbs.
//
// The zero value is an empty sum.
type ExactSum struct {
	hi, lo uint64 // the sum times 2^64, two's complement: hi·2^64 + lo
	nan    bool
	posInf bool
	negInf bool
}

// exactSumBytes is the size of MarshalBinary's encoding.
const exactSumBytes = 17

// Add adds x, quantised towards zero to a multiple of 2^-62.
func (s *ExactSum) Add(x float64) {
	ax := math.Abs(x)
	if !(ax < 0x1p62) {
		s.special(x)
		return
	}
	// Integer part and fraction in units of 2^-62 by signed conversions
	// (cheaper than unsigned ones): the subtraction is exact, the scaling
	// too, and the conversion cuts the bits below 2^-62.
	ih := int64(ax)
	il := int64((ax - float64(ih)) * 0x1p62)
	h, l := uint64(ih), uint64(il)<<2 // l: the fraction in units of 2^-64
	var c uint64
	if x >= 0 {
		s.lo, c = bits.Add64(s.lo, l, 0)
		s.hi += h + c
	} else {
		s.lo, c = bits.Sub64(s.lo, l, 0)
		s.hi -= h + c
	}
}

// special records a NaN, an infinity or an addend beyond the range.
func (s *ExactSum) special(x float64) {
	switch {
	case x != x:
		s.nan = true
	case x < 0:
		s.negInf = true
	default:
		s.posInf = true
	}
}

// Merge adds the sum o to s exactly.
func (s *ExactSum) Merge(o *ExactSum) {
	var c uint64
	s.lo, c = bits.Add64(s.lo, o.lo, 0)
	s.hi += o.hi + c
	s.nan = s.nan || o.nan
	s.posInf = s.posInf || o.posInf
	s.negInf = s.negInf || o.negInf
}

// Float64 returns the sum rounded to the nearest float64 (ties to even);
// NaN if a NaN was added or both infinities, an infinity if one was added.
// The top 64 significant bits are taken with a sticky bit for the rest
// (round to odd), so that the uint64 conversion's one rounding to 53 bits
// is the correct one.
func (s *ExactSum) Float64() float64 {
	switch {
	case s.nan || (s.posInf && s.negInf):
		return math.NaN()
	case s.posInf:
		return math.Inf(1)
	case s.negInf:
		return math.Inf(-1)
	}
	hi, lo := s.hi, s.lo
	sign := 1.0
	if int64(hi) < 0 {
		sign = -1
		var b uint64
		lo, b = bits.Sub64(0, lo, 0)
		hi = 0 - hi - b
	}
	if hi == 0 {
		if lo == 0 {
			return 0
		}
		lz := bits.LeadingZeros64(lo)
		return sign * math.Ldexp(float64(lo<<uint(lz)), -64-lz) // lo<<lz loses no bit
	}
	lz := uint(bits.LeadingZeros64(hi))
	w := hi<<lz | lo>>(64-lz) // the top 64 bits (lo>>64 is 0 in Go)
	if lo<<lz != 0 {
		w |= 1 // sticky: bits below the window
	}
	return sign * math.Ldexp(float64(w), -int(lz))
}

// MarshalBinary encodes the sum: lo and hi little-endian, then a flag byte.
func (s *ExactSum) MarshalBinary() ([]byte, error) {
	out := make([]byte, exactSumBytes)
	binary.LittleEndian.PutUint64(out, s.lo)
	binary.LittleEndian.PutUint64(out[8:], s.hi)
	var fl byte
	if s.nan {
		fl |= 1
	}
	if s.posInf {
		fl |= 2
	}
	if s.negInf {
		fl |= 4
	}
	out[16] = fl
	return out, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (s *ExactSum) UnmarshalBinary(b []byte) error {
	if len(b) != exactSumBytes {
		return fmt.Errorf("exact sum: %d bytes, want %d", len(b), exactSumBytes)
	}
	s.lo = binary.LittleEndian.Uint64(b)
	s.hi = binary.LittleEndian.Uint64(b[8:])
	fl := b[16]
	if fl&^7 != 0 {
		return fmt.Errorf("exact sum: unknown flags %#x", fl)
	}
	s.nan, s.posInf, s.negInf = fl&1 != 0, fl&2 != 0, fl&4 != 0
	return nil
}
