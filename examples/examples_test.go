package examples

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/redact"
	"github.com/memctl/memctl/internal/sessions"
)

// fakeSecret is the obviously fake key planted in the first Codex session
// so the demo shows redaction. It is split here so that secret scanners
// reading this file do not flag it twice.
const fakeSecret = "sk_live_" + "memctlDEMOfakeKEY0000000"

// maxFileBytes keeps every example small enough to embed without a thought.
const maxFileBytes = 30 << 10

var sources = []sessions.Source{
	{Kind: sessions.KindCodex, Path: "sessions/codex/sessions"},
	{Kind: sessions.KindClaudeCode, Path: "sessions/claude/projects"},
	{Kind: sessions.KindJSONL, Path: "sessions/jsonl"},
}

// want is what each example thread must look like to memctl.
type want struct {
	kind        sessions.Kind
	cwd         string
	source      string
	interactive bool
	preview     string // the human's own first words (prefix)
	branch      string
	related     int
	// facts must all appear in the redacted v1 raw memory of the offline extractor.
	facts []string
}

var wants = map[string]want{
	"01a1f83b-f8ce-7718-a139-873a95bd447e": {
		kind: sessions.KindCodex, cwd: "/home/dev/src/invoicer", source: "cli", interactive: true,
		preview: "Invoice totals come out a cent short for amounts like 2.675", branch: "main",
		facts: []string{"round.go", "go test ./...", "RoundCents(2.675) = 267, want 268", "Fix: `go test ./...` failed",
			"always run `go test -race`", "go test -race ./...", redact.Token},
	},
	"01a20e6d-e142-7d2e-ab38-6a552c5d6bae": {
		kind: sessions.KindCodex, cwd: "/home/dev/src/invoicer", source: "cli", interactive: true,
		preview: "Add a `make lint` target and a GitHub Actions workflow", branch: "main",
		facts: []string{"golangci-lint: command not found", "go vet ./...", "make lint", ".github/workflows/ci.yml",
			"Makefile"},
	},
	"01a21225-d97f-7d83-809b-d321ea8ff5f8": {
		kind: sessions.KindCodex, cwd: "/home/dev/src/invoicer", source: "exec", interactive: false,
		preview: "Summarise CHANGELOG.md for the 1.4.0 release notes", branch: "main",
	},
	"3ceaaf30-8142-48ea-91d9-3080f9b439fc": {
		kind: sessions.KindClaudeCode, cwd: "/home/dev/src/recipes", source: "cli", interactive: true,
		preview: "add a --servings flag to scale.py", branch: "main", related: 1,
		facts: []string{"scale.py", "tests/test_scale.py", "AssertionError: assert '- 2.50 dl milk'",
			"please use `uv run pytest`, never bare pytest", "uv run pytest -q", "The user corrected the agent"},
	},
	"shell-agent-2026-11-26-web02": {
		kind: sessions.KindJSONL, cwd: "/home/deploy/ops", source: "cli", interactive: true,
		preview: "nginx logs on web-02 have grown to 14 GB.",
		facts: []string{"logrotate -d /etc/logrotate.d/nginx", "parent directory has insecure permissions",
			"don't chmod /var/log/nginx", "su www-data adm", "/etc/logrotate.d/nginx (update)"},
	},
}

// discoverAll lists every thread memctl finds in the examples, by id.
func discoverAll(t *testing.T) map[string]sessions.File {
	t.Helper()
	out := map[string]sessions.File{}
	for _, src := range sources {
		err := sessions.Discover(context.Background(), src, func(f sessions.File) error {
			m, probs, err := sessions.ReadMeta(f)
			if err != nil {
				t.Fatalf("ReadMeta %s: %v", f.Path, err)
			}
			if len(probs) > 0 {
				t.Errorf("ReadMeta %s: problems %v", f.Path, probs)
			}
			if _, dup := out[m.ID]; dup {
				t.Errorf("thread id %s found twice", m.ID)
			}
			out[m.ID] = f
			return nil
		})
		if err != nil {
			t.Fatalf("Discover %s: %v", src.Path, err)
		}
	}
	return out
}

