package features

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/lovbench/lovbench/features/rdf"
)

// Hyper-parameters of the ontology-level text and structure features.
const (
	bm25K = 2.0  // k of equation (8)
	bm25B = 0.75 // b of equation (8)
	// Density weights w1..w4 of feature 30 (Section 5.1.3, from AKTiveRank [2]).
	densitySub, densitySuper, densityRel, densitySib = 1.0, 0.25, 0.5, 0.5
	// Class/property match weights alpha and beta of features 5 and 6.
	matchAlpha, matchBeta = 0.6, 0.4
)

// ontGraph is the ontology graph G(O) of one vocabulary (Section 5.1.1):
// nodes are classes, one directed edge domain -> range per property.
type ontGraph struct {
	nodes []int32 // dictionary ids of the node IRIs, sorted by IRI
	edges []edge
	paths *pathRows // undirected shortest paths, rows on demand
}

// builder state shared by the build phases.
type build struct {
	b          *Builder
	c          *Corpus
	graphVocab []int32 // graph index -> vocabulary index, -1 for metadata graphs
	vocabGraph []int   // vocabulary index -> graph index
	termOfNode map[int32]int32
	nsVocab    map[string]int32 // trimmed namespace -> vocabulary
	headers    []map[int32]bool // per vocabulary: ontology-header subjects
	classAny   map[int32]bool   // typed as a class in some graph
	typedIn    map[int32]map[int]Kind
	vocabWords [][]int32
	// refClasses and refProps are the nodes each vocabulary's graph types
	// as classes and properties (refTyped), for the reference semantics.
	refClasses, refProps []map[int32]bool
	// textWords memoises textWordIDs: the build tokenises a literal in up
	// to four places (term fields, vocabulary text, the reference search
	// indexes).
	textWords map[string][]int32
}

// textWordIDs returns the word IDs of Tokenize(s), assigning new words
// their IDs (wordID) in order the first time s is seen, as tokenising it
// again would; the slice is shared, read-only.
func (bd *build) textWordIDs(s string) []int32 {
	if ws, ok := bd.textWords[s]; ok {
		return ws
	}
	var ws []int32
	for _, w := range Tokenize(s) {
		ws = append(ws, bd.c.wordID(w))
	}
	if bd.textWords == nil {
		bd.textWords = make(map[string][]int32)
	}
	bd.textWords[s] = ws
	return ws
}

func (bd *build) iri(id int32) (string, bool) {
	t := bd.b.nodes[id]
	return t.Value, t.Kind == rdf.IRI
}

// Build indexes the collected statements and computes the
// query-independent features. It returns ErrEmptyCorpus if no graph types a
// class or property.
func (b *Builder) Build(ctx context.Context) (*Corpus, error) {
	sem, err := ParseSemantics(string(b.sem))
	if err != nil {
		return nil, err
	}
	c := &Corpus{termIdx: make(map[string]int32), words: make(map[string]int32), parents: make(map[string][]string), sem: sem}
	bd := &build{b: b, c: c, termOfNode: make(map[int32]int32), nsVocab: make(map[string]int32),
		classAny: make(map[int32]bool), typedIn: make(map[int32]map[int]Kind)}
	if b.trace != "" {
		c.trace = &buildTrace{uri: b.trace, term: -1, notes: make(map[int][]string)}
	}
	c.stats.Names = b.nameSources()
	phases := []struct {
		name string
		fn   func() error
	}{
		{"terms", bd.terms},
		{"prefixes", bd.prefixes},
		{"text", bd.text},
		{"rdf-graph", bd.rdfGraph},
		{"reference", bd.reference},
		{"ontology-graph", bd.ontologyGraphs},
		{"repository-graph", bd.repositoryGraphs},
	}
	for _, ph := range phases {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t0 := time.Now()
		if err := ph.fn(); err != nil {
			return nil, err
		}
		c.stats.Timings = append(c.stats.Timings, Timing{ph.name, time.Since(t0)})
		if tr := c.trace; tr != nil && ph.name == "prefixes" {
			if uri, ok := c.Resolve(tr.uri); ok {
				tr.uri, tr.term = uri, c.termIdx[uri]
			}
		}
	}
	c.stats.Vocabularies = len(c.vocabs)
	c.stats.MetadataGraphs = len(b.gnames) - len(c.vocabs)
	c.stats.Terms = len(c.terms)
	for _, v := range c.vocabs {
		c.stats.Classes += v.classes
		c.stats.Properties += v.properties
	}
	return c, nil
}

