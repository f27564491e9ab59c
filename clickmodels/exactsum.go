package clickmodels

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
)

// ExactSum is an exact accumulator of float64 values: a fixed-point number
// spanning the whole float64 range (2^-1074 to 2^1024) in 32-bit limbs held
// in int64s (Kulisch's long accumulator). Add is exact, so the sum does not
// depend on the order or grouping of the additions; Float64 rounds it once,
// to nearest even. Global parameters, log-likelihoods and evaluation sums
// are accumulated this way so that a fit gives the same bits whatever the
// chunking, the number of workers or the number of query shards (issue 13;
// docs/scale.md). The zero value is an empty sum.
type ExactSum struct {
	limb   [exactLimbs]int64
	adds   int32 // additions since the last normalisation
	nan    bool
	posInf bool
	negInf bool
}

// exactLimbs covers bit positions 0 (2^-1074) to 2098 (the top bit of the
// largest finite float64 shifted by 1074) plus carry room.
const exactLimbs = 69

// exactNormEvery is the number of additions after which the limbs are
// normalised: each addition adds less than 2^32 to a limb, so an int64
// limb cannot overflow before 2^31 additions.
const exactNormEvery = 1 << 30

// Add adds x exactly.
func (s *ExactSum) Add(x float64) {
	b := math.Float64bits(x)
	e := int(b>>52) & 0x7ff
	mant := b & (1<<52 - 1)
	if e == 0x7ff {
		switch {
		case mant != 0:
			s.nan = true
		case b>>63 != 0:
			s.negInf = true
		default:
			s.posInf = true
		}
		return
	}
	pos := 0 // bit position of mant's bit 0, relative to 2^-1074
	if e == 0 {
		if mant == 0 {
			return
		}
	} else {
		mant |= 1 << 52
		pos = e - 1
	}
	idx, sh := pos>>5, uint(pos&31)
	lo := int64(uint32(mant << sh))
	rest := mant >> (32 - sh)
	mid, hi := int64(uint32(rest)), int64(rest>>32)
	if b>>63 != 0 {
		lo, mid, hi = -lo, -mid, -hi
	}
	s.limb[idx] += lo
	s.limb[idx+1] += mid
	s.limb[idx+2] += hi
	s.adds++
	if s.adds >= exactNormEvery {
		s.normalize()
	}
}

// normalize propagates carries so that every limb but the last lies in
// [0, 2^32); the last carries the sign.
func (s *ExactSum) normalize() {
	for i := 0; i < exactLimbs-1; i++ {
		c := s.limb[i] >> 32
		s.limb[i] -= c << 32
		s.limb[i+1] += c
	}
	s.adds = 0
}

// Merge adds the sum o to s exactly.
func (s *ExactSum) Merge(o *ExactSum) {
	oc := *o
	oc.normalize()
	s.normalize()
	for i := range s.limb {
		s.limb[i] += oc.limb[i]
	}
	s.adds = 1
	s.nan = s.nan || o.nan
	s.posInf = s.posInf || o.posInf
	s.negInf = s.negInf || o.negInf
}

// Float64 returns the sum rounded to the nearest float64 (ties to even);
// NaN if a NaN was added or both infinities, an infinity if one was added.
func (s *ExactSum) Float64() float64 {
	switch {
	case s.nan || (s.posInf && s.negInf):
		return math.NaN()
	case s.posInf:
		return math.Inf(1)
	case s.negInf:
		return math.Inf(-1)
	}
	c := *s
	c.normalize()
	top := exactLimbs - 1
	for top > 0 && c.limb[top] == 0 {
		top--
	}
	if top == 0 && c.limb[0] == 0 {
		return 0
	}
	v := big.NewInt(c.limb[top])
	t := new(big.Int)
	for i := top - 1; i >= 0; i-- {
		v.Lsh(v, 32)
		v.Add(v, t.SetInt64(c.limb[i]))
	}
	f := new(big.Float).SetInt(v) // exact: precision grows to fit
	f.SetMantExp(f, -1074)
	r, _ := f.Float64() // rounds to nearest even, denormals included
	return r
}

// MarshalBinary encodes the sum (normalised limbs, then a flag byte).
func (s *ExactSum) MarshalBinary() ([]byte, error) {
	c := *s
	c.normalize()
	out := make([]byte, exactLimbs*8+1)
	for i, l := range c.limb {
		binary.LittleEndian.PutUint64(out[i*8:], uint64(l))
	}
	var fl byte
	if c.nan {
		fl |= 1
	}
	if c.posInf {
		fl |= 2
	}
	if c.negInf {
		fl |= 4
	}
	out[exactLimbs*8] = fl
	return out, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (s *ExactSum) UnmarshalBinary(b []byte) error {
	if len(b) != exactLimbs*8+1 {
		return fmt.Errorf("exact sum: %d bytes, want %d", len(b), exactLimbs*8+1)
	}
	for i := range s.limb {
		s.limb[i] = int64(binary.LittleEndian.Uint64(b[i*8:]))
	}
	fl := b[exactLimbs*8]
	s.nan, s.posInf, s.negInf = fl&1 != 0, fl&2 != 0, fl&4 != 0
	s.adds = 1
	return nil
}
