// Package examples holds synthetic agent transcripts written for memctl's
// out-of-the-box demo: two Codex CLI sessions and one `codex exec` run in a
// Go service, a Claude Code session with a sub-agent in a Python project,
// and a session in memctl's own JSONL transcript format. The demo copies
// them into a throwaway home and runs the whole pipeline over them offline.
package examples

import "embed"

// Sessions is the transcript tree, laid out as the agents write it on disk:
//
//	sessions/codex/sessions/YYYY/MM/DD/rollout-*.jsonl   (a Codex home's sessions/ folder)
//	sessions/claude/projects/<munged-cwd>/<uuid>.jsonl  (a Claude Code projects/ folder)
//	sessions/jsonl/*.jsonl                               (memctl's own transcript format)
//
//go:embed sessions
var Sessions embed.FS