// terms finds the vocabularies (see Builder.Add) and their terms. A term typed in several graphs belongs to the graph whose
// name is the longest prefix of its URI, else to the first such graph by
// name; its kind is Class if that graph types it as a class.
func (bd *build) terms() error {
	b, c := bd.b, bd.c
	for gi, ts := range b.gtriples {
		for _, t := range ts {
			if b.nodes[t.p].Value != iriType || b.nodes[t.s].Kind != rdf.IRI || b.nodes[t.o].Kind != rdf.IRI {
				continue
			}
			k := termKind(b.nodes[t.o].Value)
			if k == 0 {
				continue
			}
			m := bd.typedIn[t.s]
			if m == nil {
				m = make(map[int]Kind)
				bd.typedIn[t.s] = m
			}
			if m[gi] != Class {
				m[gi] = k
			}
			if k == Class {
				bd.classAny[t.s] = true
			}
		}
	}
	isVocab := make([]bool, len(b.gnames))
	for gi, def := range b.gdefault {
		isVocab[gi] = !def
		for _, t := range b.gtriples[gi] {
			if isVocab[gi] {
				break
			}
			isVocab[gi] = b.nodes[t.p].Value == iriType && b.nodes[t.o].Value == iriOntology
		}
	}
	for _, m := range bd.typedIn {
		for gi := range m {
			isVocab[gi] = true
		}
	}
	var vg []int
	for gi, ok := range isVocab {
		if ok {
			vg = append(vg, gi)
		}
	}
	if len(vg) == 0 {
		return ErrEmptyCorpus
	}
	sort.Slice(vg, func(i, j int) bool { return b.gnames[vg[i]] < b.gnames[vg[j]] })
	bd.graphVocab = make([]int32, len(b.gnames))
	for i := range bd.graphVocab {
		bd.graphVocab[i] = -1
	}
	bd.vocabGraph = vg
	c.vocabs = make([]vocabRec, len(vg))
	bd.headers = make([]map[int32]bool, len(vg))
	for v, gi := range vg {
		bd.graphVocab[gi] = int32(v)
		c.vocabs[v] = vocabRec{uri: b.gnames[gi], size: len(b.gtriples[gi])}
		bd.nsVocab[trimNS(b.gnames[gi])] = int32(v)
		bd.headers[v] = make(map[int32]bool)
		for _, name := range []string{b.gnames[gi], trimNS(b.gnames[gi])} {
			if id, ok := b.dict[rdf.NewIRI(name)]; ok {
				bd.headers[v][id] = true
			}
		}
		for _, t := range b.gtriples[gi] {
			if b.nodes[t.p].Value == iriType && b.nodes[t.o].Value == iriOntology && b.nodes[t.o].Kind == rdf.IRI {
				bd.headers[v][t.s] = true
			}
		}
	}
	type assigned struct {
		node  int32
		uri   string
		vocab int32
		kind  Kind
	}
	var all []assigned
	for node, m := range bd.typedIn {
		uri := b.nodes[node].Value
		best, bestLen := -1, -1
		for gi := range m {
			name := b.gnames[gi]
			l := -1
			if strings.HasPrefix(uri, name) {
				l = len(name)
			}
			if best < 0 || l > bestLen || (l == bestLen && name < b.gnames[best]) {
				best, bestLen = gi, l
			}
		}
		all = append(all, assigned{node, uri, bd.graphVocab[best], m[best]})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].uri < all[j].uri })
	c.terms = make([]termRec, len(all))
	nsCount := make(map[string]map[int32]int)
	for i, a := range all {
		c.terms[i] = termRec{uri: a.uri, kind: a.kind, vocab: a.vocab, node: -1}
		c.termIdx[a.uri] = int32(i)
		bd.termOfNode[a.node] = int32(i)
		v := &c.vocabs[a.vocab]
		v.terms = append(v.terms, int32(i))
		if a.kind == Class {
			v.classes++
		} else {
			v.properties++
		}
		ns := trimNS(namespaceOf(a.uri))
		if nsCount[ns] == nil {
			nsCount[ns] = make(map[int32]int)
		}
		nsCount[ns][a.vocab]++
	}
	// A namespace that is no graph name belongs to the vocabulary defining
	// most of its terms (ties: the first vocabulary by URI).
	for ns, m := range nsCount {
		if _, ok := bd.nsVocab[ns]; ok {
			continue
		}
		best, bestN := int32(-1), 0
		for v, n := range m {
			if n > bestN || (n == bestN && v < best) {
				best, bestN = v, n
			}
		}
		bd.nsVocab[ns] = best
	}
	for v := range c.vocabs {
		for h := range bd.headers[v] {
			if s, ok := bd.iri(h); ok {
				if _, dup := bd.nsVocab[trimNS(s)]; !dup {
					bd.nsVocab[trimNS(s)] = int32(v)
				}
			}
		}
	}
	return nil
}