func TestThreadsAsMemctlSeesThem(t *testing.T) {
	files := discoverAll(t)
	if len(files) != len(wants) {
		t.Errorf("found %d threads, want %d: %v", len(files), len(wants), keys(files))
	}
	for id, w := range wants {
		t.Run(id, func(t *testing.T) {
			f, ok := files[id]
			if !ok {
				t.Fatalf("thread not discovered")
			}
			m, _, err := sessions.ReadMeta(f)
			if err != nil {
				t.Fatal(err)
			}
			if m.Kind != w.kind || m.Cwd != w.cwd || m.Source != w.source || m.Interactive != w.interactive ||
				m.GitBranch != w.branch || m.Subagent {
				t.Errorf("meta = %+v, want %+v", m, w)
			}
			if !strings.HasPrefix(m.Preview, w.preview) {
				t.Errorf("preview %q does not start with %q", m.Preview, w.preview)
			}
			if len(f.Related) != w.related {
				t.Errorf("related files %v, want %d", f.Related, w.related)
			}
			if m.CreatedAt.IsZero() || !m.UpdatedAt.After(m.CreatedAt) {
				t.Errorf("created %v, updated %v", m.CreatedAt, m.UpdatedAt)
			}
			if m.UsedExternalContext {
				t.Error("an example uses external context; the demo threads must stay clean")
			}
			switch w.kind {
			case sessions.KindCodex:
				checkCodexName(t, f.Path, m)
			case sessions.KindClaudeCode:
				if stem := strings.TrimSuffix(filepath.Base(f.Path), ".jsonl"); stem != m.ID {
					t.Errorf("Claude session id %s differs from file stem %s", m.ID, stem)
				}
			}
		})
	}
}

var rolloutName = regexp.MustCompile(`^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-([0-9a-f-]{36})\.jsonl$`)

// checkCodexName verifies the file name, the thread id and its UUIDv7
// timestamp agree with session_meta, as Codex writes them.
func checkCodexName(t *testing.T, path string, m sessions.Meta) {
	t.Helper()
	mt := rolloutName.FindStringSubmatch(filepath.Base(path))
	if mt == nil {
		t.Fatalf("bad rollout file name %s", path)
	}
	if mt[2] != m.ID {
		t.Errorf("file name id %s, session_meta id %s", mt[2], m.ID)
	}
	stamp, err := time.Parse("2006-01-02T15-04-05", mt[1])
	if err != nil {
		t.Fatal(err)
	}
	if !stamp.Equal(m.CreatedAt.Truncate(time.Second)) {
		t.Errorf("file name time %v, created %v", stamp, m.CreatedAt)
	}
	if dir := filepath.ToSlash(filepath.Dir(path)); !strings.HasSuffix(dir, stamp.Format("2006/01/02")) {
		t.Errorf("rollout in %s, want a YYYY/MM/DD folder for %v", dir, stamp)
	}
	hex := strings.ReplaceAll(m.ID, "-", "")
	ms, err := strconv.ParseInt(hex[:12], 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	if hex[12] != '7' || !strings.ContainsRune("89ab", rune(hex[16])) {
		t.Errorf("%s is not a UUIDv7", m.ID)
	}
	if ms != m.CreatedAt.UnixMilli() {
		t.Errorf("UUIDv7 time %v, created %v", time.UnixMilli(ms).UTC(), m.CreatedAt)
	}
}

func TestSidechainIsRelatedOnly(t *testing.T) {
	files := discoverAll(t)
	f := files["3ceaaf30-8142-48ea-91d9-3080f9b439fc"]
	if len(f.Related) != 1 {
		t.Fatalf("related = %v", f.Related)
	}
	side := f.Related[0]
	if want := filepath.Join(strings.TrimSuffix(f.Path, ".jsonl"), "subagents"); filepath.Dir(side) != want {
		t.Errorf("sub-agent file %s not in %s", side, want)
	}
	for id, g := range files {
		if g.Path == side || strings.Contains(filepath.ToSlash(g.Path), "/subagents/") {
			t.Errorf("sub-agent file yielded as thread %s", id)
		}
	}
	m, probs, err := sessions.ReadMeta(sessions.File{Kind: sessions.KindClaudeCode, Path: side})
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	if !m.Subagent || m.Interactive || m.ParentID != "3ceaaf30-8142-48ea-91d9-3080f9b439fc" ||
		!strings.HasPrefix(m.Preview, "Find where ingredient quantities") {
		t.Errorf("sub-agent meta %+v", m)
	}
	// The parent's Task call names the same agent.
	agentID := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(side), "agent-"), ".jsonl")
	found := false
	for _, l := range readLines(t, f.Path) {
		var v struct {
			ToolUseResult json.RawMessage `json:"toolUseResult"`
		}
		_ = json.Unmarshal(l, &v)
		var r struct {
			AgentID string `json:"agentId"`
			Status  string `json:"status"`
		}
		if json.Unmarshal(v.ToolUseResult, &r) == nil && r.AgentID != "" {
			found = r.AgentID == agentID && r.Status == "completed"
		}
	}
	if !found {
		t.Errorf("no Task tool result names agent %s", agentID)
	}
}

