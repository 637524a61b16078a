package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostileFormat writes transcripts of one source kind: where a file for
// a thread goes, and its header, user, assistant and "unknown item" lines.
type hostileFormat struct {
	kind    string
	dir     func(root string) string
	name    func(id string) string
	header  func(id, ts string) string
	user    func(id, ts, text string) string
	reply   func(id, ts, text string) string
	unknown func(id, ts string) string
	// wrongTypes are lines of the right item type whose fields have the
	// wrong JSON types.
	wrongTypes func(id, ts string) []string
}

var hostileFormats = []hostileFormat{
	{
		kind: "jsonl",
		dir:  func(root string) string { return filepath.Join(root, "jsonl") },
		name: func(id string) string { return id + ".jsonl" },
		header: func(id, ts string) string {
			return fmt.Sprintf(`{"type":"session","id":%q,"cwd":"/src/hostile","source":"cli","timestamp":%q}`, id, ts)
		},
		user: func(id, ts, text string) string {
			return fmt.Sprintf(`{"type":"message","role":"user","text":%q,"timestamp":%q}`, text, ts)
		},
		reply: func(id, ts, text string) string {
			return fmt.Sprintf(`{"type":"message","role":"assistant","text":%q,"final":true,"timestamp":%q}`, text, ts)
		},
		unknown: func(id, ts string) string {
			return fmt.Sprintf(`{"type":"hologram","payload":{"x":1},"timestamp":%q}`, ts)
		},
		wrongTypes: func(id, ts string) []string {
			return []string{
				`{"type":"message","role":5,"text":{"x":1},"timestamp":12}`,
				`{"type":["message"]}`,
				`[1,2,3]`,
				`"just a string"`,
				`null`,
			}
		},
	},
	{
		kind: "codex",
		dir: func(root string) string {
			return filepath.Join(root, "codex", "sessions", "2026", "01", "02")
		},
		name: func(id string) string { return "rollout-2026-01-02T10-00-00-" + id + ".jsonl" },
		header: func(id, ts string) string {
			return fmt.Sprintf(`{"timestamp":%q,"type":"session_meta","payload":{"id":%q,"timestamp":%q,"cwd":"/src/hostile","originator":"codex-tui","cli_version":"0.125.0","source":"cli"}}`, ts, id, ts)
		},
		user: func(id, ts, text string) string {
			// Codex writes the human's words twice: as a response item and
			// as the user_message event the readers take them from.
			return fmt.Sprintf(`{"timestamp":%q,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":%q}]}}`+"\n"+
				`{"timestamp":%q,"type":"event_msg","payload":{"type":"user_message","message":%q,"images":[]}}`, ts, text, ts, text)
		},
		reply: func(id, ts, text string) string {
			return fmt.Sprintf(`{"timestamp":%q,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":%q}]}}`, ts, text)
		},
		unknown: func(id, ts string) string {
			return fmt.Sprintf(`{"timestamp":%q,"type":"hologram","payload":{"x":1}}`+"\n"+`{"timestamp":%q,"type":"response_item","payload":{"type":"hologram_call","x":1}}`, ts, ts)
		},
		wrongTypes: func(id, ts string) []string {
			return []string{
				`{"timestamp":12,"type":"response_item","payload":"not an object"}`,
				`{"timestamp":"x","type":"response_item","payload":{"type":"message","role":7,"content":"text, not a list"}}`,
				`{"timestamp":"x","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":42}]}}`,
				`{"type":17}`,
				`[1,2,3]`,
			}
		},
	},
	{
		kind: "claude-code",
		dir:  func(root string) string { return filepath.Join(root, "claude", "-src-hostile") },
		name: func(id string) string { return id + ".jsonl" },
		header: func(id, ts string) string {
			return fmt.Sprintf(`{"type":"summary","summary":"hostile session","leafUuid":"u0-%s"}`, id[:8])
		},
		user: func(id, ts, text string) string {
			return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/src/hostile","sessionId":%q,"version":"2.0.64","type":"user","message":{"role":"user","content":%q},"uuid":"u1-%s","timestamp":%q}`, id, text, id[:8], ts)
		},
		reply: func(id, ts, text string) string {
			return fmt.Sprintf(`{"parentUuid":"u1-%s","isSidechain":false,"userType":"external","cwd":"/src/hostile","sessionId":%q,"version":"2.0.64","type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":%q}]},"uuid":"a1-%s","timestamp":%q}`, id[:8], id, text, id[:8], ts)
		},
		unknown: func(id, ts string) string {
			return fmt.Sprintf(`{"type":"hologram","sessionId":%q,"uuid":"h-%s","timestamp":%q}`+"\n"+`{"parentUuid":"u1-%s","sessionId":%q,"type":"assistant","message":{"role":"assistant","content":[{"type":"hologram_block","x":1}]},"uuid":"h2-%s","timestamp":%q}`, id, id[:8], ts, id[:8], id, id[:8], ts)
		},
		wrongTypes: func(id, ts string) []string {
			return []string{
				fmt.Sprintf(`{"type":"user","sessionId":%q,"message":{"role":"user","content":42},"uuid":7,"timestamp":12}`, id),
				fmt.Sprintf(`{"type":"assistant","sessionId":%q,"message":"not an object","timestamp":"x"}`, id),
				fmt.Sprintf(`{"type":"assistant","sessionId":%q,"message":{"role":"assistant","content":[{"type":"text","text":{"x":1}}]}}`, id),
				`{"type":17}`,
				`[1,2,3]`,
			}
		},
	},
}

// hostileCase is one kind of broken transcript. build returns the file's
// bytes; the broken line, if any, always follows the header and the first
// user message. errLine says what scan must report: 1 names that broken
// line, 0 requires nothing, -1 requires an error naming the file.
type hostileCase struct {
	name     string
	build    func(f hostileFormat, id, ts string, rng *rand.Rand) []byte
	errLine  int
	readable bool // the thread must be indexed with its preview
}