func trimNS(s string) string { return strings.TrimRight(s, "#/") }

// vocabOf returns the vocabulary an IRI belongs to: the defining vocabulary
// of a term, else the vocabulary owning the IRI's namespace (graph name,
// header IRI or majority of its terms), else the vocabulary whose URI the
// IRI is; -1 if none.
func (bd *build) vocabOf(iri string) int32 {
	if t, ok := bd.c.termIdx[iri]; ok {
		return bd.c.terms[t].vocab
	}
	if v, ok := bd.nsVocab[trimNS(namespaceOf(iri))]; ok {
		return v
	}
	if v, ok := bd.nsVocab[trimNS(iri)]; ok {
		return v
	}
	return -1
}

// vocabOfNode is vocabOf for a dictionary id (-1 for blank nodes and literals).
func (bd *build) vocabOfNode(id int32) int32 {
	if t, ok := bd.termOfNode[id]; ok {
		return bd.c.terms[t].vocab
	}
	s, ok := bd.iri(id)
	if !ok {
		return -1
	}
	return bd.vocabOf(s)
}

// prefixes collects prefix declarations: rdfa:prefix/rdfa:uri and
// vann:preferredNamespacePrefix/Uri pairs of one subject in any graph
// (source PrefixCorpus, graphs and subjects in sorted order), Turtle
// @prefix and LOV file declarations; then picks each vocabulary's prefix
// and attaches metadata titles and descriptions to vocabularies.
func (bd *build) prefixes() error {
	b, c := bd.b, bd.c
	order := make([]int, len(b.gnames))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return b.gnames[order[i]] < b.gnames[order[j]] })
	type subj struct {
		g int
		s int32
	}
	prefix := make(map[subj]string)
	uri := make(map[subj]string)
	var subjects []subj
	metaText := make(map[subj][]string)
	for _, gi := range order {
		for _, t := range b.gtriples[gi] {
			key := subj{gi, t.s}
			switch b.nodes[t.p].Value {
			case iriRDFaPrefix, iriVannPrefix:
				if _, ok := prefix[key]; !ok {
					prefix[key] = b.nodes[t.o].Value
					subjects = append(subjects, key)
				}
			case iriRDFaURI, iriVannURI:
				if _, ok := uri[key]; !ok {
					uri[key] = b.nodes[t.o].Value
				}
			}
			if bd.graphVocab[gi] < 0 && b.nodes[t.o].Kind == rdf.Literal && fieldOf(b.nodes[t.p].Value) != fieldOther {
				metaText[key] = append(metaText[key], b.nodes[t.o].Value)
			}
		}
	}
	var decls []prefixDecl
	for i, key := range subjects {
		if ns := uri[key]; ns != "" {
			decls = append(decls, prefixDecl{prefix[key], ns, PrefixCorpus, i})
		}
	}
	for _, d := range b.decls {
		d.seq += len(subjects)
		decls = append(decls, d)
	}
	sort.SliceStable(decls, func(i, j int) bool {
		if decls[i].source != decls[j].source {
			return decls[i].source < decls[j].source
		}
		return decls[i].seq < decls[j].seq
	})
	c.prefixNS = make(map[string][]string)
	c.nsPrefix = make(map[string]string)
	for _, d := range decls {
		dup := false
		for _, ns := range c.prefixNS[d.prefix] {
			dup = dup || ns == d.ns
		}
		if !dup {
			c.prefixNS[d.prefix] = append(c.prefixNS[d.prefix], d.ns)
		}
		if _, ok := c.nsPrefix[d.ns]; !ok {
			c.nsPrefix[d.ns] = d.prefix
			c.nsByLen = append(c.nsByLen, d.ns)
		}
		if v := bd.vocabOf(d.ns); v >= 0 && c.vocabs[v].prefix == "" && d.source != PrefixDocument {
			c.vocabs[v].prefix = d.prefix
		}
	}
	sort.SliceStable(c.nsByLen, func(i, j int) bool {
		if len(c.nsByLen[i]) != len(c.nsByLen[j]) {
			return len(c.nsByLen[i]) > len(c.nsByLen[j])
		}
		return c.nsByLen[i] < c.nsByLen[j]
	})
	// Vocabulary text: prefix, then header literals of the vocabulary's own
	// graph, then metadata-graph literals of subjects whose rdfa:uri or
	// vann:preferredNamespaceUri is the vocabulary's namespace.
	vtext := make([][]string, len(c.vocabs))
	for v := range c.vocabs {
		if c.vocabs[v].prefix != "" {
			vtext[v] = append(vtext[v], c.vocabs[v].prefix)
		}
		for _, t := range b.gtriples[bd.vocabGraph[v]] {
			if bd.headers[v][t.s] && b.nodes[t.o].Kind == rdf.Literal && fieldOf(b.nodes[t.p].Value) != fieldOther {
				vtext[v] = append(vtext[v], b.nodes[t.o].Value)
			}
		}
	}
	for _, key := range subjects {
		if ns := uri[key]; ns != "" {
			if v := bd.vocabOf(ns); v >= 0 {
				vtext[v] = append(vtext[v], metaText[key]...)
			}
		}
	}
	bd.vocabWords = make([][]int32, len(c.vocabs))
	for v, texts := range vtext {
		for _, s := range texts {
			bd.vocabWords[v] = append(bd.vocabWords[v], bd.textWordIDs(s)...)
		}
	}
	// Parents: rdfs:subClassOf / rdfs:subPropertyOf between IRIs, any graph.
	ps := make(map[string]map[string]bool)
	for _, ts := range b.gtriples {
		for _, t := range ts {
			p := b.nodes[t.p].Value
			if p != iriSubClassOf && p != iriSubPropertyOf {
				continue
			}
			s, o := b.nodes[t.s], b.nodes[t.o]
			if s.Kind != rdf.IRI || o.Kind != rdf.IRI || s.Value == o.Value {
				continue
			}
			if ps[s.Value] == nil {
				ps[s.Value] = make(map[string]bool)
			}
			ps[s.Value][o.Value] = true
		}
	}
	for s, m := range ps {
		list := make([]string, 0, len(m))
		for o := range m {
			list = append(list, o)
		}
		sort.Strings(list)
		c.parents[s] = list
	}
	return nil
}

