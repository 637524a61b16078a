package sessions

import (
	"context"
	"fmt"

	"github.com/memctl/memctl/pkg/sessions/claude"
	"github.com/memctl/memctl/pkg/sessions/codex"
	"github.com/memctl/memctl/pkg/sessions/internal/transcript"
	"github.com/memctl/memctl/pkg/sessions/jsonl"
)

// Format is one agent's transcript format: how its files are found, what
// a thread's metadata is, its conversation as normalised events, and the
// items of the Phase 1 model input. Problems are recoverable defects (a
// broken line, invalid UTF-8, an oversized line); the error is only for a
// file that cannot be read at all, or fn's own.
type Format struct {
	Kind       Kind
	Discover   func(ctx context.Context, src Source, root string, fn func(File) error) error
	ReadMeta   func(f File, probs func(Problem)) (Meta, error)
	Events     func(f File, probs func(Problem), fn func(Event) error) error
	InputItems func(path string, probs func(Problem), fn func(*transcript.InputItem) error) error
	// ToolNames are the tool names the format decodes.
	ToolNames func() []string
}

// formats lists the formats memctl reads. It is built on first use: a
// process that reads no transcript pays nothing for it.
func formats() map[Kind]*Format {
	return map[Kind]*Format{
		KindCodex: {Kind: KindCodex, Discover: discoverCodex, ReadMeta: codex.ReadMeta, Events: codex.Events,
			InputItems: codex.InputItems, ToolNames: codex.ToolNames},
		KindClaudeCode: {Kind: KindClaudeCode, Discover: func(ctx context.Context, _ Source, root string, fn func(File) error) error {
			return claude.Discover(ctx, root, fn)
		}, ReadMeta: claude.ReadMeta, Events: claude.Events, InputItems: claude.InputItems, ToolNames: claude.ToolNames},
		KindJSONL: {Kind: KindJSONL, Discover: func(ctx context.Context, _ Source, root string, fn func(File) error) error {
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
