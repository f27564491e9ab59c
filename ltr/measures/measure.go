package measures

import (
	"fmt"
	"strconv"
	"strings"
)

// kind identifies a measure family.
type kind int

const (
	kNDCG kind = iota
	kDCG
	kMAP
	kP
	kR
	kMRR
	kERR
	kAWP
	kAWDP
	kQ
	kGenAveP
	kANCG
	kANDCG
	kGenAvePPrime
	kTauPrime
	kHR
	kPC
	kCC
	kLTP
	kRP
	kRR
)

// family describes how a measure name is parsed.
type family struct {
	name   string
	k      kind
	cutoff int // 0: no @k allowed; 1: @k optional; 2: @k required
	gain   bool
	global bool // a property of the whole run, not an average over queries
}

var families = []family{
	{"ndcg", kNDCG, 1, true, false},
	{"dcg", kDCG, 1, true, false},
	{"map", kMAP, 1, false, false},
	{"p", kP, 2, false, false},
	{"r", kR, 2, false, false},
	{"mrr", kMRR, 1, false, false},
	{"err", kERR, 1, false, false},
	{"awp", kAWP, 0, true, false},
	{"awdp", kAWDP, 0, true, false},
	{"q", kQ, 0, true, false},
	{"genavep", kGenAveP, 0, true, false},
	{"ancg", kANCG, 0, true, false},
	{"andcg", kANDCG, 0, true, false},
	{"genavep_prime", kGenAvePPrime, 0, true, false},
	{"tau_prime", kTauPrime, 0, true, false},
	{"hr", kHR, 2, false, false},
	{"pc", kPC, 0, false, false},
	{"cc", kCC, 2, false, true},
	{"ltp", kLTP, 2, false, true},
	{"rp", kRP, 2, false, false},
	{"rr", kRR, 2, false, false},
}

// Measure is a parsed measure name such as "ndcg@10" or "awp".
type Measure struct {
	Name string // canonical name, e.g. "ndcg@10"
	K    int    // cutoff, 0 when the name has none
	fam  family
}

// Global reports whether the measure is a property of a whole run (CC@k,
// LTP@k) rather than the mean of per-query values. Global measures have no
// per-query values and no significance tests.
func (m Measure) Global() bool { return m.fam.global }

// UsesGain reports whether the measure depends on the gain function.
func (m Measure) UsesGain() bool { return m.fam.gain }

// NeedsHierarchy reports whether the measure needs a class/property
// hierarchy (relaxed precision and recall).
func (m Measure) NeedsHierarchy() bool { return m.fam.k == kRP || m.fam.k == kRR }

// DefaultMeasures are the measures LOVBench reported (docs/method.md section 8).
const DefaultMeasures = "ndcg@3,ndcg@5,ndcg@10,map,err@3,err@5,err@10"

// AllMeasures is what --measures all expands to; rp@10 and rr@10 are added
// by the caller when a hierarchy is available.
const AllMeasures = "ndcg@3,ndcg@5,ndcg@10,ndcg,dcg@10,map,p@5,p@10,r@10,mrr@10,err@3,err@5,err@10," +
	"awp,awdp,q,genavep,ancg,andcg,genavep_prime,tau_prime,hr@10,pc,cc@10,ltp@10"

// ParseMeasure parses one measure name: ndcg[@k], dcg[@k], map[@k], p@k,
// r@k, mrr[@k], err[@k], awp, awdp, q, genavep, ancg, andcg,
// genavep_prime, tau_prime, hr@k, pc, cc@k, ltp@k, rp@k (relaxed
// precision) and rr@k (relaxed recall). Names are case-insensitive.
func ParseMeasure(s string) (Measure, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	base, kstr, hasK := strings.Cut(name, "@")
	for _, f := range families {
		if f.name != base {
			continue
		}
		m := Measure{Name: base, fam: f}
		switch {
		case hasK && f.cutoff == 0:
			return Measure{}, fmt.Errorf("measure %q takes no @k cutoff (use --cutoff)", s)
		case !hasK && f.cutoff == 2:
			return Measure{}, fmt.Errorf("measure %q needs a cutoff, e.g. %s@10", s, base)
		case hasK:
			k, err := strconv.Atoi(kstr)
			if err != nil || k < 1 {
				return Measure{}, fmt.Errorf("measure %q: the cutoff must be an integer >= 1", s)
			}
			m.K = k
			m.Name = fmt.Sprintf("%s@%d", base, k)
		}
		return m, nil
	}
	return Measure{}, fmt.Errorf("unknown measure %q", s)
}

// ParseMeasures parses a comma-separated list of measure names; "all"
// expands to AllMeasures and "" to DefaultMeasures. Duplicates are dropped.
func ParseMeasures(list string) ([]Measure, error) {
	switch strings.TrimSpace(list) {
	case "":
		list = DefaultMeasures
	case "all":
		list = AllMeasures
	}
	var out []Measure
	seen := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		if strings.TrimSpace(s) == "" {
			continue
		}
		if strings.TrimSpace(s) == "all" {
			ms, err := ParseMeasures("all")
			if err != nil {
				return nil, err
			}
			for _, m := range ms {
				if !seen[m.Name] {
					seen[m.Name] = true
					out = append(out, m)
				}
			}
			continue
		}
		m, err := ParseMeasure(s)
		if err != nil {
			return nil, err
		}
		if !seen[m.Name] {
			seen[m.Name] = true
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no measure in %q", list)
	}
	return out, nil
}
