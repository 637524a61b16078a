package sessions

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memctl/memctl/internal/sessions/claude"
	"github.com/memctl/memctl/internal/sessions/codex"
	"github.com/memctl/memctl/internal/sessions/internal/transcript"
	"github.com/memctl/memctl/internal/sessions/jsonl"
)

// Format is one agent's transcript format: how its files are found, what
// a thread's metadata is, its conversation as normalised events, the
// items of the Phase 1 model input, and what its hooks hand memctl at the
// end of a turn. Problems are recoverable defects (a
// broken line, invalid UTF-8, an oversized line); the error is only for a
// file that cannot be read at all, or fn's own.
type Format struct {
	Kind Kind
	// Name is the agent's name for people ("Claude Code").
	Name string
	// HomeDir is the folder the agent keeps in a user's home (".codex"),
	// where its skills, plugins and settings live; "" for none.
	HomeDir    string
	Discover   func(ctx context.Context, src Source, root string, fn func(File) error) error
	ReadMeta   func(f File, probs func(Problem)) (Meta, error)
	Events     func(f File, probs func(Problem), fn func(Event) error) error
	InputItems func(path string, probs func(Problem), fn func(*transcript.InputItem) error) error
	// ToolNames are the tool names the format decodes.
	ToolNames func() []string
	// HookReply reads the reply of a turn from the payload the agent hands
	// its end-of-turn hook; nil when the agent has no such hook.
	HookReply func(payload io.Reader) (Reply, error)
	// TurnCitation reads a turn's citation block back from the agent's own
	// files under home, for an agent that strips it from the reply its
	// hook sees; nil when the reply keeps it.
	TurnCitation func(home, threadID, turnID string, wait time.Duration) (string, error)
}

// formats lists the formats memctl reads. It is built on first use: a
// process that reads no transcript pays nothing for it.
func formats() map[Kind]*Format {
	return map[Kind]*Format{
		KindCodex: {Kind: KindCodex, Name: "Codex CLI", HomeDir: ".codex", Discover: discoverCodex, ReadMeta: codex.ReadMeta, Events: codex.Events,
			InputItems: codex.InputItems, ToolNames: codex.ToolNames, HookReply: codex.NotifyHook, TurnCitation: codex.TurnCitation},
		KindClaudeCode: {Kind: KindClaudeCode, Name: "Claude Code", HomeDir: ".claude", Discover: func(ctx context.Context, _ Source, root string, fn func(File) error) error {
			return claude.Discover(ctx, root, fn)
		}, ReadMeta: claude.ReadMeta, Events: claude.Events, InputItems: claude.InputItems, ToolNames: claude.ToolNames,
			HookReply: claude.StopHook},
		KindJSONL: {Kind: KindJSONL, Name: "JSONL", Discover: func(ctx context.Context, _ Source, root string, fn func(File) error) error {
			return jsonl.Discover(ctx, root, fn)
		}, ReadMeta: jsonl.ReadMeta, Events: jsonl.Events, InputItems: jsonl.InputItems, ToolNames: jsonl.ToolNames},
	}
}

func formatOf(k Kind) (*Format, error) {
	if f := formats()[k]; f != nil {
		return f, nil
	}
	return nil, fmt.Errorf("unknown transcript kind %q", k)
}

// AgentName is the name for people of the agent that writes transcripts
// of kind ("Claude Code"), "" for an unknown kind.
func AgentName(kind Kind) string {
	if f := formats()[kind]; f != nil {
		return f.Name
	}
	return ""
}

// otherAgentDirs are the home folders of agents memctl reads no
// transcript of, whose files still show up in sessions.
var otherAgentDirs = []string{".cursor", ".gemini"}

// agentFileRE matches the agents' own folders (skills, plugins, commands,
// sub-agent definitions) and skill files.
var agentFileRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|/)\.(` + agentDirNames() + `)/(plugins|skills|commands|agents)/|/SKILL\.md$`)
})

// IsAgentState reports a path where an agent keeps its own state for a
// session (the plans, to-do lists and shell snapshots under its home
// folder): writing one is the harness at work, not a change to a project.
func IsAgentState(path string) bool { return agentStateRE().MatchString(path) }

var agentStateRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[/\\])\.(` + agentDirNames() + `)[/\\](plans|todos|shell-snapshots)[/\\]`)
})

// agentDirNames is an alternation of the agents' home folder names,
// without their leading dot.
func agentDirNames() string {
	dirs := slices.Clone(otherAgentDirs)
	for _, f := range formats() {
		if f.HomeDir != "" {
			dirs = append(dirs, f.HomeDir)
		}
	}
	slices.Sort(dirs)
	names := make([]string, len(dirs))
	for i, d := range dirs {
		names[i] = regexp.QuoteMeta(strings.TrimPrefix(d, "."))
	}
	return strings.Join(names, "|")
}

// IsAgentFile reports a path inside an agent's own folders (its skills,
// plugins, commands, sub-agent definitions) or a skill file: reading one is
// the harness's plumbing, not the project's.
func IsAgentFile(path string) bool { return agentFileRE().MatchString(path) }

// HookReply reads the reply of one turn from the payload an agent of kind
// hands its end-of-turn hook: Claude Code's Stop hook JSON on stdin,
// Codex's notify JSON argument.
func HookReply(kind Kind, payload io.Reader) (Reply, error) {
	format, err := formatOf(kind)
	if err != nil {
		return Reply{}, err
	}
	if format.HookReply == nil {
		return Reply{}, fmt.Errorf("%s has no end-of-turn hook", kind)
	}
	return format.HookReply(payload)
}

// TurnCitation reads the citation block of a turn back from the files the
// agent keeps under home (Codex strips the block from the reply it
// notifies), waiting up to wait for the agent to finish writing the turn.
// "" when the agent keeps the block in the reply, or the turn cited
// nothing.
func TurnCitation(kind Kind, home, threadID, turnID string, wait time.Duration) (string, error) {
	format, err := formatOf(kind)
	if err != nil || format.TurnCitation == nil {
		return "", err
	}
	return format.TurnCitation(home, threadID, turnID, wait)
}

// ReadMeta reads the thread's metadata, streaming the file once. Problems
// are recoverable defects (a broken line, invalid UTF-8, an oversized line,
// a file that is not a transcript); the error is only for a file that
// cannot be read at all.
func ReadMeta(f File) (Meta, []Problem, error) {
	format, err := formatOf(f.Kind)
	if err != nil {
		return Meta{}, nil, err
	}
	var probs transcript.ProblemList
	m, err := format.ReadMeta(f, probs.Add)
	m.Archived = m.Archived || f.Archived
	return m, probs.Result(f.Path), err
}

// Events streams the normalised conversation of a thread: for every
// format the main file, which for Claude Code includes its compaction
// summaries. Calls that touch memory are marked ActionMemory (memory.go);
// the agent's text is as written, citation blocks included. Sub-agent
// files listed in f.Related are not read. fn's error stops the stream and
// is returned.
func Events(f File, fn func(Event) error) ([]Problem, error) {
	format, err := formatOf(f.Kind)
	if err != nil {
		return nil, err
	}
	var probs transcript.ProblemList
	err = format.Events(f, probs.Add, func(e Event) error {
		normalise(&e)
		return fn(e)
	})
	return probs.Result(f.Path), err
}

// AgentToolNames lists the tool names the readers decode, for the test
// that keeps them out of every other package.
func AgentToolNames() []string {
	var out []string
	for _, f := range formats() {
		out = append(out, f.ToolNames()...)
	}
	return append(out, transcript.EditToolNames()...)
}
