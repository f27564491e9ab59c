// Package pii detects personal data in search queries so that a public
// benchmark never contains it (docs/method.md section 2, rule 3: "the query is on
// the PII blacklist"; the LOVBench paper, section 4.1, removes "queries
// containing personal information"). Besides a manual blacklist it detects
// e-mail addresses, phone numbers, IPv4/IPv6 addresses, URLs carrying
// credentials or tokens, payment card numbers (Luhn check), IBANs (ISO 13616
// mod-97 check) and national identifiers (French NIR with its key, US SSN).
//
// A Detector never returns or logs the matched text: callers get only the
// name of the detector that fired, so reports and errors cannot leak it.
package pii

import (
	"bufio"
	"fmt"
	"io"
	"net/netip"
	"strings"

	"github.com/lovbench/lovbench/internal/textio"
)

// Kind names a detector. Kinds are reported in this order, and a query that
// several detectors match is counted once, under the first.
type Kind int

// The detectors, in the order they are tried.
const (
	None       Kind = iota // no personal data found
	Blacklist              // exact match of the normalised query with a blacklist entry
	URLSecret              // URL with user:password@ or a token/key/password parameter
	Email                  // local@domain.tld
	IBAN                   // IBAN with a valid mod-97 checksum
	NationalID             // French NIR (key-checked) or US SSN (ddd-dd-dddd)
	Card                   // 13-19 digit payment card number with a valid Luhn digit
	IP                     // IPv4 or IPv6 address
	Phone                  // phone number in international or separated national form
	numKinds
)

var kindNames = [...]string{"none", "blacklist", "url_secret", "email", "iban", "national_id", "card", "ip", "phone"}

// String returns the report name of k ("email", "phone", ...).
func (k Kind) String() string {
	if k < 0 || k >= numKinds {
		return fmt.Sprintf("kind(%d)", int(k))
	}
	return kindNames[k]
}

// Kinds lists every detector kind except None, in detection order.
func Kinds() []Kind {
	out := make([]Kind, 0, numKinds-1)
	for k := Blacklist; k < numKinds; k++ {
		out = append(out, k)
	}
	return out
}

// Detector finds personal data in normalised queries. The zero value detects
// everything except blacklisted queries. It is safe for concurrent use once
// built.
type Detector struct {
	blacklist map[string]struct{}
}

// New returns a Detector with the given blacklist entries. Entries are
// normalised with norm (pass the same normalisation the queries get) and
// matched exactly.
func New(blacklist []string, norm func(string) string) *Detector {
	d := &Detector{blacklist: make(map[string]struct{}, len(blacklist))}
	for _, b := range blacklist {
		if norm != nil {
			b = norm(b)
		}
		if b != "" {
			d.blacklist[b] = struct{}{}
		}
	}
	return d
}

// ReadBlacklist reads a blacklist: one query per line; blank lines and lines
// starting with '#' are ignored. Errors never quote the file's content.
func ReadBlacklist(r io.Reader, name string) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(textio.NewReader(r))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(strings.TrimSuffix(sc.Text(), "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("PII blacklist %s: %w", name, err)
	}
	return out, nil
}

// BlacklistLen is the number of blacklist entries.
func (d *Detector) BlacklistLen() int {
	if d == nil {
		return 0
	}
	return len(d.blacklist)
}

// Detect returns the first detector (in Kind order) that finds personal data
// in q, or None.
func (d *Detector) Detect(q string) Kind {
	if d != nil && len(d.blacklist) > 0 {
		if _, ok := d.blacklist[q]; ok {
			return Blacklist
		}
	}
	if allDigits(q) && (len(q) < 9 || (q[0] != '0' && len(q) < 13)) {
		// A bare number (a Yandex query ID, a year) can only be a card
		// (13+ digits), a NIR (15) or a national phone number (leading 0).
		return None
	}
	if !hasDigitOrAt(q) {
		// Every detector needs a digit or an '@' (e-mail, credentials);
		// token URLs need '=' which is handled below. This fast path keeps
		// plain word queries cheap.
		if strings.IndexByte(q, '=') < 0 {
			return None
		}
	}
	switch {
	case HasURLSecret(q):
		return URLSecret
	case HasEmail(q):
		return Email
	case HasIBAN(q):
		return IBAN
	case HasNationalID(q):
		return NationalID
	case HasCard(q):
		return Card
	case HasIP(q):
		return IP
	case HasPhone(q):
		return Phone
	}
	return None
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return len(s) > 0
}

