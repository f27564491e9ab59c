package features

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Feature IDs (LOVBench Table 3; names as in the published LOVBench feature list, docs/dataset.md).
const (
	FeatBooleanMatch       = 1  // Boolean_Match_T
	FeatLOVMatchT          = 2  // LOV_Match_T
	FeatLOVMatchO          = 3  // LOV_Match_O
	FeatTextRelevancy      = 4  // Text_Relevancy_T
	FeatClassMatch         = 5  // Class_Match_O
	FeatPropertyMatch      = 6  // Property_Match_O
	FeatQueryLength        = 7  // Query_Length_Q
	FeatPageRankOwlImports = 8  // PageRank_OwlImports_O
	FeatPageRankImplicit   = 9  // PageRank_ImplicitImports_O
	FeatPageRankVoaf       = 10 // PageRank_Voaf_O
	FeatHub                = 11 // Hub_T
	FeatMaxHub             = 12 // Max_Hub_O
	FeatMinHub             = 13 // Min_Hub_O
	FeatBetweennessT       = 14 // Betweenness_T
	FeatBetweennessO       = 15 // Betweenness_O
	FeatSemanticSimilarity = 16 // Semantic_Similarity_O
	FeatTFT                = 17 // TF_T
	FeatIDFT               = 18 // IDF_T
	FeatTFIDFT             = 19 // TF_IDF_T
	FeatTFO                = 20 // TF_O
	FeatIDFO               = 21 // IDF_O
	FeatTFIDFO             = 22 // TF_IDF_O
	FeatBM25T              = 23 // BM25_T
	FeatBM25O              = 24 // BM25_O
	FeatVSMO               = 25 // VSM_O
	FeatSubclasses         = 26 // Subclasses_T
	FeatSuperclasses       = 27 // Superclasses_T
	FeatRelations          = 28 // Relations_T
	FeatSiblings           = 29 // Siblings_T
	FeatDensityT           = 30 // Density_T
	FeatDensityO           = 31 // Density_O
	FeatSubproperties      = 32 // Subproperties_T
	FeatSuperproperties    = 33 // Superproperties_T
	FeatLabelSearch        = 34 // LabelSearch_T (baseline)

	numFeatures = 34
)

// featureNames is indexed by feature ID (index 0 unused).
var featureNames = [numFeatures + 1]string{"",
	"Boolean_Match_T", "LOV_Match_T", "LOV_Match_O", "Text_Relevancy_T", "Class_Match_O",
	"Property_Match_O", "Query_Length_Q", "PageRank_OwlImports_O", "PageRank_ImplicitImports_O",
	"PageRank_Voaf_O", "Hub_T", "Max_Hub_O", "Min_Hub_O", "Betweenness_T", "Betweenness_O",
	"Semantic_Similarity_O", "TF_T", "IDF_T", "TF_IDF_T", "TF_O", "IDF_O", "TF_IDF_O", "BM25_T",
	"BM25_O", "VSM_O", "Subclasses_T", "Superclasses_T", "Relations_T", "Siblings_T", "Density_T",
	"Density_O", "Subproperties_T", "Superproperties_T", "LabelSearch_T",
}

// FeatureName returns the name of feature id (1..34) as in
// feature_list.csv, or "" for an unknown id.
func FeatureName(id int) string {
	if id < 1 || id > numFeatures {
		return ""
	}
	return featureNames[id]
}

// AllFeatures returns the IDs 1..34.
func AllFeatures() []int {
	ids := make([]int, numFeatures)
	for i := range ids {
		ids[i] = i + 1
	}
	return ids
}

// ParseFeatureList parses a list of feature IDs and ranges such as
// "1-33,34" or "2,8-10" into sorted distinct IDs.
func ParseFeatureList(s string) ([]int, error) {
	seen := make(map[int]bool)
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi := part, part
		if i := strings.IndexByte(part, '-'); i >= 0 {
			lo, hi = part[:i], part[i+1:]
		}
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b, err2 := strconv.Atoi(strings.TrimSpace(hi))
		if err1 != nil || err2 != nil || a < 1 || b > numFeatures || a > b {
			return nil, fmt.Errorf("feature list %q: bad item %q (want IDs 1-%d or ranges a-b)", s, part, numFeatures)
		}
		for id := a; id <= b; id++ {
			seen[id] = true
		}
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("feature list %q: no features", s)
	}
	ids := make([]int, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids, nil
}