func joinLines(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

var hostileCases = []hostileCase{
	{name: "truncated", errLine: 1, readable: true, build: func(f hostileFormat, id, ts string, _ *rand.Rand) []byte {
		r := f.reply(id, ts, "cut short")
		return []byte(f.header(id, ts) + "\n" + f.user(id, ts, "hostile truncated") + "\n" + r[:len(r)/2])
	}},
	{name: "invalid-utf8", errLine: 1, readable: true, build: func(f hostileFormat, id, ts string, _ *rand.Rand) []byte {
		bad := strings.Replace(f.reply(id, ts, "caf\u00e9 BAD"), "BAD", "\xc3\x28\xff\xfe", 1)
		return joinLines(f.header(id, ts), f.user(id, ts, "hostile invalid-utf8"), bad, f.reply(id, ts, "fine"))
	}},
	{name: "nul-bytes", errLine: 1, readable: true, build: func(f hostileFormat, id, ts string, _ *rand.Rand) []byte {
		return joinLines(f.header(id, ts), f.user(id, ts, "hostile nul-bytes"), "\x00\x00{\"type\":\"mess\x00age\"}\x00", f.reply(id, ts, "fine"))
	}},
	{name: "huge-line", errLine: 0, readable: true, build: func(f hostileFormat, id, ts string, _ *rand.Rand) []byte {
		// 20 MB in one source is the point; 2 MB in the others keeps
		// the test quick under -race.
		size := 2 << 20
		if f.kind == "jsonl" {
			size = 20 << 20
		}
		huge := f.reply(id, ts, strings.Repeat("a", size))
		return joinLines(f.header(id, ts), f.user(id, ts, "hostile huge-line"), huge, f.reply(id, ts, "fine"))
	}},
	{name: "deep-nesting", errLine: 1, readable: true, build: func(f hostileFormat, id, ts string, _ *rand.Rand) []byte {
		const depth = 100_000
		arr := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		obj := `{"type":"message","x":` + strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth) + "}"
		return joinLines(f.header(id, ts), f.user(id, ts, "hostile deep-nesting"), arr, obj, f.reply(id, ts, "fine"))
	}},
	{name: "wrong-types", errLine: 0, readable: true, build: func(f hostileFormat, id, ts string, _ *rand.Rand) []byte {
		lines := append([]string{f.header(id, ts), f.user(id, ts, "hostile wrong-types")}, f.wrongTypes(id, ts)...)
		return joinLines(append(lines, f.reply(id, ts, "fine"))...)
	}},
	{name: "unknown-items", errLine: 0, readable: true, build: func(f hostileFormat, id, ts string, _ *rand.Rand) []byte {
		return joinLines(f.header(id, ts), f.user(id, ts, "hostile unknown-items"), f.unknown(id, ts), f.reply(id, ts, "fine"))
	}},
	{name: "crlf", errLine: 0, readable: true, build: func(f hostileFormat, id, ts string, _ *rand.Rand) []byte {
		return []byte(strings.Join([]string{f.header(id, ts), f.user(id, ts, "hostile crlf"), f.reply(id, ts, "fine")}, "\r\n") + "\r\n")
	}},
	{name: "empty", errLine: 0, build: func(hostileFormat, string, string, *rand.Rand) []byte { return nil }},
	{name: "random-bytes", errLine: -1, build: func(_ hostileFormat, _, _ string, rng *rand.Rand) []byte {
		b := make([]byte, 8192)
		rng.Read(b)
		return b
	}},
}