// redactedOutput runs the offline extractor the way `memctl extract` does
// (extract.Offline: every event field is redacted first, then the output
// again) and returns the events as the reader gave them, unredacted.
func redactedOutput(t *testing.T, f sessions.File) (extract.Output, []sessions.Event) {
	t.Helper()
	m, _, err := sessions.ReadMeta(f)
	if err != nil {
		t.Fatal(err)
	}
	var raw []sessions.Event
	probs, err := sessions.Events(f, func(e sessions.Event) error {
		raw = append(raw, e)
		return nil
	})
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	out, err := extract.Offline("v1", f, m, redact.Default().String)
	if err != nil {
		t.Fatal(err)
	}
	return out, raw
}

func TestHeuristicMemoryHasKeyFacts(t *testing.T) {
	files := discoverAll(t)
	for id, w := range wants {
		t.Run(id, func(t *testing.T) {
			out, _ := redactedOutput(t, files[id])
			if out.RawMemory == "" || out.RolloutSummary == "" || out.RolloutSlug == nil {
				t.Fatalf("empty output: %+v", out)
			}
			for _, fact := range w.facts {
				if !strings.Contains(out.RawMemory, fact) {
					t.Errorf("raw memory lacks %q:\n%s", fact, out.RawMemory)
				}
			}
		})
	}
}

func TestPlantedSecretIsRedacted(t *testing.T) {
	files := discoverAll(t)
	holders := 0
	for id, f := range files {
		b, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(fakeSecret)) {
			continue
		}
		holders++
		out, raw := redactedOutput(t, f)
		reached := false
		for _, e := range raw {
			reached = reached || strings.Contains(e.Text+e.Command+e.Input+e.Output, fakeSecret)
		}
		if !reached {
			t.Errorf("%s: the secret never reaches the extractor, so the demo shows no redaction", id)
		}
		all := out.RawMemory + out.RolloutSummary + *out.RolloutSlug
		if strings.Contains(all, fakeSecret) || strings.Contains(all, "memctlDEMOfakeKEY") {
			t.Errorf("%s: secret survives redaction:\n%s", id, all)
		}
		if !strings.Contains(all, redact.Token) {
			t.Errorf("%s: no %s marker in the memory", id, redact.Token)
		}
	}
	if holders != 1 {
		t.Errorf("the fake secret is in %d threads, want exactly 1", holders)
	}
}

