package clickmodels

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
)

// ExactSum is an order-free accumulator of float64 values: each addend is
// quantised on its own to the fixed grid 2^-52 (its bits below 2^-52 are
// cut, towards zero) and the quantised values are added exactly in a
// 128-bit two's-complement integer counting units of 2^-52. Integer
// addition is associative, so the sum does not depend on the order or
// grouping of the additions, and Float64 rounds it once, to nearest even.
// Global parameters, log-likelihoods and evaluation sums are accumulated
// this way so that a fit gives the same bits whatever the chunking, the
// number of workers or the number of query shards (docs/scale.md,
// "Order-free sums").
//
// The grid costs less than 2^-52 (2.2e-16) per addend, so a sum of n
// addends is off by less than n·2^-52 and their mean by less than 2^-52:
// for a sum at least n in magnitude (PBM's and UBM's counts: an item's
// count is at most its weight, which it also adds to the denominator) less
// than one float64 epsilon relative to the sum, no more than the rounding
// of a plain float64 sum, and far below the 1e-6 to which the fits equal
// PyClick's.
// The range is that of click logs: an addend of magnitude 2^62 or more, or
// an infinite one, makes the sum infinite; a NaN makes it NaN; the sum
// itself must stay below 2^75 in magnitude.
//
// The grid is 2^-52 rather than finer so that an addend below 2^11 in
// magnitude (almost every count and log-likelihood) is quantised by one
// multiplication and one conversion to a 64-bit integer (AddSmall).
//
// The zero value is an empty sum.
type ExactSum struct {
	hi, lo uint64  // the sum in units of 2^-52, two's complement: hi·2^64 + lo
	ovf    float64 // the addends beyond the range, each times +Inf: 0, ±Inf or NaN
}

// exactSumBytes is the size of MarshalBinary's encoding.
const exactSumBytes = 17

// smallMax bounds the addends AddSmall takes: |x| < 2^11, so |x|·2^52 < 2^63.
const smallMax = 0x1p11

// AddSmall adds x, quantised towards zero to a multiple of 2^-52, if
// |x| < 2^11 and reports whether it did; otherwise it leaves s unchanged.
// It is small enough to be inlined in the loops, which call it once per
// addend and fall back to addLarge when it returns false.
func (s *ExactSum) AddSmall(x float64) bool {
	if !(x < smallMax && x > -smallMax) { // NaN fails both
		return false
	}
	q := int64(x * 0x1p52) // exact scaling; the conversion cuts towards zero
	var c uint64
	s.lo, c = bits.Add64(s.lo, uint64(q), 0)
	s.hi += uint64(q>>63) + c // q sign-extended to 128 bits
	return true
}

// smallCount reports whether x lies in [+0, 2^11): the counts that
// addSmallCount takes. One integer comparison of the bit pattern does it,
// since the patterns of non-negative float64s are ordered as their values;
// negative numbers (the sign bit) and NaNs compare above.
func smallCount(x float64) bool { return math.Float64bits(x) < 0x40a0000000000000 }

// addSmallCount is AddSmall for an x of which smallCount holds: non-negative,
// so no sign extension. The EM loops add their counts as
//
//	if smallCount(x) { s.addSmallCount(x) } else { s.addLarge(x) }
//
// which compiles to fewer instructions than AddSmall's two comparisons and
// its result.
func (s *ExactSum) addSmallCount(x float64) {
	var c uint64
	s.lo, c = bits.Add64(s.lo, uint64(int64(x*0x1p52)), 0)
	s.hi += c
}

// addCount adds a non-negative count x as the EM loops do (addSmallCount
// when smallCount holds, else addLarge): the one form of the E-steps'
// per-SERP global counts.
func (s *ExactSum) addCount(x float64) {
	if smallCount(x) {
		s.addSmallCount(x)
	} else {
		s.addLarge(x)
	}
}

// Add adds x, quantised towards zero to a multiple of 2^-52.
func (s *ExactSum) Add(x float64) {
	if !s.AddSmall(x) {
		s.addLarge(x)
	}
}

// addLarge is Add for any x: the two-conversion path, which AddSmall's
// callers take when it returns false. It is small enough to be inlined, so
// that the EM loops make no call (and keep their values in registers).
func (s *ExactSum) addLarge(x float64) {
	if !(x < 0x1p62 && x > -0x1p62) { // beyond the range, infinite or NaN
		// x·2^1023 is an infinity of x's sign (NaN for a NaN); adding the
		// infinities keeps +Inf, -Inf or, for both or a NaN, NaN.
		s.ovf += x * 0x1p1023
		return
	}
	// Integer part and fraction in units of 2^-52, both cut towards zero
	// and of the sign of x: the subtraction is exact, the scaling too, and
	// the conversion cuts the bits below 2^-52. The addend in units is
	// ih·2^52 + il, added as two sign-extended 128-bit numbers.
	ih := int64(x)
	il := int64((x - float64(ih)) * 0x1p52)
	var c uint64
	s.lo, c = bits.Add64(s.lo, uint64(ih)<<52, 0)
	s.hi += uint64(ih>>12) + c
	s.lo, c = bits.Add64(s.lo, uint64(il), 0)
	s.hi += uint64(il>>63) + c
}

// Merge adds the sum o to s exactly.
func (s *ExactSum) Merge(o *ExactSum) {
	var c uint64
	s.lo, c = bits.Add64(s.lo, o.lo, 0)
	s.hi += o.hi + c
	s.ovf += o.ovf
}

// Float64 returns the sum rounded to the nearest float64 (ties to even);
// NaN if a NaN was added or both infinities, an infinity if one was added.
// The top 64 significant bits are taken with a sticky bit for the rest
// (round to odd), so that the uint64 conversion's one rounding to 53 bits
// is the correct one.
func (s *ExactSum) Float64() float64 {
	if s.ovf != 0 {
		return s.ovf
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
		return sign * math.Ldexp(float64(lo<<uint(lz)), -52-lz) // lo<<lz loses no bit
	}
	lz := uint(bits.LeadingZeros64(hi))
	w := hi<<lz | lo>>(64-lz) // the top 64 bits (lo>>64 is 0 in Go)
	if lo<<lz != 0 {
		w |= 1 // sticky: bits below the window
	}
	return sign * math.Ldexp(float64(w), 12-int(lz))
}

// MarshalBinary encodes the sum: lo and hi little-endian, then a flag byte.
func (s *ExactSum) MarshalBinary() ([]byte, error) {
	out := make([]byte, exactSumBytes)
	binary.LittleEndian.PutUint64(out, s.lo)
	binary.LittleEndian.PutUint64(out[8:], s.hi)
	var fl byte
	switch {
	case s.ovf != s.ovf:
		fl = 1 // NaN
	case s.ovf > 0:
		fl = 2 // +Inf
	case s.ovf < 0:
		fl = 4 // -Inf
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
	s.ovf = 0
	switch {
	case fl&1 != 0 || fl&6 == 6:
		s.ovf = math.NaN()
	case fl&2 != 0:
		s.ovf = math.Inf(1)
	case fl&4 != 0:
		s.ovf = math.Inf(-1)
	}
	return nil
}
