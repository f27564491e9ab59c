package ltr

import (
	"embed"
	"fmt"
	"strconv"
	"strings"
)

// The Table 5 configurations of the LOVBench paper, as feature-ID lists
// (one id per line), as published with the LOVBench results; a test
// checks them against the published files.
//
//go:embed configurations/*.txt
var configFS embed.FS

// FeatureSet is a named set of feature ids: one configuration of Table 5
// of the LOVBench paper, or a --features selection.
type FeatureSet struct {
	Name     string
	Features []int
}

// ConfigNames lists the learned configurations of Table 5 in the order of
// LOVBench's result tables (RankNet_Results.csv).
var ConfigNames = []string{"LOVSimple", "AKTiveRank", "DWRank", "CBRBench", "LOVBenchFull", "LOVBenchLight"}

// BaselineFeature is LOVBench's baseline: feature 34, LabelSearch_T (a
// plain BM25 match on rdfs:label, docs/method.md section 6), used unlearned.
const BaselineFeature = 34

// ParseFeatureList parses one feature id per line (blank lines ignored).
func ParseFeatureList(text, name string) ([]int, error) {
	var out []int
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		v, err := strconv.Atoi(line)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%s:%d: %q is not a positive feature id", name, i+1, line)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no feature ids", name)
	}
	return out, nil
}

// Configurations returns the embedded Table 5 configurations in
// ConfigNames order.
func Configurations() []FeatureSet {
	out := make([]FeatureSet, 0, len(ConfigNames))
	for _, n := range ConfigNames {
		b, err := configFS.ReadFile("configurations/" + n + ".txt")
		if err != nil {
			panic("ltr: embedded configuration missing: " + n) // build-time invariant
		}
		f, err := ParseFeatureList(string(b), n+".txt")
		if err != nil {
			panic("ltr: embedded configuration malformed: " + err.Error())
		}
		out = append(out, FeatureSet{Name: n, Features: f})
	}
	return out
}

// SelectConfigs parses a --configs value: "all", or a comma-separated list
// of names (case-insensitive; "full" and "light" abbreviate LOVBenchFull and
// LOVBenchLight, "simple" LOVSimple).
func SelectConfigs(spec string) ([]FeatureSet, error) {
	all := Configurations()
	spec = strings.TrimSpace(spec)
	if spec == "" || strings.EqualFold(spec, "all") {
		return all, nil
	}
	alias := map[string]string{"full": "lovbenchfull", "light": "lovbenchlight", "simple": "lovsimple"}
	var out []FeatureSet
	seen := map[string]bool{}
	for _, part := range strings.Split(spec, ",") {
		key := strings.ToLower(strings.TrimSpace(part))
		if a, ok := alias[key]; ok {
			key = a
		}
		found := false
		for _, c := range all {
			if strings.ToLower(c.Name) == key {
				found = true
				if !seen[c.Name] {
					seen[c.Name] = true
					out = append(out, c)
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown configuration %q (want all, full, light or one of %s)", part, strings.Join(ConfigNames, ", "))
		}
	}
	return out, nil
}
