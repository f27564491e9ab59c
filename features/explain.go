package features

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/lovbench/lovbench/internal/textio"
)

// FeatureExplanation is one feature of a (query, term) pair: its value and
// what produced it.
type FeatureExplanation struct {
	ID    int     `json:"id"`
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// Inputs are the facts behind the value, one per line: matched words
	// and fields, counts, graphs and their sizes, neighbours counted.
	Inputs []string `json:"inputs,omitempty"`
	// Source is where the definition comes from: the Java class and line
	// of LOVBench's code (reference semantics, paths relative to
	// src/main/java/experiment/ of lovbench-dataset) or the paper's table
	// and equation (paper semantics).
	Source string `json:"source"`
}

// Explanation is what Explain returns for one pair.
type Explanation struct {
	Query     string    `json:"query"`
	Term      string    `json:"term"`
	Semantics Semantics `json:"semantics"`
	Kind      string    `json:"kind"`
	// Vocabulary is the graph defining the term; Ontology the one whose
	// ontology features the pair takes ("" when that is no graph of the
	// corpus), with how it was chosen in OntologyRule.
	Vocabulary   string `json:"vocabulary"`
	Ontology     string `json:"ontology"`
	OntologyRule string `json:"ontology_rule,omitempty"`
	// Words are the query words as the semantics split them.
	Words    []string             `json:"words"`
	Features []FeatureExplanation `json:"features"`
}

// explainListMax bounds the items listed per input line.
const explainListMax = 25

// Explain computes the 34 features of (query, term) and explains each: the
// value, the inputs that produced it and the definition it follows. The
// values are Extract's. Build-time inputs (counts, graph sizes and the
// neighbours of the structure features) are listed when the corpus was
// built with the term traced (LoadOptions.Trace or Builder.SetTrace).
func (c *Corpus) Explain(ctx context.Context, query, term string) (*Explanation, error) {
	uri, ok := c.Resolve(term)
	if !ok {
		return nil, fmt.Errorf("term %s: %s", textio.Quote(term), c.UnknownTermReason(term))
	}
	term = uri
	t := c.termIdx[uri]
	tab, _, err := c.Extract(ctx, []Pair{{Query: query, Term: term, Line: 1}}, ExtractOptions{Features: AllFeatures(), Workers: 1})
	if err != nil {
		return nil, err
	}
	tr := &c.terms[t]
	ex := &Explanation{Query: query, Term: term, Semantics: c.sem, Kind: tr.kind.String(), Vocabulary: c.vocabs[tr.vocab].uri}
	in := make(map[int][]string)
	add := func(f int, format string, args ...any) { in[f] = append(in[f], fmt.Sprintf(format, args...)) }
	traced := c.trace != nil && c.trace.term == t
	if traced {
		for f, lines := range c.trace.notes {
			in[f] = append(in[f], lines...)
		}
		if n := c.trace.notes[0]; len(n) > 0 {
			ex.OntologyRule = strings.TrimPrefix(n[0], "ontology: ")
		}
	}
	qs := c.newQueryState(query, AllFeatures())
	ont := tr.vocab
	if qs.rq != nil {
		ont = c.ref.ontology[t]
		ex.Words = qs.rq.words
		c.explainRef(qs, t, ont, add)
	} else {
		for _, w := range qs.ids {
			ex.Words = append(ex.Words, c.wordOf(w))
		}
		c.explainPaper(qs, t, add)
	}
	if ont >= 0 {
		ex.Ontology = c.vocabs[ont].uri
	}
	add(FeatQueryLength, "words: %q", ex.Words)
	if !traced {
		for _, f := range []int{FeatIDFT, FeatTFT, FeatSubclasses, FeatHub} {
			add(f, "build inputs not recorded: load the corpus with the term traced (lovbench explain does)")
		}
	}
	for j, f := range tab.Features {
		ex.Features = append(ex.Features, FeatureExplanation{
			ID: f, Name: FeatureName(f), Value: tab.Rows[0].Values[j], Inputs: in[f], Source: featureSource(c.sem, f),
		})
	}
	return ex, nil
}

// wordOf returns the word of id.
func (c *Corpus) wordOf(id int32) string {
	for w, i := range c.words {
		if i == id {
			return w
		}
	}
	return ""
}

// list formats at most explainListMax items.
func list(items []string) string {
	if len(items) > explainListMax {
		return fmt.Sprintf("%s … and %d more", strings.Join(items[:explainListMax], "; "), len(items)-explainListMax)
	}
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, "; ")
}

