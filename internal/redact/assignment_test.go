package redact

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/redact/redacttest"
)

// TestAssignmentAheadHoldsForEveryMatch: wherever the anchored expression of
// an assignment rule matches at one of its anchors, assignmentAhead says it
// may, on the leak corpus, the look-alikes, the real sessions of testdata and
// random keys, separators and values (with the runes (?i) folds to ASCII
// letters and Unicode spaces), so the prefilter never hides a secret.
func TestAssignmentAheadHoldsForEveryMatch(t *testing.T) {
	var texts []string
	for _, c := range redacttest.Cases() {
		texts = append(texts, c.Text)
	}
	texts = append(texts, redacttest.LookAlikes()...)
	for _, f := range []string{"claude-session.jsonl", "codex-rollout.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	keys := []string{"api", "api_key", "API-Key", "apiKey", "api\u212aey", "token", "Tokens", "secret", "ſecret", "passw", "password", "passwd",
		"passphrase", "_pwd", "app_key", "access-key", "privatekey", "credential", "credentialſ", "auth_token", "GITHUB_TOKEN", "db_password", "secret_name"}
	seps := []string{"", " ", "\t", "\u00a0", "\u2003", "\n", "\\", "\\\\", "\"", "'", "\\\"", ":", "=", ": ", " = ", "_key", "-key", "s", "2", ".", "…"}
	values := []string{"hunter2hunter2", "\"abcdefgh12345678\"", "'q9w8e7r6t5y4'", "$VAR", "x", "\\nabcdefghijk"}
	for range 20000 {
		var b strings.Builder
		b.WriteString(keys[rng.IntN(len(keys))])
		for range rng.IntN(4) {
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		b.WriteString(values[rng.IntN(len(values))])
		texts = append(texts, b.String())
	}
	tried := 0
	for _, ru := range builtinRules() {
		if !ru.assignment {
			continue
		}
		for _, text := range texts {
			u := []byte(text)
			low := bytes.ToLower(u)
			for _, a := range ru.anchors {
				a := []byte(strings.ToLower(a))
				for i := 0; ; {
					j := bytes.Index(low[i:], a)
					if j < 0 {
						break
					}
					p := i + j
					i = p + 1
					if len(low) != len(u) {
						p = bytes.Index(bytes.ToLower(u[p:]), a) + p // a line whose lowercase moved the bytes
					}
					tried++
					if ru.are().Match(u[p:]) && !assignmentAhead(u, p) {
						t.Fatalf("%s: the expression matches at %d of %q, but assignmentAhead says it cannot", ru.name, p, text)
					}
				}
			}
		}
	}
	if tried < 10000 {
		t.Fatalf("only %d anchor positions tried", tried)
	}
}

// TestAssignmentAheadSkipsWordsThatAssignNothing: the words of ordinary text
// that hold an anchor, memctl's own cut marker among them, are not tried.
func TestAssignmentAheadSkipsWordsThatAssignNothing(t *testing.T) {
	for _, s := range []string{"tokens truncated…ings: x", "token budget: 500", "the secret of it", "api docs", "password manager = good"} {
		if assignmentAhead([]byte(s), 0) {
			t.Errorf("%q: taken for an assignment", s)
		}
	}
	for _, s := range []string{"token: abc", "TOKEN=abc", `api_key": "x`, "password\u00a0= x", "secret\\\":"} {
		if !assignmentAhead([]byte(s), 0) {
			t.Errorf("%q: not taken for an assignment", s)
		}
	}
}

// TestOpenAssignmentEndings: every line assignKeyRe finds Codex's keyword at
// the end of ends in one of the pairs openAssignment looks at first.
func TestOpenAssignmentEndings(t *testing.T) {
	ends := 0
	for _, k := range []string{"api_key", "API-KEY", "apikey", "api\u212aey", "token", "TOKEN", "to\u212aen", "secret", "ſecret", "password", "PASSWORD", "paſſword"} {
		for _, tail := range []string{"", ":", " =", "\t: "} {
			u := []byte("export " + k + tail)
			n := trimSpaceRight(u, len(u))
			if n > 0 && (u[n-1] == ':' || u[n-1] == '=') {
				n = trimSpaceRight(u, n-1)
			}
			if assignKeyRe().Match(u[:n]) {
				ends++
				if !openAssignment(u, true) {
					t.Errorf("%q ends in the keyword, but openAssignment says it does not", u)
				}
			}
		}
	}
	if ends < 40 {
		t.Fatalf("only %d lines end in the keyword", ends)
	}
}
