// Package features models a vocabulary corpus and computes the 33 ranking
// features of LOVBench (Section 5.1 and Table 3 of the LOVBench paper,
// docs/method.md section 6) plus the label-only BM25 baseline (feature 34,
// LabelSearch_T) for (query, term) pairs.
//
// A Corpus is built from RDF quads (package features/rdf parses them): every
// named graph is a vocabulary (ontology O of the repository R); the default
// graph of a file is one too if it types a class or property or declares an
// owl:Ontology, otherwise (as the zazuko "_index" prefix index) it is
// metadata whose prefix declarations
// (rdfa:prefix/rdfa:uri, vann:preferredNamespacePrefix/Uri) and titles are
// attached to the vocabulary owning the namespace. Default-graph statements
// of a file become a graph named by the one owl:Ontology IRI they declare
// (else their one vann:preferredNamespaceUri, else the file), so a
// vocabulary has the same name in Turtle, N-Triples and N-Quads (naming.go).
// A feature constant over a table or dataset is found by ConstantFeatures.
//
// Everything that does not depend on the query (PageRank of the repository
// graphs, hubs, betweenness, TF/IDF/BM25 of terms, structural counts) is
// computed once when the corpus is built; Extract then computes the
// query-dependent features per distinct query, in parallel and
// deterministically. docs/features.md lists every definition choice the
// paper leaves open.
//
// # Semantics
//
// LoadOptions.Semantics selects the definitions: SemanticsPaper computes
// the formulas as the paper prints them (Table 3, equations (6)-(10));
// SemanticsReference (the default) reproduces what LOVBench's Java code
// computed for the published features, as the click models reproduce
// PyClick. docs/features.md tabulates both per feature with the Java
// class read. The reference semantics reproduce these Java quirks of the
// query-match and text features (1-7, 17-25, 34):
//
//   - Query words: the query split on single spaces (TermQuery), repeats
//     and empty words kept, trailing empty words dropped; Query_Length_Q
//     counts them all.
//   - Match: a word matches when it is a case-insensitive substring of the
//     local name or of one of nine LOV properties ("person" matches
//     "Personal"; the empty word matches everything).
//   - Ontology of a term: the vocabulary with the longest URI among those
//     whose term prefix starts the term, else the URI up to its last '/'
//     or '#'; every ontology feature of a pair is that ontology's, 0 when
//     it is no graph of the corpus, but Min_Hub_O, which is then
//     Double.MAX_VALUE (HubDWRankScorer.java line 69: the minimum over no
//     term); validate and the report count such values.
//   - Features 1 and 4 read the term's local name and match values in the
//     graph of that ontology; 4 counts repeated words and also reads a
//     term that graph does not type.
//   - Terms of an ontology O (features 5, 6, 15, 16, 20-25, 31): every IRI
//     typed as a class or property in O's graph, with the labels and
//     comments O's graph gives it (LOVRepository.getTermQueryMatch, line
//     191), so a term of another vocabulary re-declared in O is a term of
//     O too (refentry.go): schema:Organization typed in gr matches
//     "organization" there, with tf 0 in gr (outside gr's term prefix),
//     betweenness 0 in gr (BetweennessScorer dismisses it) and its
//     Density_T in schema.org (TermStatsScorer). VSM_O counts every graph
//     re-declaring a matching term among the graphs matching a word.
//   - Betweenness_O (15) divides the sum over the matched classes by their
//     number twice: BetweennessMeasure.java line 42 divides inside the
//     arguments of a log.debug call, evaluated at every log level, and
//     line 43 again.
//   - Features 5-6: per word (repeats included) and class, exact when a
//     label lower-cased equals the lower-cased word (LOVRepository
//     lower-cases the labels it reads; ClassMatchMeasure.java line 52).
//   - TF: 0 for a term outside its ontology's term prefix; the maximum
//     only over terms under it.
//   - BM25 (23, 24): numerator TF·k + 1 (as equation (8) prints it, so
//     both semantics); |O| = 3·triples over an integer-divided average.
//   - VSM_O: word weights count/maxCount and |R|/#ontologies as integer
//     divisions; the query norm only over words matching in O.
//   - Features 2 and 3: Elasticsearch 1.x classic TF-IDF (lossy one-byte
//     norms, coord, queryNorm) of a best_fields multi_match; feature 2
//     divided by the query's best hit and kept for the top 500 only, both
//     rounded to 6 decimals as LOVScorer does.
//   - Feature 34: BM25 over every literal of the repository, not only
//     rdfs:label (Stardog textMatch with an unrestricted predicate).
//
// Not reproduced: the main extraction path's bug that scores every term
// of TFTerm, TFIDFTerm and BM25Term in the ontology of the first term of
// a HashSet (its order is not recoverable); regular-expression
// metacharacters in query words (matched literally here); Jena's XML
// local-name split; alternative term URIs.
//
// # Graph and structure features in the reference semantics
//
// With SemanticsReference, features 8-16 and 26-33 reproduce LOVBench's
// Java (LOVRepository.java, LOVMetadataRepository.java, the scorers in
// feature/scoring/graph) and the JUNG 2.1.1 algorithms it calls, quirks
// included (refgraph.go, refstruct.go, jung.go):
//
//   - JUNG's PageRank(graph, 0.85) takes 0.85 as the random-jump
//     probability, so the damping factor is 0.15; it stops after 100
//     iterations because JUNG never resets its largest change between
//     iterations; the change is measured before the rank of dangling nodes
//     is spread back; a self-loop takes its share of the out-degree and
//     passes nothing on. Scores are multiplied by 1e5, hubs included.
//   - Repository graphs (8-10) are simple graphs whose nodes are only the
//     URIs occurring in their pairs: a vocabulary in no pair gets 0, and an
//     owl:imports object counts for a vocabulary only when it is its graph
//     name exactly. Implicit imports add, for every triple of O with an IRI
//     outside O, a pair for each of its three IRIs whose ontology is not O,
//     so the predicate rdf:type or rdfs:subClassOf of such a triple adds an
//     edge to the rdf or rdfs ontology node. The voaf graph uses five
//     relations (specializes, reliesOn, extends, metadataVoc, generalizes),
//     each pair once.
//   - The ontology graph (11-16) has an edge d -> r for every property
//     typed in O with one of twelve property types, d a rdfs:domain or
//     schema:domainIncludes and r a rdfs:range or schema:rangeIncludes, so
//     datatypes (xsd:string) and blank nodes are nodes, and a property
//     without domain (range) starts (ends) at the placeholder node
//     http://lovbench.com/placeholder#source (#sink).
//   - Max_Hub_O and Min_Hub_O run over all terms of O, properties
//     included; a term that is no node counts as 0 for the minimum, which
//     is therefore 0 for almost every vocabulary; the maximum starts at 0
//     (and the minimum of a vocabulary without terms would be
//     math.MaxFloat64).
//   - Betweenness is JUNG's, not halved on the undirected graph (each
//     unordered pair counts twice). A term's Betweenness_T adds the
//     betweenness of the edges it labels, so properties score; of parallel
//     edges only the one JUNG's findEdge returns (first in Java 8 HashSet
//     order of the edge names) is credited.
//   - Semantic_Similarity_O is the mean shortest-path length over the
//     pairs of matched classes (equation (6) prints 1/length); a pair
//     without a path, or with a class that is no node, adds 0 and counts.
//   - Subclasses, Superclasses, Subproperties and Superproperties follow
//     rdfs:subClassOf+ / rdfs:subPropertyOf+ within O's graph through any
//     intermediate node, counting the other end only when it is typed in O
//     (a class in a cycle counts itself). Relations counts the properties
//     typed in O with t as rdf:domain, rdfs:domain or
//     schema:domainIncludes (not ranges). Siblings counts the classes typed
//     in O sharing a direct parent other than owl:Thing with t, t included.
//     All six counts are computed for classes and properties alike.
//
// Not reproduced: the Java's main extraction path fixes the ontology of a
// whole batch of terms from the first term of the batch in HubDWRank
// (lines 36-38) and BetweennessMeasureTerm (lines 37-39), as in TFTerm and
// BM25Term, so which graph scores a term depends on how the Java happened to
// batch and iterate its term sets, not on the term; here every term is
// scored in its own ontology. Nor are the Java's zero betweenness for an
// ontology without LOV prefix, Stardog's blank-node labels and result order
// (the order of colliding edges in a HashSet bucket; here edge-name order),
// Java's HashMap tree bins, or the summation order of its floating-point
// sums (the last bits).
package features

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lovbench/lovbench/features/rdf"
	"github.com/lovbench/lovbench/internal/textio"
)

