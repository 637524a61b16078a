// Package claude reads Claude Code project transcripts (main session files
// and their sub-agent files) into internal/sessions' normalised form: thread
// metadata, events with tool outcomes decoded from Claude Code's own tool
// vocabulary and result texts, and the Phase 1 model input.
package claude

import (
	"bytes"
	"cmp"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/memctl/memctl/internal/sessions/internal/transcript"
	"github.com/memctl/memctl/internal/textcut"
)

// claudeLine is the part of a Claude Code transcript line memctl reads.
type claudeLine struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	SessionID        string          `json:"sessionId"`
	Cwd              string          `json:"cwd"`
	GitBranch        string          `json:"gitBranch"`
	Timestamp        string          `json:"timestamp"`
	Entrypoint       string          `json:"entrypoint"`
	IsSidechain      bool            `json:"isSidechain"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	UUID             string          `json:"uuid"`
	ParentUUID       string          `json:"parentUuid"`
	Content          json.RawMessage `json:"content"`
	// ranLocally is set by walkClaude on a slash command the UI ran
	// itself: the next line is its <local-command-stdout>.
	ranLocally bool
	// Operation is a queue-operation line's: enqueue, dequeue, remove,
	// popAll.
	Operation string `json:"operation"`
	// Attachment is an attachment line's; a queued_command one holds a
	// message the user typed while the agent worked.
	Attachment *struct {
		Type        string          `json:"type"`
		CommandMode string          `json:"commandMode"`
		Prompt      json.RawMessage `json:"prompt"`
		Origin      *struct {
			Kind string `json:"kind"`
		} `json:"origin"`
	} `json:"attachment"`
	// ToolUseResult is the structured result beside a tool_result (a
	// string or an object); only its interrupted flag is read.
	ToolUseResult json.RawMessage `json:"toolUseResult"`
	Message       *struct {
		Role    string          `json:"role"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// walkClaude decodes a Claude Code transcript line by line. Each line is
// handed on once the next one is read, so that a slash command can be told
// by its answer: one the UI ran itself (/clear, a setting) is answered by a
// <local-command-stdout> or <local-command-stderr> line and nothing went to
// the model, while one the model works on (/init, a custom command) is
// followed by its expansion or the agent's reply.
func walkClaude(path string, probs func(transcript.Problem), checkUTF8 bool, fn func(*claudeLine, int) error) error {
	var prev *claudeLine
	prevLine := 0
	err := transcript.WalkDecoded(path, probs, checkUTF8, func(cl *claudeLine, line int) error {
		if prev != nil {
			prev.ranLocally = answersLocally(prev, cl)
			if err := fn(prev, prevLine); err != nil {
				return err
			}
		}
		prev, prevLine = cl, line
		return nil
	})
	if err != nil || prev == nil {
		return err
	}
	return fn(prev, prevLine)
}

// answersLocally reports whether next is the UI's own output for the slash
// command typed on cmd: a user line whose parent is cmd and whose text is
// <local-command-stdout> or <local-command-stderr>.
func answersLocally(cmd, next *claudeLine) bool {
	if cmd.Type != "user" || cmd.IsMeta || cmd.Message == nil || next.Type != "user" || next.Message == nil ||
		next.ParentUUID != cmd.UUID || !bytes.Contains(cmd.Message.Content, []byte("command-name")) ||
		!bytes.Contains(next.Message.Content, []byte("local-command-std")) {
		return false
	}
	for _, b := range claudeBlocks(next.Message.Content) {
		t := strings.TrimSpace(b.Text)
		if b.Type == "text" && (strings.HasPrefix(t, "<local-command-stdout>") || strings.HasPrefix(t, "<local-command-stderr>")) {
			return true
		}
	}
	return false
}

// claudeBlocks returns message content as blocks; a plain string becomes
// one text block.
func claudeBlocks(raw json.RawMessage) []claudeBlock {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		return []claudeBlock{{Type: "text", Text: transcript.RawString(raw)}}
	}
	var blocks []claudeBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	return blocks
}

// claudePiece is one normalised step of a Claude Code line plus the raw
// tool input, which the Phase 1 input keeps as JSON.
type claudePiece struct {
	transcript.Event
	rawInput json.RawMessage
	cmdName  string // slash command typed by the human (/init)
	pollID   string // BashOutput: the background shell it reads
	// wrote is, on a Write's result, what the write did by the harness's
	// own record (toolUseResult.type): "create" or "update"; "" unknown.
	wrote string
}

