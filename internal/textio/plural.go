package textio

import "strconv"

// Count returns n and the noun that agrees with it: "1 problem",
// "3 problems", "0 queries".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
