package clickmodels

import (
	"fmt"
	"strings"
	"sync"
)

// Kind names a click model.
type Kind int

// The click models (Chuklin, Markov and de Rijke 2015, chapter 3, and the
// original papers).
const (
	GCTR Kind = iota // global click-through rate (random click model)
	RCTR             // rank-based CTR
	DCTR             // document-based CTR per (query, document)
	PBM              // position-based model (Craswell et al. 2008)
	CM               // cascade model (Craswell et al. 2008)
	UBM              // user browsing model (Dupret and Piwowarski 2008)
	DCM              // dependent click model (Guo, Liu and Wang 2009)
	CCM              // click chain model (Guo et al. 2009)
	DBN              // dynamic Bayesian network model (Chapelle and Zhang 2009)
	SDBN             // simplified DBN: continuation fixed at 1 (Chapelle and Zhang 2009)
	PSCM             // partially sequential click model: clicks in time order (Wang et al. 2015)
	numKinds
)

var kindNames = [numKinds]string{"GCTR", "RCTR", "DCTR", "PBM", "CM", "UBM", "DCM", "CCM", "DBN", "SDBN", "PSCM"}

// String returns the model's upper-case name, as PyClick spells it.
func (k Kind) String() string {
	if k < 0 || k >= numKinds {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// AllKinds returns every model, in the order of PyClick's reference outputs
// followed by CCM and PSCM.
func AllKinds() []Kind {
	return []Kind{GCTR, RCTR, DCTR, PBM, CM, UBM, SDBN, DBN, DCM, CCM, PSCM}
}

// ParseKind parses a model name, case-insensitively.
func ParseKind(s string) (Kind, error) {
	for k, n := range kindNames {
		if strings.EqualFold(s, n) {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("unknown click model %q (known: %s)", s, strings.Join(kindNames[:], ", "))
}

// DefaultModels are the click models fitted when none are named
// (lovbench fit --models, the run's click_models.models, lovbench-beam
// fit), in the order their reports list them, which is also the order
// that breaks a tie of "best" (the first model wins).
const DefaultModels = "dctr,dbn,ubm"

// ParseKinds parses a comma-separated list of model names; "all" means every
// model. Duplicates are removed, the order is kept.
func ParseKinds(list string) ([]Kind, error) {
	var out []Kind
	seen := map[Kind]bool{}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.EqualFold(f, "all") {
			for _, k := range AllKinds() {
				if !seen[k] {
					seen[k] = true
					out = append(out, k)
				}
			}
			continue
		}
		k, err := ParseKind(f)
		if err != nil {
			return nil, err
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no click model named in %q", list)
	}
	return out, nil
}

// EM reports whether the model is fitted by expectation maximisation
// under the estimator exact selects (Options.Exact): PBM, UBM, DBN, CCM and
// PSCM always; SDBN and DCM under EstimatorExact only, whose exact E-step
// (ExactEStep) replaces PyClick's counting pass. The others (GCTR, RCTR,
// DCTR, CM) are estimated in one counting pass, which is their maximum
// likelihood estimate (docs/method.md section 3, "Estimation").
func (k Kind) EM(exact bool) bool {
	return k == PBM || k == UBM || k == DBN || k == CCM || k == PSCM || exact && k.ExactEStep()
}

// ExactEStep reports whether EstimatorExact gives k an E-step of its own
// instead of PyClick's: DBN, SDBN, DCM and CCM, whose posteriors are then
// conditioned on all clicks of the SERP (estepCascadeExact, estepCCMExact).
func (k Kind) ExactEStep() bool { return k >= 0 && k < numKinds && exactESteps[k] != nil }

// Iterations is the number of EM iterations a fit of k runs when asked
// for n under the estimator exact selects: n, or DefaultIterations for
// n <= 0; one counting pass for a model that is not fitted by EM.
func (k Kind) Iterations(n int, exact bool) int {
	switch {
	case !k.EM(exact):
		return 1
	case n <= 0:
		return DefaultIterations
	}
	return n
}

// PairParams is the number of parameters per (query, document) pair:
// attractiveness (or CTR), and satisfaction for DBN and SDBN.
func (k Kind) PairParams() int {
	switch k {
	case GCTR, RCTR:
		return 0
	case DBN, SDBN:
		return 2
	default:
		return 1
	}
}

// GlobalParams is the number of parameters that do not depend on the pair,
// for a model with R ranks. Layout of Model.Global:
//
//	GCTR: [ctr]
//	RCTR: ctr by rank, R values
//	PBM:  examination by rank, R values
//	UBM:  examination, R*R values, index r*R + p where p is the rank of the
//	      previous click, or R-1 when there is none
//	DCM:  continuation (lambda) by rank, R values
//	DBN:  [continuation gamma]
//	CCM:  [tau1 (no click), tau2 (click, not satisfied), tau3 (click, satisfied)]
//	PSCM: examination gamma_imn, R*(R+1)*(R+1) values, index
//	      (i*(R+1) + m)*(R+1) + n for rank i examined on the way from the
//	      click at rank m (R: the start, no click yet) to the click at rank
//	      n (R: the end, no click any more); see pscm.go
func (k Kind) GlobalParams(R int) int {
	switch k {
	case GCTR, DBN:
		return 1
	case RCTR, PBM, DCM:
		return R
	case UBM:
		return R * R
	case PSCM:
		return R * (R + 1) * (R + 1)
	case CCM:
		return 3
	default:
		return 0
	}
}

// DefaultRanks is the smallest number of ranks a model is sized for
// (PyClick's RankParamContainer.MAX_RANK_DEFAULT).
const DefaultRanks = 10

// probMax caps EM parameter values (PyClick: 1 - ParamEM.PROB_MIN).
const probMax = 1 - 1e-6

// cmMinProb is the probability the cascade model gives to every rank after
// the first click (PyClick: CM.PROB_MIN).
const cmMinProb = 1e-6

// Unseen is the value of every parameter of a (query, document) pair that
// did not occur in training, and the relevance reported for it (docs/method.md section 3).
const Unseen = 0.5

// Model is a fitted click model. Pair parameters are indexed by pair number
// p: pair p is (QueryNames[PairQuery[p]], DocNames[PairDoc[p]]).
type Model struct {
	Kind       Kind
	Ranks      int  // R: rank-indexed parameters have R entries (UBM: R*R)
	Iterations int  // EM iterations run (1 for counting models)
	Exact      bool // DBN, SDBN, DCM or CCM fitted with Options.Exact (Kind.ExactEStep; prediction is the same)
	// PSCMAuthors: PSCM fitted, and predicting, as the authors' code
	// (Options.PSCMAuthors).
	PSCMAuthors bool
	// EmpiricalPrior: DBN, SDBN, DCM or CCM fitted with Options.Exact and
	// Options.EmpiricalPrior (ebprior.go; prediction is the same).
	EmpiricalPrior bool

	QueryNames []string
	DocNames   []string
	PairQuery  []int32
	PairDoc    []int32

	Attr   []float64 // per pair: attractiveness (DCTR: CTR); nil for GCTR, RCTR
	Sat    []float64 // per pair: satisfaction (DBN, SDBN), else nil
	Global []float64 // see Kind.GlobalParams for the layout

	// Evidence, if set, holds the pairs' effective counts from which the
	// relevance file's intervals are computed (Options.Level).
	Evidence *Evidence

	lookupOnce sync.Once
	lookup     *pairLookup
}

// NumPairs is the number of (query, document) pairs the model has
// parameters for.
func (m *Model) NumPairs() int { return len(m.PairQuery) }

// Pair returns the index of the pair (query, doc), or -1 if it was not seen
// in training.
func (m *Model) Pair(query, doc string) int {
	lk := m.pairs()
	q, ok := lk.queries[query]
	if !ok {
		return -1
	}
	d, ok := lk.docs[doc]
	if !ok {
		return -1
	}
	p, ok := lk.pairs[pairKey(q, d)]
	if !ok {
		return -1
	}
	return int(p)
}

// PairRelevance is the relevance of pair p that docs/method.md section 3 asks to
// report: the CTR for DCTR, attractiveness for PBM, CM, UBM, DCM and PSCM,
// attractiveness x satisfaction for DBN and SDBN, attractiveness squared for
// CCM (in CCM the attractiveness is also the probability of satisfaction
// after a click, so this is the analogue of DBN's; as PyClick), the global
// CTR for GCTR and 0 for RCTR, which cannot tell documents apart (as
// PyClick). PyClick's CM raises here; docs/method.md section 3 reports attractiveness.
func (m *Model) PairRelevance(p int) float64 {
	switch m.Kind {
	case GCTR:
		return m.Global[0]
	case RCTR:
		return 0
	case DBN, SDBN:
		return m.Attr[p] * m.Sat[p]
	case CCM:
		return m.Attr[p] * m.Attr[p]
	default:
		return m.Attr[p]
	}
}

// Relevance returns the relevance of doc for query (see PairRelevance);
// Unseen (0.5) for a pair not seen in training.
func (m *Model) Relevance(query, doc string) float64 {
	p := m.Pair(query, doc)
	if p < 0 {
		if m.Kind == GCTR {
			return m.Global[0]
		}
		if m.Kind == RCTR {
			return 0
		}
		return Unseen
	}
	return m.PairRelevance(p)
}

type pairLookup struct {
	queries map[string]int32
	docs    map[string]int32
	pairs   map[uint64]int32
}

func pairKey(q, d int32) uint64 { return uint64(uint32(q))<<32 | uint64(uint32(d)) }

// pairs builds (once) the string lookup tables of the model.
func (m *Model) pairs() *pairLookup {
	m.lookupOnce.Do(m.buildLookup)
	return m.lookup
}

func (m *Model) buildLookup() {
	lk := &pairLookup{
		queries: make(map[string]int32, len(m.QueryNames)),
		docs:    make(map[string]int32, len(m.DocNames)),
		pairs:   make(map[uint64]int32, len(m.PairQuery)),
	}
	for i, s := range m.QueryNames {
		lk.queries[s] = int32(i)
	}
	for i, s := range m.DocNames {
		lk.docs[s] = int32(i)
	}
	for p := range m.PairQuery {
		lk.pairs[pairKey(m.PairQuery[p], m.PairDoc[p])] = int32(p)
	}
	m.lookup = lk
}
