package redact

import "testing"

func TestFindNamesTheRule(t *testing.T) {
	r, err := New([]string{`ACME-[0-9]{4}`})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		rule string
		line int
	}{
		{"nothing to see\nhere", "", 0},
		{"a\nb\nuse ghp_" + "A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5A1b2C3 to push", "github_token", 3},
		{"ticket ACME-1234", "extra_patterns[0]", 1},
	}
	for _, tt := range tests {
		f, ok := r.Find(tt.text)
		if ok != (tt.rule != "") || f.Rule != tt.rule || f.Line != tt.line {
			t.Errorf("%q: %+v %v, want %s at %d", tt.text, f, ok, tt.rule, tt.line)
		}
	}
}
