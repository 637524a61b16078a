package sessions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
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
func walkCodex(path string, probs func(Problem), checkUTF8 bool, fn func(codexLine) error) error {
	if strings.HasSuffix(path, ".json") {
		return walkCodexDocument(path, probs, fn)
	}
	r, closeFn, err := openTranscript(path)
	if err != nil {
		return err
	}
	defer closeFn()
	lr := newLineReader(r, path, probs)
	first := true
	for {
		b, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if checkUTF8 {
			lr.checkUTF8(b)
		}
		var typ, ts, recordType string
		var payload, id []byte
		hasPayload := false
		perr := eachField(b, func(k string, v []byte) bool {
			switch k {
			case "type":
				typ = rawString(v)
			case "timestamp":
				ts = rawString(v)
			case "payload":
				payload, hasPayload = v, true
			case "record_type":
				recordType = rawString(v)
			case "id":
				id = v
			}
			return true
		})
		if perr != nil {
			lr.report("malformed JSON line skipped")
			continue
		}
		isFirst := first
		first = false
		switch {
		case hasPayload && typ != "":
			err = fn(codexLine{typ: typ, ts: ts, payload: payload, line: lr.line})
		case recordType != "":
			continue // legacy state snapshot: no conversation content
		case typ == "" && isFirst && id != nil:
			err = fn(codexLine{typ: "session_meta", ts: ts, payload: b, line: lr.line, bare: true})
		case typ != "":
			err = fn(codexLine{typ: "response_item", ts: ts, payload: b, line: lr.line, bare: true})
		default:
			lr.report("line is not a rollout item")
			continue
		}
		if err != nil {
			return err
		}
	}
}

// walkCodexDocument reads the oldest rollout form, one JSON document
// {session:{…}, items:[…]}, which can only be read whole.
func walkCodexDocument(path string, probs func(Problem), fn func(codexLine) error) error {
	r, closeFn, err := openTranscript(path)
	if err != nil {
		return err
	}
	defer closeFn()
	doc, err := io.ReadAll(io.LimitReader(r, maxDocumentBytes+1))
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if len(doc) > maxDocumentBytes {
		probs(Problem{Path: path, Err: fmt.Sprintf("rollout document larger than %d bytes not read", maxDocumentBytes)})
		return nil
	}
	var session, items []byte
	if err := eachField(doc, func(k string, v []byte) bool {
		switch k {
		case "session":
			session = v
		case "items":
			items = v
		}
		return true
	}); err != nil {
		probs(Problem{Path: path, Line: 1, Err: "malformed rollout document"})
		return nil
	}
	if session != nil {
		if err := fn(codexLine{typ: "session_meta", ts: fieldString(session, "timestamp"), payload: session, line: 1, bare: true}); err != nil {
			return err
		}
	}
	var ferr error
	if items != nil {
		if err := eachElem(items, func(v []byte) bool {
			ferr = fn(codexLine{typ: "response_item", payload: v, line: 1, bare: true})
			return ferr == nil
		}); err != nil {
			probs(Problem{Path: path, Line: 1, Err: "malformed items array"})
		}
	}
	return ferr
}

// codexSource maps a serialized SessionSource to the string Codex stores
// in threads.source.
func codexSource(raw []byte) (source string, subagent bool, parent string) {
	if isNull(raw) {
		return "vscode", false, "" // serde default of the enum
	}
	if raw[0] == '"' {
		s := rawString(raw)
		if s == "" {
			return "unknown", false, ""
		}
		return s, false, ""
	}
	if raw[0] != '{' {
		return "unknown", false, ""
	}
	if c := field(raw, "custom"); c != nil {
		if s := rawString(c); s != "" {
			return s, false, ""
		}
	}
	if sa := field(raw, "subagent"); sa != nil {
		if ts := field(sa, "thread_spawn"); ts != nil {
			parent = fieldString(ts, "parent_thread_id")
		}
		return compactJSON(raw), true, parent
	}
	return compactJSON(raw), false, ""
}

