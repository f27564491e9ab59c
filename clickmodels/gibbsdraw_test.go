package clickmodels

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

// chiSquareBound is the bound the tests put on a chi-square statistic of
// df degrees of freedom: its mean df plus 6 of its standard deviations
// sqrt(2 df) (the tail beyond is below 1e-6 for every df used here; a
// wrong sampler, drawn this many times, lands far beyond).
func chiSquareBound(df int) float64 { return float64(df) + 6*math.Sqrt(2*float64(df)) }

// chiSquare is the statistic of observed counts obs against expected
// probabilities prob over draws draws, the cells of expectation below 5
// pooled with their neighbours, and its degrees of freedom.
func chiSquare(obs []int, prob []float64, draws int) (stat float64, df int) {
	var o, e float64
	cells := 0
	for i := range obs {
		o, e = o+float64(obs[i]), e+prob[i]*float64(draws)
		if e >= 5 || i == len(obs)-1 {
			if e > 0 {
				stat += (o - e) * (o - e) / e
				cells++
			} else if o > 0 {
				return math.Inf(1), 0 // drawn where the law puts nothing
			}
			o, e = 0, 0
		}
	}
	return stat, cells - 1
}

// TestBinomialExact checks drawer.binomial against the binomial
// probabilities n!/(x!(n-x)!) p^x (1-p)^(n-x), computed here, by a
// chi-square test per (n, p): by inversion (mean up to 16), by the split
// at the median order statistic (above), and p above 1/2 by symmetry.
func TestBinomialExact(t *testing.T) {
	g := newDrawer()
	g.seed(11, 12)
	for _, c := range []struct {
		n int
		p float64
	}{{1, 0.3}, {16, 0.02}, {20, 0.5}, {40, 0.35}, {100, 0.93}, {250, 0.3}, {1000, 0.01}, {5000, 0.6}, {100000, 0.25}} {
		const draws = 200000
		obs := make([]int, c.n+1)
		var sum, sum2 float64
		for range draws {
			x := g.binomial(c.n, c.p)
			if x < 0 || x > c.n {
				t.Fatalf("Binomial(%d, %v): drew %d", c.n, c.p, x)
			}
			obs[x]++
			sum, sum2 = sum+float64(x), sum2+float64(x)*float64(x)
		}
		prob := make([]float64, c.n+1)
		ln, _ := math.Lgamma(float64(c.n + 1))
		for x := range prob {
			lx, _ := math.Lgamma(float64(x + 1))
			ly, _ := math.Lgamma(float64(c.n - x + 1))
			prob[x] = math.Exp(ln - lx - ly + float64(x)*math.Log(c.p) + float64(c.n-x)*math.Log1p(-c.p))
		}
		stat, df := chiSquare(obs, prob, draws)
		if b := chiSquareBound(df); stat > b {
			t.Errorf("Binomial(%d, %v): chi-square %.1f on %d degrees of freedom, bound %.1f", c.n, c.p, stat, df, b)
		}
		mean, v := float64(c.n)*c.p, float64(c.n)*c.p*(1-c.p)
		if m := sum / draws; math.Abs(m-mean) > 5*math.Sqrt(v/draws) {
			t.Errorf("Binomial(%d, %v): mean %v, want %v", c.n, c.p, m, mean)
		}
		if got := sum2/draws - (sum/draws)*(sum/draws); math.Abs(got-v) > 5*v*math.Sqrt(2.0/draws)+1e-12 {
			t.Errorf("Binomial(%d, %v): variance %v, want %v", c.n, c.p, got, v)
		}
	}
}

// TestBetaExact checks drawer.beta (two Marsaglia-Tsang gammas, with the
// boost of a shape below 1) against the Beta's distribution function
// (the regularized incomplete beta function) by a chi-square test on 40
// cells of equal width, for shapes below and above 1.
func TestBetaExact(t *testing.T) {
	g := newDrawer()
	g.seed(21, 22)
	const draws, cells = 200000, 40
	for _, c := range [][2]float64{{0.3, 0.5}, {0.7, 4}, {1, 1}, {2.5, 7}, {30, 2}, {400, 900}} {
		obs := make([]int, cells)
		for range draws {
			x := g.beta(c[0], c[1])
			if !(x >= 0 && x <= 1) {
				t.Fatalf("Beta(%v, %v): drew %v", c[0], c[1], x)
			}
			obs[min(int(x*cells), cells-1)]++
		}
		prob := make([]float64, cells)
		for i := range prob {
			prob[i] = mathext.RegIncBeta(c[0], c[1], float64(i+1)/cells) - mathext.RegIncBeta(c[0], c[1], float64(i)/cells)
		}
		stat, df := chiSquare(obs, prob, draws)
		if b := chiSquareBound(df); stat > b {
			t.Errorf("Beta(%v, %v): chi-square %.1f on %d degrees of freedom, bound %.1f", c[0], c[1], stat, df, b)
		}
	}
}

