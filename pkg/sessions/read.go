package sessions

import "fmt"

// ReadMeta reads the thread's metadata, streaming the file once. Problems
// are recoverable defects (a broken line, invalid UTF-8, an oversized line,
// a file that is not a transcript); the error is only for a file that
// cannot be read at all.
func ReadMeta(f File) (Meta, []Problem, error) {
	var probs problemList
	add := probs.add
	var m Meta
	var err error
	switch f.Kind {
	case KindCodex:
		m, err = readCodexMeta(f, add)
	case KindClaudeCode:
		m, err = readClaudeMeta(f, add)
	case KindJSONL:
		m, err = readJSONLMeta(f, add)
	default:
		return Meta{}, nil, fmt.Errorf("unknown transcript kind %q", f.Kind)
	}
	m.Archived = m.Archived || f.Archived
	return m, probs.result(f.Path), err
}

// Events streams the normalised conversation of a thread: for every
// format the main file, which for Claude Code includes its compaction
// summaries. Calls that touch memory are marked ActionMemory (memory.go);
// the agent's text is as written, citation blocks included. Sub-agent files listed in f.Related are not read. fn's error
// stops the stream and is returned.
func Events(f File, fn func(Event) error) ([]Problem, error) {
	var probs problemList
	var err error
	sink := fn
	fn = func(e Event) error {
		normalise(&e)
		return sink(e)
	}
	switch f.Kind {
	case KindCodex:
		err = codexEvents(f, probs.add, fn)
	case KindClaudeCode:
		err = claudeEvents(f, probs.add, fn)
	case KindJSONL:
		err = jsonlEvents(f, probs.add, fn)
	default:
		return nil, fmt.Errorf("unknown transcript kind %q", f.Kind)
	}
	return probs.result(f.Path), err
}
