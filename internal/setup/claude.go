package setup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// The hook commands memctl installs for Claude Code, recognised by their
// tail so a re-run (or a new memctl path) replaces them instead of adding
// a second copy. The summary's tail ends both "memctl [flags] summary
// --agent claude-code" and "memctl-summary [flags] --agent claude-code",
// so a setup run after memctl-summary was installed (or removed) swaps
// the one for the other.
const (
	claudeSummaryTail = "--agent claude-code"
	claudeCiteTail    = "cite --hook claude"
	mcpServerName     = "memctl"
)

// jsonAdded is what a JSON edit added that was not there before.
type jsonAdded struct {
	Allow []string `json:"allow,omitempty"`
	MCP   bool     `json:"mcp,omitempty"`
}

// planClaude edits two files: settings.json (SessionStart and Stop hooks,
// Read permission for the memory folders, permission for memctl's MCP
// tools) and the global .claude.json (the user-scope MCP server, where
// `claude mcp add -s user` puts it).
func planClaude(t Target) ([]File, error) {
	settingsPath := filepath.Join(t.ClaudeDir, "settings.json")
	before, existed, err := readFile(settingsPath)
	if err != nil {
		return nil, err
	}
	settings, err := decodeObject(settingsPath, before)
	if err != nil {
		return nil, err
	}
	if err := objectsOnly(settingsPath, settings, "hooks", "permissions"); err != nil {
		return nil, err
	}
	hooks := object(settings, "hooks")
	setHook(hooks, "SessionStart", claudeSummaryTail, summaryHook(t, "claude-code"))
	setHook(hooks, "Stop", claudeCiteTail, shellLine(append(append([]string{}, t.Memctl...), "cite", "--hook", "claude")...))
	perms := object(settings, "permissions")
	allow, _ := perms["allow"].([]any)
	added := &jsonAdded{}
	rules := []string{"mcp__" + mcpServerName}
	for _, root := range t.MemoryRoots {
		// Claude Code writes an absolute path in a rule with a leading
		// "//"; the folder lies outside every project, so without this
		// rule a read of it is refused (or, in -p mode, denied).
		rules = append(rules, "Read(/"+filepath.ToSlash(filepath.Clean(root))+"/**)")
	}
	for _, r := range rules {
		if !containsString(allow, r) {
			allow = append(allow, r)
			added.Allow = append(added.Allow, r)
		}
	}
	perms["allow"] = allow
	after, err := encodeObject(settings)
	if err != nil {
		return nil, err
	}
	files := []File{{Path: settingsPath, Existed: existed, Before: before, After: after, Added: added}}

	gBefore, gExisted, err := readFile(t.ClaudeJSON)
	if err != nil {
		return nil, err
	}
	global, err := decodeObject(t.ClaudeJSON, gBefore)
	if err != nil {
		return nil, err
	}
	if err := objectsOnly(t.ClaudeJSON, global, "mcpServers"); err != nil {
		return nil, err
	}
	servers := object(global, "mcpServers")
	want := map[string]any{"type": "stdio", "command": t.Memctl[0], "args": toAny(append(append([]string{}, t.Memctl[1:]...), "mcp")), "env": map[string]any{}}
	gAdded := &jsonAdded{}
	if cur, ok := servers[mcpServerName].(map[string]any); ok {
		if cmd, _ := cur["command"].(string); !strings.Contains(filepath.Base(cmd), "memctl") {
			return nil, fmt.Errorf("%s: mcpServers.%s already runs %q; remove it or rename it, then run setup again", t.ClaudeJSON, mcpServerName, cmd)
		}
	} else {
		gAdded.MCP = true
	}
	servers[mcpServerName] = want
	gAfter, err := encodeObject(global)
	if err != nil {
		return nil, err
	}
	files = append(files, File{Path: t.ClaudeJSON, Existed: gExisted, Before: gBefore, After: gAfter, Added: gAdded})
	return files, nil
}

// setHook makes event hold exactly one memctl hook group running command,
// keeping every other group as it is.
func setHook(hooks map[string]any, event, tail, command string) {
	groups, _ := hooks[event].([]any)
	kept := groups[:0:0]
	for _, g := range groups {
		if !isOurGroup(g, tail) {
			kept = append(kept, g)
		}
	}
	kept = append(kept, map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command}}})
	hooks[event] = kept
}

func isOurGroup(g any, tail string) bool {
	gm, ok := g.(map[string]any)
	if !ok {
		return false
	}
	hs, _ := gm["hooks"].([]any)
	if len(hs) != 1 {
		return false
	}
	h, _ := hs[0].(map[string]any)
	cmd, _ := h["command"].(string)
	return strings.HasSuffix(cmd, tail) && strings.Contains(cmd, "memctl")
}

// stripJSON takes memctl's entries out of a Claude Code file that changed
// since setup: its hook groups, the permissions it added, the MCP server
// it added.
func stripJSON(cur []byte, added *jsonAdded) ([]byte, error) {
	obj, err := decodeObject("", cur)
	if err != nil {
		return nil, err
	}
	if hooks, ok := obj["hooks"].(map[string]any); ok {
		for event, tail := range map[string]string{"SessionStart": claudeSummaryTail, "Stop": claudeCiteTail} {
			groups, _ := hooks[event].([]any)
			kept := groups[:0:0]
			for _, g := range groups {
				if !isOurGroup(g, tail) {
					kept = append(kept, g)
				}
			}
			if len(kept) == 0 {
				delete(hooks, event)
			} else {
				hooks[event] = kept
			}
		}
		if len(hooks) == 0 {
			delete(obj, "hooks")
		}
	}
	if added != nil {
		if perms, ok := obj["permissions"].(map[string]any); ok {
			allow, _ := perms["allow"].([]any)
			kept := allow[:0:0]
			for _, a := range allow {
				if s, _ := a.(string); !containsString(toAny(added.Allow), s) {
					kept = append(kept, a)
				}
			}
			perms["allow"] = kept
			if len(kept) == 0 {
				delete(perms, "allow")
			}
			if len(perms) == 0 {
				delete(obj, "permissions")
			}
		}
		if added.MCP {
			if servers, ok := obj["mcpServers"].(map[string]any); ok {
				delete(servers, mcpServerName)
			}
		}
	}
	return encodeObject(obj)
}

func decodeObject(path string, b []byte) (map[string]any, error) {
	obj := map[string]any{}
	if len(bytes.TrimSpace(b)) == 0 {
		return obj, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // keep numbers exactly as written
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object: %w (fix or move it, then run setup again)", path, err)
	}
	return obj, nil
}

func encodeObject(obj map[string]any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(obj); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// objectsOnly refuses a file where one of keys holds something other than
// an object: setup would otherwise replace the user's value.
func objectsOnly(path string, obj map[string]any, keys ...string) error {
	for _, k := range keys {
		if v, ok := obj[k]; ok {
			if _, isObj := v.(map[string]any); !isObj {
				return fmt.Errorf("%s: %q is not an object; fix it, then run setup again (nothing was written)", path, k)
			}
		}
	}
	if perms, ok := obj["permissions"].(map[string]any); ok {
		if v, ok := perms["allow"]; ok {
			if _, isList := v.([]any); !isList {
				return fmt.Errorf("%s: \"permissions.allow\" is not a list; fix it, then run setup again (nothing was written)", path)
			}
		}
	}
	return nil
}

// object returns obj[key] as an object, creating it when missing.
func object(obj map[string]any, key string) map[string]any {
	if m, ok := obj[key].(map[string]any); ok {
		return m
	}
	m := map[string]any{}
	obj[key] = m
	return m
}

func containsString(list []any, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