// wordID interns a word.
func (c *Corpus) wordID(w string) int32 {
	if id, ok := c.words[w]; ok {
		return id
	}
	id := int32(len(c.words))
	c.words[w] = id
	return id
}

// text builds the term text fields, the match index sigma_t, the vocabulary
// text index and the per-vocabulary label-match tables of features 5-6.
func (bd *build) text() error {
	b, c := bd.b, bd.c
	fieldWords := make([][][]int32, numFields)
	for f := range fieldWords {
		fieldWords[f] = make([][]int32, len(c.terms))
	}
	labelWords := make([][][]int32, len(c.terms)) // per term, per rdfs:label
	for v := range c.vocabs {
		for _, t := range b.gtriples[bd.vocabGraph[v]] {
			ti, ok := bd.termOfNode[t.s]
			if !ok || c.terms[ti].vocab != int32(v) {
				continue
			}
			o := b.nodes[t.o]
			if o.Kind != rdf.Literal {
				continue
			}
			p := b.nodes[t.p].Value
			f := fieldOf(p)
			ws := bd.textWordIDs(o.Value)
			fieldWords[f][ti] = append(fieldWords[f][ti], ws...)
			switch p {
			case iriRDFSLabel:
				c.terms[ti].labels = append(c.terms[ti].labels, Literal{o.Value, o.Lang})
				labelWords[ti] = append(labelWords[ti], ws)
			case iriRDFSComment:
				c.terms[ti].comments = append(c.terms[ti].comments, Literal{o.Value, o.Lang})
			}
		}
	}
	for ti := range c.terms {
		toks := Tokenize(LocalName(c.terms[ti].uri))
		var ws []int32
		for _, w := range toks {
			ws = append(ws, c.wordID(w))
		}
		// Emulation of LOV's n-gram analysed local-name field: the words
		// plus the whole lower-cased name, so "firstname" finds firstName.
		if len(toks) > 1 {
			ws = append(ws, c.wordID(strings.Join(toks, "")))
		}
		fieldWords[fieldLocal][ti] = ws
	}
	vocabCounts := make([][]tokCount, len(c.vocabs))
	for v, ws := range bd.vocabWords {
		vocabCounts[v] = countWords(ws)
	}
	for f := range c.fields {
		docs := make([][]tokCount, len(c.terms))
		for ti := range docs {
			if f == fieldVocab {
				docs[ti] = vocabCounts[c.terms[ti].vocab]
			} else {
				docs[ti] = countWords(fieldWords[f][ti])
			}
		}
		c.fields[f] = newFieldIndex(docs)
	}
	c.vocabText = newFieldIndex(vocabCounts)
	c.matchPost = make(map[int32][]int32)
	for ti := range c.terms {
		var m []int32
		for f := 0; f <= fieldLocal; f++ { // the match fields: the ten properties and the local name
			m = append(m, fieldWords[f][ti]...)
		}
		slices.Sort(m)
		m = slices.Clip(slices.Compact(m))
		c.terms[ti].match = m
		for _, w := range m {
			c.matchPost[w] = append(c.matchPost[w], int32(ti)) // ti ascending: sorted
		}
	}
	// Features 5-6: per vocabulary and word, the number of classes
	// (properties) with an rdfs:label equal to the word (exact) and with a
	// label containing it among other words (partial, exact excluded).
	for v := range c.vocabs {
		vr := &c.vocabs[v]
		vr.classMatch = make(map[int32][2]int32)
		vr.propMatch = make(map[int32][2]int32)
		for _, ti := range vr.terms {
			exact := make(map[int32]bool)
			any := make(map[int32]bool)
			for _, ws := range labelWords[ti] {
				if len(ws) == 1 {
					exact[ws[0]] = true
				}
				for _, w := range ws {
					any[w] = true
				}
			}
			m := vr.classMatch
			if c.terms[ti].kind == Property {
				m = vr.propMatch
			}
			for w := range any {
				e := m[w]
				if exact[w] {
					e[0]++
				} else {
					e[1]++
				}
				m[w] = e
			}
		}
	}
	return nil
}

