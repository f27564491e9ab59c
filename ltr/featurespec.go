package ltr

import (
	"fmt"
	"strconv"
	"strings"
)

// maxFeatureID bounds feature ids in lists and ranges (the SVMlight reader
// accepts ids up to the same limit).
const maxFeatureID = 1 << 20

// ParseFeatureSpec parses a feature subset written as comma-separated ids
// and inclusive ranges, e.g. "1,3,5-9" (lovbench ltr --features, the
// command-line counterpart of RankLib's -feature file). Ids are positive;
// a range needs lo <= hi; an id may appear only once. The ids are returned
// in the order written.
func ParseFeatureSpec(spec string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	add := func(id int, part string) error {
		if seen[id] {
			return fmt.Errorf("feature %d listed twice (in %q)", id, part)
		}
		seen[id] = true
		out = append(out, id)
		return nil
	}
	num := func(s, part string) (int, error) {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 1 || v > maxFeatureID {
			return 0, fmt.Errorf("%q in %q is not a feature id (an integer from 1 to %d)", s, part, maxFeatureID)
		}
		return v, nil
	}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("empty element in feature list %q (want ids and ranges like 1,3,5-9)", spec)
		}
		if lo, hi, ok := strings.Cut(part, "-"); ok {
			a, err := num(lo, part)
			if err != nil {
				return nil, err
			}
			b, err := num(hi, part)
			if err != nil {
				return nil, err
			}
			if a > b {
				return nil, fmt.Errorf("range %q is empty (%d > %d)", part, a, b)
			}
			for id := a; id <= b; id++ {
				if err := add(id, part); err != nil {
					return nil, err
				}
			}
			continue
		}
		id, err := num(part, part)
		if err != nil {
			return nil, err
		}
		if err := add(id, part); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// NewFeatureSet returns the configuration for a --features spec: its ids
// (ParseFeatureSpec) under the name "Features_" followed by the spec with
// commas replaced by underscores ("1,3,5-9" -> "Features_1_3_5-9"), which
// is safe in result tables and model file names.
func NewFeatureSet(spec string) (FeatureSet, error) {
	ids, err := ParseFeatureSpec(spec)
	if err != nil {
		return FeatureSet{}, err
	}
	parts := strings.Split(spec, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return FeatureSet{Name: "Features_" + strings.Join(parts, "_"), Features: ids}, nil
}
