package ingest_test

import (
	"context"
	"fmt"
	"os"

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

func ExampleRun() {
	out, err := os.MkdirTemp("", "lovbench-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(out)
	rep, err := ingest.Run(context.Background(), ingest.Config{
		Format:    ingest.FormatLOV,
		Queries:   "testdata/lov/queries.jsonl",
		Clicks:    "testdata/lov/clicks.jsonl",
		Blacklist: []string{"Secret Project"},
		OutDir:    out,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("events:", rep.InputEvents, "sessions kept:", rep.Sessions.Kept, "of", rep.Sessions.Seen)
	fmt.Println("kept queries:", rep.KeptQueries, "clicks:", rep.KeptClicks)
	fmt.Println("of sessions with a click:", rep.SERPsWithClickSession, "without:", rep.SERPsWithoutClickSession)
	fmt.Println("e-mail queries dropped:", rep.Dropped["rule3_pii_email"])
	// Output:
	// events: 36 sessions kept: 6 of 9
	// kept queries: 7 clicks: 6
	// of sessions with a click: 6 without: 1
	// e-mail queries dropped: 1
}