func hasDigitOrAt(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '@' || (c >= '0' && c <= '9') {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isAlnum(c byte) bool { return isDigit(c) || isAlpha(c) }
func isHex(c byte) bool   { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }

// HasEmail reports whether s contains local@domain.tld: a non-empty local
// part of letters, digits and ._%+-, a domain of labels separated by dots,
// and a final label of at least two letters.
func HasEmail(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '@' {
			continue
		}
		j := i
		for j > 0 && (isAlnum(s[j-1]) || strings.IndexByte("._%+-", s[j-1]) >= 0) {
			j--
		}
		if j == i {
			continue
		}
		k := i + 1
		for k < len(s) && (isAlnum(s[k]) || s[k] == '.' || s[k] == '-') {
			k++
		}
		dom := strings.TrimRight(s[i+1:k], ".")
		dot := strings.LastIndexByte(dom, '.')
		if dot <= 0 {
			continue
		}
		tld := dom[dot+1:]
		ok := len(tld) >= 2
		for t := 0; t < len(tld); t++ {
			ok = ok && isAlpha(tld[t])
		}
		if ok {
			return true
		}
	}
	return false
}

// secretParams are URL parameter names whose value is a secret.
var secretParams = []string{
	"token", "access_token", "id_token", "refresh_token", "auth", "auth_token",
	"api_key", "apikey", "key", "secret", "client_secret", "password", "passwd",
	"pwd", "pass", "sig", "signature", "sessionid", "session_id", "jsessionid", "sid",
}

// HasURLSecret reports whether s contains a URL with credentials
// (scheme://user:password@host) or a query/fragment parameter whose name is a
// well-known secret (token, api_key, password, sig, ...) with a non-empty
// value.
func HasURLSecret(s string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], "://")
		if i < 0 {
			break
		}
		start := off + i + 3
		end := start
		for end < len(s) && s[end] != ' ' && s[end] != '\t' {
			end++
		}
		u := s[start:end]
		host := u
		if p := strings.IndexAny(host, "/?#"); p >= 0 {
			host = host[:p]
		}
		if at := strings.LastIndexByte(host, '@'); at > 0 && strings.IndexByte(host[:at], ':') >= 0 {
			return true
		}
		if p := strings.IndexAny(u, "?#;"); p >= 0 && hasSecretParam(u[p+1:]) {
			return true
		}
		off = end
	}
	// Bare parameter strings pasted without the URL: "?access_token=...".
	if strings.IndexByte(s, '=') >= 0 {
		for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '?' || r == '#' }) {
			if strings.IndexByte(f, '=') > 0 && hasSecretParam(f) {
				return true
			}
		}
	}
	return false
}

func hasSecretParam(q string) bool {
	for _, kv := range strings.FieldsFunc(q, func(r rune) bool { return r == '&' || r == ';' || r == '?' || r == '#' }) {
		eq := strings.IndexByte(kv, '=')
		if eq <= 0 || eq == len(kv)-1 {
			continue
		}
		name := strings.ToLower(kv[:eq])
		for _, p := range secretParams {
			if name == p {
				return true
			}
		}
	}
	return false
}

// digitRuns calls fn with the digits of every maximal run of digits that may
// be separated by single spaces or dashes (as card and phone numbers are
// written), together with the run's byte range in s. fn returns true to stop.
func digitRuns(s string, buf []byte, fn func(digits []byte, from, to int) bool) bool {
	for i := 0; i < len(s); {
		if !isDigit(s[i]) || (i > 0 && isAlnum(s[i-1])) {
			i++
			continue
		}
		buf = buf[:0]
		j := i
		end := i
		for j < len(s) {
			if isDigit(s[j]) {
				buf = append(buf, s[j])
				j++
				end = j
				continue
			}
			if (s[j] == ' ' || s[j] == '-') && j+1 < len(s) && isDigit(s[j+1]) {
				j++
				continue
			}
			break
		}
		if end < len(s) && isAlpha(s[end]) {
			i = end
			continue
		}
		if fn(buf, i, end) {
			return true
		}
		i = end
	}
	return false
}

