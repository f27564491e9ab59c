package export

import (
	"os"
	"strings"
	"testing"
)

// TestDocsColumnTable checks the column table of docs/dataset.md against
// Schema: the fixed columns' names, order, Arrow types and nullability, and
// their Parquet physical types.
func TestDocsColumnTable(t *testing.T) {
	b, err := os.ReadFile("../docs/dataset.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "| column | Arrow type | Parquet physical / logical | meaning |")
	if i < 0 {
		t.Fatal("docs/dataset.md: no column table")
	}
	var rows [][]string
	for _, line := range strings.Split(text[i:], "\n")[2:] {
		if !strings.HasPrefix(line, "| `") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for k := range cells {
			cells[k] = strings.TrimSpace(cells[k])
		}
		rows = append(rows, cells)
	}
	fields := Schema(nil).Fields()
	if len(rows) != len(fields)+1 { // + the feature columns' row
		t.Fatalf("docs/dataset.md lists %d columns before the features' row, Schema has %d", len(rows)-1, len(fields))
	}
	for k, f := range fields {
		typ := f.Type.String()
		if f.Nullable {
			typ += ", nullable"
		}
		phys := physicalType[f.Type.ID()]
		if rows[k][0] != "`"+f.Name+"`" || rows[k][1] != typ || !strings.HasPrefix(rows[k][2], phys) {
			t.Errorf("docs/dataset.md column %d: %q | %q | %q, Schema: %s %s %s", k+1, rows[k][0], rows[k][1], rows[k][2], f.Name, typ, phys)
		}
	}
}
