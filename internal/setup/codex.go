package setup

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

// Codex's config.toml is edited as text: memctl's lines sit between
// marker comments, so the user's formatting and comments stay as they
// are and an undo can take exactly those lines out again.
const (
	markNotifyBegin = "# >>> memctl setup: notify >>>"
	markNotifyEnd   = "# <<< memctl setup: notify <<<"
	markBegin       = "# >>> memctl setup >>>"
	markEnd         = "# <<< memctl setup <<<"
)

var tomlBlockRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?ms)^(# >>> memctl setup(?:: notify)? >>>\n.*?^# <<< memctl setup(?:: notify)? <<<\n)`)
})

// stripTOMLBlocks removes memctl's marked blocks.
func stripTOMLBlocks(b []byte) []byte {
	return tomlBlockRE().ReplaceAll(b, nil)
}

// planCodex edits $CODEX_HOME/config.toml: a top-level notify program
// (`memctl cite --hook codex`, which reads the turn's last reply), the
// MCP server, and a SessionStart hook that prints `memctl summary --agent
// codex` (Codex adds a hook's plain stdout to the model's context) with
// the trust entry Codex requires before it runs a user hook.
func planCodex(t Target) ([]File, error) {
	path := filepath.Join(t.CodexHome, "config.toml")
	before, existed, err := readFile(path)
	if err != nil {
		return nil, err
	}
	base := stripTOMLBlocks(before)
	var cfg map[string]any
	if err := toml.Unmarshal(base, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w (fix it, then run setup again)", path, err)
	}
	if n, ok := cfg["notify"]; ok {
		return nil, fmt.Errorf("%s already sets notify = %v; Codex runs one notify program: remove that line, or have your program also run `memctl cite --hook codex \"$1\"`, then run setup again", path, n)
	}
	if srv, ok := cfg["mcp_servers"].(map[string]any); ok {
		if _, ok := srv[mcpServerName]; ok {
			return nil, fmt.Errorf("%s already defines [mcp_servers.%s]; remove it, then run setup again", path, mcpServerName)
		}
	}
	// The hook's trust key names its position among the SessionStart
	// groups of this file.
	group := 0
	if hooks, ok := cfg["hooks"].(map[string]any); ok {
		if groups, ok := hooks["SessionStart"].([]any); ok {
			group = len(groups)
		}
	}
	hookCmd := summaryHook(t, "codex")
	hash, err := codexHookHash("session_start", hookCmd)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	notify := append(append([]string{}, t.Memctl...), "cite", "--hook", "codex")
	mcpArgs := append(append([]string{}, t.Memctl[1:]...), "mcp")

	var tail strings.Builder
	tail.WriteString(markBegin + "\n")
	fmt.Fprintf(&tail, "[mcp_servers.%s]\ncommand = %s\nargs = %s\n\n", mcpServerName, tomlString(t.Memctl[0]), tomlArray(mcpArgs))
	tail.WriteString("[[hooks.SessionStart]]\n[[hooks.SessionStart.hooks]]\ntype = \"command\"\n")
	fmt.Fprintf(&tail, "command = %s\n\n", tomlString(hookCmd))
	fmt.Fprintf(&tail, "[hooks.state.%s]\ntrusted_hash = %s\n", tomlString(abs+":session_start:"+fmt.Sprint(group)+":0"), tomlString(hash))
	tail.WriteString(markEnd + "\n")
	head := markNotifyBegin + "\nnotify = " + tomlArray(notify) + "\n" + markNotifyEnd + "\n"

	// notify is a top-level key: it must come before the first table.
	after := insertBeforeFirstTable(base, []byte(head))
	if len(after) > 0 && after[len(after)-1] != '\n' {
		after = append(after, '\n')
	}
	after = append(after, tail.String()...)
	var check map[string]any
	if err := toml.Unmarshal(after, &check); err != nil {
		return nil, fmt.Errorf("%s: memctl's entries do not fit this file (%v); nothing was written", path, err)
	}
	return []File{{Path: path, Existed: existed, Before: before, After: after}}, nil
}

var tableHeaderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*\[`) })

func insertBeforeFirstTable(b, block []byte) []byte {
	loc := tableHeaderRE().FindIndex(b)
	if loc == nil {
		out := append([]byte{}, b...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return append(out, block...)
	}
	var out bytes.Buffer
	out.Write(b[:loc[0]])
	out.Write(block)
	out.Write(b[loc[0]:])
	return out.Bytes()
}

// codexHookHash is the trust hash Codex 0.169 computes for a command hook
// of one matcher group: sha256 over the canonical (key-sorted, compact)
// JSON of {event_name, hooks: [the handler with its defaults filled in]}.
// Codex runs a user-defined hook only when [hooks.state."<file>:<event>:
// <group>:<handler>"] trusted_hash matches it; the real-agent suite checks
// that this one does.
func codexHookHash(event, command string) (string, error) {
	identity := map[string]any{
		"event_name": event,
		"hooks": []any{map[string]any{
			"type": "command", "command": command, "timeout": 600, "async": false,
		}},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // serde_json does not escape <, > or &
	if err := enc.Encode(identity); err != nil {
		return "", err
	}
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

func tomlString(s string) string {
	b, _ := json.Marshal(s) // a JSON string is a valid TOML basic string
	return string(b)
}

func tomlArray(ss []string) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = tomlString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
