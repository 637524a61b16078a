package sessions

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// jsonlLine is one line of memctl's own transcript format (docs/transcript-format.md).
type jsonlLine struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Cwd       string          `json:"cwd"`
	Source    string          `json:"source"`
	Timestamp string          `json:"timestamp"`
	GitBranch string          `json:"git_branch"`
	GitRemote string          `json:"git_remote"`
	GitSHA    string          `json:"git_sha"`
	Model     string          `json:"model"`
	ParentID  string          `json:"parent_id"`
	Role      string          `json:"role"`
	Text      string          `json:"text"`
	Final     bool            `json:"final"`
	Name      string          `json:"name"`
	Command   string          `json:"command"`
	Input     json.RawMessage `json:"input"`
	Output    string          `json:"output"`
	ExitCode  *int            `json:"exit_code"`
	IsError   bool            `json:"is_error"`
	Path      string          `json:"path"`
	Op        string          `json:"op"`
}

// walkJSONL decodes a memctl transcript line by line.
func walkJSONL(path string, probs func(Problem), checkUTF8 bool, fn func(*jsonlLine, int) error) error {
	return walkDecoded(path, probs, checkUTF8, fn)
}

// jsonlEvent converts a line to an event; ok is false for session and
// unknown lines.
func jsonlEvent(l *jsonlLine, line int) (Event, bool) {
	ev := Event{Time: parseTime(l.Timestamp), Line: line}
	switch l.Type {
	case "message":
		switch l.Role {
		case "user":
			ev.Kind = EventHuman
		case "assistant":
			ev.Kind = EventAssistant
			ev.Final = l.Final
		case "context", "system", "developer":
			ev.Kind = EventContext
		case "agent":
			ev.Kind = EventOtherAgent
		default:
			return ev, false
		}
		ev.Text = l.Text
	case "tool_call":
		ev.Kind = EventToolCall
		ev.CallID, ev.Tool, ev.Command = l.ID, l.Name, l.Command
		if len(l.Input) > 0 {
			if l.Input[0] == '"' {
				ev.Input = shorten(rawString(l.Input), eventTextMax)
			} else {
				ev.Input = shorten(compactJSON(l.Input), eventTextMax)
			}
		}
	case "tool_result":
		ev.Kind = EventToolResult
		ev.CallID, ev.Output, ev.ExitCode = l.ID, shorten(l.Output, eventTextMax), l.ExitCode
		ev.IsError = l.IsError || (l.ExitCode != nil && *l.ExitCode != 0)
	case "file_change":
		ev.Kind = EventFileChange
		ev.CallID, ev.FilePath, ev.FileOp = l.ID, l.Path, l.Op
	case "compaction":
		ev.Kind = EventCompaction
		ev.Text = l.Text
	default:
		return ev, false
	}
	return ev, true
}

var jsonlInteractive = map[string]bool{"cli": true, "vscode": true, "": true}

func readJSONLMeta(f File, probs func(Problem)) (Meta, error) {
	m := Meta{Kind: KindJSONL, Path: f.Path}
	seenSession := false
	err := walkJSONL(f.Path, probs, true, func(l *jsonlLine, line int) error {
		t := parseTime(l.Timestamp)
		if t.After(m.UpdatedAt) {
			m.UpdatedAt = t
		}
		switch l.Type {
		case "session":
			if seenSession {
				return nil
			}
			seenSession = true
			m.ID, m.Cwd, m.Source, m.Model, m.ParentID = l.ID, l.Cwd, l.Source, l.Model, l.ParentID
			m.GitBranch, m.GitRemote, m.GitSHA = l.GitBranch, l.GitRemote, l.GitSHA
			m.CreatedAt = t
		case "message":
			if m.Preview == "" && l.Role == "user" {
				m.Preview = strings.TrimSpace(l.Text)
			}
		case "tool_call":
			if strings.HasPrefix(l.Name, "mcp__") || l.Name == "web_search" || l.Name == "web_fetch" {
				m.UsedExternalContext = true
			}
		}
		return nil
	})
	if err != nil {
		return m, err
	}
	if !seenSession {
		probs(Problem{Path: f.Path, Err: "no session line"})
	}
	if m.ID == "" {
		m.ID = strings.TrimSuffix(filepath.Base(f.Path), ".jsonl")
	}
	if m.Source == "" {
		m.Source = "cli"
	}
	m.Interactive = jsonlInteractive[m.Source]
	if m.UpdatedAt.IsZero() {
		m.UpdatedAt = f.ModTime
	}
	return m, nil
}

func jsonlEvents(f File, probs func(Problem), fn func(Event) error) error {
	return walkJSONL(f.Path, probs, false, func(l *jsonlLine, line int) error {
		if ev, ok := jsonlEvent(l, line); ok {
			return fn(ev)
		}
		return nil
	})
}
