//go:build unix

package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/agentcli"
)

// fakeAgentCLI writes a program standing in for an agent CLI: it keeps
// its arguments (one a line), its working folder, its environment and
// its stdin in dir, then prints the replay file (what the pinned CLI
// printed, testdata/agentcli) and runs tail, a shell snippet that ends it.
func fakeAgentCLI(t *testing.T, dir, replay, tail string) string {
	t.Helper()
	body := `for a in "$@"; do printf '%s\n' "$a"; done > "` + dir + `/args"
pwd > "` + dir + `/cwd"
env > "` + dir + `/env"
cat > "` + dir + `/stdin"
for a in "$@"; do case $a in */system.md) cp "$a" "` + dir + `/system";; esac; done
`
	if replay != "" {
		abs, err := filepath.Abs(filepath.Join("testdata", "agentcli", replay))
		if err != nil {
			t.Fatal(err)
		}
		body += "cat '" + abs + "'\n"
	}
	path := filepath.Join(dir, "agent-cli")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+tail+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func newTestAgent(t *testing.T, kind Kind, program string, timeout time.Duration, env map[string]string) Provider {
	t.Helper()
	p, err := New(Options{Kind: kind, Command: []string{program}, Timeout: timeout, ScratchDir: t.TempDir(),
		Getenv: func(k string) string { return env[k] },
		Redact: func(s string) string { return strings.ReplaceAll(s, "sk-secret-123", "[REDACTED]") },
		Now:    func() time.Time { return time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func hasRun(args []string, run ...string) bool {
	for i := 0; i+len(run) <= len(args); i++ {
		match := true
		for j := range run {
			if args[i+j] != run[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// TestClaudeCodeCall replays Claude Code's answer to a request: the
// structured output is the answer, the usage, cost and model come from
// its JSON; the request went to stdin, the system prompt to a file in a
// scratch folder that is gone afterwards, with every switch that keeps
// the user's setup out.
func TestClaudeCodeCall(t *testing.T) {
	dir := t.TempDir()
	p := newTestAgent(t, KindClaudeCode, fakeAgentCLI(t, dir, "claude-success.out", "exit 0"), time.Minute, nil)
	if p.Name() != "claude-code" {
		t.Errorf("Name = %q", p.Name())
	}
	req := testRequest()
	req.Model = ""
	resp, err := p.Call(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(resp.JSON), `"rollout_slug":"standin-calc-sh"`) {
		t.Errorf("answer = %s", resp.JSON)
	}
	if resp.Usage.InputTokens != 677 || resp.Usage.OutputTokens != 20 || resp.Usage.TotalTokens != 697 || resp.Usage.CostUSD != 0.0000777 {
		t.Errorf("usage = %+v", resp.Usage)
	}
	if resp.Model != "claude-haiku-5-5" {
		t.Errorf("model = %q", resp.Model)
	}
	args := readLines(t, filepath.Join(dir, "args"))
	for _, run := range [][]string{{"-p", "--output-format", "json"}, {"--model", "haiku"}, {"--effort", "low"},
		{"--json-schema", compactJSON(t, req.Schema)}, {"--safe-mode"}, {"--tools", ""}, {"--strict-mcp-config", "--mcp-config", `{"mcpServers":{}}`},
		{"--settings", `{"disableAllHooks":true}`}, {"--disable-slash-commands"}, {"--no-session-persistence"}} {
		if !hasRun(args, run...) {
			t.Errorf("the command line lacks %q: %q", run, args)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "stdin")); string(b) != "first evidence chunk\n\nsecond evidence chunk" {
		t.Errorf("stdin = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "system")); string(b) != req.System {
		t.Errorf("system prompt file = %q", b)
	}
	cwd := readLines(t, filepath.Join(dir, "cwd"))[0]
	if !agentcli.IsScratch(cwd) {
		t.Errorf("ran in %s, not a scratch folder", cwd)
	}
	if _, err := os.Stat(cwd); !os.IsNotExist(err) {
		t.Errorf("the scratch folder %s is still there: %v", cwd, err)
	}
	env := strings.Join(readLines(t, filepath.Join(dir, "env")), "\n")
	if !strings.Contains(env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1") {
		t.Errorf("nonessential traffic not turned off:\n%s", env)
	}
}

// TestCodexCall replays Codex's JSONL events: the last agent message is
// the answer, turn.completed the usage. CODEX_HOME is the scratch
// folder's own, holding only a link to the user's login.
func TestCodexCall(t *testing.T) {
	dir := t.TempDir()
	userHome := t.TempDir()
	os.WriteFile(filepath.Join(userHome, "auth.json"), []byte(`{"auth_mode":"apikey"}`), 0o600)
	os.WriteFile(filepath.Join(userHome, "AGENTS.md"), []byte("the user's global instructions"), 0o600)
	os.WriteFile(filepath.Join(userHome, "config.toml"), []byte("notify = [\"memctl\"]"), 0o600)
	tail := `ls -A "$CODEX_HOME" > "` + dir + `/home-entries"; readlink "$CODEX_HOME/auth.json" > "` + dir + `/auth-link"; exit 0`
	p := newTestAgent(t, KindCodex, fakeAgentCLI(t, dir, "codex-success.out", tail), time.Minute, map[string]string{"CODEX_HOME": userHome})
	req := testRequest()
	req.Model = ""
	req.ReasoningEffort = "medium"
	resp, err := p.Call(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(resp.JSON), `"rollout_slug":"standin-calc-sh"`) {
		t.Errorf("answer = %s", resp.JSON)
	}
	if resp.Usage.InputTokens == 0 || resp.Usage.OutputTokens != 20 || resp.Usage.TotalTokens != resp.Usage.InputTokens+20 || resp.Model != "gpt-5.6-luna" {
		t.Errorf("usage = %+v, model %q", resp.Usage, resp.Model)
	}
	args := readLines(t, filepath.Join(dir, "args"))
	for _, run := range [][]string{{"exec", "--json", "--ephemeral"}, {"--ignore-user-config"}, {"--sandbox", "read-only"},
		{"-c", "project_doc_max_bytes=0"}, {"--disable", "hooks"}, {"-m", "gpt-5.6-luna"}, {"-c", `model_reasoning_effort="medium"`}} {
		if !hasRun(args, run...) {
			t.Errorf("the command line lacks %q: %q", run, args)
		}
	}
	if args[len(args)-1] != "-" {
		t.Errorf("the input does not come from stdin: %q", args)
	}
	if got := readLines(t, filepath.Join(dir, "home-entries")); strings.Join(got, ",") != "auth.json" {
		t.Errorf("CODEX_HOME holds %v, want the login alone", got)
	}
	if got := readLines(t, filepath.Join(dir, "auth-link"))[0]; got != filepath.Join(userHome, "auth.json") {
		t.Errorf("auth.json links to %q", got)
	}
}

// TestAgentFaults: every way a CLI can fail to answer is an error in
// memctl's words, naming what to do, with the CLI's own message and its
// stderr redacted; a rate limit also tells the guard to wait.
func TestAgentFaults(t *testing.T) {
	for _, tt := range []struct {
		name    string
		kind    Kind
		replay  string
		tail    string
		timeout time.Duration
		fault   AgentFault
		want    []string
	}{
		{"claude not logged in", KindClaudeCode, "claude-nologin.out", "exit 1", 0, FaultNotLoggedIn,
			[]string{"claude-code: Claude Code is not logged in (it said: Not logged in · Please run /login); run `claude auth login`"}},
		{"claude key refused", KindClaudeCode, "claude-401.out", "exit 1", 0, FaultNotLoggedIn, []string{"Claude Code is not logged in"}},
		{"claude rate-limited", KindClaudeCode, "claude-429.out", "exit 1", 0, FaultRateLimited,
			[]string{"claude-code: Claude Code is rate-limited (it said: API Error", "extraction waits 1h0m0s, then the thread is tried again"}},
		{"codex key refused", KindCodex, "codex-401.out", "exit 1", 0, FaultNotLoggedIn,
			[]string{"codex: Codex is not logged in (it said: unexpected status 401 Unauthorized", "run `codex login`"}},
		{"codex rate-limited", KindCodex, "codex-429.out", "exit 1", 0, FaultRateLimited, []string{"Codex is rate-limited (it said: You’ve hit your usage limit"}},
		{"timed out", KindCodex, "", "sleep 30", 300 * time.Millisecond, FaultTimedOut,
			[]string{"codex: no answer from codex within 300ms (provider.timeout); it and everything it started were killed"}},
		{"killed", KindClaudeCode, "", "kill -9 $$", 0, FaultKilled, []string{"claude-code: claude was killed before it answered (signal: killed)"}},
		{"crashed", KindClaudeCode, "", "echo 'panic: token sk-secret-123 refused' >&2; exit 3", 0, FaultFailed,
			[]string{"claude-code: claude failed (exit status 3); stderr: panic: token [REDACTED] refused"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			timeout := tt.timeout
			if timeout == 0 {
				timeout = time.Minute
			}
			p := newTestAgent(t, tt.kind, fakeAgentCLI(t, dir, tt.replay, tt.tail), timeout, nil)
			start := time.Now()
			resp, err := p.Call(context.Background(), testRequest())
			var ae *AgentError
			if !errors.As(err, &ae) || ae.Fault != tt.fault {
				t.Fatalf("err = %v, want an AgentError of fault %s", err, tt.fault)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%s", w, err)
				}
			}
			if strings.Contains(err.Error(), "sk-secret-123") {
				t.Errorf("the error shows the secret: %s", err)
			}
			if resp.JSON != nil {
				t.Errorf("a failed call returned an answer: %s", resp.JSON)
			}
			rl := resp.RateLimit
			if tt.fault == FaultRateLimited {
				if rl == nil || !rl.Reached || !rl.ResetAt.Equal(time.Date(2026, 6, 1, 13, 0, 0, 0, time.UTC)) {
					t.Errorf("rate limit = %+v, want reached until an hour later", rl)
				}
			} else if rl != nil {
				t.Errorf("rate limit = %+v on a %s", rl, tt.fault)
			}
			if tt.fault == FaultTimedOut && time.Since(start) > 10*time.Second {
				t.Errorf("the timed-out CLI held the call for %s", time.Since(start))
			}
		})
	}
}

// TestAgentTextAnswer: an answer that is text, not the schema's JSON, is
// refused as an AnswerError naming what was said; one that is JSON but
// breaks the schema too.
func TestAgentTextAnswer(t *testing.T) {
	for _, tt := range []struct {
		kind   Kind
		replay string
		want   string
	}{
		{KindClaudeCode, "claude-text.out", `claude-code: Claude Code answered with text, not the schema's JSON: "Done."`},
		{KindCodex, "codex-text.out", `codex: Codex answered with text, not the schema's JSON: "Scripted session"`},
	} {
		dir := t.TempDir()
		p := newTestAgent(t, tt.kind, fakeAgentCLI(t, dir, tt.replay, "exit 0"), time.Minute, nil)
		_, err := p.Call(context.Background(), testRequest())
		var ae *AnswerError
		if !errors.As(err, &ae) || err.Error() != tt.want {
			t.Errorf("%s: err = %v, want the AnswerError %q", tt.kind, err, tt.want)
		}
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.out")
	os.WriteFile(bad, []byte(`{"type":"result","is_error":false,"result":"","structured_output":{"rollout_summary":3}}`), 0o600)
	p := newTestAgent(t, KindClaudeCode, fakeAgentCLI(t, dir, "", "cat '"+bad+"'"), time.Minute, nil)
	_, err := p.Call(context.Background(), testRequest())
	if !errors.Is(err, ErrSchemaMismatch) {
		t.Errorf("an answer breaking the schema: err = %v", err)
	}
}

// TestAgentMissing: a CLI that is not installed is refused when the
// provider is built, naming what to install or set.
func TestAgentMissing(t *testing.T) {
	_, err := New(Options{Kind: KindCodex, LookPath: func(string) (string, error) {
		return "", errors.New(`exec: "codex": executable file not found in $PATH`)
	}})
	var ae *AgentError
	if !errors.As(err, &ae) || ae.Fault != FaultMissing {
		t.Fatalf("err = %v", err)
	}
	want := `codex: cannot run codex: exec: "codex": executable file not found in $PATH; install Codex, or set provider.command to the path of codex`
	if err.Error() != want {
		t.Errorf("error = %q\nwant    %q", err, want)
	}
	// Gone between the check and the call (uninstalled mid-run).
	dir := t.TempDir()
	prog := fakeAgentCLI(t, dir, "claude-success.out", "exit 0")
	p := newTestAgent(t, KindClaudeCode, prog, time.Minute, nil)
	os.Remove(prog)
	_, err = p.Call(context.Background(), testRequest())
	if !errors.As(err, &ae) || ae.Fault != FaultMissing || !strings.Contains(err.Error(), "claude-code: cannot run "+prog+": ") {
		t.Errorf("a CLI gone at call time: %v", err)
	}
}

// TestAgentInterrupted: memctl stopped mid-call kills the CLI and counts
// the call as not made (the context's error, not a fault).
func TestAgentInterrupted(t *testing.T) {
	dir := t.TempDir()
	p := newTestAgent(t, KindClaudeCode, fakeAgentCLI(t, dir, "", "sleep 30"), time.Minute, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := p.Call(ctx, testRequest())
	var ae *AgentError
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ae) {
		t.Errorf("err = %v", err)
	}
}

func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatal(err)
	}
	return out.String()
}