// rdfGraph computes the RDF-graph features of terms: TF, IDF, TF-IDF and
// BM25 (equations (7)-(8)) and the structural counts and density
// (features 26-30, 32-33) in the term's own vocabulary graph.
func (bd *build) rdfGraph() error {
	b, c := bd.b, bd.c
	nR := float64(len(c.vocabs))
	df := make(map[int32]int)
	var sumSize float64
	for _, v := range c.vocabs {
		sumSize += float64(v.size)
	}
	for v := range c.vocabs {
		occ := make(map[int32]int)
		for _, t := range b.gtriples[bd.vocabGraph[v]] {
			// f(t, O): the number of triples of O in which t occurs.
			occ[t.s]++
			if t.p != t.s {
				occ[t.p]++
			}
			if t.o != t.s && t.o != t.p {
				occ[t.o]++
			}
		}
		for id := range occ {
			if _, ok := bd.termOfNode[id]; ok {
				df[id]++
			}
		}
		vr := &c.vocabs[v]
		maxF := 0
		for _, ti := range vr.terms {
			if f := occ[bd.nodeOfTerm(ti)]; f > maxF {
				maxF = f
			}
		}
		for _, ti := range vr.terms {
			c.terms[ti].qi[FeatTFT] = 0.5 + 0.5*float64(occ[bd.nodeOfTerm(ti)])/float64(maxF) // eq. (7)
			if bd.traced(ti) && c.sem == SemanticsPaper {
				bd.note(FeatTFT, "f(t, O) = %d triples of %s contain the term; max over its terms = %d", occ[bd.nodeOfTerm(ti)], vr.uri, maxF)
			}
		}
	}
	for v := range c.vocabs {
		vr := &c.vocabs[v]
		var norm float64
		for _, ti := range vr.terms {
			t := &c.terms[ti]
			t.qi[FeatIDFT] = math.Log(nR / float64(df[bd.nodeOfTerm(ti)])) // eq. (7), idf
			if bd.traced(ti) {
				bd.note(FeatIDFT, "|R| = %g vocabularies; %d of their graphs contain the term", nR, df[bd.nodeOfTerm(ti)])
			}
			t.qi[FeatTFIDFT] = t.qi[FeatTFT] * t.qi[FeatIDFT]
			tf := t.qi[FeatTFT]
			// Equation (8) as printed and as BM25Term.java computes it
			// (numerator TF*k + 1); the size ratio depends on the semantics.
			t.qi[FeatBM25T] = bm25Term(t.qi[FeatIDFT], tf, bm25SizeRatio(c.sem, vr.size, sumSize, len(c.vocabs)))
			norm += t.qi[FeatTFIDFT] * t.qi[FeatTFIDFT]
		}
		vr.tfidfNorm = math.Sqrt(norm)
	}
	if c.sem != SemanticsPaper {
		return nil // the Java's counts: refStructure, called by ontologyGraphs
	}
	// Structure, per vocabulary graph (paper semantics: direct counts).
	for v := range c.vocabs {
		children := map[string]map[int32]map[int32]bool{iriSubClassOf: {}, iriSubPropertyOf: {}}
		parents := map[string]map[int32]map[int32]bool{iriSubClassOf: {}, iriSubPropertyOf: {}}
		relations := make(map[int32]map[int32]bool)
		add := func(m map[int32]map[int32]bool, k, x int32) {
			if m[k] == nil {
				m[k] = make(map[int32]bool)
			}
			m[k][x] = true
		}
		for _, t := range b.gtriples[bd.vocabGraph[v]] {
			if b.nodes[t.s].Kind != rdf.IRI || b.nodes[t.o].Kind != rdf.IRI || t.s == t.o {
				continue
			}
			switch p := b.nodes[t.p].Value; p {
			case iriSubClassOf, iriSubPropertyOf:
				add(children[p], t.o, t.s)
				add(parents[p], t.s, t.o)
			case iriDomain, iriRange:
				add(relations, t.o, t.s)
			}
		}
		for _, ti := range c.vocabs[v].terms {
			t := &c.terms[ti]
			n := bd.nodeOfTerm(ti)
			if t.kind == Property {
				t.qi[FeatSubproperties] = float64(len(children[iriSubPropertyOf][n]))
				t.qi[FeatSuperproperties] = float64(len(parents[iriSubPropertyOf][n]))
				continue
			}
			sib := make(map[int32]bool)
			for p := range parents[iriSubClassOf][n] {
				for s := range children[iriSubClassOf][p] {
					if s != n {
						sib[s] = true
					}
				}
			}
			t.qi[FeatSubclasses] = float64(len(children[iriSubClassOf][n]))
			t.qi[FeatSuperclasses] = float64(len(parents[iriSubClassOf][n]))
			t.qi[FeatRelations] = float64(len(relations[n]))
			t.qi[FeatSiblings] = float64(len(sib))
			t.qi[FeatDensityT] = densitySub*t.qi[FeatSubclasses] + densitySuper*t.qi[FeatSuperclasses] +
				densityRel*t.qi[FeatRelations] + densitySib*t.qi[FeatSiblings]
		}
	}
	return nil
}

