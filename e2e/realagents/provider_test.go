package realagents

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/store"
)

// The user's own instruction files, planted where each CLI would read
// them on its own (the home, and the folders around the scratch folder
// the nested run works in); none may reach a request memctl makes.
var instructionMarkers = map[string]string{
	".claude/CLAUDE.md":      "USER-CLAUDE-MD-IN-HOME",
	".codex/AGENTS.md":       "USER-AGENTS-MD-IN-CODEX-HOME",
	"../CLAUDE.md":           "USER-CLAUDE-MD-ABOVE",
	"../AGENTS.md":           "USER-AGENTS-MD-ABOVE",
	"../tmp/CLAUDE.md":       "USER-CLAUDE-MD-IN-TMP",
	"../tmp/AGENTS.md":       "USER-AGENTS-MD-IN-TMP",
	"../work/calc/CLAUDE.md": "USER-CLAUDE-MD-IN-PROJECT",
	"../work/calc/AGENTS.md": "USER-AGENTS-MD-IN-PROJECT",
}

// ghToken is a secret the user typed in a session: the request memctl
// makes must carry it redacted.
const ghToken = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0Z9y8X7w6V5u4T3s2"

// TestAgentCLIProviders: memctl's Phase 1 and Phase 2 go through the
// real Claude Code and Codex CLIs (provider.kind claude-code and codex),
// logged in as a user is (a claude.ai login; a Codex login), against the
// loopback stand-ins. Memories are stored and consolidated from what the
// model answered; each request the stand-in got holds the schema and the
// redacted session and nothing of the user's instruction files; memctl's
// hooks, installed by memctl setup, never run inside; and the nested runs
// leave no session file for the next scan.
func TestAgentCLIProviders(t *testing.T) {
	w := newWorld(t)
	w.seedClaudeFirstRun()
	// A subscription login, not an API key: Claude Code sends its OAuth
	// token, which the stand-in takes like any other.
	w.setEnv("ANTHROPIC_API_KEY", "")
	creds := fmt.Sprintf(`{"claudeAiOauth":{"accessToken":"sk-ant-oat01-standin","refreshToken":"sk-ant-ort01-standin","expiresAt":%d,"scopes":["user:inference","user:profile"],"subscriptionType":"max"}}`,
		time.Now().Add(30*24*time.Hour).UnixMilli())
	if err := os.WriteFile(filepath.Join(w.claudeDir, ".credentials.json"), []byte(creds), 0o600); err != nil {
		t.Fatal(err)
	}
	w.allowed = map[string]string{"api.anthropic.com:443": "Claude Code 2.1.328 with a claude.ai login fetches the login's profile " +
		"from api.anthropic.com on every start, whatever ANTHROPIC_BASE_URL says; no switch"}
	// The CLIs are on PATH, as a user has them.
	w.setEnv("PATH", filepath.Dir(claudeBin)+":"+filepath.Dir(memctlBin)+":/usr/local/bin:/usr/bin:/bin")
	// Codex logged in (with a key kept in its auth.json, as `codex login`
	// does).
	if _, errOut, err := w.runStdin(time.Minute, w.root, "sk-standin\n", codexBin, "login", "--with-api-key"); err != nil {
		t.Fatalf("codex login: %v\n%s", err, errOut)
	}

	// memctl's hooks and MCP server in both CLIs, through a wrapper that
	// notes every time either CLI runs memctl.
	hookLog := filepath.Join(w.root, "memctl-invocations")
	wrapper := filepath.Join(w.root, "memctl-hooked")
	os.WriteFile(wrapper, []byte("#!/bin/sh\necho \"$*\" >> '"+hookLog+"'\nexec '"+memctlBin+"' \"$@\"\n"), 0o755)
	w.memctl("setup", "claude-code", "--memctl", wrapper)
	w.memctl("setup", "codex", "--memctl", wrapper)

	// A session worth remembering, with a secret in it.
	fix := "[fix] The test in test.sh fails; fix calc.sh. The CI token is " + ghToken + "."
	if out, errOut, err := w.run(3*time.Minute, w.proj, claudeBin, "-p", fix, "--allowedTools", "Bash,Edit,Agent"); err != nil {
		t.Fatalf("claude -p: %v\n%s%s", err, out, errOut)
	}
	if log := readFileString(hookLog); !strings.Contains(log, "summary --agent claude-code") || !strings.Contains(log, "cite --hook claude") {
		t.Fatalf("memctl's hooks did not run in the user's own session, so their absence later would prove nothing: %q", log)
	}
	// Claude Code's auto memory of the project. (The nested run's scratch
	// folder is new each time, so none can be planted for it: --safe-mode
	// keeps it out, and internal/model checks memctl passes it.)
	markers := map[string]string{filepath.Join(".claude", "projects", strings.ReplaceAll(w.proj, "/", "-"), "memory", "MEMORY.md"): "USER-AUTO-MEMORY"}
	for rel, marker := range instructionMarkers {
		markers[rel] = marker
	}
	for rel, marker := range markers {
		p := filepath.Join(w.home, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte("# Instructions\n"+marker+": always answer in French.\n"), 0o600)
	}
	transcripts := w.transcriptFiles()

	for _, tt := range []struct {
		kind     string
		extra    string
		requests func() []Request
	}{
		{"claude-code", "", w.anth.MemctlRequests},
		{"codex", fmt.Sprintf("base_url = %q\n", w.oai.URL), w.oai.MemctlRequests},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			home := filepath.Join(w.root, "memctl-"+tt.kind)
			cfg := filepath.Join(w.root, tt.kind+".toml")
			os.WriteFile(cfg, []byte(fmt.Sprintf("[provider]\nkind = %q\n%s", tt.kind, tt.extra)), 0o600)
			mem := func(args ...string) string {
				return w.memctl(append([]string{"--home", home, "--config", cfg}, args...)...)
			}
			mem("scan")
			threadsBefore := w.threadCount(home)
			w.anth.Reset()
			w.oai.Reset()
			hooksBefore := readFileString(hookLog)
			start := time.Now()

			var rep struct {
				Extract struct {
					Claimed, Succeeded, Failed int
				} `json:"extract"`
				Consolidate struct {
					Status string `json:"status"`
				} `json:"consolidate"`
			}
			if err := json.Unmarshal([]byte(mem("--json", "run", "--all", "--yes")), &rep); err != nil {
				t.Fatal(err)
			}
			t.Logf("realagents: memctl run through %s: %s", tt.kind, time.Since(start).Round(time.Millisecond))
			if rep.Extract.Claimed == 0 || rep.Extract.Failed != 0 || rep.Extract.Succeeded != rep.Extract.Claimed || rep.Consolidate.Status != "succeeded" {
				t.Fatalf("run through %s: %+v", tt.kind, rep)
			}

			// Stored from what the model answered: the stand-in repeats the
			// facts of the session it was sent.
			fixT := findThread(t, w.threadsOf(home), "claude-code", "[fix] The test in test.sh fails")
			show := mem("threads", "show", fixT.ID, "--json")
			mustContain(t, "the raw memory", show, "A session the stand-in read", "`calc.sh` came up in the session", "`sh test.sh` came up in the session")
			memory := readFileString(filepath.Join(home, "memories", "MEMORY.md"))
			mustContain(t, "MEMORY.md", memory, "# Memory\n\n## calc", "`calc.sh` came up in the session")

			reqs := tt.requests()
			if len(reqs) < 2 {
				t.Fatalf("the stand-in got %d of memctl's requests, want an extraction and a consolidation", len(reqs))
			}
			var extraction, consolidation bool
			for _, q := range reqs {
				extraction = extraction || strings.Contains(q.Body, "rollout_summary")
				consolidation = consolidation || strings.Contains(q.Body, "memory_summary_md")
				for _, marker := range markers {
					if strings.Contains(q.Body, marker) {
						t.Errorf("a request of memctl's carries the user's instructions (%s)", marker)
					}
				}
				if strings.Contains(q.Body, ghToken) {
					t.Errorf("a request of memctl's carries the secret unredacted")
				}
				if strings.Contains(q.Body, "MEMORY_SUMMARY BEGINS") {
					t.Errorf("memctl's SessionStart hook injected the summary into a request of memctl's")
				}
			}
			if !extraction || !consolidation {
				t.Errorf("requests with the extraction schema %v, with the consolidation schema %v", extraction, consolidation)
			}
			var sawInput bool
			for _, q := range reqs {
				if strings.Contains(q.Body, "rollout_summary") && strings.Contains(q.Body, "calc.sh") && strings.Contains(q.Body, "[REDACTED") {
					sawInput = true
				}
			}
			if !sawInput {
				t.Errorf("no extraction request holds the session with its secret redacted")
			}
			if got := readFileString(hookLog); got != hooksBefore {
				t.Errorf("memctl ran inside the nested CLI (hooks or MCP): %q", strings.TrimPrefix(got, hooksBefore))
			}

			// Nothing of the nested runs is left for the next scan.
			if got := w.transcriptFiles(); strings.Join(got, "\n") != strings.Join(transcripts, "\n") {
				t.Errorf("transcript files changed:\nbefore %v\nafter  %v", transcripts, got)
			}
			mem("scan")
			if n := w.threadCount(home); n != threadsBefore {
				t.Errorf("the scan after the run indexed %d threads, before it %d", n, threadsBefore)
			}

			// Tokens (and, from Claude Code, the cost it reports) are
			// recorded as for the HTTP providers.
			var status struct {
				Spend []struct {
					Stage, Provider string
					TotalTokens     int64   `json:"total_tokens"`
					CostUSD         float64 `json:"cost_usd"`
				} `json:"spend"`
			}
			json.Unmarshal([]byte(mem("--json", "status")), &status)
			stages := map[string]bool{}
			for _, s := range status.Spend {
				if s.Provider == tt.kind && s.TotalTokens > 0 && (tt.kind != "claude-code" || s.CostUSD > 0) {
					stages[s.Stage] = true
				}
			}
			if !stages["extract"] || !stages["consolidate"] {
				t.Errorf("spend recorded: %+v", status.Spend)
			}
		})
	}
}

