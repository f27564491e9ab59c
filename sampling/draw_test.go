package sampling

// Draw returns k of pool chosen at random for the query seeded qseed: the
// k terms with the smallest TermKey, smallest first (fewer if the pool has
// fewer distinct terms; repeated terms count once).
func Draw(qseed uint64, pool []string, k int) []string { return draw(qseed, pool, nil, k) }
