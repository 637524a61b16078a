// Package scripted writes scripted coding sessions in the formats the
// agents write, Claude Code's project JSONL and Codex CLI's rollout JSONL,
// so that memctl reads them through the same readers as a user's own
// sessions. It knows the agents' tool names and line shapes, which belong
// to internal/sessions; unlike its siblings it is imported from outside,
// by the generators of benchmarks and tests (internal/regret/synth), never
// by memctl's commands.
package scripted

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Agent names the format a session is written in.
type Agent string

// The formats.
const (
	Claude Agent = "claude-code"
	Codex  Agent = "codex"
)

// Step is one thing the agent does: say something, run a command, edit a
// file (Old empty: create it with New), or call another tool by its name
// (a sub-agent, an MCP server's tool) whose result is Out.
type Step struct {
	Say  string
	Cmd  string
	Out  string
	Exit int
	File string // relative to the project folder
	Old  string
	New  string
	Tool string
}

// Turn is one message of the user, the agent's steps and its answer.
type Turn struct {
	User  string
	Steps []Step
	Final string
}

// Session is one generated session.
type Session struct {
	Agent Agent
	// Exec writes a non-interactive Codex session (`codex exec`), which
	// memctl does not extract, as Codex does not.
	Exec bool
	// Archived writes a Codex session under archived_sessions/, which is
	// not extracted either.
	Archived bool
	Start    time.Time
	Turns    []Turn
	// ID is set by Write.
	ID string
}

// Project is one generated repository and its sessions.
type Project struct {
	Name     string
	Cwd      string
	Sessions []*Session
}

