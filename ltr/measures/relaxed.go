package measures

import "fmt"

// Hierarchy gives the direct super-classes (or super-properties) of a term,
// the subsumption structure relaxed precision and recall measure proximity
// in. features.Corpus satisfies it. Implementations must be safe for
// concurrent use: queries are evaluated in parallel.
type Hierarchy interface {
	Parents(term string) []string
}

// Resolver maps a term name (e.g. a prefixed name) to its canonical URI.
// When the Hierarchy passed to RelaxedPR also implements Resolver (as
// features.Corpus does), retrieved and relevant terms are resolved before
// they are compared, so "foaf:Person" and its full URI are the same term.
type Resolver interface {
	Resolve(name string) (uri string, ok bool)
}

// MapHierarchy is a Hierarchy given as a map from a term to its direct
// parents.
type MapHierarchy map[string][]string

// Parents returns the direct parents of term.
func (h MapHierarchy) Parents(term string) []string { return h[term] }

// Proximity selects the correspondence proximity sigma of
// Ehrig and Euzenat (2005) section 4, adapted from pairs of
// entities to single retrieved terms: the retrieved term a is compared with
// a relevant term r, which may be a itself, a direct super-term of a (a is
// more specific than wanted) or a direct sub-term of a (a is more general).
// Relations and confidences are those of equality (sigma_rel =
// sigma_conf = 1), so sigma is sigma_pair.
type Proximity int

const (
	// Equality is sigma = 1 for a = r and 0 otherwise: relaxed precision
	// and recall are then standard precision and recall (Definition 7).
	Equality Proximity = iota
	// Symmetric gives 0.5 to a direct super- or sub-term (Table 1).
	Symmetric
	// Effort gives 0.6 when r is a direct super-term of a and 0.4 when r is
	// a direct sub-term: correcting to a super-class is less effort
	// (Table 3).
	Effort
	// PrecisionOriented gives 1 when a is more specific than r (its
	// instances are correct) and 0.5 when a is more general (Table 4).
	PrecisionOriented
	// RecallOriented gives 0.5 when a is more specific than r (it misses
	// some instances) and 1 when a is more general (Table 6).
	RecallOriented
	// Oriented uses PrecisionOriented for precision and RecallOriented for
	// recall, the "oriented" row of Table 8.
	Oriented
)

var proximityNames = map[string]Proximity{
	"equality": Equality, "symmetric": Symmetric, "effort": Effort,
	"precision": PrecisionOriented, "recall": RecallOriented, "oriented": Oriented,
}

// ParseProximity parses a --proximity value: equality, symmetric, effort,
// precision, recall or oriented.
func ParseProximity(s string) (Proximity, error) {
	if p, ok := proximityNames[s]; ok {
		return p, nil
	}
	return 0, fmt.Errorf("unknown proximity %q (want equality, symmetric, effort, precision, recall or oriented)", s)
}

// String returns the --proximity name of p.
func (p Proximity) String() string {
	for n, q := range proximityNames {
		if p == q {
			return n
		}
	}
	return fmt.Sprintf("Proximity(%d)", int(p))
}

// sigma returns the proximity of a retrieved term that is more specific
// than the relevant one (found is a direct sub-term of relevant) or more
// general (found is a direct super-term), for precision (forRecall false)
// or recall.
func (p Proximity) sigma(moreSpecific, forRecall bool) float64 {
	if p == Oriented {
		p = PrecisionOriented
		if forRecall {
			p = RecallOriented
		}
	}
	switch p {
	case Symmetric:
		return 0.5
	case Effort:
		if moreSpecific {
			return 0.6
		}
		return 0.4
	case PrecisionOriented:
		if moreSpecific {
			return 1
		}
		return 0.5
	case RecallOriented:
		if moreSpecific {
			return 0.5
		}
		return 1
	}
	return 0
}

// RelaxedPR returns relaxed precision and recall (Definition 3 of
// Ehrig and Euzenat (2005)) of the retrieved terms against the
// relevant ones:
//
//	P_omega = omega(A, R)/|A|,  R_omega = omega(A, R)/|R|
//	omega(A, R) = sum_{(a,r) in M(A,R)} sigma(a, r)   (Definition 4)
//
// where M is the best match (Definition 5): the one-to-one matching with
// the largest total proximity, found by the Hungarian algorithm. An empty
// A gives P = 0 and an empty R gives R = 0. Duplicate terms count once.
func RelaxedPR(found, relevant []string, h Hierarchy, prox Proximity) (precision, recall float64) {
	if res, ok := h.(Resolver); ok {
		found, relevant = resolveAll(res, found), resolveAll(res, relevant)
	}
	A := dedupe(found)
	R := dedupe(relevant)
	if len(A) == 0 || len(R) == 0 {
		return 0, 0
	}
	col := make(map[string]int, len(R))
	for i, r := range R {
		col[r] = i
	}
	// children of a term among the relevant terms, for "r is a sub-term of a".
	children := map[string][]int{}
	if h != nil && prox != Equality {
		for i, r := range R {
			for _, p := range h.Parents(r) {
				children[p] = append(children[p], i)
			}
		}
	}
	type cell struct {
		r            int
		exact        bool
		moreSpecific bool // found is a sub-term of relevant
	}
	cells := make([][]cell, len(A))
	for i, a := range A {
		if j, ok := col[a]; ok {
			cells[i] = append(cells[i], cell{r: j, exact: true})
		}
		if h == nil || prox == Equality {
			continue
		}
		for _, p := range h.Parents(a) {
			if j, ok := col[p]; ok && p != a {
				cells[i] = append(cells[i], cell{r: j, moreSpecific: true})
			}
		}
		for _, j := range children[a] {
			if R[j] != a {
				cells[i] = append(cells[i], cell{r: j})
			}
		}
	}
	omega := func(forRecall bool) float64 {
		// Compact the matrix to the rows and columns with a non-zero cell.
		var rowIdx []int
		colMap := map[int]int{}
		for i, cs := range cells {
			if len(cs) == 0 {
				continue
			}
			rowIdx = append(rowIdx, i)
			for _, c := range cs {
				if _, ok := colMap[c.r]; !ok {
					colMap[c.r] = len(colMap)
				}
			}
		}
		if len(rowIdx) == 0 {
			return 0
		}
		w := make([][]float64, len(rowIdx))
		for k, i := range rowIdx {
			w[k] = make([]float64, len(colMap))
			for _, c := range cells[i] {
				s := 1.0
				if !c.exact {
					s = prox.sigma(c.moreSpecific, forRecall)
				}
				j := colMap[c.r]
				w[k][j] = max(w[k][j], s)
			}
		}
		total, _ := maxAssignment(w)
		return total
	}
	wp := omega(false)
	wr := wp
	if prox == Oriented {
		wr = omega(true)
	}
	return wp / float64(len(A)), wr / float64(len(R))
}

// dedupe returns x without repeated strings, keeping the first occurrence.
func dedupe(x []string) []string {
	seen := make(map[string]bool, len(x))
	out := make([]string, 0, len(x))
	for _, s := range x {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// resolveAll maps each term to its resolved URI, keeping unresolved terms.
func resolveAll(r Resolver, terms []string) []string {
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = t
		if u, ok := r.Resolve(t); ok {
			out[i] = u
		}
	}
	return out
}