// explainRef adds the query-time inputs of the reference semantics.
func (c *Corpus) explainRef(qs *queryState, t, ont int32, add func(int, string, ...any)) {
	ri, rq := c.ref, qs.rq
	if ont < 0 {
		add(FeatBooleanMatch, "the term's ontology is no graph of the corpus: every ontology feature is 0 (Min_Hub_O Double.MAX_VALUE)")
	} else {
		add(FeatBooleanMatch, "typed in the graph of its ontology %s: %v", c.vocabs[ont].uri, ri.typedInOnt[t])
	}
	// Features 1 and 4: where each word matches the term in its ontology's graph.
	for i, w := range rq.words {
		where := "no match"
		if c.refMatches(rq, i, t) {
			where = ri.whereMatched(ri.ontEntry[t], w)
		}
		add(FeatTextRelevancy, "word %q: %s", w, where)
	}
	if ont < 0 {
		return
	}
	vr := &c.vocabs[ont]
	// Features 5 and 6: the labels that counted.
	var cls, props []string
	c.refClassPropMatch(rq, ont, func(w string, e int32, exact bool) {
		en := &ri.ent[e]
		kind := "partial 0.4"
		if exact {
			kind = "exact 0.6"
		}
		s := fmt.Sprintf("%q ~ %s (%s; labels %q)", w, c.terms[en.term].uri, kind, ri.labels[e])
		if en.class {
			cls = append(cls, s)
		}
		if en.prop {
			props = append(props, s)
		}
	})
	add(FeatClassMatch, "classes of %s with an rdfs:label there containing a word: %s", vr.uri, list(cls))
	add(FeatPropertyMatch, "properties of %s with an rdfs:label there containing a word: %s", vr.uri, list(props))
	// Features 15, 16, 20-24, 31: sigma_t(Q, O) and its classes.
	sig := qs.byVocab[ont]
	var terms, classes, betw, dens, nodes []string
	for _, e := range sig {
		en := &ri.ent[e]
		tr := &c.terms[en.term]
		foreign := ""
		if tr.vocab != ont {
			foreign = ", re-declared here"
		}
		terms = append(terms, fmt.Sprintf("%s (tf %.6g, idf %.6g, bm25 %.6g%s)", tr.uri, en.tf, tr.qi[FeatIDFT], en.bm25, foreign))
		if en.class {
			classes = append(classes, tr.uri)
			betw = append(betw, fmt.Sprintf("%s %.6g", tr.uri, en.betw))
			dens = append(dens, fmt.Sprintf("%s %.6g", tr.uri, tr.qi[FeatDensityT]))
			nodes = append(nodes, fmt.Sprintf("%s (node %v)", tr.uri, en.node >= 0))
		}
	}
	for _, f := range []int{FeatTFO, FeatIDFO, FeatTFIDFO, FeatBM25O} {
		add(f, "σ_t(Q, O), the %d IRIs typed in %s's graph that a word matches there: %s", len(sig), vr.uri, list(terms))
	}
	add(FeatBetweennessO, "%d matched classes, betweenness in %s's graph (0 outside its term prefix): %s; sum / n / n", len(classes), vr.uri, list(betw))
	add(FeatDensityO, "%d matched classes, Density_T in their own ontology: %s; mean", len(classes), list(dens))
	add(FeatSemanticSimilarity, "%d matched classes in %s's ontology graph: %s; mean shortest-path length over their pairs", len(classes), vr.uri, list(nodes))
	// Feature 25.
	for i, w := range rq.words {
		rw := rq.per[i]
		if s, ok := rw.tfidf[ont]; ok {
			add(FeatVSMO, "word %q: Σ tf·idf of its matches in O %.6g; count %d / max %d; |R| %d / %d graphs matching", w, s, rq.count[i], rq.maxF, len(c.vocabs), rw.ontologies)
		} else {
			add(FeatVSMO, "word %q: no match in O", w)
		}
	}
	add(FeatVSMO, "‖O‖ = %.6g", vr.tfidfNorm)
	// Feature 30 from the counts.
	add(FeatDensityT, "1·%g subclasses + 0.25·%g superclasses + 0.5·%g relations + 0.5·%g siblings",
		c.terms[t].qi[FeatSubclasses], c.terms[t].qi[FeatSuperclasses], c.terms[t].qi[FeatRelations], c.terms[t].qi[FeatSiblings])
	add(FeatTFIDFT, "TF_T %.6g · IDF_T %.6g", ri.tf[t], c.terms[t].qi[FeatIDFT])
	for _, f := range []int{FeatLOVMatchT, FeatLOVMatchO, FeatLabelSearch} {
		add(f, "query tokens for the search emulation: %q", Tokenize(rq.q))
	}
}