var (
	reminderRE  = lazyre.New(`(?s)<system-reminder>.*?</system-reminder>`)
	commandName = lazyre.New(`<command-name>\s*(.*?)\s*</command-name>`)
	commandArgs = lazyre.New(`(?s)<command-args>(.*?)</command-args>`)
)

// splitHumanText separates the human's own words from the harness
// scaffolding Claude Code puts into user text. It returns the human part
// (possibly empty), the scaffolding, and a slash command when one was typed.
func splitHumanText(s string) (human, context, cmd string) {
	ctx := reminderRE().FindAllString(s, -1)
	s = reminderRE().ReplaceAllString(s, "")
	if m := commandName().FindStringSubmatch(s); m != nil {
		cmd = m[1]
		if a := commandArgs().FindStringSubmatch(s); a != nil && strings.TrimSpace(a[1]) != "" {
			cmd += " " + strings.TrimSpace(a[1])
		}
		// Everything around the tags is the command's own scaffolding.
		ctx = append(ctx, strings.TrimSpace(s))
		s = ""
	}
	t := strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(t, "<local-command-stdout>"), strings.HasPrefix(t, "<local-command-stderr>"),
		strings.HasPrefix(t, "Caveat: The messages below were generated by the user while running local commands"),
		strings.HasPrefix(t, "[Request interrupted by user"), transcript.IsInjectedContext(t):
		ctx = append(ctx, t)
		t = ""
	}
	return t, strings.TrimSpace(strings.Join(ctx, "\n")), cmd
}

// harnessCommands are slash commands that steer Claude Code itself and ask
// for no work: they are not tasks. The list is the fallback for a command
// whose local output the transcript lacks; walkClaude's ranLocally is the
// general signal, which holds for commands newer than this list.
var harnessCommands = map[string]bool{
	"/clear": true, "/compact": true, "/model": true, "/cost": true, "/help": true, "/exit": true,
	"/status": true, "/config": true, "/login": true, "/logout": true, "/resume": true, "/doctor": true,
	"/permissions": true, "/context": true, "/usage": true, "/theme": true, "/vim": true, "/ide": true,
	"/mcp": true, "/agents": true, "/hooks": true, "/memory": true, "/export": true, "/add-dir": true,
}

// isTaskCommand reports whether a typed slash command asks for work.
func isTaskCommand(cmd string) bool {
	if cmd == "" {
		return false
	}
	name, _, _ := strings.Cut(cmd, " ")
	return !harnessCommands[name]
}

