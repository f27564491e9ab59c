package clickmodels

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestCascadeLLChunk checks cascadeLLChunk, the tolerance's log-likelihood
// of DBN and SDBN taken four SERPs side by side, against addLL (clickProbs'
// conditional probabilities and serpLL), SERP by SERP, bit for bit: on a
// log of SERPs of 1 to 10 ranks, with values that reach serpLL's every
// path (factors below 2^-100 taken one by one, products folded below
// 2^-900) and a trainLL and an estepLL pass that must sum the same bits.
func TestCascadeLLChunk(t *testing.T) {
	for _, c := range []struct {
		kind       Kind
		clickedLog bool
	}{{DBN, false}, {SDBN, false}, {DBN, true}, {SDBN, true}} {
		testCascadeLLChunk(t, c.kind, c.clickedLog)
	}
}

// testCascadeLLChunk is TestCascadeLLChunk for one model, on
// randomClickLog's log or (clickedLog) on one whose ranks are clicked with
// probability 0.9, where products of factors near 2^-95 fold.
func testCascadeLLChunk(t *testing.T, kind Kind, clickedLog bool) {
	ctx := context.Background()
	d := randomClickLog(t, 3000, 200, 30, 1)
	if clickedLog {
		d = clickedClickLog(t, 2000, 100, 30)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	{
		g := filled(kind.GlobalParams(d.ranks), 0.7)
		if clickedLog {
			g = filled(kind.GlobalParams(d.ranks), 1)
		}
		f := newFitter(ctx, d, kind, Options{Workers: 2, Exact: true}, g, true)
		if !f.cascadeLL() {
			t.Fatalf("%s: not cascadeLL", kind)
		}
		for p := range f.attr {
			switch rng.IntN(6) {
			case 0:
				f.attr[p] = 0x1p-95 // clicked: a product of a few folds below 2^-900
			case 1:
				f.attr[p] = 1e-40 // a factor below 2^-100
			case 2:
				f.attr[p] = 1 - 1e-12 // unclicked: 1 - a x near 0
			default:
				f.attr[p] = rng.Float64()
			}
			f.sat[p] = rng.Float64()
			if clickedLog && rng.IntN(2) == 0 {
				f.attr[p], f.sat[p] = 0x1p-95, 0
			}
		}
		sc := newScratch(f.ng)
		var want ExactSum
		var v view
		perSERP := make([]float64, d.Records())
		for i := range d.Records() {
			f.load(&v, sc, i)
			f.addLL(&v, sc, d.recWeight[i])
			perSERP[i] = sc.ll.Float64()
			want.Merge(&sc.ll)
			sc.ll = ExactSum{}
		}
		// SERP by SERP, through one-record chunks, then the lanes of a
		// full group.
		for i := range d.Records() {
			sc.ll = ExactSum{}
			f.cascadeLLChunk(chunk{recLo: i, recHi: i + 1}, sc)
			if got := sc.ll.Float64(); math.Float64bits(got) != math.Float64bits(perSERP[i]) {
				t.Fatalf("%s: SERP %d: %v, addLL %v", kind, i, got, perSERP[i])
			}
		}
		for i := range d.Records() {
			lo := i - i%cascadeLLLanes
			hi := min(lo+cascadeLLLanes, d.Records())
			var got ExactSum
			sc.ll = ExactSum{}
			f.cascadeLLChunk(chunk{recLo: lo, recHi: hi}, sc)
			got.Merge(&sc.ll)
			sc.ll = ExactSum{}
			var rest ExactSum
			for j := lo; j < hi; j++ {
				if j != i {
					x := perSERP[j]
					rest.Add(x)
				}
			}
			rest.Add(perSERP[i])
			if math.Float64bits(got.Float64()) != math.Float64bits(rest.Float64()) {
				t.Fatalf("%s: SERPs %d-%d: %v, addLL %v", kind, lo, hi, got.Float64(), rest.Float64())
			}
		}
		st := NewStats(kind, d.ranks)
		f.trainLL(ctx, st)
		if math.Float64bits(st.LL.Float64()) != math.Float64bits(want.Float64()) || math.IsNaN(want.Float64()) {
			t.Fatalf("%s: trainLL %v, addLL %v", kind, st.LL.Float64(), want.Float64())
		}
		st = NewStats(kind, d.ranks)
		f.estepLL(ctx, st)
		if math.Float64bits(st.LL.Float64()) != math.Float64bits(want.Float64()) {
			t.Fatalf("%s: estepLL %v, addLL %v", kind, st.LL.Float64(), want.Float64())
		}
	}
}

// clickedClickLog is a prepared log of n SERPs of 10 ranks over the given
// numbers of queries and documents, each rank clicked with probability 0.9.
func clickedClickLog(tb testing.TB, n, queries, docs int) *Data {
	return clickLogOf(tb, n, queries, docs, 10, rand.New(rand.NewPCG(9, 13)), func(int) float64 { return 0.9 })
}

// TestItemsPassOneLength checks the log-likelihood of UBM's and PBM's
// pass over the items (itemsPass) on queries whose SERPs all have one
// length, which it folds in registers, bit for bit against llFold.add on
// every item (addOnlyLL): on logs of SERPs of 10 ranks whose queries
// repeat the same few documents (items of more than 16 ranks), with
// values that reach every path (factors below 2^-100, products folded
// below 2^-900, whole and fractional weights); and on a log of SERPs of
// 1 to 10 ranks over many queries ("mixed"), where queries of one length
// follow queries of several within a chunk, so that what a query of
// several lengths left in the registers must not reach the next one.
func TestItemsPassOneLength(t *testing.T) {
	ctx := context.Background()
	logs := map[string]*Data{
		"random":  randomClickLog(t, 3000, 15, 12, 10),
		"clicked": clickedClickLog(t, 2000, 10, 12),
		"mixed":   randomClickLog(t, 3000, 500, 14, 1),
	}
	for name, d := range logs {
		for _, kind := range []Kind{PBM, UBM} {
			g := filled(kind.GlobalParams(d.ranks), 0.9)
			f := newFitter(ctx, d, kind, Options{Workers: 2}, g, true)
			f.ill = newItemLL(ctx, f)
			var many, tiny int
			for _, it := range f.ill.items {
				if it.w > 16 {
					many++
				}
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for p := range f.attr {
				switch rng.IntN(4) {
				case 0:
					f.attr[p] = 0x1p-95
				case 1:
					f.attr[p], tiny = 1e-40, tiny+1
				default:
					f.attr[p] = rng.Float64()
				}
			}
			for it := range 3 {
				ref := addOnlyLL(d, f)
				st := NewStats(kind, d.ranks)
				f.estepLL(ctx, st)
				if ref != st.LL || math.IsNaN(ref.Float64()) {
					t.Fatalf("%s %v iteration %d: the pass's log-likelihood %v, llFold.add on every item %v", name, kind, it, st.LL.Float64(), ref.Float64())
				}
				copy(g, MStepGlobals(kind, st))
			}
			if name == "mixed" {
				var one, several int
				for _, l := range f.ill.lens {
					if l&(l-1) == 0 {
						one++
					} else {
						several++
					}
				}
				if one == 0 || several == 0 || !f.ill.fused {
					t.Fatalf("mixed %v: %d queries of one length, %d of several, fused %v: the test does not reach its case", kind, one, several, f.ill.fused)
				}
				continue
			}
			if many == 0 || tiny == 0 || !f.ill.fused {
				t.Fatalf("%s %v: %d items of more than 16 ranks, %d tiny values, fused %v: the test does not reach its cases", name, kind, many, tiny, f.ill.fused)
			}
		}
	}
}

// TestTSVBreak checks tsvBreak against strings.ContainsAny(s, "\t\r\n") on
// every string of up to two bytes from a set that holds the three, their
// neighbours, a multibyte letter's bytes and invalid UTF-8.
func TestTSVBreak(t *testing.T) {
	parts := []string{"", "a", "\t", "\n", "\r", "\v", "\f", "\x08", "\x0e", " ", "é", "\xc3", "\xff", "\x00"}
	for _, x := range parts {
		for _, y := range parts {
			s := x + y
			if got, want := tsvBreak(s), strings.ContainsAny(s, "\t\r\n"); got != want {
				t.Errorf("tsvBreak(%q) = %v, ContainsAny %v", s, got, want)
			}
		}
	}
}

// TestIntervalCache checks intervalCache against BetaInterval, bit for
// bit: Betas drawn with repeats, whole and fractional, among them pairs
// of Betas that take the same slot, some with the same alpha (each must
// take it over from the other), and a change of level, after which no interval of the former
// level may come back.
func TestIntervalCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 8))
	draw := func(i int) [2]float64 {
		if i%3 == 0 {
			return [2]float64{float64(1 + rng.IntN(30)), float64(1 + rng.IntN(300))}
		}
		return [2]float64{0.05 + 20*rng.Float64(), 0.05 + 200*rng.Float64()}
	}
	var pool [][2]float64
	for i := range 1500 {
		pool = append(pool, draw(i))
	}
	collide := 0
	for i, k := range pool[:30] {
		for {
			o := draw(1)
			if i%2 == 0 { // the same alpha, another beta
				o[0] = k[0]
			}
			if o != k && intervalSlotOf(o[0], o[1]) == intervalSlotOf(k[0], k[1]) {
				pool = append(pool, o)
				collide++
				break
			}
		}
	}
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	var c intervalCache
	for _, level := range []float64{0.9, 0.5, 0.9} {
		for range 3000 {
			k := pool[rng.IntN(len(pool))]
			if rng.IntN(4) == 0 { // a colliding pair, one after the other
				j := rng.IntN(collide)
				k = pool[j]
				c.interval(pool[1500+j][0], pool[1500+j][1], level)
			}
			lo, hi := c.interval(k[0], k[1], level)
			wlo, whi := BetaInterval(k[0], k[1], level)
			if !same(lo, wlo) || !same(hi, whi) {
				t.Fatalf("level %v, Beta(%v, %v): cached [%v, %v], BetaInterval [%v, %v]", level, k[0], k[1], lo, hi, wlo, whi)
			}
		}
	}
}

