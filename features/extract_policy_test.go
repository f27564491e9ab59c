package features

import "testing"

// ParseUnknownPolicy reads the three --unknown values and nothing else.
func TestParseUnknownPolicy(t *testing.T) {
	for s, want := range map[string]UnknownPolicy{"error": UnknownError, "zero": UnknownZero, "skip": UnknownSkip} {
		if got, err := ParseUnknownPolicy(s); err != nil || got != want {
			t.Errorf("ParseUnknownPolicy(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "Zero", "ignore"} {
		if _, err := ParseUnknownPolicy(s); err == nil {
			t.Errorf("ParseUnknownPolicy(%q) accepted", s)
		}
	}
}
