package hashes

import (
	"encoding/binary"
	"hash/fnv"
	"testing"
)

// TestFNV1aVectors checks FNV-1a against the published test vectors of
// the FNV reference (draft-eastlake-fnv, appendix C: "" and "a", "foobar")
// and against hash/fnv's New64a.
func TestFNV1aVectors(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
	}{
		{"", 0xcbf29ce484222325},
		{"a", 0xaf63dc4c8601ec8c},
		{"foobar", 0x85944171f73967e8},
	} {
		if got := FNV1a(c.in); got != c.want {
			t.Errorf("FNV1a(%q) = %#x, want %#x", c.in, got, c.want)
		}
	}
	for _, s := range []string{"", "a", "person", "foaf:Person", "日本"} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := FNV1a(s), h.Sum64(); got != want {
			t.Errorf("FNV1a(%q) = %#x, hash/fnv says %#x", s, got, want)
		}
		if got := FNV1aString(FNV1aString(FNVOffset64, s), s); got != FNV1a(s+s) {
			t.Errorf("FNV1aString does not continue a hash for %q", s)
		}
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], 0x0102030405060708)
	h := fnv.New64a()
	h.Write(b[:])
	if got := FNV1aUint64(FNVOffset64, 0x0102030405060708); got != h.Sum64() {
		t.Errorf("FNV1aUint64 = %#x, hash/fnv over its little-endian bytes says %#x", got, h.Sum64())
	}
	if got := FNV1aByte(FNVOffset64, 'a'); got != FNV1a("a") {
		t.Errorf("FNV1aByte = %#x, want FNV1a(\"a\")", got)
	}
}

// TestMixVectors checks the finaliser against SplitMix64's reference
// outputs: the generator's state advances by 0x9e3779b97f4a7c15 and Mix
// adds that increment itself, so Mix(0), Mix(golden), ... are the first
// outputs of SplitMix64 seeded with 0 (0xe220a8397b1dcdaf,
// 0x6e789e6aa1b965f4, 0x06c45d188009454f, as printed by Vigna's
// splitmix64.c).
func TestMixVectors(t *testing.T) {
	want := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}
	var state uint64
	for i, w := range want {
		if got := Mix(state); got != w {
			t.Errorf("output %d: Mix(%#x) = %#x, want %#x", i, state, got, w)
		}
		state += 0x9e3779b97f4a7c15
	}
	if got, want := Keyed(42, "person"), Mix(42^FNV1a("person")); got != want {
		t.Errorf("Keyed(42, person) = %#x, want %#x", got, want)
	}
}
