package features

import (
	"strings"
	"testing"
	"unicode"
)

// FuzzTokenize: words are non-empty, lower-case, made of letters or of
// digits only, and tokenising the joined words gives them back.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"birthDate", "HTMLParser", "XMLHttpRequest2", "aB1c_D-e", "iso3166Code", "date-of_birth 2020", "ÉtéÀParis", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ws := Tokenize(s)
		// The ASCII path gives the words of the rune-by-rune one.
		if runes := appendTokensRunes(nil, s); strings.Join(runes, "\x00") != strings.Join(ws, "\x00") || len(runes) != len(ws) {
			t.Fatalf("Tokenize(%q) = %q, rune by rune %q", s, ws, runes)
		}
		for _, w := range ws {
			if w == "" {
				t.Fatalf("empty word in %q", ws)
			}
			digits := 0
			for _, r := range w {
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					t.Fatalf("word %q has %q", w, r)
				}
				if unicode.IsDigit(r) {
					digits++
				}
			}
			if digits != 0 && digits != len([]rune(w)) {
				t.Fatalf("word %q mixes letters and digits", w)
			}
		}
		again := Tokenize(strings.Join(ws, " "))
		if strings.Join(again, " ") != strings.Join(Tokenize(strings.ToLower(strings.Join(ws, " "))), " ") {
			t.Fatalf("re-tokenising %q gives %q", ws, again)
		}
	})
}

// FuzzReadPairs: any input gives pairs or an error naming the file, never a
// panic, and every pair has a non-empty query and term.
func FuzzReadPairs(f *testing.F) {
	f.Add("query,term\nperson,foaf:Person\n")
	f.Add("\ufeffterm,query,label\nfoaf:name,\"a, b\",2\n")
	f.Add("query,term\n\"unterminated\n")
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ReadPairs(strings.NewReader(s), "f.csv")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.csv") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, p := range ps {
			if strings.TrimSpace(p.Query) == "" || p.Term == "" {
				t.Fatalf("empty field in %+v", p)
			}
		}
	})
}
