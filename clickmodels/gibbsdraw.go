package clickmodels

import (
	"math"
	"math/rand/v2"
)

// drawer draws from the distributions the Gibbs sampler needs (gibbs.go),
// exactly, from one PCG stream that the sampler seeds per record and per
// pair: uniforms, standard normals (rand.Rand's ziggurat), gammas, Betas
// and binomials.
type drawer struct {
	src *rand.PCG
	rnd *rand.Rand
}

func newDrawer() *drawer {
	src := rand.NewPCG(0, 0)
	return &drawer{src: src, rnd: rand.New(src)}
}

// seed restarts the stream at (a, b).
func (g *drawer) seed(a, b uint64) { g.src.Seed(a, b) }

// uniform is a uniform draw in [0, 1).
func (g *drawer) uniform() float64 { return uniform(g.src) }

// gamma draws from Gamma(a, 1), a > 0, by Marsaglia and Tsang's method
// ("A simple method for generating gamma variables", ACM TOMS 2000,
// sections 3-4: d = a - 1/3, c = 1/sqrt(9d), x standard normal, v = (1 +
// c x)^3, accept d v if u < 1 - 0.0331 x^4 or ln u < x^2/2 + d (1 - v +
// ln v)); for a < 1, Gamma(a + 1) U^(1/a) (their section 6), drawn as
// exp(-E/a) with E = -ln U standard exponential (rand.Rand's ziggurat,
// which saves the logarithm).
func (g *drawer) gamma(a float64) float64 {
	boost := 1.0
	if a < 1 {
		boost = math.Exp(-g.rnd.ExpFloat64() / a)
		a++
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := g.rnd.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := g.uniform()
		x2 := x * x
		if u < 1-0.0331*x2*x2 || math.Log(u) < 0.5*x2+d*(1-v+math.Log(v)) {
			return d * v * boost
		}
	}
}

// beta draws from Beta(a, b) as X / (X + Y), X ~ Gamma(a), Y ~ Gamma(b)
// (two gammas of shape below 1 may both underflow to 0: drawn again).
func (g *drawer) beta(a, b float64) float64 {
	for {
		x, y := g.gamma(a), g.gamma(b)
		if s := x + y; s > 0 {
			return x / s
		}
	}
}

// binomialInversionMean is the largest mean n min(p, 1 - p) that
// binomial draws by inversion; above it, it halves n first.
const binomialInversionMean = 16

// binomial draws from Binomial(n, p) exactly. With mean n p (p <= 1/2 by
// symmetry) up to binomialInversionMean, by inversion: one uniform, the
// probabilities P(x) from P(0) = (1 - p)^n by P(x + 1) / P(x) = (n - x) p
// / ((x + 1)(1 - p)) (Kachitvichyanukul and Schmeiser 1988, algorithm
// BINV), a uniform beyond their rounded sum drawn again. Above it, by the
// order statistics of n uniforms (Knuth, TAOCP vol. 2, section 3.4.1; Devroye,
// Non-Uniform Random Variate Generation 1986, section X.4): the i-th
// smallest of n, i = (n + 1)/2, is Beta(i, n + 1 - i); if it is at most
// p, those i are successes and each of the n - i above it is one with
// probability (p - b)/(1 - b); else each of the i - 1 below it is one
// with probability p / b.
func (g *drawer) binomial(n int, p float64) int {
	if n <= 0 || p <= 0 {
		return 0
	}
	if p >= 1 {
		return n
	}
	if p > 0.5 {
		return n - g.binomial(n, 1-p)
	}
	if float64(n)*p > binomialInversionMean {
		i := (n + 1) / 2
		b := g.beta(float64(i), float64(n+1-i))
		if b <= p {
			return i + g.binomial(n-i, (p-b)/(1-b))
		}
		return g.binomial(i-1, p/b)
	}
	s := p / (1 - p)
	a := float64(n+1) * s
	p0 := math.Exp(float64(n) * math.Log1p(-p))
	for {
		u, px := g.uniform(), p0
		for x := 0; x <= n; x++ {
			if u < px {
				return x
			}
			u -= px
			px *= a/float64(x+1) - s
		}
	}
}
