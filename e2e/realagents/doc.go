// Package realagents drives the real Claude Code and Codex CLIs against
// loopback stand-ins of the Anthropic Messages API and the OpenAI
// Responses API, with homes prepared only by `memctl setup`, and checks
// the whole memory loop: the sessions the CLIs write are indexed and
// extracted, the summary reaches the model's next request, citations in
// final replies are counted once per turn, and the MCP tools answer.
//
// The CLIs are installed by scripts/install-agents.sh into
// .cache/agents/ (pinned in e2e/realagents/agents/package.json). The
// tests run only when MEMCTL_FULL=1 (as .ci/run sets it) or
// MEMCTL_REAL_AGENTS=1, so
// `go test ./...` stays fast; a missing install then fails the run.
// Without the switch they skip and say why. Everything is test code: the stand-ins are in
// standin_*_test.go, the drivers in the other _test.go files.
package realagents
