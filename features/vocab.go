package features

// IRIs of the meta-vocabularies the corpus model reads (docs/method.md section 6,
// LOVBench Section 5.1.1 footnotes 4-5 and Section 5.1.3).
const (
	nsRDF     = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	nsRDFS    = "http://www.w3.org/2000/01/rdf-schema#"
	nsOWL     = "http://www.w3.org/2002/07/owl#"
	nsSKOS    = "http://www.w3.org/2004/02/skos/core#"
	nsDCE     = "http://purl.org/dc/elements/1.1/"
	nsDCTerms = "http://purl.org/dc/terms/"
	nsVANN    = "http://purl.org/vocab/vann/"
	nsRDFa    = "http://www.w3.org/ns/rdfa#"
	nsVOAF    = "http://purl.org/vocommons/voaf#"

	iriType           = nsRDF + "type"
	iriSubClassOf     = nsRDFS + "subClassOf"
	iriSubPropertyOf  = nsRDFS + "subPropertyOf"
	iriDomain         = nsRDFS + "domain"
	iriRange          = nsRDFS + "range"
	iriOntology       = nsOWL + "Ontology"
	iriImports        = nsOWL + "imports"
	iriEquivClass     = nsOWL + "equivalentClass"
	iriEquivProperty  = nsOWL + "equivalentProperty"
	iriSameAs         = nsOWL + "sameAs"
	iriDisjointWith   = nsOWL + "disjointWith"
	iriPropDisjoint   = nsOWL + "propertyDisjointWith"
	iriVannPrefix     = nsVANN + "preferredNamespacePrefix"
	iriVannURI        = nsVANN + "preferredNamespaceUri"
	iriRDFaPrefix     = nsRDFa + "prefix"
	iriRDFaURI        = nsRDFa + "uri"
	iriRDFSLabel      = nsRDFS + "label"
	iriRDFSComment    = nsRDFS + "comment"
	iriRDFSDesc       = nsRDFS + "description"
	iriDCETitle       = nsDCE + "title"
	iriDCEDesc        = nsDCE + "description"
	iriDCTermsTitle   = nsDCTerms + "title"
	iriDCTermsDesc    = nsDCTerms + "description"
	iriSKOSPrefLabel  = nsSKOS + "prefLabel"
	iriSKOSAltLabel   = nsSKOS + "altLabel"
	iriRDFSClass      = nsRDFS + "Class"
	iriOWLClass       = nsOWL + "Class"
	iriRDFProperty    = nsRDF + "Property"
	iriRDFSProperty   = nsRDFS + "Property"
	iriOWLObjProp     = nsOWL + "ObjectProperty"
	iriOWLDataProp    = nsOWL + "DatatypeProperty"
	iriOWLAnnotProp   = nsOWL + "AnnotationProperty"
	iriOWLOntProp     = nsOWL + "OntologyProperty"
	voafReliesOn      = nsVOAF + "reliesOn"
	voafExtends       = nsVOAF + "extends"
	voafSpecializes   = nsVOAF + "specializes"
	voafGeneralizes   = nsVOAF + "generalizes"
	voafEquivalences  = nsVOAF + "hasEquivalencesWith"
	voafDisjunctions  = nsVOAF + "hasDisjunctionsWith"
	voafMetadataVoc   = nsVOAF + "metadataVoc"
	voafUsedBy        = nsVOAF + "usedBy"
	voafSimilar       = nsVOAF + "similar"
	defaultGraphLabel = "(default graph)"
)

// Kind is the type of a term: class or property (LOVBench Section 5.1.1).
type Kind uint8

// The term kinds.
const (
	// Class is a term typed rdfs:Class or owl:Class.
	Class Kind = iota + 1
	// Property is a term typed rdf:Property, rdfs:Property,
	// owl:ObjectProperty, owl:DatatypeProperty, owl:AnnotationProperty or
	// owl:OntologyProperty.
	Property
)

// String returns "class" or "property".
func (k Kind) String() string {
	switch k {
	case Class:
		return "class"
	case Property:
		return "property"
	}
	return "unknown"
}

// termKind maps an rdf:type object to the term kind it declares (0 if none).
func termKind(typeIRI string) Kind {
	switch typeIRI {
	case iriRDFSClass, iriOWLClass:
		return Class
	case iriRDFProperty, iriRDFSProperty, iriOWLObjProp, iriOWLDataProp, iriOWLAnnotProp, iriOWLOntProp:
		return Property
	}
	return 0
}

// The text fields of a term. The first nine are the matching properties of
// docs/method.md section 6 with rdfs:description; fieldLocal is the local name;
// fieldVocab the defining vocabulary's prefix, title and description;
// fieldOther any other literal of the term.
const (
	fieldLabel = iota // rdfs:label
	fieldDCTermsTitle
	fieldDCETitle
	fieldPrefLabel
	fieldComment
	fieldDCTermsDesc
	fieldDCEDesc
	fieldAltLabel
	fieldRDFSDesc
	fieldLocal
	fieldVocab
	fieldOther
	numFields
)

// fieldOf maps a predicate IRI to its text field (fieldOther if none).
func fieldOf(pred string) int {
	switch pred {
	case iriRDFSLabel:
		return fieldLabel
	case iriDCTermsTitle:
		return fieldDCTermsTitle
	case iriDCETitle:
		return fieldDCETitle
	case iriSKOSPrefLabel:
		return fieldPrefLabel
	case iriRDFSComment:
		return fieldComment
	case iriDCTermsDesc:
		return fieldDCTermsDesc
	case iriDCEDesc:
		return fieldDCEDesc
	case iriSKOSAltLabel:
		return fieldAltLabel
	case iriRDFSDesc:
		return fieldRDFSDesc
	}
	return fieldOther
}

// fieldBoost is the Elasticsearch field boost of feature 2 (docs/method.md section
// 6): local name 12; rdfs:label, dcterms:title, dce:title, skos:prefLabel 3;
// rdfs:comment, dcterms:description, dce:description, skos:altLabel 1.5;
// vocabulary fields 1; any other literal (rdfs:description included) 1.
func fieldBoost(f int) float64 {
	switch f {
	case fieldLocal:
		return 12
	case fieldLabel, fieldDCTermsTitle, fieldDCETitle, fieldPrefLabel:
		return 3
	case fieldComment, fieldDCTermsDesc, fieldDCEDesc, fieldAltLabel:
		return 1.5
	}
	return 1
}
