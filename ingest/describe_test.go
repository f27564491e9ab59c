package ingest

import "testing"

// Every drop rule and quarantine reason the report can hold has words, so
// no raw ID such as rule1_session_without_click reaches a reader.
func TestEveryReasonDescribed(t *testing.T) {
	for _, k := range dropRules() {
		if d := DescribeDrop(k); d == k || d == "" {
			t.Errorf("drop rule %s has no description", k)
		}
	}
	for _, k := range quarantineReasons {
		if d := DescribeQuarantine(k); d == k || d == "" {
			t.Errorf("quarantine reason %s has no description", k)
		}
	}
	for _, k := range ControlKinds() {
		if d := DescribeControl(k); d == k || d == "" {
			t.Errorf("control kind %s has no description", k)
		}
	}
	for k, want := range map[string]string{
		DropSessionNoClick:     "rule 1: events of sessions left without a click",
		"rule3_pii_email":      "rule 3: query holding personal data (email)",
		"rule3_pii_url_secret": "rule 3: query holding personal data (url secret)",
		"other":                "other",
	} {
		if got := DescribeDrop(k); got != want {
			t.Errorf("DescribeDrop(%s) = %q, want %q", k, got, want)
		}
	}
}
