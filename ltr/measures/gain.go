package measures

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// GainFunc maps a relevance grade (the label of a qrels line) to the gain
// value g of Küster and König-Ries (2010) Definition 2.
type GainFunc func(grade float64) float64

// ExpGain is the exponential gain 2^g - 1 (RankLib, Burges et al.). It is
// the default gain.
func ExpGain(grade float64) float64 { return math.Exp2(grade) - 1 }

// IdentityGain uses the grade itself as the gain, as the gain values of
// Table 1 of Küster and König-Ries (2010) do.
func IdentityGain(grade float64) float64 { return grade }

// BinaryGain returns the gain 1 for grades >= from and 0 otherwise: binary
// relevance as a gain setting (Küster and König-Ries (2008)
// Table 3, "Strict Binary" and "Relaxed Binary").
func BinaryGain(from float64) GainFunc {
	return func(grade float64) float64 {
		if grade >= from {
			return 1
		}
		return 0
	}
}

// MapGain returns a gain function that looks grades up in m (grade -> gain);
// grades missing from m get the gain 0.
func MapGain(m map[float64]float64) GainFunc {
	c := make(map[float64]float64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return func(grade float64) float64 { return c[grade] }
}

// ParseGain parses a --gain value: "exp" (2^g-1), "identity" (g),
// "binary:G" (1 for grades >= G) or an explicit map "0=0,1=1,2=3,3=7" of
// grade=gain pairs. Gains must be finite and >= 0 (Definition 2).
func ParseGain(s string) (GainFunc, error) {
	switch {
	case s == "" || s == "exp":
		return ExpGain, nil
	case s == "identity":
		return IdentityGain, nil
	case strings.HasPrefix(s, "binary:"):
		g, err := strconv.ParseFloat(strings.TrimPrefix(s, "binary:"), 64)
		if err != nil || math.IsNaN(g) || math.IsInf(g, 0) {
			return nil, fmt.Errorf("gain %q: binary:G needs a number G", s)
		}
		return BinaryGain(g), nil
	case strings.Contains(s, "="):
		m := map[float64]float64{}
		for _, pair := range strings.Split(s, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
			if !ok {
				return nil, fmt.Errorf("gain %q: %q is not grade=gain", s, pair)
			}
			grade, err1 := strconv.ParseFloat(strings.TrimSpace(k), 64)
			gain, err2 := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err1 != nil || err2 != nil || gain < 0 || math.IsNaN(gain) || math.IsInf(gain, 0) || math.IsNaN(grade) {
				return nil, fmt.Errorf("gain %q: %q needs a numeric grade and a finite gain >= 0", s, pair)
			}
			if _, dup := m[grade]; dup {
				return nil, fmt.Errorf("gain %q: grade %v given twice", s, grade)
			}
			m[grade] = gain
		}
		return MapGain(m), nil
	}
	return nil, fmt.Errorf("unknown gain %q (want exp, identity, binary:G or a map like 0=0,1=1,2=3)", s)
}

// DiscountFunc is the discount disc(i) >= 1 applied to the gain at the
// 1-based rank i (Küster and König-Ries (2010) section 3.1).
type DiscountFunc func(rank int) float64

// Log2Discount is log2(i+1), the RankLib and trec_eval discount and the
// default. It equals logb(i+b-1) with b = 2, a valid discount (section 3.3).
func Log2Discount(rank int) float64 { return math.Log2(float64(rank) + 1) }

// SqrtDiscount is the root discount sqrt(i) used for Tables 1 and 2 of
// Küster and König-Ries (2010) (valid: strictly increasing).
func SqrtDiscount(rank int) float64 { return math.Sqrt(float64(rank)) }

// NoDiscount is disc(i) = 1: discounted measures become their undiscounted
// counterparts (DCG becomes CG).
func NoDiscount(int) float64 { return 1 }

// LogBDiscount returns the adapted discount logb(i+b-1) of section 3.3,
// which is valid (strictly increasing from 1 at rank 1) for any base b > 1.
func LogBDiscount(b float64) DiscountFunc {
	lb := math.Log(b)
	return func(rank int) float64 { return math.Log(float64(rank)+b-1) / lb }
}

// OriginalDiscount returns the discount max(1, logb(i)) of Järvelin and
// Kekäläinen (section 3.1). It is constant for ranks 1..b and so makes NDCG
// incorrect in the sense of Definition 6; it is offered for comparison.
func OriginalDiscount(b float64) DiscountFunc {
	lb := math.Log(b)
	return func(rank int) float64 { return math.Max(1, math.Log(float64(rank))/lb) }
}

// ParseDiscount parses a --discount value: "log2", "sqrt", "none",
// "logb:B" (logb(i+B-1)) or "original:B" (max(1, logB(i))), with B > 1.
func ParseDiscount(s string) (DiscountFunc, error) {
	switch s {
	case "", "log2":
		return Log2Discount, nil
	case "sqrt":
		return SqrtDiscount, nil
	case "none":
		return NoDiscount, nil
	}
	kind, arg, ok := strings.Cut(s, ":")
	if ok && (kind == "logb" || kind == "original") {
		b, err := strconv.ParseFloat(arg, 64)
		if err != nil || !(b > 1) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("discount %q: the base must be a number > 1", s)
		}
		if kind == "logb" {
			return LogBDiscount(b), nil
		}
		return OriginalDiscount(b), nil
	}
	return nil, fmt.Errorf("unknown discount %q (want log2, sqrt, none, logb:B or original:B)", s)
}

// idealGains returns the gains of the judged grades in decreasing order:
// the ideal ranking of Definition 3.
func idealGains(judged []float64, gain GainFunc) []float64 {
	out := make([]float64, len(judged))
	for i, g := range judged {
		out[i] = gain(g)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(out)))
	return out
}