// allFiles lists every transcript under sessions/ on disk.
func allFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("sessions", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			out = append(out, filepath.ToSlash(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if !json.Valid(sc.Bytes()) {
			t.Fatalf("%s: invalid JSON line %q", path, sc.Text())
		}
		out = append(out, bytes.Clone(sc.Bytes()))
	}
	return out
}

func TestFilesAreSmallValidAndInOrder(t *testing.T) {
	files := allFiles(t)
	if len(files) != 6 {
		t.Errorf("files = %v, want 6 transcripts", files)
	}
	millis := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)
	for _, p := range files {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > maxFileBytes {
			t.Errorf("%s is %d bytes, over %d", p, st.Size(), maxFileBytes)
		}
		var last time.Time
		for i, l := range readLines(t, p) {
			var v struct {
				Timestamp string `json:"timestamp"`
			}
			_ = json.Unmarshal(l, &v)
			if v.Timestamp == "" {
				continue
			}
			if !millis.MatchString(v.Timestamp) {
				t.Errorf("%s:%d: timestamp %q is not RFC 3339 UTC with millis", p, i+1, v.Timestamp)
			}
			ts, err := time.Parse(time.RFC3339Nano, v.Timestamp)
			if err != nil {
				t.Fatal(err)
			}
			if ts.Before(last) {
				t.Errorf("%s:%d: timestamp %v goes back from %v", p, i+1, ts, last)
			}
			last = ts
		}
	}
}

// codexLine is the envelope of a rollout line.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexPayload struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	TurnID    string `json:"turn_id"`
	Name      string `json:"name"`
	Role      string `json:"role"`
	Phase     string `json:"phase"`
	Output    string `json:"output"`
	Message   string `json:"message"`
	ExitCode  *int   `json:"exit_code"`
	Source    string `json:"source"`
	LastAgent string `json:"last_agent_message"`
}

func TestCodexRolloutsAreWellFormed(t *testing.T) {
	exited := regexp.MustCompile(`Process exited with code (\d+)`)
	for _, p := range allFiles(t) {
		if !strings.HasPrefix(p, "sessions/codex/") {
			continue
		}
		t.Run(filepath.Base(p), func(t *testing.T) {
			calls := map[string]bool{}
			outputs := map[string]int{} // call id -> exit code in the model-visible output
			var openTurn, lastFinal string
			turns := 0
			for i, raw := range readLines(t, p) {
				var l codexLine
				var pl codexPayload
				if json.Unmarshal(raw, &l) != nil || json.Unmarshal(l.Payload, &pl) != nil || l.Type == "" {
					t.Fatalf("line %d is not an envelope", i+1)
				}
				if i == 0 && l.Type != "session_meta" {
					t.Fatalf("first line is %s", l.Type)
				}
				switch l.Type + "/" + pl.Type {
				case "response_item/function_call", "response_item/custom_tool_call":
					calls[pl.CallID] = true
				case "response_item/function_call_output":
					if m := exited.FindStringSubmatch(pl.Output); m != nil {
						outputs[pl.CallID], _ = strconv.Atoi(m[1])
					}
					fallthrough
				case "response_item/custom_tool_call_output":
					if !calls[pl.CallID] {
						t.Errorf("line %d: output for unknown call %s", i+1, pl.CallID)
					}
					delete(calls, pl.CallID)
				case "event_msg/exec_command_end":
					if code, ok := outputs[pl.CallID]; !ok || pl.ExitCode == nil || *pl.ExitCode != code {
						t.Errorf("line %d: exec_command_end exit code disagrees with the tool output", i+1)
					}
					if pl.TurnID != openTurn {
						t.Errorf("line %d: exec_command_end outside its turn", i+1)
					}
				case "event_msg/task_started":
					if openTurn != "" {
						t.Errorf("line %d: turn started inside turn %s", i+1, openTurn)
					}
					openTurn = pl.TurnID
					turns++
				case "event_msg/task_complete":
					if pl.TurnID != openTurn || pl.LastAgent != lastFinal || lastFinal == "" {
						t.Errorf("line %d: task_complete does not close its turn with the final answer", i+1)
					}
					openTurn = ""
				case "response_item/message":
					if pl.Role == "assistant" && pl.Phase == "final_answer" {
						lastFinal = messageText(l.Payload)
					}
				}
			}
			if len(calls) > 0 {
				t.Errorf("calls without output: %v", calls)
			}
			if openTurn != "" || turns == 0 {
				t.Errorf("turns: %d, still open: %q", turns, openTurn)
			}
		})
	}
}

