package measures

import "sort"

// sortedDesc returns a copy of x sorted in decreasing order.
func sortedDesc(x []float64) []float64 {
	y := append([]float64(nil), x...)
	sort.Sort(sort.Reverse(sort.Float64Slice(y)))
	return y
}
