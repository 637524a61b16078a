// Package codex reads Codex CLI rollouts (every generation of
// session-formats.md: envelope JSONL, legacy JSONL, single-document JSON,
// .jsonl.zst) into internal/sessions' normalised form: thread metadata, events
// with tool outcomes decoded from Codex's own tool vocabulary, and the
// Phase 1 model input.
package codex

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/sessions/internal/transcript"
)

// codexLine is one rollout item, whatever generation wrote it. Legacy
// bare ResponseItems and items of single-document .json rollouts are
// presented as "response_item" lines; the legacy first line as
// "session_meta".
type codexLine struct {
	typ     string
	ts      string
	payload []byte
	line    int
	bare    bool // legacy or single-document item, not wrapped in an envelope
}

// walkCodex streams the items of a Codex rollout. Broken lines become
// problems; the error is only for an unreadable file or fn's own error.
func walkCodex(path string, probs func(transcript.Problem), checkUTF8 bool, fn func(codexLine) error) error {
	if strings.HasSuffix(path, ".json") {
		return walkCodexDocument(path, probs, fn)
	}
	first := true
	return transcript.WalkLines(path, probs, checkUTF8, func(lr *transcript.LineReader, b []byte) error {
		var typ, ts, recordType string
		var payload, id []byte
		hasPayload := false
		perr := transcript.EachField(b, func(k string, v []byte) bool {
			switch k {
			case "type":
				typ = transcript.RawString(v)
			case "timestamp":
				ts = transcript.RawString(v)
			case "payload":
				payload, hasPayload = v, true
			case "record_type":
				recordType = transcript.RawString(v)
			case "id":
				id = v
			}
			return true
		})
		if perr != nil {
			lr.Report("malformed JSON line skipped")
			return nil
		}
		isFirst := first
		first = false
		switch {
		case hasPayload && typ != "":
			return fn(codexLine{typ: typ, ts: ts, payload: payload, line: lr.Line})
		case recordType != "":
			return nil // legacy state snapshot: no conversation content
		case typ == "" && isFirst && id != nil:
			return fn(codexLine{typ: "session_meta", ts: ts, payload: b, line: lr.Line, bare: true})
		case typ != "":
			return fn(codexLine{typ: "response_item", ts: ts, payload: b, line: lr.Line, bare: true})
		}
		lr.Report("line is not a rollout item")
		return nil
	})
}

// walkCodexDocument reads the oldest rollout form, one JSON document
// {session:{…}, items:[…]}, which can only be read whole.
func walkCodexDocument(path string, probs func(transcript.Problem), fn func(codexLine) error) error {
	r, closeFn, err := transcript.OpenTranscript(path)
	if err != nil {
		return err
	}
	defer closeFn()
	doc, err := io.ReadAll(io.LimitReader(r, transcript.MaxDocumentBytes+1))
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if len(doc) > transcript.MaxDocumentBytes {
		probs(transcript.Problem{Path: path, Err: fmt.Sprintf("rollout document larger than %d bytes not read", transcript.MaxDocumentBytes)})
		return nil
	}
	var session, items []byte
	if err := transcript.EachField(doc, func(k string, v []byte) bool {
		switch k {
		case "session":
			session = v
		case "items":
			items = v
		}
		return true
	}); err != nil {
		probs(transcript.Problem{Path: path, Line: 1, Err: "malformed rollout document"})
		return nil
	}
	if session != nil {
		if err := fn(codexLine{typ: "session_meta", ts: transcript.FieldString(session, "timestamp"), payload: session, line: 1, bare: true}); err != nil {
			return err
		}
	}
	var ferr error
	if items != nil {
		if err := transcript.EachElem(items, func(v []byte) bool {
			ferr = fn(codexLine{typ: "response_item", payload: v, line: 1, bare: true})
			return ferr == nil
		}); err != nil {
			probs(transcript.Problem{Path: path, Line: 1, Err: "malformed items array"})
		}
	}
	return ferr
}

