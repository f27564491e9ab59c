package ltr

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// mq2008Line builds a line in the layout of LETOR 4.0's MQ2008 files:
// 46 features written with six decimals and the comment
// "#docid = GX... inc = ... prob = ...".
func mq2008Line(label int, qid string, f1 float64, comment string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d qid:%s", label, qid)
	for j := 1; j <= 46; j++ {
		v := 0.0
		if j == 1 {
			v = f1
		}
		fmt.Fprintf(&sb, " %d:%.6f", j, v)
	}
	sb.WriteString(" " + comment + "\n")
	return sb.String()
}

func TestDocIDForms(t *testing.T) {
	cases := []struct{ comment, want, err string }{
		{"docid = GX000-00-0000000 inc = 1 prob = 0.086", "GX000-00-0000000", ""},
		{"docid = GX029-35-5894638 inc = 0.0119881192468859 prob = 0.139842", "GX029-35-5894638", ""},
		{"docid=GX1", "GX1", ""},
		{"docid =40626", "40626", ""},                  // OHSUMED-style numeric id
		{"foaf person foaf:Person", "foaf:Person", ""}, // lovbench: query term
		{"person http://xmlns.com/foaf/0.1/Person", "http://xmlns.com/foaf/0.1/Person", ""},
		{"doc17", "doc17", ""},
		{"", "", ""},
		{"docid =", "", "without an id"},
		{"inc = 1 prob = 0.086", "", "key = value"},
		{"docid: 7 prob = 1e-3", "", "key = value"},
		{"a = foaf:Person", "foaf:Person", ""}, // a lovbench query ending in "=": the term is not a number
	}
	for _, c := range cases {
		d := Doc{Comment: c.comment}
		got, err := d.DocID()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: id %q error %v, want an error mentioning %q", c.comment, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: id %q error %v, want %q", c.comment, got, err, c.want)
		}
	}
}

// rank on MQ2008-style lines writes the LETOR docids, not "prob"'s value.
func TestWriteRunMQ2008Lines(t *testing.T) {
	in := mq2008Line(0, "10032", 0.056537, "#docid = GX029-35-5894638 inc = 0.0119881192468859 prob = 0.139842") +
		mq2008Line(1, "10032", 0.279152, "#docid = GX030-77-6315042 inc = 1 prob = 0.341364") +
		mq2008Line(0, "10032", 0.130742, "#docid = GX140-98-13566007 inc = 1 prob = 0.0701303") +
		mq2008Line(2, "10037", 1.000000, "#docid = GX000-00-0000000 inc = 1 prob = 0.086")
	ds, err := ReadSVMLight(strings.NewReader(in), "mq2008.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := BaselineModel(1)
	var b bytes.Buffer
	if err := WriteRun(&b, ds, m, "t"); err != nil {
		t.Fatal(err)
	}
	// The scores are the feature values read as float32, as RankLib
	// reads them (0.279152 -> 0.2791520059108734).
	want := "10032 Q0 GX030-77-6315042 1 0.2791520059108734 t\n" +
		"10032 Q0 GX140-98-13566007 2 0.13074199855327606 t\n" +
		"10032 Q0 GX029-35-5894638 3 0.056536998599767685 t\n" +
		"10037 Q0 GX000-00-0000000 1 1 t\n"
	if b.String() != want {
		t.Fatalf("run\n%s\nwant\n%s", b.String(), want)
	}

	// A comment that is neither form fails with file:line before any output.
	bad := in + mq2008Line(0, "10037", 0.5, "# inc = 1 prob = 0.086")
	ds, err = ReadSVMLight(strings.NewReader(bad), "bad.txt")
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	err = WriteRun(&b, ds, m, "t")
	var pe *ParseError
	if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "bad.txt:5: ") || !strings.Contains(err.Error(), `"#docid = ID ..."`) || b.Len() != 0 {
		t.Fatalf("error %v with %d bytes written, want bad.txt:5 naming the forms and no output", err, b.Len())
	}
	// The comment's own error stays reachable (ParseError.Unwrap).
	if inner := errors.Unwrap(pe); inner == nil || !strings.Contains(err.Error(), inner.Error()) {
		t.Errorf("ParseError unwraps to %v, want the comment's error", inner)
	}
}