// whereMatched says where word w occurs in entry e's match text: the local
// name or which value.
func (ri *refIndex) whereMatched(e int32, w string) string {
	text := string(ri.text[ri.starts[e]:ri.starts[e+1]])
	local := string(ri.text[ri.starts[e]:ri.localEnd[e]])
	if strings.Contains(local, w) {
		return fmt.Sprintf("in the local name %q", local)
	}
	for _, v := range strings.Split(text[len(local):], "\x00") {
		if v != "" && strings.Contains(v, w) {
			if len(v) > 80 {
				v = v[:80] + "…"
			}
			return fmt.Sprintf("in the value %q", v)
		}
	}
	return "matched"
}

// explainPaper adds the query-time inputs of the paper semantics.
func (c *Corpus) explainPaper(qs *queryState, t int32, add func(int, string, ...any)) {
	tr := &c.terms[t]
	var hit []string
	for _, w := range qs.ids {
		if tr.hasWord(w) {
			hit = append(hit, c.wordOf(w))
		}
	}
	add(FeatTextRelevancy, "distinct query words among the term's match words: %q", hit)
	add(FeatBooleanMatch, "%d query words match", len(hit))
	var terms, classes []string
	for _, m := range qs.byVocab[tr.vocab] {
		mr := &c.terms[m]
		terms = append(terms, fmt.Sprintf("%s (tf %.6g, idf %.6g, bm25 %.6g)", mr.uri, mr.qi[FeatTFT], mr.qi[FeatIDFT], mr.qi[FeatBM25T]))
		if mr.kind == Class {
			classes = append(classes, fmt.Sprintf("%s (betweenness %.6g, density %.6g)", mr.uri, mr.qi[FeatBetweennessT], mr.qi[FeatDensityT]))
		}
	}
	for _, f := range []int{FeatTFO, FeatIDFO, FeatTFIDFO, FeatBM25O, FeatVSMO} {
		add(f, "σ_t(Q, O), the %d terms of %s matching a word: %s", len(terms), c.vocabs[tr.vocab].uri, list(terms))
	}
	for _, f := range []int{FeatBetweennessO, FeatSemanticSimilarity, FeatDensityO} {
		add(f, "σ_c(Q, O): %s", list(classes))
	}
	add(FeatDensityT, "1·%g subclasses + 0.25·%g superclasses + 0.5·%g relations + 0.5·%g siblings",
		tr.qi[FeatSubclasses], tr.qi[FeatSuperclasses], tr.qi[FeatRelations], tr.qi[FeatSiblings])
}

// featureSource is where feature f's definition comes from.
func featureSource(sem Semantics, f int) string {
	if sem == SemanticsPaper {
		if eq, ok := paperEquation[f]; ok {
			return "LOVBench paper, Table 3, " + eq
		}
		return "LOVBench paper, Table 3"
	}
	return javaSource[f]
}

// paperEquation gives the paper's equation of the features that have one.
var paperEquation = map[int]string{
	8: "equation (4)", 9: "equation (4)", 10: "equation (4)", 14: "equation (5)", 15: "equation (5)",
	16: "equation (6)", 17: "equation (7)", 18: "equation (7)", 19: "equation (7)", 20: "equation (7)",
	21: "equation (7)", 22: "equation (7)", 23: "equation (8)", 24: "equation (8)", 25: "equations (9)-(10)",
}

