// Package sessions reads the transcripts coding agents leave on disk
// (Codex CLI rollouts, Claude Code projects, memctl's own JSONL format),
// one line at a time, and turns them into thread metadata for the index,
// a stream of normalised events for the offline extractor, and the exact
// redacted text Phase 1 sends to a model.
//
// Readers never load a whole file: memory stays bounded by the largest
// line they accept and by the model-input budget, whatever the file size.
package sessions

import "time"

// Kind names a transcript source format.
type Kind string

// The source kinds memctl reads.
const (
	KindCodex      Kind = "codex"
	KindClaudeCode Kind = "claude-code"
	KindJSONL      Kind = "jsonl"
)

// Memory modes of a thread, as Codex stores them in threads.memory_mode.
const (
	MemoryEnabled  = "enabled"
	MemoryDisabled = "disabled"
	MemoryPolluted = "polluted"
)

// Meta is what the scan stores about one thread (one row of the threads table).
type Meta struct {
	ID     string // thread id: Codex thread UUID, Claude Code sessionId, jsonl "id"
	Kind   Kind
	Path   string // absolute path of the main transcript file
	Source string // session source: cli, vscode, exec, mcp, unknown, custom name, or JSON for sub-agents ({"subagent":…})
	// Interactive reports whether the source is one Codex's memory pipeline
	// considers (cli, vscode, custom atlas/chatgpt; every human Claude Code session).
	Interactive bool
	Subagent    bool   // a sub-agent / sidechain thread (never extracted on its own)
	ParentID    string // parent thread id for sub-agents and forks, when known
	Cwd         string
	GitBranch   string
	GitRemote   string
	GitSHA      string
	Preview     string // the human's first typed message, trimmed; "" when none
	Model       string // last model named in the transcript, when known
	CreatedAt   time.Time
	// UpdatedAt is the newest timestamp inside the transcript; the file's
	// mtime only when the transcript carries no timestamps at all.
	UpdatedAt time.Time
	// MemoryMode is the mode the transcript itself declares (Codex
	// session_meta.memory_mode), "" when it declares none.
	MemoryMode string
	// UsedExternalContext is true when the thread consumed web search, tool
	// search or MCP tool results (drives disable_on_external_context).
	UsedExternalContext bool
	Archived            bool // Codex archived_sessions/
}

// Problem is a recoverable defect found while reading a transcript: the
// line is skipped (or read in part) and reading goes on.
type Problem struct {
	Path string
	Line int // 1-based line number; 0 when the problem is not tied to a line
	Err  string
}

// EventKind classifies a normalised transcript event.
type EventKind string

// Normalised event kinds, in the order an agent turn usually produces them.
const (
	EventHuman      EventKind = "human"       // words the human typed
	EventContext    EventKind = "context"     // injected harness context (AGENTS.md, environment, meta prompts)
	EventAssistant  EventKind = "assistant"   // assistant text (commentary or final)
	EventToolCall   EventKind = "tool_call"   // a tool/shell invocation
	EventToolResult EventKind = "tool_result" // the output of a tool call
	EventFileChange EventKind = "file_change" // a file created, modified or deleted
	EventCompaction EventKind = "compaction"  // a context compaction boundary or summary
	EventOtherAgent EventKind = "other_agent" // messages from/to sub-agents
)

// Event is one normalised step of a conversation, shared by every reader.
// Fields that do not apply to a kind are left empty.
type Event struct {
	Kind EventKind
	Time time.Time // zero when the line had no timestamp
	Line int       // line number in the transcript file

	Text  string // human/assistant/context text, compaction summary
	Final bool   // assistant: the turn's final answer (Codex phase final_answer, last text of a Claude turn)

	CallID   string // pairs tool calls, results and file changes
	Tool     string // tool name: shell, exec_command, Bash, Edit, apply_patch, mcp__srv__tool, web_search …
	Command  string // shell command line when the tool runs one
	Input    string // tool input (arguments JSON or free-form patch), possibly shortened
	Output   string // tool result text, possibly shortened
	ExitCode *int   // exit status when known
	IsError  bool   // the tool reported failure (non-zero exit, is_error, status failed)

	FilePath string // file_change: path of the file
	FileOp   string // file_change: "add", "update", "delete"
}