// Literal is a literal value with its language tag ("" if none).
type Literal struct {
	Value string
	Lang  string
}

// TermInfo describes one term of the corpus.
type TermInfo struct {
	// URI is the term's IRI.
	URI string
	// Prefixed is the best prefixed name of the term, or the URI.
	Prefixed string
	// Kind is Class or Property.
	Kind Kind
	// Vocabulary is the URI (graph name) of the vocabulary defining the term.
	Vocabulary string
	// VocabularyPrefix is that vocabulary's prefix ("" if unknown).
	VocabularyPrefix string
	// Labels are the term's rdfs:label values, in input order.
	Labels []Literal
	// Comments are the term's rdfs:comment values, in input order.
	Comments []Literal
}

// VocabInfo describes one vocabulary (ontology O) of the corpus.
type VocabInfo struct {
	// URI is the graph name of the vocabulary.
	URI string
	// Prefix is its preferred prefix ("" if no declaration names one).
	Prefix string
	// Triples is |O|, the number of distinct triples in its graph.
	Triples int
	// Classes and Properties count the terms it defines.
	Classes, Properties int
	// PageRank holds features 8, 9 and 10: PageRank (x 1e5) in the
	// owl:imports, implicit-imports and voaf repository graphs.
	PageRank [3]float64
}