func (bd *build) nodeOfTerm(ti int32) int32 {
	return bd.b.dict[rdf.NewIRI(bd.c.terms[ti].uri)]
}

// ontologyGraphs builds G(O) for every vocabulary and computes hubs
// (reversed PageRank, features 11-13), betweenness (feature 14) and the
// shortest paths used by semantic similarity (feature 16).
//
// Nodes are the classes typed in O plus the IRIs used as rdfs:domain or
// rdfs:range in O that some graph of the corpus types as a class; every
// subject p of O with domain c_i and range c_j adds an edge c_i -> c_j
// (one per property, so parallel edges are kept for PageRank).
func (bd *build) ontologyGraphs() error {
	b, c := bd.b, bd.c
	if c.sem != SemanticsPaper {
		// The Java's structure counts (refstruct.go) and ontology graph
		// with JUNG's scores (refgraph.go), after every earlier phase.
		// Both read the Java's term groups and each graph's typed nodes,
		// computed once here.
		byOnt := bd.refTermsByOntology()
		bd.refStructure(byOnt, bd.refClasses, bd.refProps)
		bd.refOntologyGraphs(byOnt, bd.refProps)
		return nil
	}
	classesIn := make(map[int][]int32) // graph -> IRIs it types as classes
	for node, m := range bd.typedIn {
		for gi, k := range m {
			if k == Class {
				classesIn[gi] = append(classesIn[gi], node)
			}
		}
	}
	for v := range c.vocabs {
		gi := bd.vocabGraph[v]
		nodeSet := make(map[int32]bool)
		for _, node := range classesIn[gi] {
			nodeSet[node] = true
		}
		dom := make(map[int32][]int32)
		rng := make(map[int32][]int32)
		var props []int32
		for _, t := range b.gtriples[gi] {
			p := b.nodes[t.p].Value
			if (p != iriDomain && p != iriRange) || !bd.classAny[t.o] {
				continue
			}
			nodeSet[t.o] = true
			if len(dom[t.s]) == 0 && len(rng[t.s]) == 0 {
				props = append(props, t.s)
			}
			if p == iriDomain {
				dom[t.s] = append(dom[t.s], t.o)
			} else {
				rng[t.s] = append(rng[t.s], t.o)
			}
		}
		og := &ontGraph{}
		for n := range nodeSet {
			og.nodes = append(og.nodes, n)
		}
		sort.Slice(og.nodes, func(i, j int) bool { return b.nodes[og.nodes[i]].Value < b.nodes[og.nodes[j]].Value })
		idx := make(map[int32]int32, len(og.nodes))
		for i, n := range og.nodes {
			idx[n] = int32(i)
		}
		for _, p := range props {
			for _, d := range dom[p] {
				for _, r := range rng[p] {
					og.edges = append(og.edges, edge{idx[d], idx[r]})
				}
			}
		}
		n := len(og.nodes)
		rev := make([]edge, len(og.edges))
		for i, e := range og.edges {
			rev[i] = edge{e.to, e.from}
		}
		hub := pageRank(n, rev, pageRankDamping)
		btw := betweenness(n, og.edges)
		og.paths = newPathRows(n, og.edges)
		vr := &c.vocabs[v]
		vr.og = og
		first := true
		for _, ti := range vr.terms {
			t := &c.terms[ti]
			if t.kind != Class {
				continue
			}
			i, ok := idx[bd.nodeOfTerm(ti)]
			if !ok {
				continue
			}
			t.node = i
			t.qi[FeatHub] = hub[i]
			t.qi[FeatBetweennessT] = 2 * btw[i] // eq. (5) sums over ordered pairs c_i != c_j
			if first || hub[i] > vr.qi[FeatMaxHub] {
				vr.qi[FeatMaxHub] = hub[i]
			}
			if first || hub[i] < vr.qi[FeatMinHub] {
				vr.qi[FeatMinHub] = hub[i]
			}
			first = false
		}
	}
	return nil
}

