// Package deps holds no code: its tests enforce the layering of
// docs/architecture.md, in the manner of the Go standard library's
// go/build deps_test.go and CockroachDB's forbidden imports. Every package
// of the repository (the beam/ module included, test files too) may import
// the standard library and the packages and named groups of internal/
// helpers its rule lists (test files also those of a relaxed table);
// negative rules are checked on everything a package reaches, with the
// known exceptions listed by file and issue; and the picture and the table
// of docs/architecture.md must match the packages and the rules.
package deps
