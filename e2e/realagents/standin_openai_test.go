package realagents

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
)

// OpenAI is a loopback stand-in of the OpenAI Responses API, as the Codex
// CLI uses it: POST /v1/responses answered as a server-sent event stream
// (response.created, response.output_item.added/done,
// response.output_text.delta, response.completed). Requests that carry a
// shell tool are the agent loop and are answered by the scripted sessions
// (Next); others get a short plain answer. GET /v1/models lists one model.
type OpenAI struct {
	URL string // base URL including /v1
	recorder
	srv *http.Server
	ids atomic.Int64
}

// NewOpenAI starts the stand-in on 127.0.0.1.
func NewOpenAI() (*OpenAI, error) {
	ln, err := listenLoopback()
	if err != nil {
		return nil, err
	}
	o := &OpenAI{URL: "http://" + ln.Addr().String() + "/v1"}
	o.srv = &http.Server{Handler: http.HandlerFunc(o.serve)}
	go o.srv.Serve(ln)
	return o, nil
}

// Close stops the server.
func (o *OpenAI) Close() error { return o.srv.Close() }

type respItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
}

type respRequest struct {
	Model        string            `json:"model"`
	Instructions string            `json:"instructions"`
	Input        []respItem        `json:"input"`
	Tools        []json.RawMessage `json:"tools"`
	Stream       bool              `json:"stream"`
	Text         struct {
		Format struct {
			Type   string         `json:"type"`
			Schema map[string]any `json:"schema"`
		} `json:"format"`
	} `json:"text"`
}

func respText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var sb strings.Builder
	for _, p := range parts {
		sb.WriteString(p.Text)
	}
	return sb.String()
}

// isCodexContext tells Codex's own context messages (environment,
// instruction files, hook context) from what the human typed.
func isCodexContext(t string) bool {
	t = strings.TrimSpace(t)
	return t == "" || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "# AGENTS.md")
}

func respConv(req respRequest, body string) Conv {
	c := Conv{Body: body}
	calls := map[string]Step{}
	for _, it := range req.Input {
		switch it.Type {
		case "message", "":
			if it.Role != "user" {
				continue
			}
			if t := respText(it.Content); !isCodexContext(t) {
				c.Prompt, c.Steps = t, nil
			}
		case "function_call":
			calls[it.CallID] = Step{Tool: it.Name, Input: it.Arguments}
		case "custom_tool_call":
			calls[it.CallID] = Step{Tool: it.Name, Input: it.Input}
		case "function_call_output", "custom_tool_call_output":
			st := calls[it.CallID]
			var out struct {
				Output string `json:"output"`
			}
			if json.Unmarshal(it.Output, &out) == nil && out.Output != "" {
				st.Output = out.Output
			} else {
				st.Output = respText(it.Output)
			}
			c.Steps = append(c.Steps, st)
		}
	}
	return c
}

var toolNameRE = regexp.MustCompile(`"name"\s*:\s*"([^"]+)"`)

// nsSep joins a namespace and a tool name in Conv.Tools.
const nsSep = "::"

// respToolNames lists the tools a request offers; a tool inside a
// namespace is listed as "<namespace>::<name>".
func respToolNames(tools []json.RawMessage) []string {
	var out []string
	for _, raw := range tools {
		var t struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if json.Unmarshal(raw, &t) != nil {
			continue
		}
		if t.Type == "namespace" {
			for _, sub := range t.Tools {
				out = append(out, t.Name+nsSep+sub.Name)
			}
			continue
		}
		out = append(out, t.Name)
	}
	return out
}

// shellTool picks the shell tool the request offers (its name changed
// across Codex releases).
func shellTool(req respRequest) (string, bool) {
	names := map[string]bool{}
	for _, t := range req.Tools {
		if m := toolNameRE.FindSubmatch(t); m != nil {
			names[string(m[1])] = true
		}
	}
	for _, n := range []string{"exec_command", "shell_command", "shell"} {
		if names[n] {
			return n, true
		}
	}
	return "", false
}