// LoadOptions controls Load.
type LoadOptions struct {
	// Lenient skips bad RDF statements (counted in LoadStats.Skipped)
	// instead of failing on the first one.
	Lenient bool
	// Prefixes is an optional LOV prefix file (SPARQL JSON results with
	// vocabPrefix and termPrefix, as in LOV's prefix exports; docs/features.md).
	Prefixes string
	// Semantics selects the feature definitions the corpus precomputes and
	// Extract applies; empty means DefaultSemantics.
	Semantics Semantics
	// Trace is a term IRI whose build-time inputs (counts, graph sizes,
	// neighbours) the corpus records for Explain; empty for none.
	Trace string
	// Log receives a warning per file of a corpus directory that is not
	// read (LoadStats.SkippedFiles) and per vocabulary named by its file
	// for want of one ontology IRI (LoadStats.Names); nil: no logging.
	Log *slog.Logger
}

// LoadStats summarises the loading and building of a corpus.
type LoadStats struct {
	// Files read and RDF Statements parsed; Skipped bad statements
	// (lenient mode only).
	Files, Statements, Skipped int
	// Vocabularies and MetadataGraphs found (see the package comment).
	Vocabularies, MetadataGraphs int
	// Terms defined, split into Classes and Properties.
	Terms, Classes, Properties int
	// Names records how each file's default-graph statements were named
	// (naming.go): by the ontology IRI they declare, by their namespace, or
	// by the file, in the order the files were read.
	Names []SourceName
	// SkippedFiles lists the files under a corpus directory that Load did
	// not read (not an RDF format it parses), with the reason.
	SkippedFiles []rdf.SkippedFile
	// Timings lists the build phases and their wall-clock durations
	// (for benchmarks; never written into outputs).
	Timings []Timing
}

// Timing is the duration of one build phase.
type Timing struct {
	Phase    string
	Duration time.Duration
}

// Corpus is an immutable, indexed vocabulary collection with the
// query-independent features precomputed. It is safe for concurrent use.
type Corpus struct {
	vocabs  []vocabRec
	terms   []termRec
	termIdx map[string]int32

	words     map[string]int32       // word -> id
	fields    [numFields]*fieldIndex // documents = terms
	vocabText *fieldIndex            // documents = vocabularies (feature 3)
	matchPost map[int32][]int32      // word -> sorted terms whose match fields contain it

	prefixNS map[string][]string // prefix -> namespaces, best first
	nsPrefix map[string]string   // namespace -> best prefix
	nsByLen  []string            // namespaces, longest first (fallback of Prefixed)
	parents  map[string][]string // IRI -> direct rdfs:subClassOf/subPropertyOf parents

	// sem is the feature semantics the corpus was built for (never empty).
	sem Semantics
	// digest is CorpusDigest of the files Load read ("" for a corpus
	// built from quads by a Builder).
	digest string
	// ref holds the reference-semantics indexes (reftext.go); nil for
	// SemanticsPaper.
	ref *refIndex
	// trace holds the build inputs of one term (trace.go), or nil.
	trace *buildTrace

	stats LoadStats
}

