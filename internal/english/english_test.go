package english

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "0 raw memories"},
		{1, "1 raw memory"},
		{2, "2 raw memories"},
		{-1, "-1 raw memories"},
	} {
		if got := Count(tc.n, "raw memory", "raw memories"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got := Noun(1, "it", "them"); got != "it" {
		t.Errorf("Noun(1) = %q, want it", got)
	}
	if got := Noun(3, "it", "them"); got != "them" {
		t.Errorf("Noun(3) = %q, want them", got)
	}
}
