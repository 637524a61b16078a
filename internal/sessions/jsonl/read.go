// Package jsonl reads memctl's own transcript format
// (docs/transcript-format.md), which any agent or script can write, into
// internal/sessions' normalised form.
package jsonl

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/sessions/internal/transcript"
	"github.com/memctl/memctl/internal/textcut"
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
	Status    string          `json:"status"`
	Escalated bool            `json:"escalated"`
	Path      string          `json:"path"`
	Op        string          `json:"op"`
}

// walkJSONL decodes a memctl transcript line by line.
func walkJSONL(path string, probs func(transcript.Problem), checkUTF8 bool, fn func(*jsonlLine, int) error) error {
	return transcript.WalkDecoded(path, probs, checkUTF8, fn)
}

// jsonlEvent converts a line to an event; ok is false for session and
// unknown lines.
func jsonlEvent(l *jsonlLine, line int) (transcript.Event, bool) {
	ev := transcript.Event{Time: transcript.ParseTime(l.Timestamp), Line: line}
	switch l.Type {
	case "message":
		switch l.Role {
		case "user":
			ev.Kind = transcript.EventHuman
		case "assistant":
			ev.Kind = transcript.EventAssistant
			ev.Final = l.Final
		case "context", "system", "developer":
			ev.Kind = transcript.EventContext
		case "agent":
			ev.Kind = transcript.EventOtherAgent
		default:
			return ev, false
		}
		ev.Text = l.Text
	case "tool_call":
		ev.Kind = transcript.EventToolCall
		ev.CallID, ev.Tool, ev.Command, ev.Escalated = l.ID, l.Name, transcript.UnwrapShell(l.Command), l.Escalated
		ev.Action = ActionOf(l.Name)
		if ev.Command != "" {
			ev.Action = transcript.ActionShell
		}
		if len(l.Input) > 0 {
			if l.Input[0] == '"' {
				ev.Input = textcut.Middle(transcript.RawString(l.Input), transcript.EventTextMax)
			} else {
				ev.Input = textcut.Middle(transcript.CompactJSON(l.Input), transcript.EventTextMax)
			}
		}
		if ev.Action == transcript.ActionRead || ev.Action == transcript.ActionEdit {
			var a transcript.FileArgs
			if json.Unmarshal(l.Input, &a) == nil {
				ev.FilePath = a.Target()
			}
		}
	case "tool_result":
		ev.Kind = transcript.EventToolResult
		ev.CallID, ev.Output, ev.ExitCode = l.ID, textcut.Middle(l.Output, transcript.EventTextMax), l.ExitCode
		ev.IsError = l.IsError || (l.ExitCode != nil && *l.ExitCode != 0)
		switch transcript.Outcome(l.Status) {
		case transcript.OutcomeOK, transcript.OutcomeFailed, transcript.OutcomeRejected, transcript.OutcomeDenied, transcript.OutcomeInterrupted, transcript.OutcomeCancelled:
			ev.Outcome = transcript.Outcome(l.Status)
		default:
			switch {
			case ev.IsError:
				ev.Outcome = transcript.OutcomeFailed
			case l.ExitCode != nil:
				ev.Outcome = transcript.OutcomeOK
			}
		}
		if ev.Outcome == transcript.OutcomeFailed {
			ev.IsError = true
		}
	case "file_change":
		ev.Kind = transcript.EventFileChange
		ev.CallID, ev.FilePath, ev.FileOp = l.ID, l.Path, l.Op
	case "interrupt":
		ev.Kind = transcript.EventInterrupt
		ev.Text = l.Text
	case "compaction":
		ev.Kind = transcript.EventCompaction
		ev.Text = l.Text
	default:
		return ev, false
	}
	return ev, true
}

var jsonlInteractive = map[string]bool{"cli": true, "vscode": true, "": true}

func ReadMeta(f transcript.File, probs func(transcript.Problem)) (transcript.Meta, error) {
	m := transcript.Meta{Kind: transcript.KindJSONL, Path: f.Path}
	seenSession := false
	err := walkJSONL(f.Path, probs, true, func(l *jsonlLine, line int) error {
		t := transcript.ParseTime(l.Timestamp)
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
		probs(transcript.Problem{Path: f.Path, Err: "no session line"})
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

// jsonlEvents streams memctl's own format. A file change that names a
// call waits for that call's result: a failed, rejected or interrupted
// call changed nothing. An edit tool call without file_change lines of its
// own reports the file its input names, under the same rule.
func Events(f transcript.File, probs func(transcript.Problem), fn func(transcript.Event) error) error {
	calls := map[string]bool{}                 // call ids seen, awaiting a result
	explicit := map[string]bool{}              // call ids with file_change lines of their own
	pending := map[string][]transcript.Event{} // call id → changes awaiting the result
	derived := map[string][]transcript.Event{} // call id → changes read from an edit call's input
	err := walkJSONL(f.Path, probs, false, func(l *jsonlLine, line int) error {
		ev, ok := jsonlEvent(l, line)
		if !ok {
			return nil
		}
		if len(calls) > 4096 {
			clear(calls)
			clear(explicit)
			clear(pending)
			clear(derived)
		}
		switch ev.Kind {
		case transcript.EventToolCall:
			if ev.CallID != "" {
				calls[ev.CallID] = true
				if ev.Action == transcript.ActionEdit {
					for _, fc := range transcript.EditChanges(ev.Tool, ev.Input) {
						fc.Time, fc.Line, fc.CallID, fc.Tool = ev.Time, ev.Line, ev.CallID, ev.Tool
						derived[ev.CallID] = append(derived[ev.CallID], fc)
					}
				}
			}
		case transcript.EventFileChange:
			if ev.CallID != "" && calls[ev.CallID] {
				explicit[ev.CallID] = true
				pending[ev.CallID] = append(pending[ev.CallID], ev)
				return nil
			}
		case transcript.EventToolResult:
			if err := fn(ev); err != nil {
				return err
			}
			changes := pending[ev.CallID]
			if !explicit[ev.CallID] {
				changes = derived[ev.CallID]
			}
			delete(calls, ev.CallID)
			delete(pending, ev.CallID)
			delete(derived, ev.CallID)
			delete(explicit, ev.CallID)
			if ev.Outcome != transcript.OutcomeOK && ev.Outcome != transcript.OutcomeUnknown {
				return nil
			}
			for _, fc := range changes {
				if err := fn(fc); err != nil {
					return err
				}
			}
			return nil
		}
		return fn(ev)
	})
	if err != nil {
		return err
	}
	// Changes whose call never got a result: the file says they happened.
	var rest []transcript.Event
	for _, changes := range pending {
		rest = append(rest, changes...)
	}
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].Line < rest[j].Line })
	for _, fc := range rest {
		if err := fn(fc); err != nil {
			return err
		}
	}
	return nil
}