// codexSource maps a serialized SessionSource to the string Codex stores
// in threads.source.
func codexSource(raw []byte) (source string, subagent bool, parent string) {
	if transcript.IsNull(raw) {
		return "vscode", false, "" // serde default of the enum
	}
	if raw[0] == '"' {
		s := transcript.RawString(raw)
		if s == "" {
			return "unknown", false, ""
		}
		return s, false, ""
	}
	if raw[0] != '{' {
		return "unknown", false, ""
	}
	if c := transcript.Field(raw, "custom"); c != nil {
		if s := transcript.RawString(c); s != "" {
			return s, false, ""
		}
	}
	if sa := transcript.Field(raw, "subagent"); sa != nil {
		if ts := transcript.Field(sa, "thread_spawn"); ts != nil {
			parent = transcript.FieldString(ts, "parent_thread_id")
		}
		return transcript.CompactJSON(raw), true, parent
	}
	return transcript.CompactJSON(raw), false, ""
}

var interactiveSources = map[string]bool{"cli": true, "vscode": true, "atlas": true, "chatgpt": true}

// messageParts returns the text of each content part of a message item,
// with images and audio as placeholders.
func messageParts(payload []byte) []string {
	content := transcript.Field(payload, "content")
	if content == nil {
		return nil
	}
	if content[0] == '"' {
		return []string{transcript.RawString(content)}
	}
	var out []string
	_ = transcript.EachElem(content, func(v []byte) bool {
		switch transcript.FieldString(v, "type") {
		case "input_text", "output_text", "text", "summary_text", "reasoning_text":
			out = append(out, transcript.FieldString(v, "text"))
		case "input_image", "image":
			out = append(out, "[image omitted]")
		case "input_audio":
			out = append(out, "[audio omitted]")
		}
		return true
	})
	return out
}

type codexSessionMeta struct {
	ID             string          `json:"id"`
	Timestamp      string          `json:"timestamp"`
	Cwd            string          `json:"cwd"`
	Source         json.RawMessage `json:"source"`
	ForkedFromID   string          `json:"forked_from_id"`
	ParentThreadID string          `json:"parent_thread_id"`
	MemoryMode     string          `json:"memory_mode"`
	Git            *struct {
		CommitHash    string `json:"commit_hash"`
		Branch        string `json:"branch"`
		RepositoryURL string `json:"repository_url"`
	} `json:"git"`
}

