package consolidate

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzUnifiedHunks checks that the hunks are a correct patch: applied to
// the old text they give the new one, and they are empty exactly when the
// texts are equal.
func FuzzUnifiedHunks(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("", "x")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\nX\n4\n5\n6\n7\nY\n9\n")
	f.Add("p\nq\np\nq\n", "q\np\nq\np\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		h := unifiedHunks(a, b)
		if (a == b) != (h == "") {
			t.Fatalf("hunks and equality disagree")
		}
		got, err := applyHunks(a, h)
		if err != nil {
			t.Fatalf("%v\nhunks:\n%s", err, h)
		}
		if got != b {
			t.Fatalf("patched text differs:\n got %q\nwant %q\nhunks:\n%s", got, b, h)
		}
	})
}

// applyHunks applies unified-diff hunks (with git's ranges) to old.
func applyHunks(old, hunks string) (string, error) {
	oldLines := strings.SplitAfter(old, "\n")
	if oldLines[len(oldLines)-1] == "" {
		oldLines = oldLines[:len(oldLines)-1]
	}
	var out []string
	next := 0 // first old line not yet copied
	var prev *string
	for line := range strings.Lines(hunks) {
		switch {
		case strings.HasPrefix(line, "@@ "):
			f := strings.Fields(line)
			start, _, _ := strings.Cut(strings.TrimPrefix(f[1], "-"), ",")
			n, err := strconv.Atoi(start)
			if err != nil {
				return "", err
			}
			if n > 0 && !strings.Contains(f[1], ",0") {
				n-- // 1-based, except the line before an empty range
			}
			out = append(out, oldLines[next:n]...)
			next = n
		case line == "\\ No newline at end of file\n":
			if prev == nil {
				return "", errTest("marker without a line")
			}
			*prev = strings.TrimSuffix(*prev, "\n")
		case strings.HasPrefix(line, " "), strings.HasPrefix(line, "-"):
			if next >= len(oldLines) || strings.TrimSuffix(oldLines[next], "\n") != strings.TrimSuffix(line[1:], "\n") {
				return "", errTest("hunk does not match the old text at line " + strconv.Itoa(next+1))
			}
			if line[0] == ' ' {
				out = append(out, oldLines[next])
				prev = &out[len(out)-1]
			} else {
				prev = new(string)
			}
			next++
		case strings.HasPrefix(line, "+"):
			out = append(out, line[1:])
			prev = &out[len(out)-1]
		default:
			return "", errTest("unexpected line " + strconv.Quote(line))
		}
	}
	out = append(out, oldLines[next:]...)
	return strings.Join(out, ""), nil
}

type errTest string

func (e errTest) Error() string { return string(e) }