// Luhn reports whether the digit string d passes the Luhn check (ISO/IEC
// 7812-1): doubling every second digit from the right, the sum is a multiple
// of 10.
func Luhn(d []byte) bool {
	sum := 0
	for i := 0; i < len(d); i++ {
		v := int(d[len(d)-1-i] - '0')
		if i%2 == 1 {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
	}
	return len(d) > 0 && sum%10 == 0
}

// HasCard reports whether s contains a payment card number: 13 to 19 digits,
// possibly grouped by spaces or dashes, not all equal, starting with 2-6
// (the major issuer ranges), with a valid Luhn check digit.
func HasCard(s string) bool {
	var buf [64]byte
	return digitRuns(s, buf[:0], func(d []byte, _, _ int) bool {
		// Try every window so that a card number next to other digits
		// separated by spaces is still found.
		for a := 0; a < len(d); a++ {
			for n := 13; n <= 19 && a+n <= len(d); n++ {
				w := d[a : a+n]
				if w[0] >= '2' && w[0] <= '6' && !allSame(w) && Luhn(w) && (a+n == len(d) || a == 0) {
					return true
				}
			}
		}
		return false
	})
}

func allSame(d []byte) bool {
	for _, c := range d {
		if c != d[0] {
			return false
		}
	}
	return true
}

// IBANValid reports whether s (letters and digits only, any case) is a valid
// IBAN: two letters, two check digits, 11 to 30 alphanumerics, and the
// rearranged number is 1 modulo 97 (ISO 13616).
func IBANValid(s string) bool {
	if len(s) < 15 || len(s) > 34 || !isAlpha(s[0]) || !isAlpha(s[1]) || !isDigit(s[2]) || !isDigit(s[3]) {
		return false
	}
	rem := 0
	add := func(c byte) bool {
		switch {
		case isDigit(c):
			rem = (rem*10 + int(c-'0')) % 97
		case isAlpha(c):
			v := int(c|0x20-'a') + 10
			rem = (rem*100 + v) % 97
		default:
			return false
		}
		return true
	}
	for i := 4; i < len(s); i++ {
		if !add(s[i]) {
			return false
		}
	}
	for i := 0; i < 4; i++ {
		add(s[i])
	}
	return rem == 1
}

// HasIBAN reports whether s contains an IBAN, written compactly or in groups
// separated by single spaces, with a valid checksum.
func HasIBAN(s string) bool {
	for i := 0; i+15 <= len(s); i++ {
		if !isAlpha(s[i]) || !isAlpha(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) || (i > 0 && isAlnum(s[i-1])) {
			continue
		}
		var buf [40]byte
		b := buf[:0]
		for j := i; j < len(s) && len(b) < 34; j++ {
			c := s[j]
			if c == ' ' && j+1 < len(s) && isAlnum(s[j+1]) {
				continue
			}
			if !isAlnum(c) {
				break
			}
			b = append(b, c)
			// The IBAN may end before the run does (a word follows).
			if len(b) >= 15 && IBANValid(string(b)) && (j+1 == len(s) || !isAlnum(s[j+1])) {
				return true
			}
		}
	}
	return false
}

// HasNationalID reports whether s contains a French social security number
// (NIR: 13 digits starting with 1 or 2, or with the Corsican department 2a or
// 2b, then a 2-digit key equal to 97 - (number mod 97)), or a US social
// security number written ddd-dd-dddd (area not 000, 666 or 9xx; group and
// serial not zero).
func HasNationalID(s string) bool {
	// US SSN, dashed form only (plain 9-digit numbers are too ambiguous).
	for i := 0; i+11 <= len(s); i++ {
		w := s[i : i+11]
		if w[3] != '-' || w[6] != '-' || (i > 0 && isAlnum(s[i-1])) || (i+11 < len(s) && isAlnum(s[i+11])) {
			continue
		}
		ok := true
		for _, p := range []int{0, 1, 2, 4, 5, 7, 8, 9, 10} {
			ok = ok && isDigit(w[p])
		}
		if ok && w[:3] != "000" && w[:3] != "666" && w[0] != '9' && w[4:6] != "00" && w[7:] != "0000" {
			return true
		}
	}
	// French NIR: collect alphanumerics ignoring single spaces.
	for i := 0; i < len(s); i++ {
		if (s[i] != '1' && s[i] != '2') || (i > 0 && isAlnum(s[i-1])) {
			continue
		}
		var buf [16]byte
		b := buf[:0]
		j := i
		for ; j < len(s) && len(b) < 15; j++ {
			c := s[j]
			if c == ' ' && j+1 < len(s) && isAlnum(s[j+1]) && len(b) > 0 {
				continue
			}
			if !isAlnum(c) {
				break
			}
			b = append(b, c|0x20*boolByte(isAlpha(c)))
		}
		if len(b) == 15 && (j == len(s) || !isAlnum(s[j])) && nirValid(b) {
			return true
		}
	}
	return false
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// nirValid checks a 15-character NIR (lower-cased): sex digit 1 or 2,
// 12 more characters where the department (positions 6-7) may be the
// Corsican "2a" or "2b", counted as 19 and 18 for the key (INSEE rule), then
// the key = 97 - (13-digit number mod 97).
func nirValid(b []byte) bool {
	if b[0] != '1' && b[0] != '2' {
		return false
	}
	var d [13]byte
	copy(d[:], b[:13])
	if d[5] == '2' && (d[6] == 'a' || d[6] == 'b') {
		d[5] = '1'
		d[6] = '9'
		if b[6] == 'b' {
			d[6] = '8'
		}
	}
	num := 0
	for _, c := range d {
		if !isDigit(c) {
			return false
		}
		num = (num*10 + int(c-'0')) % 97
	}
	if !isDigit(b[13]) || !isDigit(b[14]) {
		return false
	}
	key := int(b[13]-'0')*10 + int(b[14]-'0')
	return key == 97-num
}

// HasIP reports whether s contains an IPv4 address (four decimal octets
// 0-255, not part of a longer dotted number) or an IPv6 address (a token of
// hex digits, colons and optionally a trailing dotted quad, with at least two
// colons, accepted by net/netip).
func HasIP(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) || (i > 0 && (isAlnum(s[i-1]) || s[i-1] == '.')) {
			continue
		}
		j := i
		for j < len(s) && (isDigit(s[j]) || s[j] == '.') {
			j++
		}
		tok := strings.TrimRight(s[i:j], ".")
		if strings.Count(tok, ".") == 3 && (j == len(s) || !isAlpha(s[j])) {
			if a, err := netip.ParseAddr(tok); err == nil && a.Is4() {
				return true
			}
		}
		i = j
	}
	for _, tok := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r < 128 && (isHex(byte(r)) || r == ':' || r == '.' || r == '%'))
	}) {
		if strings.Count(tok, ":") < 2 {
			continue
		}
		hexDigits := 0
		for k := 0; k < len(tok); k++ {
			if isHex(tok[k]) {
				hexDigits++
			}
		}
		if hexDigits == 0 {
			continue
		}
		if a, err := netip.ParseAddr(tok); err == nil && a.Is6() {
			return true
		}
	}
	return false
}

