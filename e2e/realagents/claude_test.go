package realagents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/textcut"
)

// TestClaudeCode drives the real Claude Code CLI, on a home prepared by
// `memctl setup claude-code` alone, through scripted coding sessions in
// print mode (`claude -p`) and interactively in a pseudo-terminal.
func TestClaudeCode(t *testing.T) {
	w := newWorld(t)
	w.seedClaudeFirstRun()
	settingsPath, statePath := filepath.Join(w.claudeDir, "settings.json"), filepath.Join(w.claudeDir, ".claude.json")
	beforeSetup := snapshot(settingsPath, statePath)
	w.memctl("setup", "claude-code", "--memctl", memctlBin)
	mustContain(t, "settings.json's SessionStart hook", readFileString(settingsPath), filepath.Join(filepath.Dir(memctlBin), "memctl-summary")+" ")
	// Tools for the project's own work are the user's choice, given per
	// run; the memory folder's Read rule and the MCP tools come from setup.
	projectTools := []string{"--allowedTools", "Bash,Edit,Agent"}
	claudeP := func(prompt string) string {
		t.Helper()
		out, errOut, err := w.run(3*time.Minute, w.proj, claudeBin, append([]string{"-p", prompt}, projectTools...)...)
		if err != nil {
			t.Fatalf("claude -p %q: %v\n%s%s", prompt, err, out, errOut)
		}
		return out
	}

	// Sessions worth remembering: a failing test fixed (with an abandoned
	// attempt and a sub-agent) in print mode, a preference interactively.
	fix := "[fix] The test in test.sh fails; fix calc.sh."
	out := claudeP(fix)
	mustContain(t, "claude -p output", out, "it passes now")
	if b, _ := os.ReadFile(filepath.Join(w.proj, "calc.sh")); !strings.Contains(string(b), "expr $1 + $2") {
		t.Fatalf("the scripted edit did not happen: calc.sh = %q", b)
	}
	pref := "[pref] From now on, shell scripts use set -eu and two-space indentation."
	u := w.startTUI(claudeBin)
	u.settle(1500*time.Millisecond, 30*time.Second)
	u.typeLine(pref)
	if !waitFinal(&w.anth.recorder, pref, 1, 2*time.Minute) { // the first turn of a cold CLI, as for Codex
		t.Fatalf("the interactive turn got no answer; screen:\n%s", textcut.Head(u.screen(), 4000))
	}
	u.settle(time.Second, 10*time.Second)
	u.quit("/exit")

	// memctl indexes what Claude Code wrote.
	w.memctl("scan")
	threads := w.threads()
	fixT := findThread(t, threads, "claude-code", fix)
	w.checkThread(fixT, "print", true) // claude -p: entrypoint sdk-cli, extracted
	prefT := findThread(t, threads, "claude-code", pref)
	w.checkThread(prefT, "cli", true)
	sub := false
	for _, p := range fixT.Related {
		if strings.Contains(p, "/subagents/agent-") {
			sub = true
		}
	}
	if !sub {
		t.Errorf("the sub-agent transcript is not attached to its session: related %v", fixT.Related)
	}
	for _, th := range threads {
		if th.Subagent || strings.Contains(th.Path, "/subagents/") {
			t.Errorf("a sub-agent file became a thread of its own: %+v", th)
		}
	}

	// Extraction keeps what happened, consolidation builds the summary.
	rep := w.extractAndConsolidate()
	if rep["claimed"].(float64) < 2 {
		t.Fatalf("extract claimed %v threads, want both sessions: %v", rep["claimed"], rep)
	}
	show := w.memctl("threads", "show", fixT.ID, "--json")
	mustContain(t, "the fix session's raw memory", show, "calc.sh", "sh test.sh", "make test-fast")
	mustContain(t, "the preference's raw memory", w.memctl("threads", "show", prefT.ID, "--json"), "set -eu")
	memory, _ := os.ReadFile(filepath.Join(w.memctlHome, "memories", "MEMORY.md"))
	mustContain(t, "MEMORY.md", string(memory), fixT.ID)

	// Citation turns, print mode: every run is a new session whose
	// SessionStart hook injects the summary; the Stop hook counts.
	w.anth.Reset()
	printMode := turnCount{mode: "print (claude -p)"}
	for i := 0; i < citeTurns; i++ {
		p := citePrompt("print", i)
		before := w.usage()
		out := claudeP(p)
		if i == 0 {
			mustContain(t, "the cited reply", out, "<rollout_ids>")
		}
		w.tally(&printMode, before, injectedFor(w.anth.Matching(p)), 10*time.Second)
	}
	if !toolResultWith(w.anth.Matching(citePrompt("print", 0)), "thread_id="+fixT.ID[:8]) {
		t.Errorf("the model's read of MEMORY.md (outside the project) did not return its content: the Read(//…) rule from setup did not apply")
	}

	// Citation turns, interactive: one session, ten turns.
	interactive := turnCount{mode: "interactive"}
	u = w.startTUI(claudeBin)
	u.settle(1500*time.Millisecond, 30*time.Second)
	for i := 0; i < citeTurns; i++ {
		p := citePrompt("interactive", i)
		before := w.usage()
		u.typeLine(p)
		if !waitFinal(&w.anth.recorder, p, 1, time.Minute) {
			t.Errorf("interactive turn %d got no answer; screen:\n%s", i, textcut.Head(u.screen(), 3000))
		}
		w.tally(&interactive, before, injectedFor(w.anth.Matching(p)), 10*time.Second)
		u.settle(500*time.Millisecond, 5*time.Second)
	}
	u.quit("/exit")

	// The MCP tools are offered to the model and a search answers from
	// the memory.
	mcp := "[mcp] Search the memory for calc."
	w.anth.Reset()
	out = claudeP(mcp)
	reqs := w.anth.Matching(mcp)
	mustContain(t, "the tools offered", strings.Join(bodies(reqs), "\n"), "mcp__memctl__search", "mcp__memctl__read")
	if !toolResultWith(reqs, "calc.sh") {
		t.Errorf("the MCP search returned no memory content; the reply was %q", out)
	}

	report(t, "claude-code "+claudeVersion, printMode, interactive)
	// Claude Code keeps rewriting .claude.json (start counts, project
	// state): the undo takes memctl's server out of it and leaves the rest.
	w.checkUndo("claude-code", beforeSetup, statePath)
}

func bodies(reqs []Request) []string {
	out := make([]string, len(reqs))
	for i, q := range reqs {
		out[i] = q.Body
	}
	return out
}