type scanError struct {
	Path  string `json:"path"`
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// TestScanSurvivesHostileTranscripts puts every kind of broken transcript
// into a jsonl, a codex and a claude-code source and runs the real CLI:
// scan exits 0, names the file and line of each broken line, and indexes
// every thread that has something readable; extraction then works on them.
func TestScanSurvivesHostileTranscripts(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "sources")
	home := filepath.Join(dir, "home")
	madeHome(t, home)
	rng := rand.New(rand.NewSource(1))
	ts := time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)

	type planted struct {
		format, name, path, id string
		c                      hostileCase
		brokenLine             int
	}
	var files []planted
	for fi, f := range hostileFormats {
		d := f.dir(src)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		for ci, c := range hostileCases {
			id := fmt.Sprintf("00000000-0000-4000-8%03d-%012d", fi, ci)
			p := filepath.Join(d, f.name(id))
			if err := os.WriteFile(p, c.build(f, id, ts, rng), 0o600); err != nil {
				t.Fatal(err)
			}
			broken := strings.Count(f.header(id, ts)+"\n"+f.user(id, ts, "x")+"\n", "\n") + 1
			files = append(files, planted{f.kind, c.name, p, id, c, broken})
		}
		// A directory named like a transcript is not one.
		fake := filepath.Join(d, f.name(fmt.Sprintf("00000000-0000-4000-8%03d-999999999999", fi)))
		if err := os.MkdirAll(filepath.Join(fake, "inner"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg := fmt.Sprintf(`[provider]
kind = "heuristic"
[[sources]]
kind = "jsonl"
path = %q
[[sources]]
kind = "codex"
path = %q
[[sources]]
kind = "claude-code"
path = %q
`, filepath.Join(src, "jsonl"), filepath.Join(src, "codex", "sessions"), filepath.Join(src, "claude"))
	cfgPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath}

	start := time.Now()
	var stdout, stderr bytes.Buffer
	c := cliProcess(env, "scan", "--json")
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("scan: %v\n%s", err, stderr.String())
	}
	t.Logf("scan of %d hostile files took %v", len(files), time.Since(start).Round(time.Millisecond))
	var res struct {
		Scanned int         `json:"scanned"`
		Errors  []scanError `json:"errors"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("scan --json: %v\n%s", err, stdout.String())
	}
	byPath := map[string][]scanError{}
	for _, e := range res.Errors {
		if e.Path == "" || e.Error == "" {
			t.Errorf("error without path or message: %+v", e)
		}
		byPath[e.Path] = append(byPath[e.Path], e)
	}

	list, err := cliProcess(env, "threads", "list", "--json").Output()
	if err != nil {
		t.Fatalf("threads list: %v\n%s", err, stderrOf(err))
	}
	var rows []struct {
		ID      string `json:"id"`
		Path    string `json:"path"`
		Preview string `json:"preview"`
	}
	if err := json.Unmarshal(list, &rows); err != nil {
		t.Fatal(err)
	}
	rowByID := map[string]int{}
	for i, r := range rows {
		rowByID[r.ID] = i
		if strings.Contains(r.Path, "999999999999") {
			t.Errorf("a directory was indexed as a thread: %+v", r)
		}
		if strings.ContainsAny(r.Preview, "\r\x00") {
			t.Errorf("preview of %s carries a CR or NUL: %q", r.ID, r.Preview)
		}
	}

	for _, p := range files {
		label := p.format + "/" + p.name
		errs := byPath[p.path]
		switch {
		case p.c.errLine > 0:
			found := false
			for _, e := range errs {
				found = found || e.Line == p.brokenLine
			}
			if !found {
				t.Errorf("%s: scan errors %+v do not name line %d of %s", label, errs, p.brokenLine, p.path)
			}
		case p.c.errLine < 0:
			if len(errs) == 0 {
				t.Errorf("%s: scan reported no problem for %s", label, p.path)
			}
		}
		for _, e := range errs {
			if p.c.name != "empty" && p.c.name != "random-bytes" && e.Line == 0 && !strings.Contains(e.Error, "more problems") {
				t.Errorf("%s: error without a line: %+v", label, e)
			}
		}
		if p.c.readable {
			i, ok := rowByID[p.id]
			if !ok {
				t.Errorf("%s: thread %s not indexed (errors %+v)", label, p.id, errs)
				continue
			}
			if want := "hostile " + p.c.name; rows[i].Preview != want {
				t.Errorf("%s: preview %q, want %q", label, rows[i].Preview, want)
			}
		}
	}

	// The readers must also survive extraction of everything readable.
	b, err := cliProcess(env, "extract", "--all", "--max", "128", "--json").Output()
	if err != nil {
		t.Fatalf("extract over hostile transcripts: %v\n%s\n%s", err, b, stderrOf(err))
	}
	var ex struct {
		Failed int `json:"failed"`
		Jobs   []struct {
			ThreadID string `json:"thread_id"`
			Status   string `json:"status"`
			Error    string `json:"error"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatal(err)
	}
	done := map[string]string{}
	for _, j := range ex.Jobs {
		done[j.ThreadID] = j.Status
	}
	for _, p := range files {
		if p.c.readable && done[p.id] != "succeeded" {
			t.Errorf("%s/%s: extraction status %q, want succeeded", p.format, p.c.name, done[p.id])
		}
	}
	// A second scan finds nothing new and still exits 0.
	b, err = cliProcess(env, "scan", "--json").Output()
	if err != nil || !strings.Contains(string(b), fmt.Sprintf(`"unchanged": %d`, res.Scanned)) {
		t.Errorf("rescan: %v\n%s", err, b)
	}
}

// runCLI runs memctl and returns its stdout, stderr and exit code.
func runCLI(t *testing.T, env []string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	c := cliProcess(env, args...)
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	if stdin != "" {
		c.Stdin = strings.NewReader(stdin)
	}
	err := c.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errOut.String(), 0
	case errors.As(err, &ee):
		return out.String(), errOut.String(), ee.ExitCode()
	}
	t.Fatalf("memctl %s: %v", strings.Join(args, " "), err)
	return "", "", -1
}

