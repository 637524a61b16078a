package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/store"
)

// TestAutoHonoursBaseURLAndFailedConsolidationSaysWhy is the path a
// Claude Code user with ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL takes:
// auto picks anthropic, calls the endpoint the variable names (not the
// public API) and says so; when that consolidation fails, the next run
// names the real state (failed_model, the error, the retry time, the raw
// memories waiting) and --force retries it now.
func TestAutoHonoursBaseURLAndFailedConsolidationSaysWhy(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"type":"error","error":{"type":"invalid_request_error","message":"stand-in refuses"}}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	src := filepath.Join(dir, "transcripts")
	writeJSONLThreads(t, src, 3, time.Now().Add(-24*time.Hour))
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[provider]\nkind = \"auto\"\nmax_retries = 0\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", src)), 0o600)
	env := []string{"MEMCTL_HOME=" + filepath.Join(dir, "home"), "MEMCTL_CONFIG=" + cfg,
		"OPENAI_API_KEY=", "OPENAI_BASE_URL=", "ANTHROPIC_API_KEY=sk-test", "ANTHROPIC_BASE_URL=" + srv.URL}

	stdout, stderr, code := runCLI(t, env, "", "--json", "extract", "--all", "--provider", "heuristic")
	if code != 0 {
		t.Fatalf("extract: exit %d\n%s", code, stderr)
	}
	var ex struct {
		Succeeded int `json:"succeeded"`
	}
	json.Unmarshal([]byte(stdout), &ex)
	if ex.Succeeded == 0 {
		t.Fatalf("no raw memory extracted: %s", stdout)
	}
	waiting := fmt.Sprintf("%d raw memories", ex.Succeeded)
	_, stderr, code = runCLI(t, env, "", "consolidate")
	if code != ExitError {
		t.Fatalf("consolidate against a refusing endpoint: exit %d, want %d\n%s", code, ExitError, stderr)
	}
	if want := "provider auto picked anthropic at " + srv.URL + " (ANTHROPIC_API_KEY is set; endpoint from ANTHROPIC_BASE_URL)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}
	if !strings.Contains(stderr, "failed_model") || strings.Contains(stderr, "failed_agent") {
		t.Errorf("a model consolidation failure is not named failed_model:\n%s", stderr)
	}
	if calls.Load() == 0 {
		t.Fatal("the endpoint of ANTHROPIC_BASE_URL was never called")
	}

	_, stderr, code = runCLI(t, env, "", "consolidate")
	if code != 0 {
		t.Fatalf("consolidate in the backoff: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"skipped retry unavailable", "the last run failed at", "stand-in refuses", "`memctl consolidate --force` runs it now", waiting + " stored, 0 of them in the last consolidation"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the skip does not say %q:\n%s", want, stderr)
		}
	}
	_, stderr, code = runCLI(t, env, "", "consolidate", "--force", "--mode", "heuristic")
	if code != 0 || !strings.Contains(stderr, "consolidation succeeded ("+waiting+")") {
		t.Errorf("--force --mode heuristic did not retry now: exit %d\n%s", code, stderr)
	}
}

