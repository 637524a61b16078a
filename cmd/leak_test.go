package cmd

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/redact/redacttest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestIssue24NoSecretLeavesAnyOutput puts every family of the leak corpus
// on every boundary into the tool outputs of real Codex rollouts (one
// rollout per family), runs extract and a model consolidation against a
// loopback Chat Completions stand-in, and looks for each secret in every
// output memctl writes: the model requests, the database, the memory
// folder, `memctl summary`, `memctl search`, and the MCP search and read
// tools through the SDK client. The stand-in is hostile: besides echoing
// its input, it answers with the planted text itself, unredacted, so the
// output side is tested even when the input side holds.
//
// It prints the leaks per family and output (every cell 0 when all is
// well) and fails on any.
func TestIssue24NoSecretLeavesAnyOutput(t *testing.T) {
	fams := redacttest.Families()
	bounds := redacttest.Boundaries()
	cases := redacttest.Cases()
	dir := t.TempDir()
	src := filepath.Join(dir, "sessions")
	home := filepath.Join(dir, "home")
	project := filepath.Join(dir, "project")
	os.MkdirAll(project, 0o700)
	writeLeakRollouts(t, src, project, fams, bounds)

	srv, requests := newLeakStandIn(t, fams, cases)
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`[provider]
kind = "openai-compatible"
base_url = %q
api_key_env = "MEMCTL_LEAK_TEST_KEY"
max_retries = 0
[memories]
extract_model = "leak-model"
consolidation_model = "leak-model"
[consolidation]
mode = "model"
[[sources]]
kind = "codex"
path = %q
`, srv.URL+"/v1", src)), 0o600)
	env := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfg, "MEMCTL_LEAK_TEST_KEY=sk-test", "OPENAI_API_KEY=", "ANTHROPIC_API_KEY="}

	memctl := func(args ...string) string {
		t.Helper()
		stdout, stderr, code := runCLI(t, env, "", args...)
		if code != 0 {
			t.Fatalf("memctl %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
		return stdout
	}
	start := time.Now()
	memctl("--json", "extract", "--all", "--max", strconv.Itoa(len(fams)+10))
	memctl("consolidate")
	t.Logf("extract and consolidate: %v", time.Since(start))
	// Notes go straight into the memory folder, from the CLI and from MCP.
	var notes strings.Builder
	for _, c := range cases {
		notes.WriteString(c.Text + "\n")
	}
	if _, stderr, code := runCLI(t, env, notes.String(), "note", "add", "--personal", "--slug", "leakcase-cli", "-"); code != 0 {
		t.Fatalf("note add: exit %d\n%s", code, stderr)
	} else if !strings.Contains(stderr, "secrets were redacted from the note") {
		t.Errorf("note add does not warn that it redacted the note:\n%s", stderr)
	}

	outputs := map[string]string{}
	defer func() {
		for name, out := range outputs {
			t.Logf("%s: %d bytes", name, len(out))
		}
	}()
	outputs["model request"] = requests()
	outputs["mcp search"], outputs["mcp read"] = mcpEverything(t, env, project, notes.String())
	t.Logf("mcp: %v", time.Since(start))
	outputs["database"] = dumpDatabase(t, filepath.Join(home, "memories_1.sqlite"))
	outputs["memory folder"] = readTree(t, filepath.Join(home, "memories"))
	outputs["summary"] = memctl("summary", "--all-projects", "--max-tokens", "10000000")
	var search strings.Builder
	for _, q := range []string{"leakcase", "upstream", "token", "password", "key", "secret", "redacted", "authorization", "eof"} {
		search.WriteString(memctl("--json", "search", "--all-projects", "--limit", "500", q))
	}
	outputs["memctl search"] = search.String()
	t.Logf("database, folder, summary, search: %v", time.Since(start))

	// Every case must have reached the model and the memory folder, or
	// finding nothing there would prove nothing.
	sent := map[string]bool{}
	for _, m := range regexp.MustCompile(`leakcase-\d\d-\d\d`).FindAllString(outputs["model request"], -1) {
		sent[m] = true
	}
	for _, c := range cases {
		if m := leakMarker(c.Family, c.Boundary, fams, bounds); !sent[m] {
			t.Fatalf("case %s (%s on %s) never reached the model request", m, c.Family, c.Boundary)
		}
	}
	t.Logf("coverage: %v", time.Since(start))
	for name, out := range outputs {
		if !strings.Contains(out, "[REDACTED_SECRET]") {
			t.Errorf("%s holds no redaction at all: the planted text never reached it", name)
		}
	}

	names := make([]string, 0, len(outputs))
	for name := range outputs {
		names = append(names, name)
	}
	sort.Strings(names)
	leaked := map[string]map[string][]string{} // family -> output -> boundaries
	example := map[string]string{}             // family + output -> the text around one leak
	total := 0
	for _, name := range names {
		out := outputs[name]
		for ci, i := range findSecrets(out, cases) {
			c := cases[ci]
			if leaked[c.Family] == nil {
				leaked[c.Family] = map[string][]string{}
			}
			leaked[c.Family][name] = append(leaked[c.Family][name], c.Boundary)
			example[c.Family+name] = out[max(0, i-120):min(len(out), i+len(c.Secret)+40)]
			total++
		}
	}
	t.Logf("search for secrets: %v", time.Since(start))
	var tb strings.Builder
	fmt.Fprintf(&tb, "leaked boundaries (of %d) per family and output\n%-24s", len(bounds), "family")
	for _, name := range names {
		fmt.Fprintf(&tb, " %14s", name)
	}
	tb.WriteString("\n")
	for _, f := range fams {
		fmt.Fprintf(&tb, "%-24s", f.Name)
		for _, name := range names {
			fmt.Fprintf(&tb, " %14d", len(leaked[f.Name][name]))
		}
		tb.WriteString("\n")
	}
	fmt.Fprintf(&tb, "%d families × %d boundaries × %d outputs: %d leaked", len(fams), len(bounds), len(names), total)
	t.Log("\n" + tb.String())
	for _, f := range fams {
		for _, name := range names {
			if bs := leaked[f.Name][name]; len(bs) > 0 {
				t.Errorf("%s reached %s on %d boundaries: %s\n  for example: %q", f.Name, name, len(bs), strings.Join(bs, ", "), example[f.Name+name])
			}
		}
	}
}

// findSecrets returns the cases whose secret is in out, each with where it
// is, in one pass over out (every secret is longer than eight bytes).
func findSecrets(out string, cases []redacttest.Case) map[int]int {
	const k = 8
	byPrefix := map[string][]int{}
	for i, c := range cases {
		byPrefix[c.Secret[:k]] = append(byPrefix[c.Secret[:k]], i)
	}
	found := map[int]int{}
	for i := 0; i+k <= len(out); i++ {
		for _, ci := range byPrefix[out[i:i+k]] {
			if _, ok := found[ci]; !ok && strings.HasPrefix(out[i:], cases[ci].Secret) {
				found[ci] = i
			}
		}
	}
	return found
}

// leakMarker names a case in the tool call that prints it, so the stand-in
// and the coverage check can tell which cases a request holds.
func leakMarker(family, boundary string, fams []redacttest.Family, bounds []redacttest.Boundary) string {
	fi, bi := -1, -1
	for i, f := range fams {
		if f.Name == family {
			fi = i
		}
	}
	for i, b := range bounds {
		if b.Name == boundary {
			bi = i
		}
	}
	return fmt.Sprintf("leakcase-%02d-%02d", fi, bi)
}

// writeLeakRollouts writes one Codex rollout per family: the user asks to
// check the deployment, and each boundary is a shell call whose output is
// the family's text on that boundary.
func writeLeakRollouts(t *testing.T, src, cwd string, fams []redacttest.Family, bounds []redacttest.Boundary) {
	t.Helper()
	day := filepath.Join(src, "2026", "01", "02")
	if err := os.MkdirAll(day, 0o700); err != nil {
		t.Fatal(err)
	}
	ts := time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	for fi, f := range fams {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", 2400+fi)
		var b strings.Builder
		line := func(typ string, payload map[string]any) {
			j, err := json.Marshal(map[string]any{"timestamp": ts, "type": typ, "payload": payload})
			if err != nil {
				t.Fatal(err)
			}
			b.Write(j)
			b.WriteByte('\n')
		}
		line("session_meta", map[string]any{"id": id, "timestamp": ts, "cwd": cwd, "originator": "codex-tui", "cli_version": "0.125.0", "source": "cli"})
		ask := "check why the deployment of leak family " + f.Name + " fails"
		line("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": ask}}})
		line("event_msg", map[string]any{"type": "user_message", "message": ask, "images": []any{}})
		for bi, bd := range bounds {
			call := fmt.Sprintf("call_%02d_%02d", fi, bi)
			args, _ := json.Marshal(map[string]any{"command": []string{"bash", "-lc", "cat " + leakMarker(f.Name, bd.Name, fams, bounds) + ".txt"}})
			line("response_item", map[string]any{"type": "function_call", "name": "shell", "arguments": string(args), "call_id": call})
			line("response_item", map[string]any{"type": "function_call_output", "call_id": call, "output": bd.Wrap(f.Text)})
		}
		line("response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "The deployment config is read; the credentials are in place."}}})
		name := filepath.Join(day, "rollout-2026-01-02T10-00-00-"+id+".jsonl")
		if err := os.WriteFile(name, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// newLeakStandIn serves Chat Completions. It records every request body
// and answers as the worst model would: Phase 1 copies the user messages
// into the raw memory and adds the planted text of the families the
// request names, unredacted; Phase 2 writes the planted text of every
// family into MEMORY.md, the summary and a skill.
func newLeakStandIn(t *testing.T, fams []redacttest.Family, cases []redacttest.Case) (*httptest.Server, func() string) {
	var mu sync.Mutex
	var bodies []string
	planted := func(fi int) string {
		var b strings.Builder
		for _, c := range cases {
			if c.Family == fams[fi].Name {
				b.WriteString(c.Text)
				b.WriteString("\n")
			}
		}
		return b.String()
	}
	var all strings.Builder
	for fi := range fams {
		all.WriteString(planted(fi))
	}
	familyRe := regexp.MustCompile(`leakcase-(\d\d)-`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(body))
		mu.Unlock()
		var req struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(body, &req)
		var echo strings.Builder
		for _, m := range req.Messages {
			if m.Role == "user" {
				echo.WriteString(strings.Join(jsonStrings(m.Content), "\n"))
			}
		}
		var answer map[string]any
		if strings.Contains(string(body), "memory_consolidation") {
			text := all.String()
			answer = map[string]any{"memory_md": "# Memory\n\n" + text, "memory_summary_md": "v1\n\n" + text,
				"skills": []any{map[string]any{"name": "leakcase", "skill_md": "# leakcase\n\n" + text}}}
		} else {
			seen := map[int]bool{}
			var plant strings.Builder
			for _, m := range familyRe.FindAllStringSubmatch(echo.String(), -1) {
				fi, _ := strconv.Atoi(m[1])
				if !seen[fi] && fi < len(fams) {
					seen[fi] = true
					plant.WriteString(planted(fi))
				}
			}
			raw := "---\ndescription: deployment credentials checked (leakcase)\ntask: leakcase\ntask_group: leaks\ntask_outcome: success\nkeywords: leakcase\n---\n\n" +
				"### Task 1: leakcase\n\n" + plant.String()
			answer = map[string]any{"raw_memory": raw, "rollout_summary": "# leakcase\n\n" + plant.String(), "rollout_slug": "leakcase"}
		}
		content, _ := json.Marshal(answer)
		out, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-leak", "object": "chat.completion", "created": 1, "model": "leak-model",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": string(content)}}},
			"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 100, "total_tokens": 200},
		})
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv, func() string {
		mu.Lock()
		defer mu.Unlock()
		// The bodies as sent, and their strings decoded: a secret must be
		// in neither form.
		var b strings.Builder
		for _, body := range bodies {
			b.WriteString(body)
			b.WriteString("\n")
			b.WriteString(strings.Join(jsonStrings(json.RawMessage(body)), "\n"))
			b.WriteString("\n")
		}
		return b.String()
	}
}

