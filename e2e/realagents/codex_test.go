package realagents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/textcut"
)

// TestCodex drives the real Codex CLI, on a CODEX_HOME prepared by
// `memctl setup codex` alone, interactively in a pseudo-terminal and
// non-interactively with `codex exec`.
func TestCodex(t *testing.T) {
	w := newWorld(t)
	configPath := filepath.Join(w.codexHome, "config.toml")
	beforeSetup := snapshot(configPath)
	w.memctl("setup", "codex", "--memctl", memctlBin)
	mustContain(t, "config.toml's SessionStart hook", readFileString(configPath), filepath.Join(filepath.Dir(memctlBin), "memctl-summary")+" ")
	codexExec := func(prompt string) string {
		t.Helper()
		args := append(append([]string{"exec", "--skip-git-repo-check"}, w.codexArgs()...), prompt)
		out, errOut, err := w.run(3*time.Minute, w.proj, codexBin, args...)
		if err != nil {
			t.Fatalf("codex exec %q: %v\n%s%s", prompt, err, out, errOut)
		}
		return out
	}

	// The sessions worth remembering are interactive ones (Codex's own
	// memory extracts only those, and so does memctl): a failing test
	// fixed after an abandoned attempt, then a stated preference.
	fix := "[fix] The test in test.sh fails; fix calc.sh."
	pref := "[pref] From now on, shell scripts use set -eu and two-space indentation."
	u := w.startTUI(codexBin, w.codexArgs()...)
	u.settle(1500*time.Millisecond, 30*time.Second)
	for _, p := range []string{fix, pref} {
		u.typeLine(p)
		if !waitFinal(&w.oai.recorder, p, 1, 2*time.Minute) {
			t.Fatalf("the interactive turn %q got no answer; screen:\n%s", p, textcut.Head(u.screen(), 4000))
		}
		u.settle(time.Second, 10*time.Second)
	}
	u.quit("/quit")
	if b, _ := os.ReadFile(filepath.Join(w.proj, "calc.sh")); !strings.Contains(string(b), "expr $1 + $2") {
		t.Fatalf("the scripted edit did not happen: calc.sh = %q", b)
	}
	// A `codex exec` run is indexed but, as in Codex, not extracted.
	execPrompt := "[pref] Which shell does test.sh need?"
	codexExec(execPrompt)

	w.memctl("scan")
	threads := w.threads()
	fixT := findThread(t, threads, "codex", fix)
	w.checkThread(fixT, "cli", true)
	execT := findThread(t, threads, "codex", execPrompt)
	w.checkThread(execT, "exec", false)
	// The sub-agent the fix session spawned has a rollout of its own,
	// indexed as a sub-agent of that session and not extracted alone.
	subs := 0
	for _, th := range threads {
		if th.Subagent {
			subs++
			if th.ParentID != fixT.ID {
				t.Errorf("sub-agent thread %s: parent %q, want %s", th.ID, th.ParentID, fixT.ID)
			}
		}
	}
	if subs != 1 {
		t.Errorf("%d sub-agent threads, want the one the fix session spawned", subs)
	}

	rep := w.extractAndConsolidate()
	nc, _ := rep["not_claimed"].(map[string]any)
	if rep["claimed"].(float64) != 1 || nc["non_interactive"].(float64) < 1 || nc["sub_agent"].(float64) != 1 {
		t.Errorf("extract: claimed %v, not_claimed %v; want the interactive session claimed and the exec one not", rep["claimed"], nc)
	}
	show := w.memctl("threads", "show", fixT.ID, "--json")
	mustContain(t, "the interactive session's raw memory", show, "calc.sh", "sh test.sh", "make test-fast", "set -eu")
	memory, _ := os.ReadFile(filepath.Join(w.memctlHome, "memories", "MEMORY.md"))
	mustContain(t, "MEMORY.md", string(memory), fixT.ID)

	// Citation turns, non-interactive: each `codex exec` is a new
	// session; setup's SessionStart hook injects the summary and notify
	// counts the citation.
	w.oai.Reset()
	execMode := turnCount{mode: "exec"}
	for i := 0; i < citeTurns; i++ {
		p := citePrompt("exec", i)
		before := w.usage()
		out := codexExec(p)
		if i == 0 && strings.Contains(out, "<oai-mem-citation>") {
			// Codex parses the block itself and shows the answer without it.
			t.Errorf("codex exec showed the citation block: %q", out)
		}
		// notify is fire-and-forget: give it time after exec returns.
		w.tally(&execMode, before, injectedFor(w.oai.Matching(p)), 15*time.Second)
	}
	if !toolResultWith(w.oai.Matching(citePrompt("exec", 0)), "thread_id="+fixT.ID[:8]) {
		t.Errorf("the model's read of MEMORY.md did not return its content")
	}

	interactive := turnCount{mode: "interactive"}
	u = w.startTUI(codexBin, w.codexArgs()...)
	u.settle(1500*time.Millisecond, 30*time.Second)
	for i := 0; i < citeTurns; i++ {
		p := citePrompt("interactive", i)
		before := w.usage()
		u.typeLine(p)
		if !waitFinal(&w.oai.recorder, p, 1, time.Minute) {
			t.Errorf("interactive turn %d got no answer; screen:\n%s", i, textcut.Head(u.screen(), 3000))
		}
		w.tally(&interactive, before, injectedFor(w.oai.Matching(p)), 15*time.Second)
		u.settle(500*time.Millisecond, 5*time.Second)
	}
	u.quit("/quit")

	mcp := "[mcp] Search the memory for calc."
	w.oai.Reset()
	out := codexExec(mcp)
	reqs := w.oai.Matching(mcp)
	mustContain(t, "the tools offered", strings.Join(bodies(reqs), "\n"), "memctl")
	if !toolResultWith(reqs, "calc.sh") {
		t.Errorf("the MCP search returned no memory content; the reply was %q", out)
	}

	report(t, "codex "+codexVersion, execMode, interactive)
	w.checkUndo("codex", beforeSetup)
}
