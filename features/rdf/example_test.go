package rdf_test

import (
	"fmt"
	"strings"

	"github.com/lovbench/lovbench/features/rdf"
)

func ExampleParseTurtle() {
	src := `@prefix foaf: <http://xmlns.com/foaf/0.1/> .
foaf:Person a <http://www.w3.org/2002/07/owl#Class> ;
    <http://www.w3.org/2000/01/rdf-schema#label> "Person"@en .`
	st, err := rdf.ParseTurtle(strings.NewReader(src), "foaf.ttl", rdf.Options{}, func(q rdf.Quad) error {
		fmt.Println(q)
		return nil
	})
	fmt.Println(st.Statements, st.Prefixes["foaf"], err)
	// Output:
	// <http://xmlns.com/foaf/0.1/Person> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Class> .
	// <http://xmlns.com/foaf/0.1/Person> <http://www.w3.org/2000/01/rdf-schema#label> "Person"@en .
	// 2 http://xmlns.com/foaf/0.1/ <nil>
}

func ExampleParseNQuads() {
	src := "<http://e/s> <http://e/p> \"x\" <http://e/g> .\n<http://e/s> <http://e/p> .\n"
	_, err := rdf.ParseNQuads(strings.NewReader(src), "data.nq", rdf.Options{}, func(q rdf.Quad) error {
		fmt.Println(q.G.Value, q.O.Value)
		return nil
	})
	fmt.Println(err)
	// Output:
	// http://e/g x
	// data.nq:2:27: expected object (IRI, blank node or literal), found '.'
}
