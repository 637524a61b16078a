// The file tools every agent has in some form, and what their inputs say.
package transcript

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/textcut"
)

// isMemoryToolName reports a tool that reads or writes memory: memctl's own
// MCP server (any agent prefixes it with its server name) and Codex's
// memory namespace.
func IsMemoryToolName(name string) bool {
	low := strings.ToLower(name)
	return strings.HasPrefix(low, "mcp__memctl__") || strings.HasPrefix(low, "memctl__") ||
		strings.HasPrefix(low, "mcp__memories__") || strings.HasPrefix(low, "memories.") ||
		strings.HasPrefix(low, "memories__")
}

// editTools maps the names generic file tools go by to the file operation
// they perform; "write" is a create or a replace, told apart later.
var EditTools = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"write": "write", "create_file": "add", "write_file": "write", "notebookedit": "update",
		"edit": "update", "multiedit": "update", "edit_file": "update", "str_replace_editor": "update",
		"str_replace_based_edit_tool": "update", "replace": "update", "search_replace": "update",
	}
})

// fileArgs is the union of the argument names file tools use.
type FileArgs struct {
	FilePath     string `json:"file_path"`
	Path         string `json:"path"`
	NotebookPath string `json:"notebook_path"`
	Filename     string `json:"filename"`
	TargetFile   string `json:"target_file"`
	Command      string `json:"command"`
	OldString    string `json:"old_string"`
	NewString    string `json:"new_string"`
	OldStr       string `json:"old_str"`
	NewStr       string `json:"new_str"`
	Edits        []struct {
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
	} `json:"edits"`
}

func (a FileArgs) Target() string {
	for _, p := range []string{a.FilePath, a.Path, a.NotebookPath, a.Filename, a.TargetFile} {
		if p != "" {
			return p
		}
	}
	return ""
}

// oldNew returns the replaced and replacing text of an in-place edit.
func (a FileArgs) OldNew() (string, string) {
	old, nw := a.OldString+a.OldStr, a.NewString+a.NewStr
	for _, e := range a.Edits {
		old += "\x00" + e.OldString
		nw += "\x00" + e.NewString
	}
	return textcut.Middle(old, EventTextMax), textcut.Middle(nw, EventTextMax)
}

// editChanges lists the file changes an edit tool call makes, decoded from
// its input: an apply_patch body, or the path argument of a file tool.
// name is the tool's own name; the changes are only reported once the call
// is seen to succeed.
func EditChanges(name, input string) []Event {
	low := strings.ToLower(name)
	if i := strings.LastIndex(low, "__"); i >= 0 {
		low = low[i+2:]
	}
	if low == "apply_patch" || strings.Contains(input, "*** Begin Patch") {
		patch := input
		if strings.HasPrefix(strings.TrimSpace(input), "{") {
			// function-call form: {"input": "*** Begin Patch …"}
			var a struct {
				Input string `json:"input"`
			}
			if json.Unmarshal([]byte(input), &a) == nil && a.Input != "" {
				patch = a.Input
			}
		}
		paths, ops, hunks := patchFiles(patch)
		out := make([]Event, 0, len(paths))
		deleted := map[string]int{} // path → index in out of its deletion
		for i := range paths {
			if j, ok := deleted[paths[i]]; ok && ops[i] == "add" {
				// Deleted and added again by one patch: the file was
				// rewritten, not removed.
				out[j].FileOp = "update"
				delete(deleted, paths[i])
				continue
			}
			ev := Event{Kind: EventFileChange, FilePath: paths[i], FileOp: ops[i]}
			if ops[i] == "update" {
				ev.Old, ev.New = DiffOldNew(hunks[i])
			}
			if ops[i] == "delete" {
				deleted[paths[i]] = len(out)
			}
			out = append(out, ev)
		}
		return out
	}
	op, ok := EditTools()[low]
	if !ok {
		return nil
	}
	var a FileArgs
	if json.Unmarshal([]byte(input), &a) != nil {
		return nil
	}
	p := a.Target()
	if p == "" {
		return nil
	}
	if low == "str_replace_based_edit_tool" || low == "str_replace_editor" {
		switch a.Command {
		case "create":
			op = "add"
		case "view":
			return nil
		}
	}
	ev := Event{Kind: EventFileChange, FilePath: p, FileOp: op}
	if op == "update" {
		ev.Old, ev.New = a.OldNew()
	}
	return []Event{ev}
}

// jsonNumberOrString reads one top-level field of a JSON object as text.
func JSONNumberOrString(input, key string) string {
	v := Field([]byte(input), key)
	if v == nil {
		return ""
	}
	if v[0] == '"' {
		return RawString(v)
	}
	if n, ok := RawInt(v); ok {
		return strconv.Itoa(n)
	}
	return ""
}

// EditToolNames lists the generic file tool names EditChanges decodes.
func EditToolNames() []string {
	return slices.Collect(maps.Keys(EditTools()))
}