// TestCascadeWalksGrouped checks the walks of a record of weight w drawn
// as one multinomial (cascadeWalks from groupedWalks on) against the
// brute-force enumeration of the model (dbnEnumerate): per draw of w
// walks, the number satisfied at the last click and the number who
// examined each rank below it are each binomial, Binomial(w, P(satisfied
// | clicks)) and Binomial(w, P(E_r = 1 | clicks)), so their means and
// variances over many draws must match w p and w p (1 - p) (within 5
// standard errors; the variance's standard error taken as a normal
// sample's, var sqrt(2 / draws)). A chain that forgot the satisfied
// users, or read the next rank's probability, fails the means; walks that
// were not independent (one walk counted w times) fail the variances.
func TestCascadeWalksGrouped(t *testing.T) {
	g := newDrawer()
	for _, w := range []int{groupedWalks, 40, 1000} {
		enumeratedSERPs(func(gamma float64, clicks uint64, pC, pCSat float64, pCExam [3]float64, l int, pSat float64, goOn []float64) {
			g.seed(uint64(w), clicks)
			const draws = 40000
			var sum, sum2 [4]float64 // ranks 0-2 examined, 3: satisfied
			for range draws {
				var examined [3]int
				sat := cascadeWalks(l, pSat, goOn, w, g, examined[:])
				x := [4]int{examined[0], examined[1], examined[2], sat}
				for i, v := range x {
					sum[i] += float64(v)
					sum2[i] += float64(v) * float64(v)
				}
			}
			check := func(what string, i int, p float64) {
				t.Helper()
				mean, v := float64(w)*p, float64(w)*p*(1-p)
				m := sum[i] / draws
				got := sum2[i]/draws - m*m
				if math.Abs(m-mean) > 5*math.Sqrt(v/draws)+1e-9 || math.Abs(got-v) > 5*v*math.Sqrt(2.0/draws)+1e-9 {
					t.Errorf("w %d gamma %v clicks %03b: %s: mean %.4f variance %.4f, enumeration %.4f and %.4f", w, gamma, clicks, what, m, got, mean, v)
				}
			}
			if l >= 0 {
				check("satisfied at the last click", 3, pCSat/pC)
			}
			for r := l + 1; r < 3; r++ {
				check("rank examined", r, pCExam[r]/pC)
			}
		})
	}
}