// TestBadConfigs feeds broken config files and values to the real CLI:
// each is exit 2 with a message naming the file and the key or line;
// values out of range are clamped, not refused.
func TestBadConfigs(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	madeHome(t, home)
	tests := []struct {
		name  string
		file  string            // config text ("" with setup: see setup)
		setup func(path string) // makes path something other than a file
		env   []string
		args  []string
		want  []string // substrings of stderr (the file's path is always checked)
	}{
		{name: "unknown key", file: "[memories]\nversion = \"v1\"\nmax_unused_dayz = 3\n", want: []string{":3:", `"memories.max_unused_dayz"`, "unknown key"}},
		{name: "unknown section", file: "\n[memory]\nversion = \"v1\"\n", want: []string{":2:", `"memory"`}},
		{name: "unknown source key", file: "[[sources]]\nkind = \"jsonl\"\npath = \"/x\"\nglob = \"*.jsonl\"\n", want: []string{":4:", "glob"}},
		{name: "string for an integer", file: "[memories]\n\nmax_unused_days = \"thirty\"\n", want: []string{":3:", "memories.max_unused_days"}},
		{name: "float for an integer", file: "[memories]\nmax_unused_days = 3.5\n", want: []string{":2:", "memories.max_unused_days"}},
		{name: "string for a bool", file: "[memories]\nuse_memories = \"yes\"\n", want: []string{":2:", "memories.use_memories"}},
		{name: "string for an array", file: "[provider]\ncommand = \"sh -c true\"\n", want: []string{":2:", "provider.command"}},
		{name: "number in an array", file: "[provider]\ncommand = [\"sh\", 1]\n", want: []string{":2:", "provider.command"}},
		{name: "table for a string", file: "[provider]\nkind = { name = \"openai\" }\n", want: []string{":2:", "provider.kind"}},
		{name: "bad enum", file: "[consolidation]\nmode = \"magic\"\n", want: []string{":2:", "consolidation.mode", "magic"}},
		{name: "bad duration", file: "[provider]\ntimeout = \"soon\"\n", want: []string{":2:", "provider.timeout"}},
		{name: "negative duration", file: "[consolidation]\n\nagent_timeout = \"-5m\"\n", want: []string{":3:", "consolidation.agent_timeout"}},
		{name: "bad source kind", file: "[[sources]]\nkind = \"aider\"\npath = \"/x\"\n", want: []string{"sources[0].kind", "aider"}},
		{name: "empty source path", file: "[[sources]]\nkind = \"jsonl\"\npath = \"\"\n", want: []string{"sources[0].path"}},
		{name: "syntax error", file: "[memories]\nversion = \"v1\"\nmax_unused_days = = 3\n", want: []string{":3:"}},
		{name: "unclosed table", file: "[memories\nversion = \"v1\"\n", want: []string{":1:"}},
		{name: "duplicate key", file: "[memories]\nversion = \"v1\"\nversion = \"v2\"\n", want: []string{":3:", "version"}},
		{name: "invalid UTF-8", file: "[memories]\nversion = \"v\xff\"\n", want: []string{":2:"}},
		{name: "NUL byte", file: "[memories]\nversion = \"v1\"\x00\n", want: []string{":2:"}},
		{name: "directory as config", setup: func(p string) { os.MkdirAll(filepath.Join(p, "x"), 0o700) }, want: []string{"is a directory"}},
		{name: "symlink loop", setup: func(p string) { os.Symlink(p, p) }, want: []string{"symbolic links"}},
		{name: "parent is a file", setup: func(p string) {}, want: []string{"not a directory"}},
		{name: "missing explicit config", setup: func(p string) {}, want: []string{"no such file"}},
		{name: "bad env value", file: "", env: []string{"MEMCTL_MEMORIES_MAX_UNUSED_DAYS=thirty"}, want: []string{"memories.max_unused_days", "MEMCTL_MEMORIES_MAX_UNUSED_DAYS"}},
		{name: "bad env enum", file: "", env: []string{"MEMCTL_PROVIDER_KIND=gpt"}, want: []string{"provider.kind", "MEMCTL_PROVIDER_KIND"}},
		{name: "bad flag value", file: "", args: []string{"--memory-version", "v3", "status"}, want: []string{"v3"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("config-%02d.toml", i))
			switch {
			case tt.name == "parent is a file":
				os.WriteFile(filepath.Join(dir, "plain"), []byte("x"), 0o600)
				path = filepath.Join(dir, "plain", "config.toml")
			case tt.name == "missing explicit config":
				path = filepath.Join(dir, "nowhere.toml")
			case tt.setup != nil:
				tt.setup(path)
			default:
				if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := append([]string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + path}, tt.env...)
			args := tt.args
			if args == nil {
				args = []string{"status"}
			}
			for _, asJSON := range []bool{false, true} {
				a := args
				if asJSON {
					a = append([]string{"--json"}, args...)
				}
				stdout, stderr, code := runCLI(t, env, "", a...)
				if code != ExitUsage {
					t.Errorf("memctl %s: exit %d, want %d\nstderr: %s", strings.Join(a, " "), code, ExitUsage, stderr)
				}
				if stdout != "" {
					t.Errorf("memctl %s printed data on stdout: %s", strings.Join(a, " "), stdout)
				}
				want := tt.want
				if tt.env == nil && tt.args == nil {
					want = append(want, filepath.Base(path))
				}
				for _, w := range want {
					if !strings.Contains(stderr, w) && !strings.Contains(stderr, strings.ReplaceAll(w, `"`, `\"`)) {
						t.Errorf("memctl %s: stderr lacks %q:\n%s", strings.Join(a, " "), w, stderr)
					}
				}
				if asJSON {
					var e struct {
						Code  int    `json:"code"`
						Error string `json:"error"`
					}
					if err := json.Unmarshal([]byte(stderr), &e); err != nil || e.Code != ExitUsage || e.Error == "" {
						t.Errorf("--json error is not one JSON document with code 2: %v\n%s", err, stderr)
					}
				}
			}
		})
	}

	t.Run("unreadable file", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root reads any file; the symlink-loop case covers an unopenable config")
		}
		path := filepath.Join(dir, "unreadable.toml")
		os.WriteFile(path, []byte("[memories]\n"), 0o000)
		_, stderr, code := runCLI(t, []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + path}, "", "status")
		if code != ExitUsage || !strings.Contains(stderr, "unreadable.toml") || !strings.Contains(stderr, "permission denied") {
			t.Errorf("exit %d, stderr %s", code, stderr)
		}
	})

	t.Run("out of range values are clamped", func(t *testing.T) {
		path := filepath.Join(dir, "clamps.toml")
		os.WriteFile(path, []byte(`[memories]
max_raw_memories_for_consolidation = 100000
max_unused_days = -5
max_rollout_age_days = 1000
max_rollouts_per_startup = 0
min_rollout_idle_hours = 100
min_rate_limit_remaining_percent = 250
[provider]
max_retries = 99
[extract]
concurrency = 0
`), 0o600)
		stdout, stderr, code := runCLI(t, []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + path}, "", "config", "show", "--json")
		if code != 0 {
			t.Fatalf("config show: exit %d\n%s", code, stderr)
		}
		var show struct {
			Entries []struct {
				Key    string `json:"key"`
				Value  any    `json:"value"`
				Origin string `json:"origin"`
			} `json:"entries"`
		}
		if err := json.Unmarshal([]byte(stdout), &show); err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{
			"memories.max_raw_memories_for_consolidation": 4096, "memories.max_unused_days": 0,
			"memories.max_rollout_age_days": 90, "memories.max_rollouts_per_startup": 1,
			"memories.min_rollout_idle_hours": 48, "memories.min_rate_limit_remaining_percent": 100,
			"provider.max_retries": 20, "extract.concurrency": 1,
		}
		for _, e := range show.Entries {
			if w, ok := want[e.Key]; ok {
				if e.Value != w || e.Origin != "file" {
					t.Errorf("%s = %v (%s), want %v from the file", e.Key, e.Value, e.Origin, w)
				}
				delete(want, e.Key)
			}
		}
		if len(want) > 0 {
			t.Errorf("config show lacks %v", want)
		}
	})
}