// uuidFor derives a stable random-shaped (version 4) id from a seed.
func uuidFor(seed string) string {
	h := sha256.Sum256([]byte(seed))
	b := h[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

// SessionID is a version 7 id, as Codex gives its threads: the session's
// start time in its first 48 bits, the rest derived from the seed.
func SessionID(seed string, start time.Time) string {
	h := sha256.Sum256([]byte(seed))
	b := h[:16]
	ms := uint64(start.UnixMilli())
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func formatUUID(b []byte) string {
	x := hex.EncodeToString(b)
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// writer renders one session's lines.
type writer struct {
	lines []string
	t     time.Time
	seed  string
	n     int
}

func (w *writer) id(kind string) string {
	w.n++
	return uuidFor(fmt.Sprintf("%s/%s/%d", w.seed, kind, w.n))
}

func (w *writer) tick(d time.Duration) string {
	w.t = w.t.Add(d)
	return w.t.UTC().Format("2006-01-02T15:04:05.000Z")
}

func (w *writer) add(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of strings, numbers and bools
	}
	w.lines = append(w.lines, string(b))
}

type obj = map[string]any

// WriteSession writes s, the index-th session of project p, under root:
// Claude Code sessions in root/claude/projects, Codex sessions in
// root/codex/sessions (root/codex/archived_sessions when archived). s.ID
// is set when empty. It returns the file written.
func WriteSession(root string, p *Project, s *Session, index int) (string, error) {
	seed := p.Name + "/" + fmt.Sprint(index)
	if s.ID == "" {
		s.ID = SessionID(seed, s.Start)
	}
	w := &writer{t: s.Start, seed: seed}
	var file string
	switch s.Agent {
	case Claude:
		w.claude(p, s)
		file = filepath.Join(root, "claude", "projects", claudeDir(p.Cwd), s.ID+".jsonl")
	case Codex:
		w.codex(p, s)
		name := "rollout-" + s.Start.UTC().Format("2006-01-02T15-04-05") + "-" + s.ID + ".jsonl"
		if s.Archived {
			file = filepath.Join(root, "codex", "archived_sessions", name)
		} else {
			file = filepath.Join(root, "codex", "sessions", s.Start.UTC().Format("2006/01/02"), name)
		}
	default:
		return "", fmt.Errorf("synth: unknown agent %q", s.Agent)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", err
	}
	return file, os.WriteFile(file, []byte(strings.Join(w.lines, "\n")+"\n"), 0o600)
}

// claudeDir is the folder Claude Code keeps a working directory's
// sessions in: every character that is not a letter or a digit becomes
// "-".
func claudeDir(cwd string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, cwd)
}

func abs(p *Project, file string) string { return path.Join(p.Cwd, file) }

func (w *writer) claude(p *Project, s *Session) {
	parent := any(nil)
	base := func(typ, uuid string) obj {
		return obj{"parentUuid": parent, "isSidechain": false, "type": typ, "uuid": uuid, "timestamp": w.tick(2 * time.Second),
			"userType": "external", "entrypoint": "cli", "cwd": p.Cwd, "sessionId": s.ID, "version": "2.1.158", "gitBranch": "main"}
	}
	assistant := func(content []obj, stop any) {
		u := w.id("a")
		l := base("assistant", u)
		l["message"] = obj{"model": "claude-opus-4-7", "id": "msg_" + w.id("m")[:24], "type": "message", "role": "assistant",
			"content": content, "stop_reason": stop, "stop_sequence": nil,
			"usage": obj{"input_tokens": 8, "cache_read_input_tokens": 12000, "output_tokens": 120}}
		l["requestId"] = "req_" + w.id("r")[:24]
		w.add(l)
		parent = u
	}
	for _, t := range s.Turns {
		u := w.id("u")
		l := base("user", u)
		l["promptId"] = w.id("p")
		l["permissionMode"] = "default"
		l["message"] = obj{"role": "user", "content": t.User}
		w.add(l)
		parent = u
		for _, st := range t.Steps {
			if st.Say != "" {
				assistant([]obj{{"type": "text", "text": st.Say}}, nil)
			}
			if st.Cmd == "" && st.File == "" && st.Tool == "" {
				continue
			}
			callID := "toolu_" + strings.ReplaceAll(w.id("t"), "-", "")[:24]
			var use obj
			var result string
			var extra any
			isErr := false
			switch {
			case st.Tool != "":
				use = obj{"type": "tool_use", "id": callID, "name": st.Tool, "input": obj{"description": "Call " + st.Tool, "prompt": "Do the step."}}
				result, extra = st.Out, obj{"content": []obj{{"type": "text", "text": st.Out}}}
			case st.Cmd != "":
				use = obj{"type": "tool_use", "id": callID, "name": "Bash", "input": obj{"command": st.Cmd, "description": "Run " + strings.Fields(st.Cmd)[0]}}
				result = st.Out
				extra = obj{"stdout": st.Out, "stderr": "", "interrupted": false, "isImage": false}
				if st.Exit != 0 {
					isErr = true
					result = fmt.Sprintf("Exit code %d\n%s", st.Exit, st.Out)
					extra = "Error: " + result
				}
			case st.Old == "":
				use = obj{"type": "tool_use", "id": callID, "name": "Write", "input": obj{"file_path": abs(p, st.File), "content": st.New}}
				result = "File created successfully at: " + abs(p, st.File)
				extra = obj{"type": "create", "filePath": abs(p, st.File), "content": st.New, "structuredPatch": []any{}}
			default:
				use = obj{"type": "tool_use", "id": callID, "name": "Edit", "input": obj{"file_path": abs(p, st.File), "old_string": st.Old, "new_string": st.New, "replace_all": false}}
				result = "The file " + abs(p, st.File) + " has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n     1\t" + st.New
				extra = obj{"filePath": abs(p, st.File), "oldString": st.Old, "newString": st.New, "originalFile": st.Old, "structuredPatch": []any{}, "userModified": false, "replaceAll": false}
			}
			caller := w.id("a")
			assistantUse := base("assistant", caller)
			assistantUse["message"] = obj{"model": "claude-opus-4-7", "id": "msg_" + w.id("m")[:24], "type": "message", "role": "assistant",
				"content": []obj{use}, "stop_reason": "tool_use", "stop_sequence": nil,
				"usage": obj{"input_tokens": 8, "cache_read_input_tokens": 12000, "output_tokens": 60}}
			assistantUse["requestId"] = "req_" + w.id("r")[:24]
			w.add(assistantUse)
			parent = caller
			ru := w.id("u")
			rl := base("user", ru)
			rl["message"] = obj{"role": "user", "content": []obj{{"tool_use_id": callID, "type": "tool_result", "content": result, "is_error": isErr}}}
			rl["toolUseResult"] = extra
			rl["sourceToolAssistantUUID"] = caller
			w.add(rl)
			parent = ru
		}
		if t.Final != "" {
			assistant([]obj{{"type": "text", "text": t.Final}}, "end_turn")
		}
	}
}

func (w *writer) codex(p *Project, s *Session) {
	originator, source := "codex_cli_rs", "cli"
	if s.Exec {
		originator, source = "codex_exec", "exec"
	}
	ts := w.tick(0)
	w.add(obj{"timestamp": ts, "type": "session_meta", "payload": obj{"id": s.ID, "timestamp": ts, "cwd": p.Cwd,
		"originator": originator, "cli_version": "0.125.0", "source": source, "model_provider": "openai",
		"base_instructions": obj{"text": "You are Codex, a coding agent working in the user's terminal."},
		// No remote: the generated folders do not exist, so a Claude Code
		// session in the same folder is keyed by its path, and a recorded
		// remote would put the Codex sessions in another project.
		"git": obj{"commit_hash": commitHash(p.Name), "branch": "main"}}})
	event := func(payload obj) {
		w.add(obj{"timestamp": w.tick(time.Second), "type": "event_msg", "payload": payload})
	}
	item := func(payload obj) {
		w.add(obj{"timestamp": w.tick(time.Second), "type": "response_item", "payload": payload})
	}
	say := func(text, phase string) {
		event(obj{"type": "agent_message", "message": text, "phase": phase, "memory_citation": nil})
		item(obj{"type": "message", "role": "assistant", "content": []obj{{"type": "output_text", "text": text}}, "phase": phase})
	}
	for ti, t := range s.Turns {
		turn := w.id("turn")
		event(obj{"type": "task_started", "turn_id": turn, "model_context_window": 258400, "collaboration_mode_kind": "default"})
		if ti == 0 {
			item(obj{"type": "message", "role": "user", "content": []obj{{"type": "input_text",
				"text": "<environment_context>\n  <cwd>" + p.Cwd + "</cwd>\n  <shell>bash</shell>\n</environment_context>"}}})
		}
		w.add(obj{"timestamp": w.tick(0), "type": "turn_context", "payload": obj{"turn_id": turn, "cwd": p.Cwd,
			"approval_policy": "on-request", "sandbox_policy": obj{"type": "workspace-write", "network_access": false},
			"model": "gpt-5.5", "effort": "medium", "summary": "none"}})
		item(obj{"type": "message", "role": "user", "content": []obj{{"type": "input_text", "text": t.User}}})
		event(obj{"type": "user_message", "message": t.User, "images": []any{}, "local_images": []any{}, "text_elements": []any{}})
		for _, st := range t.Steps {
			if st.Say != "" {
				say(st.Say, "commentary")
			}
			callID := "call_" + strings.ReplaceAll(w.id("c"), "-", "")[:24]
			switch {
			case st.Tool != "":
				item(obj{"type": "function_call", "name": st.Tool, "arguments": "{}", "call_id": callID})
				item(obj{"type": "function_call_output", "call_id": callID, "output": st.Out})
			case st.Cmd != "":
				args, _ := json.Marshal(obj{"cmd": st.Cmd, "workdir": p.Cwd, "yield_time_ms": 10000, "max_output_tokens": 12000})
				item(obj{"type": "function_call", "name": "exec_command", "arguments": string(args), "call_id": callID})
				item(obj{"type": "function_call_output", "call_id": callID,
					"output": fmt.Sprintf("Chunk ID: %s\nWall time: 0.8000 seconds\nProcess exited with code %d\nOriginal token count: %d\nOutput:\n%s", callID[5:11], st.Exit, len(st.Out)/4, st.Out)})
				event(obj{"type": "exec_command_end", "call_id": callID, "turn_id": turn, "command": []string{"/bin/bash", "-lc", st.Cmd},
					"cwd": p.Cwd, "stdout": "", "stderr": "", "aggregated_output": st.Out, "exit_code": st.Exit,
					"duration": obj{"secs": 0, "nanos": 800000000}, "formatted_output": "", "status": "completed"})
			case st.File != "":
				op, verb := "update", "M"
				patch := "*** Begin Patch\n*** Update File: " + st.File + "\n@@\n-" + strings.ReplaceAll(st.Old, "\n", "\n-") + "\n+" + strings.ReplaceAll(st.New, "\n", "\n+") + "\n*** End Patch\n"
				if st.Old == "" {
					op, verb = "add", "A"
					patch = "*** Begin Patch\n*** Add File: " + st.File + "\n+" + strings.ReplaceAll(st.New, "\n", "\n+") + "\n*** End Patch\n"
				}
				item(obj{"type": "custom_tool_call", "status": "completed", "call_id": callID, "name": "apply_patch", "input": patch})
				event(obj{"type": "patch_apply_end", "call_id": callID, "turn_id": turn, "stdout": "Success. Updated the following files:\n" + verb + " " + st.File + "\n",
					"stderr": "", "success": true, "changes": obj{abs(p, st.File): obj{"type": op}}})
				out, _ := json.Marshal(obj{"output": "Success. Updated the following files:\n" + verb + " " + st.File + "\n", "metadata": obj{"exit_code": 0, "duration_seconds": 0.0}})
				item(obj{"type": "custom_tool_call_output", "call_id": callID, "output": string(out)})
			}
		}
		if t.Final != "" {
			say(t.Final, "final_answer")
		}
		event(obj{"type": "task_complete", "turn_id": turn, "last_agent_message": t.Final})
	}
}

// commitHash is a stable 40-digit commit id for a project.
func commitHash(name string) string {
	h := sha256.Sum256([]byte(name + "/commit"))
	return hex.EncodeToString(h[:20])
}
