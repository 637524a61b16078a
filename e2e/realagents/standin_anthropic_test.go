package realagents

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
)

// Anthropic is a loopback stand-in of the Anthropic Messages API, as
// Claude Code uses it: POST /v1/messages, streamed as server-sent events
// (message_start, content_block_*, message_delta, message_stop) or as one
// JSON message when the request does not ask for a stream, plus
// /v1/messages/count_tokens. Requests that carry tools are the agent loop
// and are answered by the scripted sessions (Next); others (titles,
// summaries the CLI asks for on the side) get a short plain answer.
type Anthropic struct {
	URL string // base URL, for ANTHROPIC_BASE_URL
	recorder
	srv *http.Server
	ids atomic.Int64
}

// NewAnthropic starts the stand-in on 127.0.0.1.
func NewAnthropic() (*Anthropic, error) {
	ln, err := listenLoopback()
	if err != nil {
		return nil, err
	}
	a := &Anthropic{URL: "http://" + ln.Addr().String()}
	a.srv = &http.Server{Handler: http.HandlerFunc(a.serve)}
	go a.srv.Serve(ln)
	return a, nil
}

// Close stops the server.
func (a *Anthropic) Close() error { return a.srv.Close() }

// claudeCwdRE finds the working directory Claude Code states in its system prompt.
var claudeCwdRE = regexp.MustCompile(`Primary working directory: ([^\s\\]+)`)

type anthBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
}

type anthMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthRequest struct {
	Model    string            `json:"model"`
	Messages []anthMessage     `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
	Stream   bool              `json:"stream"`
}

func (m anthMessage) blocks() []anthBlock {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []anthBlock{{Type: "text", Text: s}}
	}
	var bs []anthBlock
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// textOf flattens a tool_result content (a string or a list of blocks).
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []anthBlock
	_ = json.Unmarshal(raw, &bs)
	var sb strings.Builder
	for _, b := range bs {
		sb.WriteString(b.Text)
	}
	return sb.String()
}

// anthConv reduces a Messages request to a Conv: the newest human text
// (system reminders and tool results are not human text) and the tool
// calls answered since.
func anthConv(req anthRequest, body string) Conv {
	c := Conv{Body: body}
	calls := map[string]Step{}
	for _, m := range req.Messages {
		bs := m.blocks()
		if m.Role == "assistant" {
			for _, b := range bs {
				if b.Type == "tool_use" {
					calls[b.ID] = Step{Tool: b.Name, Input: string(b.Input)}
				}
			}
			continue
		}
		if m.Role != "user" {
			continue
		}
		var human []string
		for _, b := range bs {
			switch b.Type {
			case "text":
				t := strings.TrimSpace(b.Text)
				if t != "" && !strings.HasPrefix(t, "<system-reminder>") && !strings.HasPrefix(t, "<local-command") && !strings.HasPrefix(t, "<command-") {
					human = append(human, t)
				}
			case "tool_result":
				st := calls[b.ToolUseID]
				st.Output = textOf(b.Content)
				c.Steps = append(c.Steps, st)
			}
		}
		if len(human) > 0 {
			c.Prompt = strings.Join(human, "\n")
			c.Steps = nil
		}
	}
	return c
}

func (a *Anthropic) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	a.add(Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: string(b)})
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"input_tokens":%d}`, len(b)/4+1)
		return
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"type":"error","error":{"type":"not_found_error","message":"not served by the stand-in"}}`)
		return
	}
	var req anthRequest
	if err := json.Unmarshal(b, &req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, err.Error())
		return
	}
	var act Action
	cwd := ""
	if m := claudeCwdRE.FindStringSubmatch(string(b)); m != nil {
		cwd = m[1]
	}
	if schema, ok := structuredOutputTool(req.Tools); ok {
		// memctl's request through claude -p --json-schema: answer once
		// with the StructuredOutput tool, then end the turn.
		act = Action{Text: "Done."}
		if c := anthConv(req, string(b)); len(c.Steps) == 0 {
			if ans := memoryAnswer(schema, string(b)); ans != nil {
				args, _ := json.Marshal(ans)
				act = Action{Tool: "mcp", Name: "StructuredOutput", Args: string(args)}
			}
		}
	} else if len(req.Tools) == 0 {
		act = Action{Text: "Scripted session"}
	} else {
		c := anthConv(req, string(b))
		for _, t := range req.Tools {
			if m := toolNameRE.FindSubmatch(t); m != nil {
				c.Tools = append(c.Tools, string(m[1]))
			}
		}
		act = Next(c)
		a.noteFinal(c.Prompt, act)
	}
	blocks, stop := a.toBlocks(act, cwd)
	n := a.ids.Add(1)
	msgID := fmt.Sprintf("msg_standin_%d", n)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		out, _ := json.Marshal(map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": req.Model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": len(b) / 4, "output_tokens": 20},
		})
		w.Write(out)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	ev := func(name string, v any) {
		d, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, d)
		if fl != nil {
			fl.Flush()
		}
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": len(b) / 4, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	for i, bl := range blocks {
		switch bl["type"] {
		case "text":
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			// Two deltas, so the CLI assembles the text as it would from a real stream.
			t := bl["text"].(string)
			half := len(t) / 2
			for half > 0 && half < len(t) && (t[half]&0xC0) == 0x80 {
				half++
			}
			for _, part := range []string{t[:half], t[half:]} {
				ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": part}})
			}
		case "tool_use":
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": bl["id"], "name": bl["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(bl["input"])
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	ev("message_stop", map[string]any{"type": "message_stop"})
}

// toBlocks renders an Action as Claude Code's tools (Bash, Read, Edit,
// Agent) or a final text block.
func (a *Anthropic) toBlocks(act Action, cwd string) ([]map[string]any, string) {
	absIn := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(cwd, p)
	}
	if act.Tool == "" {
		return []map[string]any{{"type": "text", "text": act.Text}}, "end_turn"
	}
	id := fmt.Sprintf("toolu_standin_%d", a.ids.Add(1))
	var name string
	var input map[string]any
	switch act.Tool {
	case "shell":
		name, input = "Bash", map[string]any{"command": act.Command, "description": "Run " + act.Command}
	case "read":
		name, input = "Read", map[string]any{"file_path": absIn(act.Path)}
	case "edit":
		name, input = "Edit", map[string]any{"file_path": absIn(act.Path), "old_string": act.Old, "new_string": act.New}
	case "agent":
		name, input = "Agent", map[string]any{"description": "List project files", "prompt": act.Prompt, "subagent_type": "general-purpose"}
	case "mcp":
		name = act.Name
		_ = json.Unmarshal([]byte(act.Args), &input)
	}
	return []map[string]any{{"type": "tool_use", "id": id, "name": name, "input": input}}, "tool_use"
}