// Semantics returns the feature semantics the corpus computes (set by
// LoadOptions.Semantics or Builder.SetSemantics).
func (c *Corpus) Semantics() Semantics { return c.sem }

// SHA256 returns the CorpusDigest of the files the corpus was loaded from,
// "" for a corpus built by a Builder.
func (c *Corpus) SHA256() string { return c.digest }

type vocabRec struct {
	uri, prefix string
	size        int     // |O|, triples
	terms       []int32 // sorted
	classes     int
	properties  int
	// qi holds the query-independent ontology features by ID (8-10, 12, 13).
	qi        [numFeatures + 1]float64
	tfidfNorm float64 // sqrt(sum_{t in O} TF-IDF_t^2), equation (9)
	// classMatch and propMatch: word -> {exact, partial} label matches
	// (features 5 and 6).
	classMatch map[int32][2]int32
	propMatch  map[int32][2]int32
	og         *ontGraph
}

type termRec struct {
	uri      string
	kind     Kind
	vocab    int32
	node     int32 // node in the vocabulary's ontology graph, -1 if none
	labels   []Literal
	comments []Literal
	match    []int32 // sorted distinct words of the match fields
	// qi holds the query-independent term features by ID (11, 14, 17-19,
	// 23, 26-30, 32, 33).
	qi [numFeatures + 1]float64
}

// Load reads RDF files or directories (N-Quads, N-Triples, Turtle, plain or
// gzip) and builds the corpus. Directories are read recursively in sorted
// order (rdf.Scan); every other file of a directory is not read, named in
// a warning (opts.Log) and listed in LoadStats.SkippedFiles. A file's
// statements outside named graphs form a vocabulary named by its
// owl:Ontology IRI (naming.go; docs/features.md "Vocabulary names").
func Load(ctx context.Context, paths []string, opts LoadOptions) (*Corpus, error) {
	start := time.Now()
	sem, err := ParseSemantics(string(opts.Semantics))
	if err != nil {
		return nil, err
	}
	b := NewBuilder()
	b.SetSemantics(sem)
	b.SetTrace(opts.Trace)
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	files := 0
	var st rdf.Stats
	var skippedFiles []rdf.SkippedFile
	for _, p := range paths {
		fs, skipped, err := rdf.Scan(p)
		if err != nil {
			return nil, fmt.Errorf("corpus %s: %w", p, err)
		}
		for _, sk := range skipped {
			opts.Log.Warn("corpus file not read", "file", sk.Path, "why", sk.Reason)
		}
		skippedFiles = append(skippedFiles, skipped...)
		if len(fs) == 0 {
			return nil, fmt.Errorf("corpus %s: no .nq, .nt or .ttl files%s", p, skippedNote(skipped))
		}
		for _, f := range fs {
			scope := "f" + strconv.Itoa(files) + "."
			b.SetSource("file://" + f)
			s, err := rdf.LoadPath(ctx, f, rdf.Options{Lenient: opts.Lenient}, func(q rdf.Quad) error {
				// Blank nodes are scoped per file.
				if q.S.Kind == rdf.Blank {
					q.S.Value = scope + q.S.Value
				}
				if q.O.Kind == rdf.Blank {
					q.O.Value = scope + q.O.Value
				}
				b.Add(q)
				return nil
			})
			if err != nil {
				return nil, err
			}
			files++
			st.Statements += s.Statements
			st.Skipped += s.Skipped
			keys := make([]string, 0, len(s.Prefixes))
			for k := range s.Prefixes {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				b.AddPrefix(k, s.Prefixes[k], PrefixDocument)
			}
		}
	}
	if opts.Prefixes != "" {
		if err := b.AddLOVPrefixes(opts.Prefixes); err != nil {
			return nil, err
		}
	}
	digest, err := CorpusDigest(ctx, paths, opts.Prefixes)
	if err != nil {
		return nil, err
	}
	parse := time.Since(start)
	c, err := b.Build(ctx)
	if err != nil {
		return nil, err
	}
	c.digest = digest
	c.stats.Files = files
	c.stats.Statements = st.Statements
	c.stats.Skipped = st.Skipped
	c.stats.SkippedFiles = skippedFiles
	for _, n := range c.stats.Names {
		if n.Rule == NamedByFile && n.Vocabulary {
			opts.Log.Warn("vocabulary named by its file", "file", n.Source, "why", n.Why, "candidates", strings.Join(n.Candidates, " "))
		}
	}
	c.stats.Timings = append([]Timing{{"parse", parse}}, c.stats.Timings...)
	return c, nil
}

