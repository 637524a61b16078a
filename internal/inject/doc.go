// Package inject is memctl's read path: it renders the memory instructions
// with memory_summary.md for a prompt, and it strips and parses the
// <oai-mem-citation> block an agent appends to its final answer.
//
// Summary runs on every agent turn, so the package stays cheap on purpose:
// no database, no template engine (two literal placeholders are replaced in
// one pass), no reflection-heavy dependencies.
package inject
