package heuristic_test

import (
	"regexp"
	"testing"

	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/sessions/scripted"
)

// TestShellWritesAreChanges: a file the shell writes (a heredoc redirected after its marker, several in one call, a
// printf or echo redirected, tee) is a file changed, counted and listed, in both agents' formats; a check's log (in
// the temporary folder or the project), a > in quotes or in a heredoc's text, and errors sent to a file change nothing.
func TestShellWritesAreChanges(t *testing.T) {
	tc := patternCase{name: "shell writes", turns: []scripted.Turn{{User: "Add the deploy config and its notes.",
		Steps: []scripted.Step{
			run("mkdir -p deploy && cat <<'EOF' > deploy/app.yml\nreplicas: 2\nwhen: a > b\nEOF\n"+
				"cat > deploy/env.sh <<EOF\nexport MODE=prod\nEOF", "", 0),
			run(`printf 'port: %s\n' 8080 > deploy/port.yml && echo "tuned > default" >> NOTES.md`, "", 0),
			run("git log --oneline -3 | tee -a CHANGES.txt", "abc123 init", 0),
			run("go test ./... > /tmp/deploy-test.log 2>&1; grep '>' deploy/app.yml 2> errors.txt", "", 0),
			run("go test ./deploy/... > deploy-test.txt 2>&1", "", 0)},
		Final: "The deploy config and its notes are written."}}}
	for _, kind := range []sessions.Kind{sessions.KindClaudeCode, sessions.KindCodex} {
		t.Run(string(kind), func(t *testing.T) {
			text := memoryOf(t, kind, writePattern(t, tc, kind))
			for _, p := range []string{`changed 5 files`, `deploy/app\.yml \(add\)`, `deploy/env\.sh \(add\)`,
				`deploy/port\.yml \(add\)`, `NOTES\.md \(update\)`, `CHANGES\.txt \(update\)`} {
				if !regexp.MustCompile(p).MatchString(text) {
					t.Errorf("the memory lacks %s", p)
				}
			}
			notWritten := `(deploy-test\.(log|txt)|errors\.txt|default|\bb) \((add|update)\)|before the last change`
			if m := regexp.MustCompile(notWritten).FindString(text); m != "" {
				t.Errorf("the memory names %q, which the shell did not write into the project or no change", m)
			}
			if t.Failed() {
				t.Logf("memory:\n%s", indent(text))
			}
		})
	}
}