// voaf relation bits.
const (
	relExtends = 1 << iota
	relSpecializes
	relGeneralizes
	relEquivalences
	relDisjunctions
	relMetadataVoc
	relReliesOn
	relUsedBy
	relSimilar
)

// repositoryGraphs builds the three repository graphs G(R, P) and their
// PageRank (features 8-10, scaled by 1e5):
//
//   - owl:imports: O_i -> O_j for (x owl:imports y) in O_i, y in O_j.
//   - implicit imports: O_i -> O_j when an IRI of O_j (a term, or an IRI in
//     O_j's namespace) occurs as subject, predicate or object in O_i.
//   - voaf: a multigraph with one edge O_i -> O_j per voaf relation between
//     them. voaf triples in the corpus are used as given; relations are
//     derived the way LOV does (docs/method.md section 6): specializes when a term
//     of O_i is rdfs:subClassOf/subPropertyOf a term of O_j; generalizes
//     when a term of O_j is stated a subclass/subproperty of a term of O_i
//     in O_i; extends when O_i uses a term of O_j in a subclass,
//     subproperty, rdfs:domain or rdfs:range axiom; hasEquivalencesWith for
//     owl:equivalentClass/equivalentProperty/sameAs; hasDisjunctionsWith
//     for owl:disjointWith/propertyDisjointWith; metadataVoc when O_j's
//     terms are only used in statements about O_i's ontology header;
//     reliesOn when O_i uses O_j otherwise. usedBy and similar are not
//     derivable from the vocabularies alone.
//
// Self-edges are dropped.
func (bd *build) repositoryGraphs() error {
	b, c := bd.b, bd.c
	n := len(c.vocabs)
	var imports, implicit, voaf []edge
	var voafRef []edge // pairs with a relation of the Java's voaf graph (refgraph.go)
	for v := range c.vocabs {
		gi := bd.vocabGraph[v]
		imp := make(map[int32]bool)
		used := make(map[int32]bool)
		nonHeader := make(map[int32]bool)
		rel := make(map[int32]int)
		for _, t := range b.gtriples[gi] {
			vs, vp, vo := bd.vocabOfNode(t.s), bd.vocabOfNode(t.p), bd.vocabOfNode(t.o)
			header := bd.headers[v][t.s]
			for _, u := range []int32{vs, vp, vo} {
				if u >= 0 && u != int32(v) {
					used[u] = true
					if !header || u != vp {
						nonHeader[u] = true
					}
				}
			}
			foreign := func(u int32) bool { return u >= 0 && u != int32(v) }
			switch p := b.nodes[t.p].Value; p {
			case iriImports:
				if s, ok := bd.iri(t.o); ok {
					if u := bd.vocabOf(s); foreign(u) {
						imp[u] = true
					}
				}
			case iriSubClassOf, iriSubPropertyOf:
				if vs == int32(v) && foreign(vo) {
					rel[vo] |= relSpecializes
				}
				if vo == int32(v) && foreign(vs) {
					rel[vs] |= relGeneralizes
				}
				if foreign(vo) {
					rel[vo] |= relExtends
				}
				if foreign(vs) {
					rel[vs] |= relExtends
				}
			case iriDomain, iriRange:
				if foreign(vo) {
					rel[vo] |= relExtends
				}
			case iriEquivClass, iriEquivProperty, iriSameAs:
				for _, u := range []int32{vs, vo} {
					if foreign(u) {
						rel[u] |= relEquivalences
					}
				}
			case iriDisjointWith, iriPropDisjoint:
				for _, u := range []int32{vs, vo} {
					if foreign(u) {
						rel[u] |= relDisjunctions
					}
				}
			default:
				if bit := voafBit(p); bit != 0 && foreign(vo) {
					rel[vo] |= bit
				}
			}
		}
		for u := range used {
			if rel[u] == 0 {
				if nonHeader[u] {
					rel[u] = relReliesOn
				} else {
					rel[u] = relMetadataVoc
				}
			}
		}
		for u := 0; u < n; u++ {
			if imp[int32(u)] {
				imports = append(imports, edge{int32(v), int32(u)})
			}
			if used[int32(u)] {
				implicit = append(implicit, edge{int32(v), int32(u)})
			}
			for r := rel[int32(u)]; r != 0; r &= r - 1 {
				voaf = append(voaf, edge{int32(v), int32(u)})
			}
			if rel[int32(u)]&refVoafRelations != 0 {
				voafRef = append(voafRef, edge{int32(v), int32(u)})
			}
		}
	}
	if c.sem != SemanticsPaper {
		bd.refRepositoryGraphs(voafRef)
		return nil
	}
	for k, edges := range [][]edge{imports, implicit, voaf} {
		pr := pageRank(n, edges, pageRankDamping)
		for v := range c.vocabs {
			c.vocabs[v].qi[FeatPageRankOwlImports+k] = pr[v] * pageRankScale
		}
	}
	return nil
}

// voafBit maps a voaf relation IRI to its bit (0 if p is none).
func voafBit(p string) int {
	switch p {
	case voafExtends:
		return relExtends
	case voafSpecializes:
		return relSpecializes
	case voafGeneralizes:
		return relGeneralizes
	case voafEquivalences:
		return relEquivalences
	case voafDisjunctions:
		return relDisjunctions
	case voafMetadataVoc:
		return relMetadataVoc
	case voafReliesOn:
		return relReliesOn
	case voafUsedBy:
		return relUsedBy
	case voafSimilar:
		return relSimilar
	}
	return 0
}
