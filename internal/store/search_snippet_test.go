package store

import "testing"

// TestSnippetHighlightsOutsideBackticks: a match inside
// a `code span` brackets the whole span, never a word in its middle.
func TestSnippetHighlightsOutsideBackticks(t *testing.T) {
	for _, tt := range []struct {
		body, query, want string
	}{
		{"always run `go test -race ./...` before pushing", "race", "always run [`go test -race ./...`] before pushing"},
		{"use `pytest` with uv", "pytest", "use [`pytest`] with uv"},
		{"the flaky test in `parser_test.go`, then the flaky one", "flaky", "the [flaky] test in `parser_test.go`, then the [flaky] one"},
		{"run `make lint` and `make test` now", "make", "run [`make lint`] and [`make test`] now"},
		{"an unclosed `tick and a match", "match", "…unclosed `tick and a [match]"},
	} {
		if got := snippet(tt.body, queryTerms(tt.query), 12); got != tt.want {
			t.Errorf("snippet(%q, %q) = %q, want %q", tt.body, tt.query, got, tt.want)
		}
	}
}
