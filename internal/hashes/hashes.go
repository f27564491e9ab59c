// Package hashes is the one home of the non-cryptographic hash functions
// lovbench derives its seeds, keys and shard numbers from: 64-bit FNV-1a
// (Fowler, Noll and Vo; the variant that XORs a byte before multiplying,
// as Go's hash/fnv New64a) and the splitmix64 finaliser (Steele, Lea and
// Flood 2014, "Fast splittable pseudorandom number generators", the
// output function of SplitMix64). Every stage that hashes calls these;
// their values are part of the files lovbench writes (sampling's draws,
// export's line order and folds, the shard of a query, ingest's duplicate
// detection), so they never change.
package hashes

// FNV-1a's 64-bit offset basis and prime.
const (
	FNVOffset64 uint64 = 14695981039346656037
	FNVPrime64  uint64 = 1099511628211
)

// FNV1a is the 64-bit FNV-1a hash of s (equal to hash/fnv's New64a over
// the bytes of s).
func FNV1a(s string) uint64 { return FNV1aString(FNVOffset64, s) }

// FNV1aString continues the FNV-1a hash h over the bytes of s.
func FNV1aString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * FNVPrime64
	}
	return h
}

// FNV1aByte continues the FNV-1a hash h over one byte.
func FNV1aByte(h uint64, b byte) uint64 { return (h ^ uint64(b)) * FNVPrime64 }

// FNV1aUint64 continues the FNV-1a hash h over the eight bytes of v,
// least significant first.
func FNV1aUint64(h uint64, v uint64) uint64 {
	for i := 0; i < 8; i++ {
		h = (h ^ (v >> (8 * i) & 0xff)) * FNVPrime64
	}
	return h
}

// Mix is the splitmix64 finaliser, a bijection of 64-bit words that
// spreads every input bit over the output.
func Mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Keyed is the key of s under seed: Mix(seed XOR FNV1a(s)). sampling's
// query seeds and term keys and export's line order and folds are Keyed.
func Keyed(seed uint64, s string) uint64 { return Mix(seed ^ FNV1a(s)) }
