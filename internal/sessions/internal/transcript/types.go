// Package transcript is what the agent readers of internal/sessions share: the
// normalised types (aliased by internal/sessions for everyone else), the JSON
// scanner and line reader they stream files with, text helpers, and the
// Phase 1 input items each reader renders. It knows no agent's format.
package transcript

import (
	"time"
)

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
	EventInterrupt  EventKind = "interrupt"   // the human stopped the agent mid-turn
	// EventReasoning is the agent's own reasoning, not shown as its answer
	// (a Claude thinking block). It is never part of the model input; the
	// offline extractor quotes it only as the agent's reasoning.
	EventReasoning EventKind = "reasoning"
)

// Action says what a tool call does. Readers decode it from the agent's
// own tool names, so that nothing outside this package needs to know them.
type Action string

// Tool call actions.
const (
	ActionShell  Action = "shell"  // runs Event.Command
	ActionEdit   Action = "edit"   // changes files; file_change events follow once it succeeded
	ActionRead   Action = "read"   // reads one file (Event.FilePath)
	ActionSearch Action = "search" // looks files up by name or content
	ActionWeb    Action = "web"    // searches or fetches from the web
	ActionPlan   Action = "plan"   // updates the agent's own plan or todo list
	ActionAgent  Action = "agent"  // hands work to a sub-agent
	ActionMemory Action = "memory" // reads or writes memory through a memory tool
	ActionOther  Action = "other"
)

// Outcome is how a tool call ended, as far as the transcript says.
type Outcome string

// Tool call outcomes. A rejection, a denial and an interruption are
// outcomes of their own: the call did not run, so it neither failed nor
// changed anything.
const (
	OutcomeUnknown     Outcome = ""            // the format records nothing about success
	OutcomeOK          Outcome = "ok"          // exit status 0, or the tool reported success
	OutcomeFailed      Outcome = "failed"      // non-zero exit status, or the tool reported an error
	OutcomeRejected    Outcome = "rejected"    // the user refused the call
	OutcomeDenied      Outcome = "denied"      // the harness refused it: no permission
	OutcomeInterrupted Outcome = "interrupted" // the user stopped it while it ran
	// OutcomeCancelled: the harness dropped the call before it ran, e.g.
	// because a call made beside it failed; it says nothing about itself.
	OutcomeCancelled Outcome = "cancelled"
)

// Event is one normalised step of a conversation, shared by every reader.
// Fields that do not apply to a kind are left empty.
type Event struct {
	Kind EventKind
	Time time.Time // zero when the line had no timestamp
	Line int       // line number in the transcript file

	Text  string // human/assistant/context text, compaction summary
	Final bool   // assistant: the turn's final answer (Codex phase final_answer, last text of a Claude turn)

	CallID    string // pairs tool calls, results and file changes
	Tool      string // the agent's tool name, for display only: decisions use Action
	Action    Action // tool_call: what the call does
	Command   string // shell command line when the tool runs one (wrappers such as bash -lc removed)
	Escalated bool   // tool_call: the call asked to run outside the sandbox or with raised permissions
	Input     string // tool input (arguments JSON or free-form patch), possibly shortened
	Output    string // tool result text (harness framing removed), possibly shortened
	ExitCode  *int   // exit status when known
	IsError   bool   // the tool reported failure (non-zero exit, is_error, status failed)
	Outcome   Outcome

	// FilePath is the file a file_change is about, or the file a read or
	// edit tool call targets.
	FilePath string
	FileOp   string // file_change: "add", "update", "delete"; "write" when a whole-file write may have created or replaced it
	// Old and New are, for an in-place edit, the text replaced and the text
	// put in its place (possibly shortened); empty for whole-file writes.
	// They let the extractor see an edit that restores what an earlier one
	// replaced.
	Old, New string
}

// File is one thread candidate found on disk.
type File struct {
	Kind     Kind
	Path     string    // main transcript
	Related  []string  // files that belong to the same thread (Claude Code sidechain/sub-agent files)
	Size     int64     // sum over Path and Related
	ModTime  time.Time // newest over Path and Related
	Archived bool      // under Codex archived_sessions/
	// Unreadable is set on a File that stands for a folder inside the
	// source that could not be listed (Path is the folder; nothing else
	// is set), so the scan can report it instead of skipping it unseen.
	Unreadable error
	// Skipped is set on a transcript that was found but is not read:
	// ErrLinkOutside (Path is the link; nothing else is set).
	Skipped error
}
