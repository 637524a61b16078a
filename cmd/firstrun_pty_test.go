package cmd

import (
	"os"
	"path/filepath"
	"testing"
)

// On a first run with a model provider, at a terminal, memctl
// shows the estimated input tokens and asks before it spends them: a yes
// takes every past session, a no keeps Codex's limits and says how to take
// the rest. Both through a real pseudo-terminal.
func TestFirstRunAsksAtTerminal(t *testing.T) {
	for _, tt := range []struct {
		answer string
		want   []string
	}{
		{"y", []string{"memctl: first run: 3 past sessions, about ", " input tokens for command. Extract them all now? [y/N] ",
			"extracted 3 threads: 3 with a memory"}},
		{"n", []string{"Extract them all now? [y/N] ", "memctl: first run: taking 2 of 3 past sessions",
			"memctl: hint: `memctl run --all --max 3` extracts them all", "extracted 2 threads: 2 with a memory"}},
	} {
		t.Run(tt.answer, func(t *testing.T) {
			w := &walk{t: t, home: t.TempDir()}
			copyTree(t, filepath.Join("..", "examples", "sessions", "codex", "sessions"), filepath.Join(w.home, ".codex", "sessions"))
			copyTree(t, filepath.Join("..", "examples", "sessions", "claude", "projects"), filepath.Join(w.home, ".claude", "projects"))
			model := filepath.Join(w.home, "model.sh")
			writeFile(t, model, "#!/bin/sh\ncat >/dev/null\nprintf '%s' '"+
				`{"raw_memory":"---\ndescription: a session\n---\n### Task 1\ntask: a task","rollout_summary":"# A session","rollout_slug":"a-session"}`+"'\n")
			if err := os.Chmod(model, 0o700); err != nil {
				t.Fatal(err)
			}
			w.extra = []string{"MEMCTL_PROVIDER_KIND=command", "MEMCTL_PROVIDER_COMMAND=" + model, "MEMCTL_CONSOLIDATION_MODE=heuristic"}
			screen, err := inPTY(t, w.command(w.env(), "run"), []string{"[y/N] "}, []string{tt.answer})
			if err != nil {
				t.Errorf("memctl run: %v\n%s", err, screen)
			}
			inOrder(t, screen, tt.want...)
		})
	}
}