// claudePieces normalises one line.
func claudePieces(cl *claudeLine, line int) []claudePiece {
	base := transcript.Event{Time: transcript.ParseTime(cl.Timestamp), Line: line}
	mk := func(k transcript.EventKind) claudePiece {
		p := claudePiece{Event: base}
		p.Kind = k
		return p
	}
	var out []claudePiece
	switch cl.Type {
	case "system":
		if cl.Subtype == "compact_boundary" {
			out = append(out, mk(transcript.EventCompaction))
		}
		return out
	case "user", "assistant":
	default:
		return nil
	}
	if cl.Message == nil {
		return nil
	}
	blocks := claudeBlocks(cl.Message.Content)
	if cl.IsCompactSummary {
		p := mk(transcript.EventCompaction)
		var texts []string
		for _, b := range blocks {
			if b.Type == "text" {
				texts = append(texts, b.Text)
			}
		}
		p.Text = strings.Join(texts, "\n")
		return []claudePiece{p}
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) == "" {
				continue
			}
			switch {
			case cl.IsSidechain && cl.Type == "user":
				// The sub-agent's "user" is the agent that started it: this
				// is the prompt it was given, not anything it found.
				p := mk(transcript.EventContext)
				p.Text = b.Text
				out = append(out, p)
			case cl.Type == "assistant" && cl.Message.Model == "<synthetic>":
				// Claude Code's own words in the agent's place ("No
				// response requested.", an API error): the harness, not
				// the model, and never an answer.
				p := mk(transcript.EventContext)
				p.Text = b.Text
				out = append(out, p)
			case cl.IsSidechain:
				p := mk(transcript.EventOtherAgent)
				p.Text = b.Text
				out = append(out, p)
			case cl.Type == "assistant":
				p := mk(transcript.EventAssistant)
				p.Text = b.Text
				out = append(out, p)
			case cl.IsMeta:
				p := mk(transcript.EventContext)
				p.Text = b.Text
				out = append(out, p)
			case strings.HasPrefix(strings.TrimSpace(b.Text), "[Request interrupted by user"):
				p := mk(transcript.EventInterrupt)
				p.Text = strings.TrimSpace(b.Text)
				out = append(out, p)
			default:
				human, ctx, cmd := splitHumanText(b.Text)
				if ctx != "" {
					p := mk(transcript.EventContext)
					p.Text = ctx
					p.cmdName = cmd
					out = append(out, p)
				}
				if human != "" {
					p := mk(transcript.EventHuman)
					p.Text = human
					out = append(out, p)
				} else if isTaskCommand(cmd) && !cl.ranLocally {
					// A slash command such as /init or /review is a request the
					// human typed; its expansion (isMeta) stays context. One
					// the UI ran itself operated the agent: context only.
					p := mk(transcript.EventHuman)
					p.Text = cmd
					p.cmdName = cmd
					out = append(out, p)
				}
			}
		case "thinking":
			// The block's text, when the transcript kept it (a
			// redacted_thinking block carries none).
			if cl.Type == "assistant" && !cl.IsSidechain && strings.TrimSpace(b.Thinking) != "" {
				p := mk(transcript.EventReasoning)
				p.Text = b.Thinking
				out = append(out, p)
			}
		case "image":
			if cl.Type == "user" && !cl.IsMeta && !cl.IsSidechain {
				p := mk(transcript.EventHuman)
				p.Text = "[image omitted]"
				out = append(out, p)
			}
		case "tool_use":
			p := mk(transcript.EventToolCall)
			p.CallID, p.Tool, p.rawInput = b.ID, b.Name, b.Input
			p.Action = ActionOf(b.Name)
			p.Input = textcut.Middle(transcript.CompactJSON(b.Input), transcript.EventTextMax)
			var in struct {
				Command         string `json:"command"`
				DisableSandbox  bool   `json:"dangerouslyDisableSandbox"`
				RunInBackground bool   `json:"run_in_background"`
				BashID          string `json:"bash_id"`
				ShellID         string `json:"shell_id"`
				transcript.FileArgs
			}
			_ = json.Unmarshal(b.Input, &in)
			switch b.Name {
			case "Bash", "PowerShell": // PowerShell: Claude Code's shell on Windows
				p.Command = transcript.UnwrapShell(in.Command)
				p.Escalated = in.DisableSandbox
			case "BashOutput":
				// A poll of a background shell: its result belongs to the
				// command that started it.
				p.pollID = in.BashID + in.ShellID
			}
			fp := in.Target()
			if p.Action == transcript.ActionRead || p.Action == transcript.ActionEdit {
				p.FilePath = fp
			}
			out = append(out, p)
			if fp != "" && p.Action == transcript.ActionEdit {
				fc := mk(transcript.EventFileChange)
				fc.CallID, fc.Tool, fc.FilePath, fc.FileOp = b.ID, b.Name, fp, "update"
				if b.Name == "Write" {
					fc.FileOp = "write" // creates or replaces the whole file: its result says which
				} else {
					fc.Old, fc.New = in.OldNew()
				}
				out = append(out, fc)
			}
		case "tool_result":
			p := mk(transcript.EventToolResult)
			p.CallID = b.ToolUseID
			p.IsError = b.IsError
			text := claudeResultText(b.Content)
			var feedback string
			p.Outcome, p.ExitCode, feedback = claudeResultOutcome(text, b.IsError, claudeInterrupted(cl.ToolUseResult))
			p.Output = textcut.Middle(claudeResultBody(text, b.IsError), transcript.EventTextMax)
			if len(cl.ToolUseResult) > 0 && cl.ToolUseResult[0] == '{' {
				p.wrote = transcript.FieldString(cl.ToolUseResult, "type")
			}
			out = append(out, p)
			if feedback != "" && !cl.IsSidechain {
				// The words the user typed when refusing the call.
				h := mk(transcript.EventHuman)
				h.Text = feedback
				out = append(out, h)
			}
		}
	}
	return out
}

// claudeInterrupted reads toolUseResult.interrupted (the result may be a
// string, which says nothing about it).
func claudeInterrupted(raw json.RawMessage) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	return string(transcript.Field(raw, "interrupted")) == "true"
}

// claudeResultText flattens tool_result content (string or blocks).
func claudeResultText(raw json.RawMessage) string {
	var parts []string
	for _, b := range claudeBlocks(raw) {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image":
			parts = append(parts, "[image omitted]")
		}
	}
	return strings.Join(parts, "\n")
}