// HasPhone reports whether s contains a phone number: a digit run (digits
// possibly separated by single spaces, dashes, dots or parentheses) written either internationally (leading "+" or "00", 8 to 15
// digits), or nationally with a leading 0 (9 to 11 digits), or with at least
// two separators (9 to 12 digits, so that dashed dates and ISBN-13s are
// not phones). A bare run of digits without a leading 0 (an ID, a year, a
// count) is not taken for a phone number.
func HasPhone(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isDigit(c) || c == '+' || c == '(') || (i > 0 && (isAlnum(s[i-1]) || s[i-1] == '+')) {
			continue
		}
		plus := c == '+'
		j := i
		if plus {
			j++
		}
		digits, seps := 0, 0
		first := byte(0)
		second := byte(0)
		lastDigit := j
		for j < len(s) {
			d := s[j]
			if isDigit(d) {
				if digits == 0 {
					first = d
				} else if digits == 1 {
					second = d
				}
				digits++
				j++
				lastDigit = j
				continue
			}
			if (d == ' ' || d == '-' || d == '.' || d == '(' || d == ')') && j+1 < len(s) && (isDigit(s[j+1]) || s[j+1] == '(' || (d == ')' && s[j+1] == ' ')) {
				seps++
				j++
				continue
			}
			break
		}
		if lastDigit < len(s) && isAlpha(s[lastDigit]) {
			i = lastDigit
			continue
		}
		intl := plus || (first == '0' && second == '0')
		switch {
		case intl && digits >= 8 && digits <= 15:
			return true
		case first == '0' && digits >= 9 && digits <= 11:
			return true
		case seps >= 2 && digits >= 9 && digits <= 12:
			return true
		}
		if j > i {
			i = j - 1
		}
	}
	return false
}
