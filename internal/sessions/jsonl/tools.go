package jsonl

import (
	"context"
	"strings"

	"github.com/memctl/memctl/internal/sessions/claude"
	"github.com/memctl/memctl/internal/sessions/codex"
	"github.com/memctl/memctl/internal/sessions/internal/transcript"
)

// genericAction classifies a tool of memctl's own format, whose writers
// may use any agent's names or plain ones (shell, edit, read).
func ActionOf(name string) transcript.Action {
	if a := claude.ActionOf(name); a != transcript.ActionOther {
		return a
	}
	if a := codex.ActionOf(name, ""); a != transcript.ActionOther {
		return a
	}
	low := strings.ToLower(name)
	if i := strings.LastIndex(low, "__"); i >= 0 {
		low = low[i+2:]
	}
	switch low {
	case "bash", "sh", "terminal", "run_command", "execute_command", "run_terminal_cmd":
		return transcript.ActionShell
	case "read", "read_file", "view", "open_file", "cat":
		return transcript.ActionRead
	case "grep", "glob", "search", "find", "list_dir", "list_files", "codebase_search", "file_search", "grep_search":
		return transcript.ActionSearch
	case "web_fetch", "fetch", "browse":
		return transcript.ActionWeb
	}
	if _, ok := transcript.EditTools()[low]; ok {
		return transcript.ActionEdit
	}
	return transcript.ActionOther
}

// ToolNames is empty: memctl's own format names tools with the agents'
// names (decoded by their packages) or with plain words ("bash", "read")
// that are no agent's vocabulary.
func ToolNames() []string { return nil }

// Discover yields every *.jsonl file under root, recursively.
func Discover(ctx context.Context, root string, fn func(transcript.File) error) error {
	return transcript.WalkFiles(ctx, root, func(n string) bool { return strings.HasSuffix(n, ".jsonl") }, nil, transcript.KindJSONL, false, fn)
}
