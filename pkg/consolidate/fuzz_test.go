package consolidate

import (
	"strings"
	"testing"
)

// FuzzLineDiff checks that every edit script rebuilds both texts and that
// the hunks only ever contain lines of the inputs.
func FuzzLineDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("", "x")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\nX\n4\n5\n6\n7\nY\n9\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		x, y := splitLines(a), splitLines(b)
		var old, now strings.Builder
		for _, op := range lineDiff(x, y) {
			switch op.kind {
			case ' ':
				if x[op.a] != y[op.b] {
					t.Fatalf("context line differs: %q vs %q", x[op.a], y[op.b])
				}
				old.WriteString(x[op.a])
				now.WriteString(y[op.b])
			case '-':
				old.WriteString(x[op.a])
			case '+':
				now.WriteString(y[op.b])
			}
		}
		if old.String() != a || now.String() != b {
			t.Fatalf("script does not rebuild the inputs")
		}
		if (a == b) != (unifiedHunks(x, y) == "") {
			t.Fatalf("hunks and equality disagree")
		}
	})
}
