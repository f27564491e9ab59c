package labels

// The size of LOVBench's ground truth (paper section 5.2 and Table 4):
// 73,950 (query, term) pairs labelled from the click model on each query's
// first result page, and 110,274 pairs sampled as non-relevant (label 0).
const (
	LOVBenchLabelledPairs = 73950
	LOVBenchSampledPairs  = 110274
)

// LOVBenchFirstPageShare returns the share of label l among LOVBench's
// labelled first-page pairs alone, the counterpart of what `lovbench label`
// counts (sampling adds its zeros later). Table 4 gives shares of the
// whole ground truth (LOVBenchShare); this one is that share times its
// 184,224 pairs, less the 110,274 sampled pairs for label 0, over the
// 73,950 labelled ones: label 1 is 24.10% of the ground truth but 60.04%
// of the labelled pairs (44,398 of 73,950), label 0 66.59% but 16.77%.
func LOVBenchFirstPageShare(l int) float64 {
	n := LOVBenchShare(l) * (LOVBenchLabelledPairs + LOVBenchSampledPairs)
	if l == 0 {
		n -= LOVBenchSampledPairs
	}
	return n / LOVBenchLabelledPairs
}
