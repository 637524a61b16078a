package agentcli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Request is one structured request as the CLI gets it. The input is not
// here: it goes to the CLI's standard input.
type Request struct {
	Model string
	// Effort is the reasoning effort ("low", "medium", "high" or "").
	Effort string
	System string // the system prompt
	Schema []byte // the JSON Schema the answer must satisfy
	// BaseURL is provider.base_url: the endpoint the CLI calls instead of
	// its own ("" for its own).
	BaseURL string
}

// Files the request puts in the scratch folder.
const (
	systemFile = "system.md"
	schemaFile = "schema.json"
)

// Command is a request ready to run: the arguments after the program,
// and the variables to set in the environment it inherits.
type Command struct {
	Args []string
	Env  map[string]string
}

// Prepare writes the request's files into the scratch folder and returns
// its command line.
func Prepare(agent Agent, req Request, s *Scratch) (Command, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, req.Schema); err != nil {
		return Command{}, fmt.Errorf("schema: %w", err)
	}
	req.Schema = compact.Bytes()
	sys := filepath.Join(s.Dir, systemFile)
	if err := os.WriteFile(sys, []byte(req.System), 0o600); err != nil {
		return Command{}, err
	}
	if agent == Codex {
		schema := filepath.Join(s.Dir, schemaFile)
		if err := os.WriteFile(schema, req.Schema, 0o600); err != nil {
			return Command{}, err
		}
		return Command{Args: CodexArgs(req, sys, schema), Env: map[string]string{"CODEX_HOME": s.CodexHome}}, nil
	}
	env := map[string]string{
		// No telemetry, error reports or update checks from a call that
		// only answers one request; no flag says so.
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
	}
	if req.BaseURL != "" {
		env["ANTHROPIC_BASE_URL"] = req.BaseURL
	}
	return Command{Args: ClaudeArgs(req, sys), Env: env}, nil
}

// ClaudeArgs is the command line of `claude` for one request, the system
// prompt in the file systemPath. The input comes on standard input; the
// answer is one JSON document on standard output (--output-format json)
// whose structured_output holds the answer to the schema.
//
//   - --safe-mode: no CLAUDE.md (the user's, the project's, its parents'),
//     no auto memory, no skills, plugins, hooks, MCP servers, custom
//     commands or agents; the login and the model work as usual.
//   - --tools "", --strict-mcp-config with an empty --mcp-config,
//     --settings with every hook off, --disable-slash-commands: the same
//     again by the flags made for each, should safe mode ever let one
//     through.
//   - --no-session-persistence: no transcript is written.
func ClaudeArgs(req Request, systemPath string) []string {
	args := []string{"-p", "--output-format", "json",
		"--model", req.Model,
		"--system-prompt-file", systemPath,
		"--json-schema", string(req.Schema),
		"--safe-mode",
		"--tools", "",
		"--strict-mcp-config", "--mcp-config", `{"mcpServers":{}}`,
		"--settings", `{"disableAllHooks":true}`,
		"--disable-slash-commands",
		"--no-session-persistence",
	}
	if req.Effort != "" {
		args = append(args, "--effort", req.Effort)
	}
	return args
}

// codexFeaturesOff are the Codex features a request turns off: hooks
// (memctl's own SessionStart hook among them), Codex's own memories,
// plugins and apps, and every tool that runs something (the shell, the
// code-mode host, sub-agents, images, the browser). Codex 0.169's
// unbounded_connection_retries would otherwise wait for the network
// forever when the endpoint cannot be reached.
var codexFeaturesOff = []string{
	"hooks", "memories", "plugins", "apps", "unbounded_connection_retries",
	"shell_tool", "unified_exec", "code_mode_host", "multi_agent", "view_image", "image_generation",
	"browser_use", "computer_use", "in_app_browser", "tool_suggest", "skill_search",
}

// CodexArgs is the command line of `codex` for one request, the system
// prompt and the schema in the files systemPath and schemaPath. The input
// comes on standard input ("-"); the answer is the last agent message of
// the JSONL events on standard output (--json), usage in turn.completed.
//
//   - --ignore-user-config: nothing of config.toml (MCP servers, hooks,
//     notify, profiles); CODEX_HOME is the scratch folder's own (see
//     Scratch), so the global AGENTS.md is not read either.
//   - -c project_doc_max_bytes=0: no AGENTS.md of the folders around.
//   - --ignore-rules, --sandbox read-only, the features above off.
//   - --ephemeral: no session file is written.
//   - -c analytics.enabled=false: no analytics (ab.chatgpt.com) from a
//     call that only answers one request.
//   - -c model_instructions_file: memctl's system prompt replaces Codex's
//     agent instructions.
func CodexArgs(req Request, systemPath, schemaPath string) []string {
	args := []string{"exec", "--json", "--ephemeral", "--skip-git-repo-check",
		"--ignore-user-config", "--ignore-rules", "--sandbox", "read-only",
		"-c", "project_doc_max_bytes=0",
		"-c", "analytics.enabled=false",
		"-c", "model_instructions_file=" + tomlString(systemPath),
		"--output-schema", schemaPath,
		"-m", req.Model,
	}
	for _, f := range codexFeaturesOff {
		args = append(args, "--disable", f)
	}
	if req.Effort != "" {
		args = append(args, "-c", "model_reasoning_effort="+tomlString(req.Effort))
	}
	if req.BaseURL != "" {
		// A provider of memctl's own for the endpoint: the login's
		// credentials are sent to it (requires_openai_auth), over HTTP
		// only (a gateway rarely speaks Codex's WebSocket transport).
		args = append(args, "-c", `model_provider="memctl"`,
			"-c", fmt.Sprintf("model_providers.memctl={name=\"memctl\",base_url=%s,wire_api=\"responses\",requires_openai_auth=true,supports_websockets=false}", tomlString(req.BaseURL)))
	}
	return append(args, "-")
}

// tomlString quotes s as a TOML basic string (Codex parses -c values as
// TOML).
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// harmlessStderr are lines a CLI prints on every request that say nothing
// about a failure: Codex 0.169 warns that it will not put its helper
// programs on PATH from a temporary folder (the scratch folder is one).
var harmlessStderr = []string{"WARNING: proceeding, even though we could not create PATH aliases"}

// Stderr is what a CLI printed on stderr without the lines it prints on
// every request, for an error message.
func Stderr(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		keep := true
		for _, h := range harmlessStderr {
			if strings.HasPrefix(strings.TrimSpace(l), h) {
				keep = false
			}
		}
		if keep {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