// TestUnworkableProviderRefusedBeforeClaim: openai-compatible without a
// model (it has no default) and a missing key are config errors, exit 2,
// found before any thread is claimed, so no retry is burnt.
func TestUnworkableProviderRefusedBeforeClaim(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "transcripts")
	writeJSONLThreads(t, src, 2, time.Now().Add(-24*time.Hour))
	for _, tt := range []struct {
		name, provider, want string
	}{
		{"no model", "kind = \"openai-compatible\"\nbase_url = \"http://127.0.0.1:9/v1\"\n", "memories.extract_model"},
		{"no key", "kind = \"openai\"\n", "OPENAI_API_KEY is not set"},
		{"no key for the named variable", "kind = \"openai-compatible\"\nbase_url = \"http://127.0.0.1:9/v1\"\napi_key_env = \"MY_KEY\"\n", "MY_KEY is not set"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			cfg := home + ".toml"
			os.WriteFile(cfg, []byte(fmt.Sprintf("[provider]\n%s[[sources]]\nkind = \"jsonl\"\npath = %q\n", tt.provider, src)), 0o600)
			env := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfg, "OPENAI_API_KEY=", "MY_KEY="}
			for _, args := range [][]string{{"extract", "--all"}, {"run", "--all"}} {
				_, stderr, code := runCLI(t, env, "", args...)
				if code != ExitUsage || !strings.Contains(stderr, tt.want) {
					t.Errorf("memctl %s: exit %d, want %d naming %q\n%s", strings.Join(args, " "), code, ExitUsage, tt.want, stderr)
				}
			}
			st, err := store.Open(context.Background(), filepath.Join(home, "memories_1.sqlite"))
			if err != nil {
				return // nothing was even created: nothing claimed
			}
			defer st.Close()
			jobs, err := st.Jobs(context.Background())
			if err != nil || len(jobs) != 0 {
				t.Errorf("jobs after a refused config: %+v %v", jobs, err)
			}
		})
	}
}

// TestExtractSaysWhyNotClaimed: "would claim 0 threads" comes with the
// reasons, in the text and in --json.
func TestExtractSaysWhyNotClaimed(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "transcripts")
	writeJSONLThreads(t, src, 2, time.Now().Add(-24*time.Hour))
	write := func(id, source string, at time.Time, cwd string) {
		ts := at.UTC().Format(time.RFC3339)
		body := fmt.Sprintf(`{"type":"session","id":%q,"cwd":%q,"source":%q,"timestamp":%q}
{"type":"message","role":"user","text":"rename the config loader","timestamp":%q}
{"type":"message","role":"assistant","text":"Renamed.","final":true,"timestamp":%q}
`, id, cwd, source, ts, ts, ts)
		os.WriteFile(filepath.Join(src, id+".jsonl"), []byte(body), 0o600)
	}
	write("exec-thread", "exec", time.Now().Add(-24*time.Hour), "/src/x")
	write("fresh-thread", "cli", time.Now(), "/src/x")
	write("old-thread", "cli", time.Now().AddDate(-1, 0, 0), "/src/x")
	// An agent consolidation's own session (`claude -p` run in the memory folder).
	write("consolidation-thread", "cli", time.Now().Add(-24*time.Hour), filepath.Join(dir, "home", "memories", "skills"))
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[provider]\nkind = \"heuristic\"\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", src)), 0o600)
	env := []string{"MEMCTL_HOME=" + filepath.Join(dir, "home"), "MEMCTL_CONFIG=" + cfg}
	var res struct {
		Claimed    int            `json:"claimed"`
		NotClaimed map[string]int `json:"not_claimed"`
	}
	// --max keeps Codex's windows on this first run (without it a first
	// run takes every past session).
	stdout, stderr, code := runCLI(t, env, "", "--json", "extract", "--max", "2")
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s\n%s", code, err, stdout, stderr)
	}
	if res.Claimed != 2 || res.NotClaimed["non_interactive"] != 1 || res.NotClaimed["not_idle"] != 1 || res.NotClaimed["in_memory_folder"] != 1 ||
		res.NotClaimed["too_old"] != 1 || len(res.NotClaimed) != 4 {
		t.Errorf("first run: %+v", res)
	}
	_, stderr, _ = runCLI(t, env, "", "extract", "--dry-run")
	// A reason a flag overrides names the flag.
	for _, want := range []string{"would claim 0 threads", "2 already extracted", "1 non-interactive (exec) session",
		"1 not idle for memories.min_rollout_idle_hours yet (--all ignores it)", "1 older than memories.max_rollout_age_days (--all ignores it)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("dry run does not say %q:\n%s", want, stderr)
		}
	}
}