// SkippedFile is a file of a corpus directory that is not read, with the
// reason (rdf.Scan).
type SkippedFile = rdf.SkippedFile

// ScanCorpus lists, for each corpus path in turn, the files Load reads
// (rdf.Scan: the path itself if a file, else the .nq/.nt/.ttl[.gz] files
// under it in sorted order) and the files of the directories it does not
// read, with why.
func ScanCorpus(paths []string) (files []string, skipped []SkippedFile, err error) {
	for _, p := range paths {
		fs, sk, err := rdf.Scan(p)
		if err != nil {
			return nil, nil, fmt.Errorf("corpus %s: %w", p, err)
		}
		files = append(files, fs...)
		skipped = append(skipped, sk...)
	}
	return files, skipped, nil
}

// skippedNote names the files of a directory that were left out, for the
// error of a directory without any file read.
func skippedNote(skipped []rdf.SkippedFile) string {
	if len(skipped) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d other files not read, e.g. %s: %s)", len(skipped), skipped[0].Path, skipped[0].Reason)
}

// Prefix declaration sources, best first: how much a declaration is trusted
// when two sources give a prefix different namespaces.
const (
	// PrefixCorpus: rdfa:prefix/rdfa:uri and vann:preferredNamespace*
	// statements inside the corpus.
	PrefixCorpus = iota
	// PrefixDocument: @prefix declarations of Turtle files.
	PrefixDocument
	// PrefixLOV: the LOV prefix file.
	PrefixLOV
)

type prefixDecl struct {
	prefix, ns string
	source     int
	seq        int
}

type triple struct{ s, p, o int32 }

// Builder collects quads and builds a Corpus; it decouples parsing from
// modelling (tests feed it hand-made quads).
type Builder struct {
	dict     map[rdf.Term]int32
	nodes    []rdf.Term
	graphIdx map[string]int
	gnames   []string
	gtriples [][]triple
	gseen    []map[triple]struct{}
	gdefault []bool // graph holds default-graph statements of a source
	gsource  []bool // graph holds the default-graph statements of a SetSource source, not yet named (naming.go)
	decls    []prefixDecl
	source   string
	sem      Semantics
	// lovVocabs are the LOV prefix file's vocabularies (AddLOVPrefixes).
	lovVocabs []lovVocab
	// trace is the term whose build inputs are recorded (SetTrace).
	trace string
}

// SetSemantics selects the feature semantics of the corpus Build returns
// (empty: DefaultSemantics). Build fails on an unknown value.
func (b *Builder) SetSemantics(s Semantics) { b.sem = s }

// SetSource names the source of the following quads (Load passes the
// file's file:// URI): their default-graph statements go to a graph of
// that name, which Build renames after the ontology the statements
// declare (naming.go, docs/features.md "Vocabulary names").
func (b *Builder) SetSource(name string) { b.source = name }

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{dict: make(map[rdf.Term]int32), graphIdx: make(map[string]int)}
}

func (b *Builder) id(t rdf.Term) int32 {
	if id, ok := b.dict[t]; ok {
		return id
	}
	id := int32(len(b.nodes))
	b.dict[t] = id
	b.nodes = append(b.nodes, t)
	return id
}

// Add adds one quad; duplicate statements in a graph count once. Quads of
// the default graph go to a graph named after the source (SetSource), or
// "(default graph)". Every named graph is a vocabulary; a default graph is
// one only if it types a class or property or declares an owl:Ontology,
// otherwise it is metadata (prefix declarations and vocabulary titles, as
// the zazuko _index file).
func (b *Builder) Add(q rdf.Quad) {
	g, def := q.G.Value, q.G.IsDefaultGraph()
	if def {
		g = b.source
		if g == "" {
			g = defaultGraphLabel
		}
	}
	gi, ok := b.graphIdx[g]
	if !ok {
		gi = len(b.gnames)
		b.graphIdx[g] = gi
		b.gnames = append(b.gnames, g)
		b.gtriples = append(b.gtriples, nil)
		b.gseen = append(b.gseen, make(map[triple]struct{}))
		b.gdefault = append(b.gdefault, def)
		b.gsource = append(b.gsource, def && b.source != "")
	}
	t := triple{b.id(q.S), b.id(q.P), b.id(q.O)}
	if _, dup := b.gseen[gi][t]; dup {
		return
	}
	b.gseen[gi][t] = struct{}{}
	b.gtriples[gi] = append(b.gtriples[gi], t)
}