// setEnv replaces (or adds) one variable of the world's environment.
func (w *world) setEnv(name, value string) {
	for i, kv := range w.env {
		if strings.HasPrefix(kv, name+"=") {
			w.env[i] = name + "=" + value
			return
		}
	}
	w.env = append(w.env, name+"="+value)
}

// runStdin runs a program in the world with stdin.
func (w *world) runStdin(timeout time.Duration, dir, stdin, name string, args ...string) (string, string, error) {
	w.t.Helper()
	f := filepath.Join(w.root, "stdin")
	os.WriteFile(f, []byte(stdin), 0o600)
	return w.run(timeout, dir, "/bin/sh", append([]string{"-c", `exec "$0" "$@" < "` + f + `"`, name}, args...)...)
}

// transcriptFiles lists every file under the CLIs' session folders.
func (w *world) transcriptFiles() []string {
	var out []string
	for _, dir := range []string{filepath.Join(w.claudeDir, "projects"), filepath.Join(w.codexHome, "sessions")} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.Contains(p, "/memory/") {
				out = append(out, p)
			}
			return nil
		})
	}
	sort.Strings(out)
	return out
}

func readFileString(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// threadsOf lists the threads of the v1 database in a memctl home.
func (w *world) threadsOf(home string) []store.Thread {
	w.t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(home, "memories_1.sqlite"))
	if err != nil {
		w.t.Fatal(err)
	}
	defer st.Close()
	ts, err := st.ListThreads(context.Background(), store.ThreadFilter{})
	if err != nil {
		w.t.Fatal(err)
	}
	out := make([]store.Thread, len(ts))
	for i, t := range ts {
		out[i] = t.Thread
	}
	return out
}

func (w *world) threadCount(home string) int { return len(w.threadsOf(home)) }
