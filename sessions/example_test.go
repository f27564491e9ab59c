package sessions_test

import (
	"fmt"
	"strings"

	"github.com/lovbench/lovbench/sessions"
)

func ExampleReadYandex() {
	log := "7\t0\tQ\tperson\t0\tfoaf:Person\tschema:Person\n7\t3\tC\tschema:Person\n"
	l, st, err := sessions.ReadYandex(strings.NewReader(log), "example", true)
	if err != nil {
		panic(err)
	}
	fmt.Println(l.Len(), st.Clicks, l.Clicked(0, 0), l.Clicked(0, 1))
	fmt.Println(sessions.ClassifyTerm("schema:Person") == sessions.ClassTerm)
	// Output:
	// 1 1 false true
	// true
}
