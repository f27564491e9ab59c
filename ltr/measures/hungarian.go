package measures

import "math"

// maxAssignment returns the largest total weight of an assignment in the
// rows x cols weight matrix w (every row and every column used at most
// once) and, for each row, the column it is assigned to (-1 for none or a
// zero-weight pair). Weights must be >= 0, so leaving a row unassigned is
// the same as assigning it a zero-weight column.
//
// It is the Hungarian (Kuhn-Munkres) algorithm with row and column
// potentials and shortest augmenting paths, O(n^2 m) for n <= m, run on the
// costs -w. It computes the best match M(A, R) of Definition 5 of
// Ehrig and Euzenat (2005).
func maxAssignment(w [][]float64) (float64, []int) {
	rows := len(w)
	if rows == 0 {
		return 0, nil
	}
	cols := len(w[0])
	assign := make([]int, rows)
	for i := range assign {
		assign[i] = -1
	}
	if cols == 0 {
		return 0, assign
	}
	transposed := rows > cols
	n, m := rows, cols
	cost := func(i, j int) float64 { return -w[i][j] }
	if transposed {
		n, m = cols, rows
		cost = func(i, j int) float64 { return -w[j][i] }
	}
	// 1-based arrays; index 0 of p and way is the virtual start column.
	u := make([]float64, n+1)
	v := make([]float64, m+1)
	p := make([]int, m+1)   // p[j] = row matched to column j (0: none)
	way := make([]int, m+1) // previous column on the augmenting path
	minv := make([]float64, m+1)
	used := make([]bool, m+1)
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = math.Inf(1)
			used[j] = false
		}
		for {
			used[j0] = true
			i0 := p[j0]
			delta := math.Inf(1)
			j1 := 0
			for j := 1; j <= m; j++ {
				if used[j] {
					continue
				}
				cur := cost(i0-1, j-1) - u[i0] - v[j]
				if cur < minv[j] {
					minv[j] = cur
					way[j] = j0
				}
				if minv[j] < delta {
					delta = minv[j]
					j1 = j
				}
			}
			for j := 0; j <= m; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	total := 0.0
	for j := 1; j <= m; j++ {
		if p[j] == 0 {
			continue
		}
		r, c := p[j]-1, j-1
		if transposed {
			r, c = c, r
		}
		if w[r][c] > 0 {
			total += w[r][c]
			assign[r] = c
		}
	}
	return total, assign
}
