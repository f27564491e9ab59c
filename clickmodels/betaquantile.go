package clickmodels

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// BetaQuantile returns the y quantile of Beta(a, b): the x in [0, 1] with
// I_x(a, b) = y, I the regularized incomplete beta function. It is the
// intervals' and the order confidences' one home of the inverse.
//
// Method: a first guess from the normal approximation of Abramowitz and
// Stegun (1964), formula 26.5.22, where a and b are at least 1, and from
// the two tails' leading terms otherwise (I_x ≈ x^a / (a B(a, b)) near 0,
// 1 - (1-x)^b / (b B(a, b)) near 1), then Halley's method on
// I_x(a, b) - y with the Beta density as derivative and its logarithmic
// derivative (a-1)/x - (b-1)/(1-x) for the second order. It stops once a
// step moves x by at most betaQuantileTol relative to the nearer of x
// and 1 - x; a guess that
// leaves (0, 1) or does not settle in betaQuantileSteps steps falls back
// to gonum's InvRegIncBeta (the Cephes inverse), which the tests take as
// the reference. Two to four evaluations of I_x usually suffice: about
// half InvRegIncBeta's time (BenchmarkBetaQuantile), the intervals being
// the fit's largest cost on logs with many pairs (docs/clickmodels.md,
// "Cost of the default estimator").
func BetaQuantile(a, b, y float64) float64 {
	if !betaQuantileNewton(a, b, y) {
		return betaQuantileRef(a, b, y)
	}
	return betaQuantileLB(a, b, newBetaTail(y), logBeta(a, b))
}

// betaTail is a probability y in (0, 1) whose quantiles BetaQuantile
// finds, with z, the standard normal's upper y quantile, which its first
// guess takes (betaQuantileGuess): the intervals of one level share
// their two tails (BetaInterval, intervalCache), so z is computed once
// per level instead of once per quantile.
type betaTail struct{ y, z float64 }

// newBetaTail returns y with its z.
func newBetaTail(y float64) betaTail {
	return betaTail{y: y, z: math.Sqrt2 * math.Erfcinv(2*y)}
}

// betaQuantileNewton reports whether BetaQuantile(a, b, y) takes Halley's
// method (betaQuantileLB) rather than the reference.
func betaQuantileNewton(a, b, y float64) bool {
	return a > 0 && b > 0 && !math.IsInf(a, 0) && !math.IsInf(b, 0) && y > 0 && y < 1
}

// betaQuantileLB is BetaQuantile's Halley's method for the tail t, given
// lb = ln B(a, b) (logBeta), which both ends of an interval share
// (BetaInterval).
func betaQuantileLB(a, b float64, t betaTail, lb float64) float64 {
	y := t.y
	x := betaQuantileGuess(a, b, t)
	for range betaQuantileSteps {
		if !(x > 0 && x < 1) {
			break
		}
		f := mathext.RegIncBeta(a, b, x) - y
		density := math.Exp((a-1)*math.Log(x) + (b-1)*math.Log1p(-x) - lb)
		t := f / density
		step := t / (1 - 0.5*min(1, t*((a-1)/x-(b-1)/(1-x))))
		next := x - step
		switch {
		case next <= 0:
			next = x / 2
		case next >= 1:
			next = (x + 1) / 2
		}
		if math.Abs(next-x) <= betaQuantileTol*min(x, 1-x) {
			return next
		}
		x = next
	}
	return betaQuantileRef(a, b, y)
}

// BetaQuantile's stopping rule: the last step's size relative to x, and
// the most steps before the fallback.
const (
	betaQuantileTol   = 1e-12
	betaQuantileSteps = 12
)

// betaQuantileRef is gonum's inverse, clamped to [0, 1]; the mean where
// it has none.
func betaQuantileRef(a, b, y float64) float64 {
	x := mathext.InvRegIncBeta(a, b, y)
	if math.IsNaN(x) {
		return a / (a + b)
	}
	return min(max(x, 0), 1)
}

// betaQuantileGuess is BetaQuantile's first guess (see there).
func betaQuantileGuess(a, b float64, tail betaTail) float64 {
	y := tail.y
	if a >= 1 && b >= 1 {
		// Abramowitz and Stegun 26.5.22, with z the standard normal's
		// upper y quantile.
		z := tail.z
		l := (z*z - 3) / 6
		h := 2 / (1/(2*a-1) + 1/(2*b-1))
		w := z*math.Sqrt(h+l)/h - (1/(2*b-1)-1/(2*a-1))*(l+5.0/6-2/(3*h))
		return a / (a + b*math.Exp(2*w))
	}
	t := math.Exp(a*math.Log(a/(a+b))) / a
	u := math.Exp(b*math.Log(b/(a+b))) / b
	if s := t + u; y < t/s {
		return math.Pow(a*s*y, 1/a)
	} else {
		return 1 - math.Pow(b*s*(1-y), 1/b)
	}
}

// logBeta is ln B(a, b).
func logBeta(a, b float64) float64 {
	x, _ := math.Lgamma(a)
	y, _ := math.Lgamma(b)
	z, _ := math.Lgamma(a + b)
	return x + y - z
}
