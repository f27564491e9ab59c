package pii

import (
	"strings"
	"testing"
)

func TestLuhn(t *testing.T) {
	// 4111111111111111 (Visa test number): from the right, the doubled
	// digits are seven 1s and the leading 4: 7*2 + 8 = 22; the undoubled
	// digits are eight 1s: 8. Sum 30, a multiple of 10.
	// 4111111111111112: the last digit adds 1 more: 31, invalid.
	for s, want := range map[string]bool{
		"4111111111111111": true, "5555555555554444": true, "378282246310005": true,
		"4111111111111112": false, "79927398713": true, "79927398710": false,
	} {
		if got := Luhn([]byte(s)); got != want {
			t.Errorf("Luhn(%s) = %v, want %v", s, got, want)
		}
	}
}

func TestIBANValid(t *testing.T) {
	// GB82WEST12345698765432 is the ISO 13616 / Wikipedia example: moving
	// GB82 to the end and letters to numbers (G=16, B=11, W=32, ...) gives a
	// number that is 1 mod 97. Changing the last digit breaks it (28 mod 97).
	for s, want := range map[string]bool{
		"GB82WEST12345698765432": true, "de89370400440532013000": true,
		"GB82WEST12345698765433": false, "GB82": false, "1234WEST12345698765432": false,
	} {
		if got := IBANValid(s); got != want {
			t.Errorf("IBANValid(%s) = %v, want %v", s, got, want)
		}
	}
}

func TestDetect(t *testing.T) {
	norm := func(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
	d := New([]string{"  John SMITH ", "#not a comment here"}, norm)
	cases := []struct {
		q    string
		want Kind
	}{
		// Plain vocabulary queries and look-alikes: no personal data.
		{"person", None},
		{"foaf:person", None},
		{"dc:date 2019-01-13", None}, // dashed date: 8 digits, not a phone
		{"iso 8601", None},           // short number
		{"12345678", None},           // bare number without leading 0 (an ID)
		{"http://xmlns.com/foaf/0.1/person", None},
		{"@prefix foaf", None}, // '@' without a domain
		{"schema.org/person", None},
		{"978-3-16-148410-0", None},           // ISBN-13 starts with 9: not a card range
		{"4111111111111112", None},            // fails Luhn
		{"gb82 west 1234 5698 7654 33", None}, // fails mod-97
		{"version 1.2.3", None},
		{"999.1.1.1", None}, // octet > 255
		// Personal data, one per detector.
		{"john smith", Blacklist},
		{"mail me at john.doe@example.org please", Email},
		{"https://alice:s3cret@example.org/data", URLSecret},
		{"http://example.org/sparql?query=x&access_token=abc123", URLSecret},
		{"api_key=abcdef", URLSecret},
		{"gb82 west 1234 5698 7654 32", IBAN},
		{"DE89370400440532013000", IBAN},
		{"card 4111 1111 1111 1111", Card},
		{"5555-5555-5555-4444", Card},
		{"2 55 08 14 168 025 38", NationalID}, // NIR 2550814168025, key 97 - (n mod 97) = 38
		{"ssn 123-45-6789", NationalID},
		{"server 192.168.0.1", IP},
		{"2001:db8::1", IP},
		{"::ffff:10.0.0.1", IP},
		{"+33 1 23 45 67 89", Phone},
		{"06 12 34 56 78", Phone},
		{"(555) 123-4567", Phone},
		{"0033123456789", Phone},
	}
	for _, c := range cases {
		if got := d.Detect(norm(c.q)); got != c.want {
			t.Errorf("Detect(%q) = %v, want %v", c.q, got, c.want)
		}
	}
	var zero *Detector
	if zero.Detect("a@b.org") != Email {
		t.Error("nil Detector must still detect")
	}
}

func TestReadBlacklist(t *testing.T) {
	got, err := ReadBlacklist(strings.NewReader("# comment\r\n\r\nJohn Smith\r\n  jane  \n"), "bl")
	if err != nil || len(got) != 2 || got[0] != "John Smith" || got[1] != "jane" {
		t.Fatalf("ReadBlacklist = %q, %v", got, err)
	}
}

func TestKindNames(t *testing.T) {
	want := "blacklist url_secret email iban national_id card ip phone"
	var names []string
	for _, k := range Kinds() {
		names = append(names, k.String())
	}
	if got := strings.Join(names, " "); got != want {
		t.Errorf("kinds = %s, want %s", got, want)
	}
}

// FuzzDetect checks on arbitrary text that Detect never panics, only ever
// reports a fixed detector name (so it cannot echo the text), and always
// finds a valid card number and an e-mail address embedded in the text.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{"person", "a@b.org", "+33 6 12 34 56 78", "2001:db8::1", "gb82west12345698765432", "\xff\xfe", "1.2.3.4", "http://u:p@h/"} {
		f.Add(s)
	}
	names := map[string]bool{"none": true}
	for _, k := range Kinds() {
		names[k.String()] = true
	}
	d := New([]string{"secret query"}, nil)
	f.Fuzz(func(t *testing.T, s string) {
		k := d.Detect(s)
		if !names[k.String()] {
			t.Fatalf("unknown kind %q", k.String())
		}
		if d.Detect(s) != k {
			t.Fatal("Detect is not deterministic")
		}
		if got := d.Detect(s + " x 4111111111111111 x " + s); got == None {
			t.Fatalf("card number embedded in %q not detected", s)
		}
		if got := d.Detect(s + " jo@example.org " + s); got == None {
			t.Fatalf("e-mail embedded in %q not detected", s)
		}
	})
}

// A BOM before the first blacklist entry is not part of it.
func TestReadBlacklistBOM(t *testing.T) {
	got, err := ReadBlacklist(strings.NewReader("\xef\xbb\xbfjohn doe\n"), "b")
	if err != nil || len(got) != 1 || got[0] != "john doe" {
		t.Fatalf("ReadBlacklist = %q, %v", got, err)
	}
}
