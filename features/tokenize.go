package features

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokenize splits text into the lower-case words that every feature of this
// package compares: queries, literals and local names all go through it, so
// a query word "matches" a term exactly when Tokenize gives the same word on
// both sides (LOVBench Section 5.1.3, "a word q_i matches the domain of a
// property"). The rules:
//
//  1. Every rune that is not a letter or a digit separates words
//     ("date-of_birth 2020" -> date, of, birth, 2020).
//  2. Inside a run of letters and digits a new word starts at a lower-case
//     to upper-case change ("birthDate" -> birth, date), before the last
//     upper-case letter of an upper-case run followed by a lower-case one
//     ("HTMLParser" -> html, parser), and where letters change to digits or
//     back ("iso3166" -> iso, 3166).
//  3. Words are lower-cased with Unicode case folding (unicode.ToLower).
//
// There is no stemming and no stop-word list: LOV's index analysers are not
// published, and the paper's features count literal word matches.
func Tokenize(s string) []string {
	return appendTokens(nil, s)
}

// appendTokens appends the tokens of s to dst (see Tokenize).
func appendTokens(dst []string, s string) []string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return appendTokensRunes(dst, s)
		}
	}
	return appendTokensASCII(dst, s)
}

// appendTokensASCII is appendTokens for a string of ASCII bytes only, where
// unicode's letter, digit and case classes are the ASCII ranges: the same
// words, cut from s without converting it to runes (a word already in
// lower case shares s's memory).
func appendTokensASCII(dst []string, s string) []string {
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			dst = append(dst, strings.ToLower(s[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(s); i++ {
		r := s[i]
		if !asciiLetter(r) && !asciiDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := s[i-1]
		switch {
		case asciiDigit(r) != asciiDigit(prev):
			flush(i)
			start = i
		case asciiUpper(r) && asciiLower(prev):
			flush(i)
			start = i
		case asciiLower(r) && asciiUpper(prev) && i-1 > start && asciiUpper(s[i-2]):
			// "HTMLParser": the P starts the new word.
			flush(i - 1)
			start = i - 1
		}
	}
	flush(len(s))
	return dst
}

func asciiUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }
func asciiLower(c byte) bool  { return 'a' <= c && c <= 'z' }
func asciiLetter(c byte) bool { return asciiUpper(c) || asciiLower(c) }
func asciiDigit(c byte) bool  { return '0' <= c && c <= '9' }

// appendTokensRunes is appendTokens for any string.
func appendTokensRunes(dst []string, s string) []string {
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			dst = append(dst, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsDigit(r) != unicode.IsDigit(prev):
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && i-1 > start && unicode.IsUpper(rs[i-2]):
			// "HTMLParser": the P starts the new word.
			flush(i - 1)
			start = i - 1
		}
	}
	flush(len(rs))
	return dst
}

// LocalName returns the local name of an IRI: the part after the last '#' or
// '/'; when the IRI ends with one of those, the segment before it.
func LocalName(iri string) string {
	s := strings.TrimRight(iri, "#/")
	if i := strings.LastIndexAny(s, "#/"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// namespaceOf splits an IRI after its last '#' or '/': the namespace keeps the
// separator ("http://xmlns.com/foaf/0.1/Person" -> "http://xmlns.com/foaf/0.1/").
func namespaceOf(iri string) string {
	if i := strings.LastIndexAny(iri, "#/"); i >= 0 {
		return iri[:i+1]
	}
	return ""
}