// readCodexMeta builds the thread metadata of a Codex rollout.
func ReadMeta(f transcript.File, probs func(transcript.Problem)) (transcript.Meta, error) {
	m := transcript.Meta{Kind: transcript.KindCodex, Path: f.Path, Archived: f.Archived}
	fileID := transcript.UUIDFromName(filepath.Base(f.Path))
	threadID := fileID
	metaSeen := false
	var firstTS time.Time
	var legacyPreview string
	sawUserEvent := false
	err := walkCodex(f.Path, probs, true, func(l codexLine) error {
		t := transcript.ParseTime(l.ts)
		if !t.IsZero() {
			if firstTS.IsZero() {
				firstTS = t
			}
			if t.After(m.UpdatedAt) {
				m.UpdatedAt = t
			}
		}
		switch l.typ {
		case "session_meta":
			var sm codexSessionMeta
			if err := json.Unmarshal(l.payload, &sm); err != nil {
				probs(transcript.Problem{Path: f.Path, Line: l.line, Err: "session_meta: " + err.Error()})
				return nil
			}
			if threadID == "" {
				threadID = sm.ID
			}
			if sm.ID != "" && !strings.EqualFold(sm.ID, threadID) {
				return nil // a forked file repeats its ancestors' metadata
			}
			if sm.MemoryMode != "" {
				m.MemoryMode = sm.MemoryMode
			}
			if metaSeen {
				return nil
			}
			metaSeen = true
			if sm.ID != "" {
				m.ID = sm.ID
			}
			m.CreatedAt = transcript.ParseTime(sm.Timestamp)
			if m.CreatedAt.IsZero() {
				m.CreatedAt = t
			}
			if m.CreatedAt.After(m.UpdatedAt) {
				m.UpdatedAt = m.CreatedAt
			}
			m.Cwd = sm.Cwd
			if sm.Git != nil {
				m.GitBranch, m.GitRemote, m.GitSHA = sm.Git.Branch, sm.Git.RepositoryURL, sm.Git.CommitHash
			}
			// The legacy first line carries no source: treat it like the
			// enum default, as Codex does.
			m.Source, m.Subagent, m.ParentID = codexSource(sm.Source)
			if m.ParentID == "" {
				m.ParentID = sm.ParentThreadID
			}
			if m.ParentID == "" {
				m.ParentID = sm.ForkedFromID
			}
		case "turn_context":
			if model := transcript.FieldString(l.payload, "model"); model != "" {
				m.Model = model
			}
			if m.Cwd == "" {
				m.Cwd = transcript.FieldString(l.payload, "cwd")
			}
		case "event_msg":
			switch transcript.FieldString(l.payload, "type") {
			case "user_message":
				sawUserEvent = true
				if m.Preview == "" {
					m.Preview = transcript.CleanPreview(transcript.FieldString(l.payload, "message"))
				}
			case "item_completed":
				if text, ok := userMessageItem(transcript.Field(l.payload, "item")); ok {
					sawUserEvent = true
					if m.Preview == "" {
						m.Preview = transcript.CleanPreview(text)
					}
				}
			case "mcp_tool_call_end", "web_search_end":
				m.UsedExternalContext = true
			}
		case "response_item":
			switch transcript.FieldString(l.payload, "type") {
			case "web_search_call", "tool_search_call", "tool_search_output":
				m.UsedExternalContext = true
			case "function_call", "custom_tool_call":
				if strings.HasPrefix(transcript.FieldString(l.payload, "name"), "mcp__") {
					m.UsedExternalContext = true
				}
			case "message":
				if legacyPreview == "" && transcript.FieldString(l.payload, "role") == "user" {
					for _, p := range messageParts(l.payload) {
						if !transcript.IsInjectedContext(p) && strings.TrimSpace(p) != "" && p != "[image omitted]" {
							legacyPreview = transcript.CleanPreview(p)
							break
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return m, err
	}
	if m.ID == "" {
		m.ID = threadID
	}
	if m.Source == "" {
		m.Source = "vscode"
	}
	m.Interactive = interactiveSources[m.Source] && !m.Subagent
	if !sawUserEvent && m.Preview == "" {
		m.Preview = legacyPreview
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = firstTS
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = timeFromRolloutName(filepath.Base(f.Path))
	}
	if m.UpdatedAt.IsZero() {
		m.UpdatedAt = f.ModTime
	}
	if !metaSeen {
		probs(transcript.Problem{Path: f.Path, Err: "no session metadata: not a Codex rollout, or an empty one"})
	}
	return m, nil
}

// userMessageItem reads the text of an item_completed UserMessage item.
func userMessageItem(item []byte) (string, bool) {
	if item == nil || transcript.FieldString(item, "type") != "UserMessage" {
		return "", false
	}
	if s := transcript.FieldString(item, "message"); s != "" {
		return s, true
	}
	var parts []string
	_ = transcript.EachElem(transcript.Field(item, "content"), func(v []byte) bool {
		if t := transcript.FieldString(v, "text"); t != "" {
			parts = append(parts, t)
		}
		return true
	})
	return strings.Join(parts, "\n"), true
}

// timeFromRolloutName parses rollout-YYYY-MM-DDThh-mm-ss-…; like Codex it
// reads the local-time stamp as UTC.
func timeFromRolloutName(name string) time.Time {
	s, ok := strings.CutPrefix(name, "rollout-")
	if !ok || len(s) < 19 {
		return time.Time{}
	}
	t, err := time.Parse("2006-01-02T15-04-05", s[:19])
	if err != nil {
		return time.Time{}
	}
	return t
}
