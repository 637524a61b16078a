package redact

import (
	"strings"
	"testing"
)

// Tool-call arguments are JSON held in a JSON string, so their quotes and
// angle brackets arrive escaped twice in a serialised transcript.
func TestDoublyEscapedJSON(t *testing.T) {
	secret := "9f8e7d6c5b4a3f2e" + "1d0c"
	for _, in := range []string{
		`"arguments":"{\"command\":\"curl -d \\\"client_secret\\\": \\\"` + secret + `\\\"\"}"`,
		`"arguments":"{\"cmd\":\"echo \\u003cprivate\\u003e` + secret + `\\u003c/private\\u003e\"}"`,
		`aws_secret_access_key\\\":\\\"` + strings.Repeat("A1b2C3d4E5", 4) + `\\\"`,
	} {
		out := Default().String(in)
		if strings.Contains(out, secret) || strings.Contains(out, "A1b2C3d4E5") {
			t.Errorf("secret survived:\n in  %s\n out %s", in, out)
		}
	}
}