// TestFieldsCache checks fieldsCache's text against strconv.AppendFloat's
// of each number, byte for byte: sets of numbers drawn with repeats from a
// pool larger than the table (so slots are taken over), with 0 and -0,
// NaN, infinities, whole numbers and fractions.
func TestFieldsCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	special := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), 1, 0.5, 1e-300, 12345}
	pool := make([][4]float64, 3<<fieldsSlotBits)
	for i := range pool {
		for j := range pool[i] {
			if rng.IntN(3) == 0 {
				pool[i][j] = special[rng.IntN(len(special))]
			} else {
				pool[i][j] = rng.Float64() * math.Pow(10, float64(rng.IntN(9)-4))
			}
		}
	}
	var c fieldsCache
	for range 60000 {
		x := pool[rng.IntN(len(pool))]
		if rng.IntN(2) == 0 {
			x = pool[rng.IntN(100)] // often repeated
		}
		got := c.append([]byte("p\t"), x)
		want := []byte("p\t")
		for _, v := range x {
			want = strconv.AppendFloat(append(want, '\t'), v, 'g', -1, 64)
		}
		if string(got) != string(want) {
			t.Fatalf("%v: %q, AppendFloat %q", x, got, want)
		}
	}
}

// BenchmarkDBNLL is exact DBN's log-likelihood pass alone (trainLL,
// cascadeLLChunk) on BenchmarkDBNPass's log (300,000 SERPs of 10 ranks
// over 20,000 queries), at the values after one pass, one worker.
// Reported: CPU-milliseconds (user+sys) per pass.
//
//	go test ./clickmodels -run '^$' -bench DBNLL -benchtime 40x
func BenchmarkDBNLL(b *testing.B) {
	ctx := context.Background()
	d := randomClickLog(b, 300000, 20000, 30, 10)
	g := filled(DBN.GlobalParams(d.ranks), Unseen)
	f := newFitter(ctx, d, DBN, Options{Workers: 1, Exact: true}, g, true)
	st := NewStats(DBN, d.ranks)
	f.estepLL(ctx, st)
	copy(g, MStepGlobals(DBN, st))
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for b.Loop() {
		f.trainLL(ctx, NewStats(DBN, d.ranks))
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := func(ru *syscall.Rusage) float64 { return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6 }
	b.ReportMetric((cpu(&ru1)-cpu(&ru0))/float64(b.N), "cpu-ms/op")
}