var interactiveSources = map[string]bool{"cli": true, "vscode": true, "atlas": true, "chatgpt": true}

// messageParts returns the text of each content part of a message item,
// with images and audio as placeholders.
func messageParts(payload []byte) []string {
	content := field(payload, "content")
	if content == nil {
		return nil
	}
	if content[0] == '"' {
		return []string{rawString(content)}
	}
	var out []string
	_ = eachElem(content, func(v []byte) bool {
		switch fieldString(v, "type") {
		case "input_text", "output_text", "text", "summary_text", "reasoning_text":
			out = append(out, fieldString(v, "text"))
		case "input_image", "image":
			out = append(out, "[image omitted]")
		case "input_audio":
			out = append(out, "[audio omitted]")
		}
		return true
	})
	return out
}

// toolOutputText flattens a function_call_output.output value (string or
// content-part array).
func toolOutputText(v []byte) string {
	if isNull(v) {
		return ""
	}
	if v[0] == '"' {
		return rawString(v)
	}
	if v[0] == '[' {
		var parts []string
		_ = eachElem(v, func(e []byte) bool {
			switch fieldString(e, "type") {
			case "input_image", "image":
				parts = append(parts, "[image omitted]")
			default:
				if t := field(e, "text"); t != nil {
					parts = append(parts, rawString(t))
				}
			}
			return true
		})
		return strings.Join(parts, "\n")
	}
	if c := field(v, "content"); c != nil {
		return toolOutputText(c)
	}
	return compactJSON(v)
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
func readCodexMeta(f File, probs func(Problem)) (Meta, error) {
	m := Meta{Kind: KindCodex, Path: f.Path, Archived: f.Archived}
	fileID := uuidFromName(filepath.Base(f.Path))
	threadID := fileID
	metaSeen := false
	var firstTS time.Time
	var legacyPreview string
	sawUserEvent := false
	err := walkCodex(f.Path, probs, true, func(l codexLine) error {
		t := parseTime(l.ts)
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
				probs(Problem{Path: f.Path, Line: l.line, Err: "session_meta: " + err.Error()})
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
			m.CreatedAt = parseTime(sm.Timestamp)
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
			if model := fieldString(l.payload, "model"); model != "" {
				m.Model = model
			}
			if m.Cwd == "" {
				m.Cwd = fieldString(l.payload, "cwd")
			}
		case "event_msg":
			switch fieldString(l.payload, "type") {
			case "user_message":
				sawUserEvent = true
				if m.Preview == "" {
					m.Preview = cleanPreview(fieldString(l.payload, "message"))
				}
			case "item_completed":
				if text, ok := userMessageItem(field(l.payload, "item")); ok {
					sawUserEvent = true
					if m.Preview == "" {
						m.Preview = cleanPreview(text)
					}
				}
			case "mcp_tool_call_end", "web_search_end":
				m.UsedExternalContext = true
			}
		case "response_item":
			switch fieldString(l.payload, "type") {
			case "web_search_call", "tool_search_call", "tool_search_output":
				m.UsedExternalContext = true
			case "function_call", "custom_tool_call":
				if strings.HasPrefix(fieldString(l.payload, "name"), "mcp__") {
					m.UsedExternalContext = true
				}
			case "message":
				if legacyPreview == "" && fieldString(l.payload, "role") == "user" {
					for _, p := range messageParts(l.payload) {
						if !isInjectedContext(p) && strings.TrimSpace(p) != "" && p != "[image omitted]" {
							legacyPreview = cleanPreview(p)
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
		probs(Problem{Path: f.Path, Err: "no session metadata: not a Codex rollout, or an empty one"})
	}
	return m, nil
}

// userMessageItem reads the text of an item_completed UserMessage item.
func userMessageItem(item []byte) (string, bool) {
	if item == nil || fieldString(item, "type") != "UserMessage" {
		return "", false
	}
	if s := fieldString(item, "message"); s != "" {
		return s, true
	}
	var parts []string
	_ = eachElem(field(item, "content"), func(v []byte) bool {
		if t := fieldString(v, "text"); t != "" {
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