// jsonStrings returns every string in a JSON document, at any depth.
func jsonStrings(raw json.RawMessage) []string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// dumpDatabase returns the raw bytes of the database and its WAL, and
// every text value of every table: a long value is split over overflow
// pages in the file, where a byte search could miss it.
func dumpDatabase(t *testing.T, path string) string {
	t.Helper()
	var b strings.Builder
	for _, p := range []string{path, path + "-wal"} {
		if raw, err := os.ReadFile(p); err == nil {
			b.Write(raw)
		}
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		rows.Scan(&name)
		tables = append(tables, name)
	}
	rows.Close()
	if len(tables) == 0 {
		t.Fatal("the database has no tables")
	}
	for _, table := range tables {
		rows, err := db.Query(`SELECT * FROM "` + table + `"`)
		if err != nil {
			continue // virtual tables of a module this connection lacks
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				switch x := v.(type) {
				case string:
					b.WriteString(x)
				case []byte:
					b.Write(x)
				}
				b.WriteString("\n")
			}
		}
		rows.Close()
	}
	return b.String()
}

// readTree returns every file under root.
func readTree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		b.Write(raw)
		b.WriteString("\n")
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("memory folder %s: %d files, %v", root, n, err)
	}
	return b.String()
}

// mcpEverything starts `memctl mcp` and reads the whole memory through the
// SDK client after adding note through it: lines near the planted text
// through grep searches (paged), a few ranked searches, and every file
// through read (paged by lines).
func mcpEverything(t *testing.T, env []string, dir, note string) (search, read string) {
	t.Helper()
	cmd := memctlProcess(env, "mcp")
	cmd.Dir = dir
	// A guard against a server that hangs, not a speed bar: under the race
	// detector on a loaded machine reading every file in pages takes minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "leak-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(tool string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("mcp %s %v: %v", tool, args, err)
		}
		if res.IsError {
			t.Fatalf("mcp %s %v: tool error %+v", tool, args, res.Content)
		}
		b, _ := json.Marshal(res)
		return string(b)
	}
	cursorOf := func(res string) string {
		var r struct {
			StructuredContent struct {
				NextCursor string `json:"next_cursor"`
			} `json:"structuredContent"`
		}
		json.Unmarshal([]byte(res), &r)
		return r.StructuredContent.NextCursor
	}
	var sb, rb strings.Builder
	if res := call("add_ad_hoc_note", map[string]any{"slug": "leakcase-mcp", "note": note, "project": "*"}); !strings.Contains(res, `"redacted":true`) {
		t.Errorf("add_ad_hoc_note does not say it redacted the note: %s", res)
	}
	// Lines near the planted text, a few pages of each: read below covers
	// every line.
	for _, q := range []string{"[REDACTED_SECRET]", "UPSTREAM", "EOF", "Authorization", "://", "PASS", "_key"} {
		for cursor, page := "", 0; page < 5; page++ {
			args := map[string]any{"queries": []string{q}, "project": "*", "max_results": 200}
			if cursor != "" {
				args["cursor"] = cursor
			}
			res := call("search", args)
			sb.WriteString(res)
			if cursor = cursorOf(res); cursor == "" {
				break
			}
		}
	}
	for _, q := range []string{"leakcase", "upstream token", "password", "authorization", "redacted secret"} {
		sb.WriteString(call("search", map[string]any{"mode": "ranked", "query": q, "project": "*", "max_results": 100}))
	}

	var files []string
	var walk func(path string)
	walk = func(path string) {
		for cursor := ""; ; {
			args := map[string]any{"project": "*"}
			if path != "" {
				args["path"] = path
			}
			if cursor != "" {
				args["cursor"] = cursor
			}
			res := call("list", args)
			var r struct {
				StructuredContent struct {
					Entries []struct {
						Path string `json:"path"`
						Type string `json:"entry_type"`
					} `json:"entries"`
					NextCursor string `json:"next_cursor"`
				} `json:"structuredContent"`
			}
			json.Unmarshal([]byte(res), &r)
			for _, e := range r.StructuredContent.Entries {
				if e.Type == "directory" {
					walk(e.Path)
				} else {
					files = append(files, e.Path)
				}
			}
			if cursor = r.StructuredContent.NextCursor; cursor == "" {
				return
			}
		}
	}
	walk("")
	if len(files) == 0 {
		t.Fatal("mcp list shows no file")
	}
	for _, f := range files {
		for off := 1; ; off += 50 {
			res := call("read", map[string]any{"path": f, "line_offset": off, "max_lines": 50, "project": "*"})
			rb.WriteString(res)
			var r struct {
				StructuredContent struct {
					Truncated bool `json:"truncated"`
				} `json:"structuredContent"`
			}
			json.Unmarshal([]byte(res), &r)
			if !r.StructuredContent.Truncated {
				break
			}
		}
	}
	return sb.String(), rb.String()
}