func messageText(payload json.RawMessage) string {
	var m struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(payload, &m)
	var parts []string
	for _, c := range m.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// claudeLine is the part of a Claude Code line the structure checks need.
type claudeLine struct {
	Type        string  `json:"type"`
	UUID        string  `json:"uuid"`
	ParentUUID  *string `json:"parentUuid"`
	SessionID   string  `json:"sessionId"`
	IsSidechain bool    `json:"isSidechain"`
	AgentID     string  `json:"agentId"`
	RequestID   string  `json:"requestId"`
	SourceTool  string  `json:"sourceToolAssistantUUID"`
	Message     *struct {
		ID      string          `json:"id"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

func TestClaudeSessionIsWellFormed(t *testing.T) {
	var mainFile string
	for _, p := range allFiles(t) {
		if strings.HasPrefix(p, "sessions/claude/") && !strings.Contains(p, "/subagents/") {
			mainFile = p
		}
	}
	if mainFile == "" {
		t.Fatal("no Claude Code session")
	}
	sid := strings.TrimSuffix(filepath.Base(mainFile), ".jsonl")
	subs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(mainFile, ".jsonl"), "subagents", "agent-*.jsonl"))
	if len(subs) != 1 {
		t.Fatalf("sub-agent files: %v", subs)
	}
	for _, p := range append([]string{mainFile}, subs...) {
		side := p != mainFile
		agent := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "agent-"), ".jsonl")
		seen := map[string]bool{}
		reqOf := map[string]string{}
		uses, results := map[string]bool{}, map[string]bool{}
		for i, raw := range readLines(t, p) {
			var l claudeLine
			if err := json.Unmarshal(raw, &l); err != nil {
				t.Fatal(err)
			}
			if l.Type != "user" && l.Type != "assistant" && l.Type != "system" {
				continue
			}
			if l.SessionID != sid || l.IsSidechain != side || (side && l.AgentID != agent) {
				t.Errorf("%s:%d: envelope session %s sidechain %v agent %q", p, i+1, l.SessionID, l.IsSidechain, l.AgentID)
			}
			if l.UUID == "" || seen[l.UUID] {
				t.Errorf("%s:%d: uuid %q missing or repeated", p, i+1, l.UUID)
			}
			if l.ParentUUID != nil && !seen[*l.ParentUUID] {
				t.Errorf("%s:%d: parentUuid %s is not an earlier line", p, i+1, *l.ParentUUID)
			}
			if l.SourceTool != "" && !seen[l.SourceTool] {
				t.Errorf("%s:%d: sourceToolAssistantUUID is not an earlier line", p, i+1)
			}
			seen[l.UUID] = true
			if l.Message == nil {
				continue
			}
			if l.Type == "assistant" {
				if r, ok := reqOf[l.Message.ID]; ok && r != l.RequestID {
					t.Errorf("%s:%d: blocks of %s carry different requestIds", p, i+1, l.Message.ID)
				}
				reqOf[l.Message.ID] = l.RequestID
			}
			var blocks []struct {
				Type      string `json:"type"`
				ID        string `json:"id"`
				ToolUseID string `json:"tool_use_id"`
			}
			_ = json.Unmarshal(l.Message.Content, &blocks)
			if l.Type == "assistant" && len(blocks) != 1 {
				t.Errorf("%s:%d: assistant line with %d blocks, want one per line", p, i+1, len(blocks))
			}
			for _, b := range blocks {
				switch b.Type {
				case "tool_use":
					uses[b.ID] = true
				case "tool_result":
					if !uses[b.ToolUseID] {
						t.Errorf("%s:%d: result for unknown tool_use %s", p, i+1, b.ToolUseID)
					}
					results[b.ToolUseID] = true
				}
			}
		}
		for id := range uses {
			if !results[id] {
				t.Errorf("%s: tool_use %s has no result", p, id)
			}
		}
	}
}

func TestJSONLExampleMatchesSchema(t *testing.T) {
	schemaPath, err := filepath.Abs("../docs/transcript.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	sch, err := jsonschema.NewCompiler().Compile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range allFiles(t) {
		if !strings.HasPrefix(p, "sessions/jsonl/") {
			continue
		}
		for i, l := range readLines(t, p) {
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(l))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Errorf("%s:%d: %v", p, i+1, err)
			}
			n++
		}
	}
	if n == 0 {
		t.Error("no jsonl example lines")
	}
}

func TestEmbeddedTreeMatchesDisk(t *testing.T) {
	var embedded []string
	err := fs.WalkDir(Sessions, "sessions", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			b, err := Sessions.ReadFile(p)
			if err != nil {
				return err
			}
			disk, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(b, disk) {
				t.Errorf("embedded %s differs from disk (%v)", p, err)
			}
			embedded = append(embedded, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(embedded)
	if disk := allFiles(t); strings.Join(embedded, "\n") != strings.Join(disk, "\n") {
		t.Errorf("embedded %v\ndisk %v", embedded, disk)
	}
}

func keys(m map[string]sessions.File) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The README pointed to files outside the repository
// (shared/fixtures/real/, session-formats.md). Every link, every folder it
// names (a path ending in /), every bare .md or .go file name and every
// transcript of its table must be inside the repository and exist ("…" in
// a file name stands for the rest of it). Paths inside the transcripts'
// stories (internal/money/round.go) are not the repository's and are left
// alone.
func TestReadmeIsSelfContained(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	repo, _ := filepath.Abs("..")
	// exists finds path relative to this folder, then to the repository
	// and its docs/.
	exists := func(ref, path string) {
		t.Helper()
		for _, base := range []string{".", "..", "../docs"} {
			p := filepath.Join(base, path)
			abs, _ := filepath.Abs(p)
			if rel, err := filepath.Rel(repo, abs); err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			if m, _ := filepath.Glob(strings.ReplaceAll(p, "…", "*")); len(m) > 0 {
				return
			}
		}
		t.Errorf("%s: not in the repository", ref)
	}
	links := regexp.MustCompile(`\]\(([^)#]+)(#[^)]*)?\)`).FindAllStringSubmatch(text, -1)
	for _, m := range links {
		abs, _ := filepath.Abs(m[1])
		if rel, err := filepath.Rel(repo, abs); err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("link %s points outside the repository", m[1])
		} else if _, err := os.Stat(m[1]); err != nil {
			t.Errorf("link %s: %v", m[1], err)
		}
	}
	if len(links) == 0 {
		t.Error("no links found: the pattern is broken")
	}
	for _, m := range regexp.MustCompile("`([^` ]+)`").FindAllStringSubmatch(text, -1) {
		p := m[1]
		switch {
		case strings.HasPrefix(p, "~") || strings.HasPrefix(p, "/"):
			// the user's folders, a placeholder, an absolute path in a story
		case strings.HasPrefix(p, "codex/") || strings.HasPrefix(p, "claude/") || strings.HasPrefix(p, "jsonl/"):
			exists("`"+p+"`", filepath.Join("sessions", p))
		case strings.HasSuffix(p, "/"):
			exists("`"+p+"`", p)
		case !strings.Contains(p, "/") && regexp.MustCompile(`^[\w.-]+\.(md|go)$`).MatchString(p):
			exists("`"+p+"`", p)
		}
	}
}
