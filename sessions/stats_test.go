package sessions

import (
	"bytes"
	"reflect"
	"testing"
)

func TestClassifyTerm(t *testing.T) {
	for id, want := range map[string]TermClass{
		"foaf:Person": ClassTerm, "foaf:name": PropertyTerm, "http://xmlns.com/foaf/0.1/Agent": ClassTerm,
		"http://www.w3.org/2000/01/rdf-schema#label": PropertyTerm, "ex:": OtherTerm, "ex:123": OtherTerm,
		"Person": ClassTerm, "ex:Été": ClassTerm, "ex:été": PropertyTerm,
	} {
		if got := ClassifyTerm(id); got != want {
			t.Errorf("ClassifyTerm(%s) = %d, want %d", id, got, want)
		}
	}
}

func TestAnalyze(t *testing.T) {
	// testSERPs: s1 "person" [foaf:Person schema:Person dbo:Person] clicked
	// rank 1 twice; s1 "name" [foaf:name schema:name] no click; s2 "event"
	// [schema:Event event:Event] clicked rank 0.
	l := &Log{}
	for _, s := range testSERPs() {
		if err := l.Add(&s); err != nil {
			t.Fatal(err)
		}
	}
	st := Analyze(l)
	want := &Stats{
		Sessions: 2, SERPs: 3, DistinctQueries: 3,
		Clicks:         2, // the double click on rank 1 counts once
		SERPsWithClick: 2,
		QueryLength:    []LengthCount{{Words: 1, SERPs: 3}},
		ClicksPerRank:  []int{1, 1},
		// Impressions: 3 + 2 + 2 = 7; classes Person x3, Event x2 = 5;
		// properties name x2.
		Views:           KindCounts{Class: 5, Property: 2},
		ClickedKinds:    KindCounts{Class: 2},
		DistinctViewed:  KindCounts{Class: 5, Property: 2},
		DistinctClicked: KindCounts{Class: 2},
	}
	if !reflect.DeepEqual(st, want) {
		t.Fatalf("Analyze:\n got %+v\nwant %+v", st, want)
	}
	var b bytes.Buffer
	if err := st.WriteText(&b); err != nil || !bytes.Contains(b.Bytes(), []byte("distinct queries  3")) {
		t.Fatalf("WriteText: %v\n%s", err, b.String())
	}
}