// javaSource is the Java class and line of each feature's score method in
// LOVBench's lovbench-dataset code (src/main/java/experiment/), and the
// repository method behind it.
var javaSource = map[int]string{
	1:  "feature/extraction/term/relevance/BooleanMatch.java:23 (LOVRepository.getTermQueryMatch)",
	2:  "feature/extraction/term/relevance/LOVTermMatch.java:27 (LOVScorer.getTermMatchScore)",
	3:  "feature/extraction/ontology/relevance/LOVOntologyMatch.java:25 (LOVScorer.getScoresFromVocabularyApi)",
	4:  "feature/extraction/term/relevance/TextRelevancy.java:28 (LOVRepository.getTermQueryMatchLabels)",
	5:  "feature/extraction/ontology/relevance/ClassMatchMeasure.java:40 (LOVRepository.getClassQueryMatchRDFSLabels)",
	6:  "feature/extraction/ontology/relevance/PropertyMatchMeasure.java:40 (LOVRepository.getPropertyQueryMatchRDFSLabels)",
	7:  "feature/extraction/term/relevance/QueryLength.java:20 (TermQuery)",
	8:  "feature/extraction/ontology/importance/PageRankImports.java:28 (LOVRepository.getOwlImports, JUNG PageRank)",
	9:  "feature/extraction/ontology/importance/PageRankImplicit.java:28 (LOVRepository.getOwlImports(query, true))",
	10: "feature/extraction/ontology/importance/PageRankVoaf.java:32 (LOVMetadataRepository.getAllVoafRelations)",
	11: "feature/extraction/term/importance/HubDWRank.java:34 (HubDWRankScorer.getHubScores)",
	12: "feature/extraction/ontology/importance/MaxHubDWRank.java:30 (HubDWRankScorer.getHubScores)",
	13: "feature/extraction/ontology/importance/MinHubDWRank.java:30 (HubDWRankScorer.java:69, starts at Double.MAX_VALUE)",
	14: "feature/extraction/term/importance/BetweennessMeasureTerm.java:34 (BetweennessScorer.runBetweennessScorer)",
	15: "feature/extraction/ontology/relevance/BetweennessMeasure.java:33 (divides at lines 42 and 43)",
	16: "feature/extraction/ontology/relevance/SemanticSimilarityMeasure.java:36",
	17: "feature/extraction/term/importance/TFTerm.java:36 (TFIDFScorer.tf)",
	18: "feature/extraction/term/importance/IDFTerm.java:36 (TFIDFScorer.idf)",
	19: "feature/extraction/term/importance/TFIDFTerm.java:38",
	20: "feature/extraction/ontology/relevance/TFOntology.java:35",
	21: "feature/extraction/ontology/relevance/IDFOntology.java:34 (LOVRepository.getTermQueryMatch)",
	22: "feature/extraction/ontology/relevance/TFIDFOntology.java:34",
	23: "feature/extraction/term/importance/BM25Term.java:43",
	24: "feature/extraction/ontology/relevance/BM25Ontology.java:37",
	25: "feature/extraction/ontology/relevance/VSMOntology.java:43 (TFIDFScorer.getOntologyNorm)",
	26: "feature/extraction/term/importance/Subclasses.java:24 (LOVRepository.countSubClasses)",
	27: "feature/extraction/term/importance/Superclasses.java:24 (LOVRepository.countSuperClasses)",
	28: "feature/extraction/term/importance/Relations.java:28 (LOVRepository.countRelations)",
	29: "feature/extraction/term/importance/Siblings.java:24 (LOVRepository.countSiblings)",
	30: "feature/extraction/term/importance/DensityMeasureTerm.java:49",
	31: "feature/extraction/ontology/relevance/DensityMeasure.java:37 (TermStatsScorer)",
	32: "feature/extraction/term/importance/Subproperties.java:24 (LOVRepository.countSubProperties)",
	33: "feature/extraction/term/importance/Superproperties.java:24 (LOVRepository.countSuperProperties)",
	34: "feature/extraction/term/relevance/LabelSearch.java:30 (LOVSearchRepository.search)",
}

// String renders the explanation as text, one block per feature.
func (ex *Explanation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "query %q, term %s (%s, %s semantics)\n", ex.Query, ex.Term, ex.Kind, ex.Semantics)
	fmt.Fprintf(&b, "defined in %s; ontology features from ", ex.Vocabulary)
	if ex.Ontology == "" {
		b.WriteString("no graph of the corpus")
	} else {
		b.WriteString(ex.Ontology)
	}
	if ex.OntologyRule != "" {
		fmt.Fprintf(&b, " (%s)", ex.OntologyRule)
	}
	fmt.Fprintf(&b, "\nquery words: %q\n", ex.Words)
	for _, f := range ex.Features {
		v := fmt.Sprintf("%.10g", f.Value)
		if f.Value == math.MaxFloat64 {
			v = "1.7976931348623157e308 (Double.MAX_VALUE)"
		}
		fmt.Fprintf(&b, "\n%2d %s = %s\n   defined by: %s\n", f.ID, f.Name, v, f.Source)
		for _, l := range f.Inputs {
			fmt.Fprintf(&b, "   - %s\n", l)
		}
	}
	return b.String()
}
