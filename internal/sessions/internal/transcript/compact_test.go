package transcript

import (
	"bytes"
	"encoding/json"
	"testing"
)

var compactSeeds = []string{
	`{"a": 1, "b": [1, 2, {"c": "x y\n\"z\""}]}`,
	"{\n\t\"type\" : \"message\",\r\n \"content\": [ ]\n}",
	`{"s":"\\\\","t":"\\"  "}`,
	`[]`,
	`"plain string with   spaces"`,
}

// FuzzFastCompact checks FastCompact against encoding/json on valid JSON,
// and that it never accepts an unterminated string or unbalanced brackets.
func FuzzFastCompact(f *testing.F) {
	for _, s := range compactSeeds {
		f.Add(s)
	}
	f.Add(`{"a": "unterminated}`)
	f.Add(`{"a": [1, 2}`)
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := FastCompact(nil, []byte(s))
		var want bytes.Buffer
		if json.Compact(&want, []byte(s)) == nil {
			if !ok || !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("FastCompact(%q) = %q, %v; encoding/json gives %q", s, got, ok, want.Bytes())
			}
		}
	})
}

func TestFastCompactRejectsBrokenItems(t *testing.T) {
	for _, s := range []string{`{"a": "unterminated}`, `{"a": [1, 2}`, `{"a":1}}`, "{\"a\":\"line\nbreak\"}"} {
		if _, ok := FastCompact(nil, []byte(s)); ok {
			t.Errorf("accepted %q", s)
		}
	}
}
