package lbbeam

import (
	"slices"
	"testing"

	"github.com/lovbench/lovbench/clickmodels"
)

// iterMsgs returns a side-input iterator over msgs.
func iterMsgs(msgs [][]byte) func(*[]byte) bool {
	i := 0
	return func(b *[]byte) bool {
		if i == len(msgs) {
			return false
		}
		*b = msgs[i]
		i++
		return true
	}
}

// TestResolveOrderFree checks the M-step every shard runs on the previous
// step's messages: in any order it gives the globals of the summed
// statistics, (1 + Num) / (2 + Den) computed here by hand, one more
// iteration done, and the EM state carried; a converged state passes with
// its globals; shards that disagree on the state are an error.
func TestResolveOrderFree(t *testing.T) {
	const R = 2 // UBM: R*R = 4 globals
	k := clickmodels.UBM
	num := [][]float64{{1, 0.5, 0, 2}, {0.25, 0.25, 1, 0}, {0, 0, 0.5, 1}}
	den := [][]float64{{2, 1, 1, 3}, {1, 0.5, 2, 1}, {1, 0, 1, 1}}
	want := []float64{(1 + 1.25) / (2 + 4), (1 + 0.75) / (2 + 1.5), (1 + 1.5) / (2 + 4), (1 + 3.0) / (2 + 5)}
	head := emState{Done: 6, PrevLL: -1.5}
	var msgs [][]byte
	for s := range num {
		st := clickmodels.NewStats(k, R)
		for j := range st.Num {
			st.Num[j].Add(num[s][j])
			st.Den[j].Add(den[s][j])
		}
		b, err := st.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, appendMsg(head, b))
	}
	for _, order := range [][]int{{0, 1, 2}, {2, 0, 1}, {1, 2, 0}} {
		var in [][]byte
		for _, i := range order {
			in = append(in, msgs[i])
		}
		em, err := resolve(k, R, iterMsgs(in))
		if err != nil {
			t.Fatal(err)
		}
		if em.Done != 7 || em.PrevLL != -1.5 || em.Converged || !slices.Equal(em.Global, want) {
			t.Fatalf("order %v: %+v, want done 7, prevLL -1.5, globals %v", order, em, want)
		}
	}
	if em, err := resolve(k, R, iterMsgs([][]byte{{}})); err != nil || em.Done != 0 || em.Global != nil {
		t.Fatalf("initial message: %+v, %v", em, err)
	}
	conv := emState{Done: 3, Converged: true, Global: []float64{0.1, 0.2, 0.3, 0.4}}
	em, err := resolve(k, R, iterMsgs([][]byte{appendMsg(conv, nil), appendMsg(conv, nil)}))
	if err != nil || em.Done != 3 || !em.Converged || !slices.Equal(em.Global, conv.Global) {
		t.Fatalf("converged: %+v, %v", em, err)
	}
	other := appendMsg(emState{Done: 5}, nil)
	if _, err := resolve(k, R, iterMsgs([][]byte{msgs[0], other})); err == nil {
		t.Fatal("shards with different EM states resolved without an error")
	}
}
