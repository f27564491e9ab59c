package ingest

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lovbench/lovbench/ingest/pii"
	"github.com/lovbench/lovbench/sessions"
)

// memRun is an in-memory ingest for fuzzing: it returns the report, the kept
// SERPs and the quarantine file content.
type memRun struct {
	rep   *Report
	serps []sessions.SERP
	quar  bytes.Buffer
}

func newMemCleaner(m *memRun, full int, colon bool) *cleaner {
	m.rep = newReport()
	c := &cleaner{rep: m.rep, det: pii.New([]string{"blacklisted words"}, NormalizeQuery), full: full, needColon: colon}
	c.q = &quarantine{w: &m.quar, rep: m.rep, names: map[string][]byte{}}
	c.emit = func(s []sessions.SERP) error {
		for _, x := range s {
			x.Results = append([]string(nil), x.Results...)
			x.Clicks = append([]sessions.Click(nil), x.Clicks...)
			m.serps = append(m.serps, x)
		}
		return nil
	}
	return c
}

// checkOutputs asserts the properties every ingest must have.
func checkOutputs(t *testing.T, m *memRun, secrets []string, nonNegative bool) {
	t.Helper()
	if err := m.rep.Check(); err != nil {
		t.Fatal(err)
	}
	if len(m.serps) != m.rep.KeptQueries {
		t.Fatalf("%d SERPs emitted, report says %d", len(m.serps), m.rep.KeptQueries)
	}
	var y []byte
	clicks := 0
	for i := range m.serps {
		s := &m.serps[i]
		if len(s.Results) == 0 {
			t.Fatal("kept SERP without results")
		}
		if nonNegative && s.TimePassed < 0 {
			t.Fatalf("negative TimePassed %d", s.TimePassed)
		}
		for _, c := range s.Clicks {
			if c.Rank < 0 || c.Rank >= len(s.Results) {
				t.Fatalf("click rank %d outside SERP", c.Rank)
			}
		}
		clicks += len(s.Clicks)
		y = sessions.AppendYandexBytes(y, s)
	}
	if clicks != m.rep.KeptClicks {
		t.Fatalf("%d clicks emitted, report says %d", clicks, m.rep.KeptClicks)
	}
	// The Yandex output reads back strictly with the same SERPs.
	l, st, err := sessions.ReadYandex(bytes.NewReader(y), "out", true)
	if err != nil {
		t.Fatalf("output not readable: %v\n%q", err, y)
	}
	if l.Len() != len(m.serps) || st.IgnoredClickDoc+st.IgnoredClickSess != 0 {
		t.Fatalf("read back %d SERPs (of %d), %d ignored clicks", l.Len(), len(m.serps), st.IgnoredClickDoc+st.IgnoredClickSess)
	}
	all := string(y) + m.quar.String()
	for _, s := range secrets {
		if strings.Contains(strings.ToLower(all), s) {
			t.Fatalf("removed personal data %q in the output", s)
		}
	}
}

// FuzzLOV feeds arbitrary query and click files (after a fixed prefix with
// personal data) to the LOV cleaner: it must not panic, the report must add
// up, the outputs must be valid, and the personal data must never appear.
func FuzzLOV(f *testing.F) {
	f.Add([]byte(okQuery+"\n"), []byte(okClick+"\n"))
	f.Add([]byte("{\"date\":\"2019-01-13 10:00:00\",\"sessionId\":\"S\",\"searchWords\":\"&quot;X\",\"results\":[\"a:b\"],\"page\":\"1\"}\r\n\n}"), []byte("{}\r{\"date\":1}"))
	f.Add([]byte(okQuery+"\n"+okQuery+"\n"), []byte("\xff\n"+okClick))
	prefixQ := `{"date":"2019-01-13 09:00:00","sessionId":"S","searchWords":"mail Leak.Me@Example.org","results":"` + tenTerms + `"}` + "\n" +
		`{"date":"2019-01-13 09:00:01","sessionId":"S","searchWords":"Blacklisted  Words","results":"` + tenTerms + `"}` + "\n"
	f.Fuzz(func(t *testing.T, q, c []byte) {
		var m memRun
		cl := newMemCleaner(&m, sessions.FullSERPTerm, true)
		qs := &lovSource{c: cl, lr: newLineReader(bytes.NewReader(append([]byte(prefixQ), q...)), 4096), file: "q", tick: func(int) {}}
		cs := &lovSource{c: cl, lr: newLineReader(bytes.NewReader(c), 4096), file: "c", clicks: true, tick: func(int) {}}
		if err := cl.ingestLOV(context.Background(), qs, cs, time.Hour); err != nil {
			t.Fatal(err)
		}
		checkOutputs(t, &m, []string{"leak.me@example.org", "blacklisted words"}, true)
	})
}

// FuzzYandex does the same for the Yandex parser and cleaner.
func FuzzYandex(f *testing.F) {
	f.Add([]byte(yandexIn))
	f.Add([]byte("1\t0\tQ\tq\t0\ta\tb\n1\t1\tC\tb\n1\t1\tC\tb\r\n2\t-5\tQ\t\t\t\n"))
	f.Add([]byte("1\t99999999999999999999\tQ\tq\t0\ta\n\t\t\t\n"))
	prefix := "0\t0\tQ\tcall +33 6 12 34 56 78\t0\tu1\n0\t1\tC\tu1\n"
	f.Fuzz(func(t *testing.T, in []byte) {
		var m memRun
		cl := newMemCleaner(&m, 0, false)
		lr := newLineReader(bytes.NewReader(append([]byte(prefix), in...)), 4096)
		if err := cl.ingestYandex(context.Background(), lr, "log", func(int) {}); err != nil {
			t.Fatal(err)
		}
		checkOutputs(t, &m, []string{"+33 6 12 34 56 78"}, false)
	})
}
