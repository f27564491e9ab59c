package features

import "testing"

// TestFeaturesReportCounts: the features stage's report lists the files
// not read (the pipeline's listing first, then Load's), the vocabularies
// named by their file only, and the features constant over the pairs.
func TestFeaturesReportCounts(t *testing.T) {
	st := LoadStats{Files: 3, Statements: 40, Vocabularies: 2, Terms: 5,
		Names: []SourceName{
			{Source: "file:///c/a.ttl", Name: "http://a.org/", Rule: NamedByOntology, Vocabulary: true},
			{Source: "file:///c/b.ttl", Name: "file:///c/b.ttl", Rule: NamedByFile, Why: "several", Vocabulary: true},
			{Source: "file:///c/idx.ttl", Name: "file:///c/idx.ttl", Rule: NamedByFile, Why: "metadata"},
		},
		SkippedFiles: []SkippedFile{{Path: "/c/y.rdf", Reason: "RDF/XML"}}}
	tab := &Table{Features: []int{1, 7}, Rows: []Row{{Values: []float64{1, 2}}, {Values: []float64{0, 2}}}}
	fr := NewReport(st, []SkippedFile{{Path: "/c/x.owl", Reason: "RDF/XML"}}, tab)
	if len(fr.FilesNotRead) != 2 || fr.FilesNotRead[0].Path != "/c/x.owl" || fr.FilesNotRead[1].Path != "/c/y.rdf" {
		t.Errorf("files not read %v", fr.FilesNotRead)
	}
	if len(fr.NamedByFile) != 1 || fr.NamedByFile[0].Source != "file:///c/b.ttl" {
		t.Errorf("named by file %v, want only the vocabulary b.ttl", fr.NamedByFile)
	}
	if len(fr.Constant) != 1 || fr.Constant[0] != (Constant{Name: "Query_Length_Q", Value: 2}) {
		t.Errorf("constant %v, want Query_Length_Q = 2", fr.Constant)
	}
}