// claudeSource maps Claude Code's entrypoint to a session source.
// `claude -p` writes entrypoint "sdk-cli": a person handing the CLI one
// task from a shell, as worth remembering as a typed turn, so it is
// extracted (source "print"). Sessions of the programmatic SDKs (sdk-ts,
// sdk-py) are scripted runs, the equivalent of `codex exec`, and are not.
// memctl's own agent consolidations (`claude -p` in the memory folder)
// are excluded by their cwd, not here.
func claudeSource(entrypoint string) (string, bool) {
	switch {
	case entrypoint == "sdk-cli":
		return "print", true
	case strings.HasPrefix(entrypoint, "sdk"):
		return "exec", false
	case strings.Contains(entrypoint, "vscode"):
		return "vscode", true
	default:
		return "cli", true
	}
}

// readClaudeMeta builds the metadata of a Claude Code session file.
func ReadMeta(f transcript.File, probs func(transcript.Problem)) (transcript.Meta, error) {
	m := transcript.Meta{Kind: transcript.KindClaudeCode, Path: f.Path}
	stem := strings.TrimSuffix(filepath.Base(f.Path), ".zst")
	stem = strings.TrimSuffix(stem, ".jsonl")
	// firstCmd is the first slash command that asked for work, firstSetting
	// the first that only operated the agent (/clear, /model): the preview
	// of a session with no words of the human's.
	var sessionID, entrypoint, firstCmd, firstSetting, firstTask string
	side, main := 0, 0
	err := walkClaude(f.Path, probs, true, func(cl *claudeLine, line int) error {
		if t := transcript.ParseTime(cl.Timestamp); !t.IsZero() {
			if m.CreatedAt.IsZero() || t.Before(m.CreatedAt) {
				m.CreatedAt = t
			}
			if t.After(m.UpdatedAt) {
				m.UpdatedAt = t
			}
		}
		if cl.Type != "user" && cl.Type != "assistant" && cl.Type != "system" {
			return nil
		}
		if sessionID == "" {
			sessionID = cl.SessionID
		}
		if m.Cwd == "" {
			m.Cwd = cl.Cwd
		}
		if m.GitBranch == "" && cl.GitBranch != "" && cl.GitBranch != "HEAD" {
			m.GitBranch = cl.GitBranch
		}
		if cl.Entrypoint != "" {
			entrypoint = cl.Entrypoint
		}
		if cl.Type == "system" {
			return nil
		}
		if cl.IsSidechain {
			side++
		} else {
			main++
		}
		if cl.Message != nil && cl.Type == "assistant" && cl.Message.Model != "" && cl.Message.Model != "<synthetic>" {
			m.Model = cl.Message.Model
		}
		for _, p := range claudePieces(cl, line) {
			switch p.Kind {
			case transcript.EventHuman:
				if p.cmdName != "" {
					// Prefer the human's own words; the command is the fallback.
					if firstCmd == "" {
						firstCmd = p.cmdName
					}
					continue
				}
				if m.Preview == "" && p.Text != "[image omitted]" {
					m.Preview = strings.TrimSpace(p.Text)
				}
			case transcript.EventContext:
				if firstTask == "" && cl.IsSidechain && cl.Type == "user" {
					firstTask = strings.TrimSpace(p.Text)
				}
				if firstSetting == "" && p.cmdName != "" {
					firstSetting = p.cmdName
				}
			case transcript.EventToolCall:
				if p.Tool == "WebSearch" || p.Tool == "WebFetch" || strings.HasPrefix(p.Tool, "mcp__") {
					m.UsedExternalContext = true
				}
			}
		}
		return nil
	})
	if err != nil {
		return m, err
	}
	m.Source, m.Interactive = claudeSource(entrypoint)
	m.ID = transcript.UUIDFromName(stem)
	if m.ID == "" {
		m.ID = sessionID
	}
	if side > 0 && main == 0 {
		m.Subagent = true
		m.Interactive = false
		m.ParentID = sessionID
		m.ID = stem
		m.Preview = firstTask // the task the parent gave the sub-agent
	}
	if m.ID == "" {
		m.ID = stem
	}
	if m.Preview == "" {
		// A session that only ran slash commands: the command is what the
		// human typed, a request before a setting.
		m.Preview = cmp.Or(firstCmd, firstSetting)
	}
	if m.UpdatedAt.IsZero() {
		m.UpdatedAt = f.ModTime
	}
	if main == 0 && side == 0 {
		probs(transcript.Problem{Path: f.Path, Err: "no Claude Code conversation lines"})
	}
	return m, nil
}
