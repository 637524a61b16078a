// Package sessions reads the transcripts coding agents leave on disk
// (Codex CLI rollouts, Claude Code projects, memctl's own JSONL format),
// one line at a time, and turns them into thread metadata for the index,
// a stream of normalised events for the offline extractor, and the exact
// redacted text Phase 1 sends to a model.
//
// Each format has a package of its own (codex, claude, jsonl) behind one
// interface, Format; this package picks the format of a file and is the
// only one the rest of memctl imports. The agents' tool names and result
// texts are decoded there: everything outside works on the normalised
// Event (its Action and Outcome).
//
// Readers never load a whole file: memory stays bounded by the largest
// line they accept and by the model-input budget, whatever the file size.
package sessions

import "github.com/memctl/memctl/internal/sessions/internal/transcript"

// The normalised types, defined in the readers' shared package.
type (
	Kind      = transcript.Kind
	Meta      = transcript.Meta
	Problem   = transcript.Problem
	EventKind = transcript.EventKind
	Event     = transcript.Event
	Action    = transcript.Action
	Outcome   = transcript.Outcome
	File      = transcript.File
	Reply     = transcript.Reply
)

// The source kinds memctl reads.
const (
	KindCodex      = transcript.KindCodex
	KindClaudeCode = transcript.KindClaudeCode
	KindJSONL      = transcript.KindJSONL
)

// Memory modes of a thread, as Codex stores them in threads.memory_mode.
const (
	MemoryEnabled  = transcript.MemoryEnabled
	MemoryDisabled = transcript.MemoryDisabled
	MemoryPolluted = transcript.MemoryPolluted
)

// Normalised event kinds.
const (
	EventHuman      = transcript.EventHuman
	EventContext    = transcript.EventContext
	EventAssistant  = transcript.EventAssistant
	EventToolCall   = transcript.EventToolCall
	EventToolResult = transcript.EventToolResult
	EventFileChange = transcript.EventFileChange
	EventCompaction = transcript.EventCompaction
	EventOtherAgent = transcript.EventOtherAgent
	EventInterrupt  = transcript.EventInterrupt
	EventReasoning  = transcript.EventReasoning
)

// Tool call actions.
const (
	ActionShell  = transcript.ActionShell
	ActionEdit   = transcript.ActionEdit
	ActionRead   = transcript.ActionRead
	ActionSearch = transcript.ActionSearch
	ActionWeb    = transcript.ActionWeb
	ActionPlan   = transcript.ActionPlan
	ActionAgent  = transcript.ActionAgent
	ActionMemory = transcript.ActionMemory
	ActionOther  = transcript.ActionOther
)

// Tool call outcomes.
const (
	OutcomeUnknown     = transcript.OutcomeUnknown
	OutcomeOK          = transcript.OutcomeOK
	OutcomeFailed      = transcript.OutcomeFailed
	OutcomeRejected    = transcript.OutcomeRejected
	OutcomeDenied      = transcript.OutcomeDenied
	OutcomeInterrupted = transcript.OutcomeInterrupted
	OutcomeCancelled   = transcript.OutcomeCancelled
)

// MaxLineBytes is the longest transcript line the readers accept.
const MaxLineBytes = transcript.MaxLineBytes