// AddPrefix declares a prefix for a namespace; source is PrefixCorpus,
// PrefixDocument or PrefixLOV.
func (b *Builder) AddPrefix(prefix, ns string, source int) {
	if prefix == "" || ns == "" {
		return
	}
	b.decls = append(b.decls, prefixDecl{prefix, ns, source, len(b.decls)})
}

// AddLOVPrefixes reads a LOV prefix file (SPARQL JSON results with the
// variables vocabPrefix and termPrefix) and declares its prefixes.
func (b *Builder) AddLOVPrefixes(path string) error {
	data, err := textio.ReadFile(path)
	if err != nil {
		return fmt.Errorf("prefixes: %w", err)
	}
	var doc struct {
		Results struct {
			Bindings []map[string]struct {
				Value string `json:"value"`
			} `json:"bindings"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("prefixes %s: %w", path, err)
	}
	if len(doc.Results.Bindings) == 0 {
		return fmt.Errorf("prefixes %s: no results.bindings", path)
	}
	for i, bd := range doc.Results.Bindings {
		p, ns := bd["vocabPrefix"].Value, bd["termPrefix"].Value
		if p == "" || ns == "" {
			return fmt.Errorf("prefixes %s: binding %d: missing vocabPrefix or termPrefix", path, i+1)
		}
		b.AddPrefix(p, ns, PrefixLOV)
		// The reference semantics key LOV prefixes by vocabulary URI
		// (LOVPrefixes.initFromPrefixFile), alternative prefix included.
		b.lovVocabs = append(b.lovVocabs, lovVocab{bd["vocabURI"].Value, ns})
		if ns2 := bd["termPrefix2"].Value; ns2 != "" {
			b.lovVocabs = append(b.lovVocabs, lovVocab{bd["vocabURI"].Value, ns2})
		}
	}
	return nil
}

// lovVocab is one vocabulary of a LOV prefix file: its URI ("" if the
// file has none) and a term prefix.
type lovVocab struct{ uri, prefix string }

// ErrEmptyCorpus is returned by Build when the statements hold no vocabulary.
var ErrEmptyCorpus = errors.New("corpus has no vocabulary: no named graph, and no file whose statements type a class or property or declare an owl:Ontology")

// Resolve maps a prefixed name ("foaf:Person") or a full URI to the URI of a
// corpus term. ok is false when the name is not a term of the corpus; uri
// is then the expansion of the prefixed name if its prefix is known, or the
// name itself. When a prefix has several namespaces (corpus declarations,
// Turtle @prefix, the LOV file), the first expansion that is a term wins.
func (c *Corpus) Resolve(name string) (uri string, ok bool) {
	name = strings.TrimSpace(name)
	if _, ok := c.termIdx[name]; ok {
		return name, true
	}
	i := strings.IndexByte(name, ':')
	if i < 0 {
		return name, false
	}
	nss := c.prefixNS[name[:i]]
	for _, ns := range nss {
		if u := ns + name[i+1:]; c.hasTerm(u) {
			return u, true
		}
	}
	if len(nss) > 0 && !strings.HasPrefix(name[i+1:], "//") {
		return nss[0] + name[i+1:], false
	}
	return name, false
}

func (c *Corpus) hasTerm(uri string) bool { _, ok := c.termIdx[uri]; return ok }

// Prefixed returns the prefixed name of uri under the longest declared
// namespace that leaves a non-empty local name without '/', '#' or '?', or
// uri itself.
func (c *Corpus) Prefixed(uri string) string {
	if ns := namespaceOf(uri); ns != "" {
		if p, ok := c.nsPrefix[ns]; ok && validLocal(uri[len(ns):]) {
			return p + ":" + uri[len(ns):]
		}
	}
	for _, ns := range c.nsByLen {
		if len(ns) < len(uri) && strings.HasPrefix(uri, ns) && validLocal(uri[len(ns):]) {
			return c.nsPrefix[ns] + ":" + uri[len(ns):]
		}
	}
	return uri
}

func validLocal(s string) bool {
	return s != "" && !strings.ContainsAny(s, "/#? \t")
}

// Term returns what the corpus knows about a term URI.
func (c *Corpus) Term(uri string) (TermInfo, bool) {
	i, ok := c.termIdx[uri]
	if !ok {
		return TermInfo{}, false
	}
	t := &c.terms[i]
	v := &c.vocabs[t.vocab]
	return TermInfo{
		URI: t.uri, Prefixed: c.Prefixed(t.uri), Kind: t.kind,
		Vocabulary: v.uri, VocabularyPrefix: v.prefix,
		Labels: append([]Literal(nil), t.labels...), Comments: append([]Literal(nil), t.comments...),
	}, true
}

// Terms returns all term URIs, sorted.
func (c *Corpus) Terms() []string {
	out := make([]string, len(c.terms))
	for i, t := range c.terms {
		out[i] = t.uri
	}
	return out
}

// Vocabularies returns the vocabularies sorted by URI.
func (c *Corpus) Vocabularies() []VocabInfo {
	out := make([]VocabInfo, len(c.vocabs))
	for i, v := range c.vocabs {
		out[i] = VocabInfo{URI: v.uri, Prefix: v.prefix, Triples: v.size, Classes: v.classes, Properties: v.properties,
			PageRank: [3]float64{v.qi[FeatPageRankOwlImports], v.qi[FeatPageRankImplicit], v.qi[FeatPageRankVoaf]}}
	}
	return out
}

// Parents returns the direct rdfs:subClassOf and rdfs:subPropertyOf parents
// (IRIs, not blank nodes) of uri stated anywhere in the corpus, sorted.
func (c *Corpus) Parents(uri string) []string {
	return append([]string(nil), c.parents[uri]...)
}

// Stats returns the load statistics.
func (c *Corpus) Stats() LoadStats {
	s := c.stats
	s.Timings = append([]Timing(nil), s.Timings...)
	s.Names = append([]SourceName(nil), s.Names...)
	s.SkippedFiles = append([]rdf.SkippedFile(nil), s.SkippedFiles...)
	return s
}

// queryWords tokenises a query: the distinct known word ids in first-seen
// order, their counts f(q_i, Q), and the number of distinct words including
// those unknown to the corpus.
func (c *Corpus) queryWords(q string) (ids []int32, counts []int, distinct int) {
	seen := make(map[string]int)
	for _, w := range Tokenize(q) {
		if k, ok := seen[w]; ok {
			if k >= 0 {
				counts[k]++
			}
			continue
		}
		id, ok := c.words[w]
		if !ok {
			seen[w] = -1
			continue
		}
		seen[w] = len(ids)
		ids = append(ids, id)
		counts = append(counts, 1)
	}
	return ids, counts, len(seen)
}

// Matches returns the URIs of the terms matching the query (docs/method.md section
// 6): a word of the query equals a word (Tokenize) of the term's rdfs:label,
// dce:title, dcterms:title, skos:prefLabel, rdfs:comment, rdfs:description,
// dce:description, dcterms:description, skos:altLabel or local name, in any
// language. The result is sorted by URI.
func (c *Corpus) Matches(query string) []string {
	ids, _, _ := c.queryWords(query)
	set := c.matchSet(ids)
	out := make([]string, len(set))
	for i, t := range set {
		out[i] = c.terms[t].uri
	}
	return out
}

// MatchCount returns len(c.Matches(query)), the number of terms matching
// the query, without building the list: the union of the query words'
// sorted postings counted by a merge.
func (c *Corpus) MatchCount(query string) int {
	ids, _, _ := c.queryWords(query)
	switch len(ids) {
	case 0:
		return 0
	case 1:
		return len(c.matchPost[ids[0]])
	case 2:
		a, b := c.matchPost[ids[0]], c.matchPost[ids[1]]
		n, i, j := 0, 0, 0
		for i < len(a) && j < len(b) {
			switch {
			case a[i] < b[j]:
				i++
			case a[i] > b[j]:
				j++
			default:
				i++
				j++
			}
			n++
		}
		return n + len(a) - i + len(b) - j
	}
	return len(c.matchSet(ids))
}

// matchSet returns sigma_t(Q): the sorted terms matching any of the words.
func (c *Corpus) matchSet(ids []int32) []int32 {
	if len(ids) == 1 {
		return c.matchPost[ids[0]]
	}
	seen := make(map[int32]struct{})
	var out []int32
	for _, w := range ids {
		for _, t := range c.matchPost[w] {
			if _, ok := seen[t]; !ok {
				seen[t] = struct{}{}
				out = append(out, t)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