func (o *OpenAI) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	o.add(Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: string(b)})
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"id":"standin-model","object":"model","created":1,"owned_by":"standin"}],"models":[]}`)
		return
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"message":"not served by the stand-in","type":"invalid_request_error"}}`)
		return
	}
	var req respRequest
	if err := json.Unmarshal(b, &req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, err.Error())
		return
	}
	shell, ok := shellTool(req)
	act := Action{Text: "Scripted session"}
	if f := req.Text.Format; f.Type == "json_schema" {
		// memctl's request through codex exec --output-schema: the final
		// message is the JSON answer.
		if ans := memoryAnswer(f.Schema, string(b)); ans != nil {
			text, _ := json.Marshal(ans)
			act = Action{Text: string(text)}
		}
	} else if ok {
		c := respConv(req, string(b))
		c.Tools = respToolNames(req.Tools)
		act = Next(c)
		o.noteFinal(c.Prompt, act)
	}
	n := o.ids.Add(1)
	respID := fmt.Sprintf("resp_standin_%d", n)
	item := o.toItem(act, shell, n, respToolNames(req.Tools))

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	seq := 0
	ev := func(name string, v map[string]any) {
		v["type"] = name
		v["sequence_number"] = seq
		seq++
		d, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, d)
		if fl != nil {
			fl.Flush()
		}
	}
	base := map[string]any{"id": respID, "object": "response", "created_at": 1, "model": req.Model, "status": "in_progress", "output": []any{}}
	ev("response.created", map[string]any{"response": base})
	ev("response.in_progress", map[string]any{"response": base})
	ev("response.output_item.added", map[string]any{"output_index": 0, "item": item})
	if act.Tool == "" {
		ev("response.content_part.added", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		ev("response.output_text.delta", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0, "delta": act.Text})
		ev("response.output_text.done", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0, "text": act.Text})
	}
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	done := map[string]any{"id": respID, "object": "response", "created_at": 1, "model": req.Model, "status": "completed",
		"output": []any{item},
		"usage": map[string]any{"input_tokens": len(b) / 4, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 20, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": len(b)/4 + 20}}
	ev("response.completed", map[string]any{"response": done})
}

// toItem renders an Action as a Responses output item: a function call of
// Codex's shell tool (reads and edits are shell commands too) or an
// assistant message.
func (o *OpenAI) toItem(act Action, shell string, n int64, tools []string) map[string]any {
	if act.Tool == "" {
		return map[string]any{"type": "message", "id": fmt.Sprintf("msg_standin_%d", n), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": act.Text, "annotations": []any{}}}}
	}
	if act.Tool == "mcp" {
		it := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_standin_%d", n), "status": "completed",
			"call_id": fmt.Sprintf("call_standin_%d", n), "name": act.Name, "arguments": act.Args}
		// A tool of a namespace (Codex groups each MCP server's tools in
		// one) is called by its own name with the namespace beside it.
		if ns, name, ok := strings.Cut(act.Name, nsSep); ok {
			it["namespace"], it["name"] = ns, name
		}
		return it
	}
	var cmd string
	switch act.Tool {
	case "shell":
		cmd = act.Command
	case "read":
		cmd = "cat " + shellQuote(act.Path)
	case "edit":
		cmd = fmt.Sprintf("sed -i 's/%s/%s/' %s", sedEscape(act.Old), sedEscape(act.New), shellQuote(act.Path))
	case "agent":
		for _, t := range tools {
			if strings.HasSuffix(t, nsSep+"spawn_agent") {
				args, _ := json.Marshal(map[string]any{"message": act.Prompt})
				return o.toItem(Action{Tool: "mcp", Name: t, Args: string(args)}, shell, n, tools)
			}
		}
		// No sub-agents offered: the scripted session lists the files itself.
		cmd = "ls"
	}
	var args []byte
	switch shell {
	case "exec_command":
		args, _ = json.Marshal(map[string]any{"cmd": cmd})
	case "shell_command":
		args, _ = json.Marshal(map[string]any{"command": cmd})
	default:
		args, _ = json.Marshal(map[string]any{"command": []string{"bash", "-lc", cmd}})
	}
	return map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_standin_%d", n), "status": "completed",
		"call_id": fmt.Sprintf("call_standin_%d", n), "name": shell, "arguments": string(args)}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func sedEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `/`, `\/`, `&`, `\&`, `$`, `\$`, `'`, `'\''`, `+`, `+`)
	return r.Replace(s)
}
