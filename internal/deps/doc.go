// Package deps holds no code: its test enforces the layering of
// docs/architecture.md, in the manner of the Go standard library's
// go/build deps_test.go. Every package of the repository (the beam/ module
// included) may import the standard library, the packages its rule lists
// and, for the stages, the small helpers of internal/; anything else fails
// the test, and so does a package without a rule.
package deps
