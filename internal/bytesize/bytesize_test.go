package bytesize

import "testing"

func TestParse(t *testing.T) {
	for in, want := range map[string]int64{"4GiB": 4 << 30, "512mb": 512 << 20, "1.5G": 3 << 29, "100": 100, " 2 KiB ": 2048} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "GiB", "-1G", "4XB", "1.2.3M"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}