// TestPriorWarmStart checks the warm-started fit of a cell's prior (the
// sampler's refits, priorStart) against the maximum of the marginal log
// likelihood plus the hyperprior, sum over pairs of ln B(alpha + K, beta
// + N - K) - ln B(alpha, beta) - t/2 (t = ln(alpha + beta)), computed
// here by brute force over a grid (steps 0.01 and 0.05, then 0.0005 and
// 0.005 around its best point), for whole counts of up to 4 trials (each
// (K, N) its own histogram cell, so the histogram holds them exactly):
// started where the fit of the pairs before ended (a third of them then
// redrawn from another Beta, which moves the maximum by about 0.1 in the
// mean), the warm fit reaches the grid's maximum as the cold one does
// (within 0.01 of its log likelihood; with 3 warm iterations instead of
// warmIterations it stops 10 below).
func TestPriorWarmStart(t *testing.T) {
	g := newDrawer()
	g.seed(31, 32)
	draw := func(n int, a, b float64) [][2]int {
		pairs := make([][2]int, n)
		for i := range pairs {
			trials := 1 + i%4
			pairs[i] = [2]int{g.binomial(trials, g.beta(a, b)), trials}
		}
		return pairs
	}
	hist := func(pairs [][2]int) *priorHist {
		var h priorHist
		for _, p := range pairs {
			h.add(float64(p[0]), float64(p[1]))
		}
		return &h
	}
	before := draw(600, 1.2, 2.6)
	after := append([][2]int(nil), before...)
	for i, p := range draw(200, 3, 1.5) {
		after[i*3] = p
	}
	count := map[[2]int]float64{} // the pairs of each (K, N)
	for _, p := range after {
		count[p]++
	}
	lbeta := func(a, b float64) float64 {
		x, _ := math.Lgamma(a)
		y, _ := math.Lgamma(b)
		z, _ := math.Lgamma(a + b)
		return x + y - z
	}
	ll := func(mu, tt float64) float64 {
		c := math.Exp(tt)
		a, b := mu*c, (1-mu)*c
		s := -tt / 2
		for p, c := range count {
			s += c * (lbeta(a+float64(p[0]), b+float64(p[1]-p[0])) - lbeta(a, b))
		}
		return s
	}
	tLo, tHi := math.Log(minConcentration), math.Log(maxConcentration)
	best, bestMu, bestT := math.Inf(-1), 0.0, 0.0
	for mu := 0.01; mu < 1; mu += 0.01 {
		for tt := tLo; tt <= tHi; tt += 0.05 {
			if v := ll(mu, tt); v > best {
				best, bestMu, bestT = v, mu, tt
			}
		}
	}
	mu0, t0 := bestMu, bestT
	for mu := mu0 - 0.02; mu <= mu0+0.02; mu += 0.0005 {
		for tt := max(t0-0.1, tLo); tt <= min(t0+0.1, tHi); tt += 0.005 {
			if v := ll(mu, tt); v > best {
				best, bestMu, bestT = v, mu, tt
			}
		}
	}
	var start priorStart
	hist(before).fitFrom(maxConcentration, &start)
	if !start.ok {
		t.Fatal("the cold fit left no start")
	}
	warm := start
	for what, p := range map[string]BetaPrior{
		"cold": hist(after).fit(maxConcentration),
		"warm": hist(after).fitFrom(maxConcentration, &warm),
	} {
		c := p.Alpha + p.Beta
		mu, tt := p.Alpha/c, math.Log(c)
		if v := ll(mu, tt); v < best-0.01 || math.Abs(mu-bestMu) > 0.002 || math.Abs(tt-bestT) > 0.05 {
			t.Errorf("%s fit: mean %.4f, ln concentration %.3f, log likelihood %.5f; grid maximum %.5f at %.4f, %.3f", what, mu, tt, v, best, bestMu, bestT)
		}
	}
	if warm == start {
		t.Errorf("the warm fit did not move its start")
	}
}

// TestGibbsReads checks that the sampler draws every value its walks
// read: on a random click log, each record's latent conditionals
// (cascadeLatents) are computed with every value gibbsReads leaves
// unmarked set to NaN, and must come out finite (a NaN read anywhere
// spreads into the probability of going on or of the last click's
// satisfaction); and that it skips some (else it saves nothing).
func TestGibbsReads(t *testing.T) {
	d := randomClickLog(t, 800, 100, 30, 5) // most pairs shown once or twice
	f := &fitter{d: d}
	read := f.gibbsReads()
	skipA, skipS := 0, 0
	for _, r := range read {
		if r&readAttr == 0 {
			skipA++
		}
		if r&readSat == 0 {
			skipS++
		}
	}
	if skipA == 0 || skipS == 0 || skipA == len(read) || skipS == len(read) {
		t.Fatalf("of %d pairs, %d without a read attractiveness and %d without a read satisfaction", len(read), skipA, skipS)
	}
	for i := range d.recClicks {
		pairs := d.recPair[d.recOff[i]:d.recOff[i+1]]
		n := len(pairs)
		a, s := make([]float64, n), make([]float64, n)
		for r, p := range pairs {
			a[r], s[r] = math.NaN(), math.NaN()
			if read[p]&readAttr != 0 {
				a[r] = 0.3
			}
			if read[p]&readSat != 0 {
				s[r] = 0.6
			}
		}
		car, goOn := make([]float64, n+1), make([]float64, n)
		l, pSat := cascadeLatents(a, s, 0.8, d.recClicks[i], car, goOn)
		if math.IsNaN(pSat) {
			t.Fatalf("record %d (clicks %b): the last click's satisfaction read an unmarked value", i, d.recClicks[i])
		}
		for r := max(l, 0); r < n-1; r++ {
			if math.IsNaN(goOn[r]) {
				t.Fatalf("record %d (clicks %b): going on from rank %d read an unmarked value", i, d.recClicks[i], r)
			}
		}
	}
}
