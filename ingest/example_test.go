package ingest_test

import (
	"fmt"

	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/ingest/pii"
)

func ExampleNormalizeQuery() {
	fmt.Println(ingest.NormalizeQuery("  &quot;FOAF  Person&quot; "))
	// Output: foaf person
}

func ExampleDetector_Detect() {
	d := pii.New([]string{"Jane Roe"}, ingest.NormalizeQuery)
	for _, q := range []string{"person", "jane roe", "contact jane@example.org", "iban de89 3704 0044 0532 0130 00"} {
		fmt.Println(d.Detect(ingest.NormalizeQuery(q)))
	}
	// Output:
	// none
	// blacklist
	// email
	// iban
}