// answerScript is a command provider that prints the file named by
// $HOSTILE_ANSWER and exits with $HOSTILE_EXIT (default 0).
const answerScript = `#!/bin/sh
cat >/dev/null
if [ -n "$HOSTILE_ANSWER" ]; then cat "$HOSTILE_ANSWER"; fi
if [ -n "$HOSTILE_STDERR" ]; then echo "$HOSTILE_STDERR" >&2; fi
exit ${HOSTILE_EXIT:-0}
`

// listTree returns every path under dir (relative, slash-separated) with
// its size and modification time, symlinks not followed.
func listTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if fi.IsDir() {
			// A directory's own mtime moves with the database journal;
			// what it holds is listed entry by entry.
			out[filepath.ToSlash(rel)] = fi.Mode().String()
			return nil
		}
		out[filepath.ToSlash(rel)] = fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHostileModelAnswers plays a model that breaks the schema, answers
// nothing, fails, or names its rollout with path tricks.
// Broken answers are failed jobs (exit 3) with their reason and store
// nothing; path tricks are stored but sanitised when consolidation names
// files, and nothing is written outside the memory folder. A failing
// extraction of a newer version keeps the previous raw memory.
func TestHostileModelAnswers(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	madeHome(t, home)
	src := filepath.Join(dir, "transcripts")
	answers := filepath.Join(dir, "answers")
	os.MkdirAll(answers, 0o700)
	updated := time.Now().Add(-24 * time.Hour)
	const threads = 20
	writeJSONLThreads(t, src, threads, updated)
	provider := filepath.Join(dir, "provider.sh")
	if err := os.WriteFile(provider, []byte(answerScript), 0o700); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "config.toml")
	cfg := fmt.Sprintf("[provider]\nkind = \"command\"\ncommand = [%q]\ntimeout = \"60s\"\n[consolidation]\nmode = \"heuristic\"\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", provider, src)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	baseEnv := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath}
	id := func(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }
	valid := func(slug string) string {
		b, _ := json.Marshal(map[string]string{
			"raw_memory":      "---\ndescription: hostile answer test\n---\n### Task 1\ntask: slug " + slug,
			"rollout_summary": "# Summary for slug " + slug,
			"rollout_slug":    slug,
		})
		return string(b)
	}

	tests := []struct {
		name    string
		answer  string
		exit    string // provider exit code
		stderr  string // provider stderr
		stored  bool
		wantErr string // substring of the job's error
	}{
		{name: "wrong type", answer: `{"raw_memory":5,"rollout_summary":"s","rollout_slug":"x"}`, wantErr: "raw_memory"},
		{name: "missing field", answer: `{"rollout_summary":"s","rollout_slug":"x"}`, wantErr: "raw_memory"},
		{name: "extra field", answer: `{"raw_memory":"r","rollout_summary":"s","rollout_slug":"x","shell":"rm -rf /"}`, wantErr: "shell"},
		{name: "array", answer: `[{"raw_memory":"r","rollout_summary":"s","rollout_slug":"x"}]`, wantErr: "JSON object"},
		{name: "prose", answer: "Sure! Here is the memory you asked for.", wantErr: "JSON object"},
		{name: "two objects", answer: valid("a") + valid("b"), wantErr: "more than one"},
		{name: "truncated", answer: valid("cut")[:30], wantErr: "JSON"},
		{name: "empty", answer: "", wantErr: "no answer"},
		{name: "whitespace", answer: " \n\t\n", wantErr: "no answer"},
		{name: "non-zero exit", answer: valid("x"), exit: "7", stderr: "model quota exhausted", wantErr: "quota exhausted"},
		{name: "invalid UTF-8", answer: "{\"raw_memory\":\"r\xff\",\"rollout_summary\":\"s\",\"rollout_slug\":\"x\"}", stored: true},
		{name: "dot-dot slug", answer: valid("../../x"), stored: true},
		{name: "absolute slug", answer: valid("/etc/passwd"), stored: true},
		{name: "backslash slug", answer: valid(`..\..\x`), stored: true},
		{name: "NUL slug", answer: valid("a\x00/../b"), stored: true},
		{name: "long slug", answer: valid(strings.Repeat("../", 200)), stored: true},
		{name: "unicode slug", answer: valid("überfix/\u202e\u0000.md"), stored: true},
		{name: "dot slug", answer: valid("."), stored: true},
	}
	if len(tests) > threads {
		t.Fatal("more cases than threads")
	}
	passwd, _ := os.Stat("/etc/passwd")
	for i, tt := range tests {
		ans := filepath.Join(answers, fmt.Sprintf("%02d.json", i))
		if err := os.WriteFile(ans, []byte(tt.answer), 0o600); err != nil {
			t.Fatal(err)
		}
		env := append(append([]string{}, baseEnv...), "HOSTILE_ANSWER="+ans, "HOSTILE_EXIT="+tt.exit, "HOSTILE_STDERR="+tt.stderr)
		stdout, stderr, code := runCLI(t, env, "", "extract", "--all", "--thread", id(i), "--json")
		var res struct {
			Claimed int `json:"claimed"`
			Jobs    []struct {
				ThreadID string `json:"thread_id"`
				Status   string `json:"status"`
				Error    string `json:"error"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Errorf("%s: extract --json: %v\n%s\n%s", tt.name, err, stdout, stderr)
			continue
		}
		if res.Claimed != 1 || len(res.Jobs) != 1 {
			t.Errorf("%s: claimed %d, %d jobs", tt.name, res.Claimed, len(res.Jobs))
			continue
		}
		job := res.Jobs[0]
		if tt.stored {
			if code != 0 || job.Status != "succeeded" {
				t.Errorf("%s: exit %d, status %q (%s), want 0 and succeeded", tt.name, code, job.Status, job.Error)
			}
		} else {
			if code != ExitPartial || job.Status != "failed" || !strings.Contains(job.Error, tt.wantErr) {
				t.Errorf("%s: exit %d, status %q, error %q; want %d, failed, an error naming %q", tt.name, code, job.Status, head(job.Error, 300), ExitPartial, tt.wantErr)
			}
			if len(stdout)+len(stderr) > 1<<20 {
				t.Errorf("%s: %d bytes of output for one failed job", tt.name, len(stdout)+len(stderr))
			}
		}
		show, _, _ := runCLI(t, baseEnv, "", "threads", "show", id(i), "--json")
		var s struct {
			Memory *struct {
				RawMemory   string `json:"raw_memory"`
				RolloutSlug string `json:"rollout_slug"`
			} `json:"memory"`
		}
		json.Unmarshal([]byte(show), &s)
		if (s.Memory != nil) != tt.stored {
			t.Errorf("%s: memory stored = %v, want %v", tt.name, s.Memory != nil, tt.stored)
		}
	}
	// The failures are recorded with their reason for status to report.
	stdout, _, _ := runCLI(t, baseEnv, "", "status", "--json")
	if !strings.Contains(stdout, "quota exhausted") {
		t.Errorf("status does not report the recorded failure reasons:\n%s", head(stdout, 2000))
	}

	// Consolidation names summary files from the slugs: sanitised, inside
	// the folder, nothing written anywhere else.
	before := listTree(t, dir)
	stdout, stderr, code := runCLI(t, baseEnv, "", "consolidate", "--json")
	if code != 0 || !strings.Contains(stdout, `"status": "succeeded"`) {
		t.Fatalf("consolidate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	after := listTree(t, dir)
	for p, v := range after {
		if strings.HasPrefix(p, "home/memories/") || p == "home/memories" {
			continue
		}
		if strings.HasPrefix(p, "home/memories_1.sqlite") || p == "home/backups" || p == "home/backups/memories_1.sqlite" {
			continue // the database, its journal and its daily backup
		}
		if before[p] != v {
			t.Errorf("consolidate changed %s outside the memory folder (%q -> %q)", p, before[p], v)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok && !strings.HasPrefix(p, "home/") {
			t.Errorf("consolidate removed %s", p)
		}
	}
	if st, err := os.Stat("/etc/passwd"); err == nil && passwd != nil && !st.ModTime().Equal(passwd.ModTime()) {
		t.Errorf("/etc/passwd changed")
	}
	summaries, _ := os.ReadDir(filepath.Join(home, "memories", "rollout_summaries"))
	stored := 0
	for _, tt := range tests {
		if tt.stored {
			stored++
		}
	}
	if len(summaries) != stored {
		t.Errorf("%d rollout summaries, want %d", len(summaries), stored)
	}
	for _, e := range summaries {
		n := e.Name()
		t.Logf("rollout summary file: %s", n)
		if !e.Type().IsRegular() || !rolloutSummaryName(n) {
			t.Errorf("rollout summary file %q is not a sanitised name", n)
		}
	}

	// A newer version of a thread whose extraction fails keeps the raw
	// memory of the previous version.
	keep := -1
	for i, tt := range tests {
		if tt.name == "dot-dot slug" {
			keep = i
		}
	}
	showMemory := func() string {
		out, errOut, code := runCLI(t, baseEnv, "", "threads", "show", id(keep), "--json")
		if code != 0 {
			t.Fatalf("threads show: %s", errOut)
		}
		var s struct {
			Memory *struct {
				RawMemory string `json:"raw_memory"`
			} `json:"memory"`
		}
		json.Unmarshal([]byte(out), &s)
		if s.Memory == nil {
			return ""
		}
		return s.Memory.RawMemory
	}
	old := showMemory()
	if !strings.Contains(old, "slug ../../x") {
		t.Fatalf("raw memory before the update: %q", old)
	}
	appendTurn(t, src, keep, time.Now().Add(-2*time.Hour), 1)
	env := append(append([]string{}, baseEnv...), "HOSTILE_ANSWER="+filepath.Join(answers, "00.json"))
	stdout, stderr, code = runCLI(t, env, "", "extract", "--all", "--thread", id(keep), "--json")
	if code != ExitPartial || !strings.Contains(stdout, `"status": "failed"`) {
		t.Errorf("extracting the new version: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got := showMemory(); got != old {
		t.Errorf("the failed extraction of a newer version replaced the raw memory:\nbefore %q\nafter  %q", old, got)
	}
	stdout, _, code = runCLI(t, baseEnv, "", "consolidate", "--force", "--json")
	if code != 0 || !strings.Contains(stdout, `"selected": `+fmt.Sprint(stored)) {
		t.Errorf("consolidate after the failed update: exit %d\n%s", code, stdout)
	}
	raw, _ := os.ReadFile(filepath.Join(home, "memories", "raw_memories.md"))
	if !strings.Contains(string(raw), "slug ../../x") {
		t.Errorf("raw_memories.md lost the previous memory of %s", id(keep))
	}
}

// rolloutSummaryName reports whether n is <YYYY-MM-DDTHH-MM-SS>-<hash4>
// [-<slug of [a-z0-9_]>].md, the only shape consolidation may write.
func rolloutSummaryName(n string) bool {
	stem, ok := strings.CutSuffix(n, ".md")
	if !ok || len(stem) < 24 || len(n) > 255 {
		return false
	}
	if _, err := time.Parse("2006-01-02T15-04-05", stem[:19]); err != nil || stem[19] != '-' {
		return false
	}
	for i, r := range stem[20:] {
		switch {
		case i < 4 && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'):
		case i == 4 && r == '-':
		case i > 4 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_'):
		default:
			return false
		}
	}
	return len(stem) == 24 || len(stem) > 25
}

// TestCommandProviderRefusesHugeAnswer: an answer over the command
// provider's 16 MiB stdout limit is a failed job, not a 20 MB raw memory.
func TestCommandProviderRefusesHugeAnswer(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	madeHome(t, home)
	src := filepath.Join(dir, "transcripts")
	writeJSONLThreads(t, src, 1, time.Now().Add(-24*time.Hour))
	provider := filepath.Join(dir, "provider.sh")
	if err := os.WriteFile(provider, []byte(answerScript), 0o700); err != nil {
		t.Fatal(err)
	}
	ans := filepath.Join(dir, "answer.json")
	huge := `{"raw_memory":"` + strings.Repeat("m", 20<<20) + `","rollout_summary":"s","rollout_slug":"huge"}`
	if err := os.WriteFile(ans, []byte(huge), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "config.toml")
	cfg := fmt.Sprintf("[provider]\nkind = \"command\"\ncommand = [%q]\ntimeout = \"60s\"\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", provider, src)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath, "HOSTILE_ANSWER=" + ans}
	stdout, stderr, code := runCLI(t, env, "", "extract", "--all", "--json")
	if code != ExitPartial || !strings.Contains(stdout, `"status": "failed"`) || !strings.Contains(stdout, "larger than") {
		t.Errorf("a 20 MB answer: exit %d, want %d and a failed job naming the limit\n%s\n%s", code, ExitPartial, head(stdout, 600), head(stderr, 600))
	}
	show, _, _ := runCLI(t, env, "", "threads", "show", "00000000-0000-4000-8000-000000000000", "--json")
	if strings.Contains(show, "mmmmmmmmmm") {
		t.Errorf("the 20 MB answer was stored as a raw memory")
	}
}

// TestAgentConsolidatorSymlinks lets an agent consolidator leave symbolic
// links to things outside the memory folder: next to the artifacts, in
// place of memory_summary.md, in place of skills/. Each run fails, the
// link targets are untouched, and the previous artifacts are back.
func TestAgentConsolidatorSymlinks(t *testing.T) {
	tests := []struct {
		name, script string
	}{
		{"extra link", `ln -s "$OUTSIDE/target.md" notes-link.md`},
		{"summary replaced by a link", `rm -f memory_summary.md; ln -s "$OUTSIDE/target.md" memory_summary.md`},
		{"MEMORY.md replaced by a link", `rm -f MEMORY.md; ln -s "$OUTSIDE/target.md" MEMORY.md`},
		{"skills replaced by a link", `rm -rf skills; ln -s "$OUTSIDE/dir" skills`},
		{"link inside rollout_summaries", `ln -s "$OUTSIDE/target.md" rollout_summaries/zz.md`},
		{"link to a directory", `ln -s "$OUTSIDE/dir" extensions/escape`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			madeHome(t, home)
			src := filepath.Join(dir, "transcripts")
			outside := filepath.Join(dir, "outside")
			os.MkdirAll(filepath.Join(outside, "dir"), 0o700)
			target := filepath.Join(outside, "target.md")
			const targetText = "the user's own file; memctl must never write here\n"
			os.WriteFile(target, []byte(targetText), 0o644)
			os.WriteFile(filepath.Join(outside, "dir", "keep.md"), []byte("keep\n"), 0o644)
			writeJSONLThreads(t, src, 3, time.Now().Add(-24*time.Hour))

			// The agent writes valid artifacts, then leaves its links, so
			// only the links can fail the run. (An agent writing through
			// a link itself is beyond what memctl can stop: that is the
			// agent sandbox's job.)
			agent := filepath.Join(dir, "agent.sh")
			script := `#!/bin/sh
cat >/dev/null
mkdir -p skills/agent-skill
printf '# Memory\n\nRewritten by the agent.\n' > MEMORY.md
printf "v1\n\n## What's in Memory\n\n- rewritten by the agent\n" > memory_summary.md
printf 'agent skill\n' > skills/agent-skill/SKILL.md
printf 'written by the agent\n' > projects/personal.md
` + tt.script + "\n"
			os.WriteFile(agent, []byte(script), 0o700)
			cfgPath := filepath.Join(dir, "config.toml")
			cfg := fmt.Sprintf("[provider]\nkind = \"heuristic\"\n[consolidation]\nmode = \"heuristic\"\nagent_command = [\"/bin/sh\", %q]\nagent_timeout = \"60s\"\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", agent, src)
			os.WriteFile(cfgPath, []byte(cfg), 0o600)
			env := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath, "OUTSIDE=" + outside}
			if out, errOut, code := runCLI(t, env, "", "run", "--all"); code != 0 {
				t.Fatalf("first run: exit %d\n%s%s", code, out, errOut)
			}
			root := filepath.Join(home, "memories")
			read := func(rel string) string {
				b, _ := os.ReadFile(filepath.Join(root, rel))
				return string(b)
			}
			prevMemory, prevSummary, prevPersonal := read("MEMORY.md"), read("memory_summary.md"), read("projects/personal.md")
			if prevMemory == "" || !strings.HasPrefix(prevSummary, "v1\n") || !strings.Contains(prevPersonal, "## Personal layer") {
				t.Fatalf("no previous artifacts:\n%s\n%s", prevMemory, prevSummary)
			}
			outsideBefore := listTree(t, outside)

			// A note is a change, so the agent really runs.
			if _, errOut, code := runCLI(t, env, "", "note", "add", "--slug", "agent-test", "remember the symlink test"); code != 0 {
				t.Fatalf("note add: %s", errOut)
			}
			stdout, stderr, code := runCLI(t, env, "", "consolidate", "--mode", "agent", "--force", "--json")
			var res struct {
				Status string `json:"status"`
				Error  string `json:"error"`
			}
			json.Unmarshal([]byte(stdout), &res)
			// The reason is in the result document (CLI.md) or, as the
			// command is written today, only in the error on stderr.
			if code != ExitError || !strings.Contains(res.Status+stderr, "failed_invalid_artifacts") || !strings.Contains(res.Error+stderr, "symbolic link") {
				t.Errorf("consolidate: exit %d, status %q; want %d and failed_invalid_artifacts naming the links\n%s\n%s", code, res.Status, ExitError, stdout, stderr)
			}
			if b, _ := os.ReadFile(target); string(b) != targetText {
				t.Errorf("the link target outside the folder changed: %q", b)
			}
			if after := listTree(t, outside); fmt.Sprint(after) != fmt.Sprint(outsideBefore) {
				t.Errorf("the folder outside changed:\nbefore %v\nafter  %v", outsideBefore, after)
			}
			if got := read("MEMORY.md"); got != prevMemory {
				t.Errorf("MEMORY.md not restored:\n%s", got)
			}
			if got := read("memory_summary.md"); got != prevSummary {
				t.Errorf("memory_summary.md not restored:\n%s", got)
			}
			if _, err := os.Lstat(filepath.Join(root, "skills", "agent-skill", "SKILL.md")); err == nil {
				t.Errorf("the failed run's skill was kept")
			}
			if ents, err := os.ReadDir(filepath.Join(root, "skills", "agent-skill")); err == nil {
				t.Logf("the failed run left skills/agent-skill/ behind with %d entries", len(ents))
			}
			filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode()&os.ModeSymlink != 0 {
					t.Errorf("symlink %s left in the memory folder", p)
				}
				return nil
			})
			// summary serves the previous memory, not the outside file.
			if got := read("projects/personal.md"); got != prevPersonal {
				t.Errorf("the failed run left its projects/personal.md:\n%s", got)
			}
			out, _, _ := runCLI(t, env, "", "summary", "--raw", "--all-projects")
			if out != prevSummary {
				t.Errorf("summary --raw after the failed run:\n%s", out)
			}
		})
	}
}

// TestSymlinkedMemoryRootIsRefused: a memory folder that is a link to
// somewhere else is never written through.
func TestSymlinkedMemoryRootIsRefused(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	madeHome(t, home)
	src := filepath.Join(dir, "transcripts")
	elsewhere := filepath.Join(dir, "elsewhere")
	os.MkdirAll(elsewhere, 0o700)
	os.MkdirAll(home, 0o700)
	os.WriteFile(filepath.Join(elsewhere, "MEMORY.md"), []byte("not memctl's\n"), 0o600)
	if err := os.Symlink(elsewhere, filepath.Join(home, "memories")); err != nil {
		t.Fatal(err)
	}
	writeJSONLThreads(t, src, 2, time.Now().Add(-24*time.Hour))
	cfgPath := filepath.Join(dir, "config.toml")
	os.WriteFile(cfgPath, []byte(fmt.Sprintf("[provider]\nkind = \"heuristic\"\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", src)), 0o600)
	env := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath}
	before := listTree(t, elsewhere)
	for _, args := range [][]string{{"run", "--all"}, {"consolidate", "--force"}, {"note", "add", "--slug", "x", "text"}, {"clear", "--yes"}} {
		_, stderr, code := runCLI(t, env, "", args...)
		if code == 0 {
			t.Errorf("memctl %s: exit 0 through a symlinked memory folder", strings.Join(args, " "))
		}
		if !strings.Contains(stderr, "symbolic link") && !strings.Contains(stderr, "symlink") {
			t.Errorf("memctl %s: stderr does not say why:\n%s", strings.Join(args, " "), stderr)
		}
	}
	if after := listTree(t, elsewhere); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the link target changed:\nbefore %v\nafter  %v", before, after)
	}
}

// TestConsolidateJSONReportsFailure: CLI.md promises a --json result whose
// status is the failed_… reason; a failing consolidator must still print
// it (and exit 1), for consolidate as for run.
func TestConsolidateJSONReportsFailure(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "transcripts")
	writeJSONLThreads(t, src, 2, time.Now().Add(-24*time.Hour))
	agent := filepath.Join(dir, "agent.sh")
	os.WriteFile(agent, []byte("#!/bin/sh\ncat >/dev/null\necho 'agent gave up' >&2\nexit 4\n"), 0o700)
	cfgPath := filepath.Join(dir, "config.toml")
	os.WriteFile(cfgPath, []byte(fmt.Sprintf("[provider]\nkind = \"heuristic\"\n[consolidation]\nmode = \"agent\"\nagent_command = [\"/bin/sh\", %q]\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", agent, src)), 0o600)
	for _, args := range [][]string{{"consolidate", "--json"}, {"run", "--all", "--json"}} {
		t.Run(args[0], func(t *testing.T) {
			env := []string{"MEMCTL_HOME=" + filepath.Join(dir, "home-"+args[0]), "MEMCTL_CONFIG=" + cfgPath}
			if args[0] == "consolidate" {
				if _, errOut, code := runCLI(t, env, "", "extract", "--all"); code != 0 {
					t.Fatalf("extract: %s", errOut)
				}
			}
			stdout, stderr, code := runCLI(t, env, "", args...)
			if code != ExitError {
				t.Errorf("exit %d, want %d\n%s", code, ExitError, stderr)
			}
			var res struct {
				Status      string `json:"status"`
				Consolidate *struct {
					Status string `json:"status"`
				} `json:"consolidate"`
			}
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatalf("no JSON result on stdout (%v):\nstdout: %q\nstderr: %s", err, stdout, stderr)
			}
			status := res.Status
			if res.Consolidate != nil {
				status = res.Consolidate.Status
			}
			if status != "failed_agent" {
				t.Errorf("status %q, want failed_agent\n%s", status, stdout)
			}
		})
	}
}
