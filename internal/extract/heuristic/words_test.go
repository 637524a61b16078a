package heuristic_test

import (
	"testing"

	"github.com/memctl/memctl/internal/sessions/scripted"
)

// Whose words a message holds: what the user pasted from an agent's terminal (a line opening with the mark the
// terminal puts before the agent's reply or a tool's result, and what follows it up to a blank line and a line at
// the margin) is no preference, no request, no title and no correction of theirs (pattern 1); a rule told to the
// agent as "you never …" or "we never …" is a standing rule (pattern 2), a complaint in the past tense is none.
var wordsCases = []patternCase{
	{
		pattern: 1, name: "a message that is all an agent's pasted reply names no task and states no rule",
		turns: []scripted.Turn{
			{User: "⏺ You're right. The loader should check the config path first rather than guess it.\n" +
				"  I'll change loadConfig to return an error when the file is missing.",
				Steps: []scripted.Step{edit("config/load.go", "path := guessPath()", "path, err := findPath()")},
				Final: "loadConfig now returns an error for a missing config file."},
			{User: "Good. Add a test for the missing file case.",
				Steps: []scripted.Step{edit("config/load_test.go", "package config", "package config\n\nfunc TestMissing(t *testing.T) {}")},
				Final: "Added TestMissing."}},
		must:    []string{`The user asked: \(pasted terminal output\) “⏺ You're right`, `(?m)^task: Good\. Add a test for the missing file case\.$`},
		mustNot: []string{`(?s)Preference signals:\n- “[^\n]*rather than guess`, `asked: “⏺`, `(?m)^#+ .*You're right`},
	},
	{
		pattern: 1, name: "a session that is all an agent's pasted reply is named as such",
		turns: []scripted.Turn{{User: "✦ I will keep the retry budget at three attempts instead of five.\n  Updating retry.go now.",
			Steps: []scripted.Step{edit("net/retry.go", "maxAttempts = 5", "maxAttempts = 3")},
			Final: "The retry budget is three attempts."}},
		must:    []string{`(?m)^task: terminal output the user pasted$`, `The user asked: \(pasted terminal output\) “✦ I will keep`},
		mustNot: []string{`Preference signals:\n- “I will`, `asked: “✦`},
	},
	{
		pattern: 1, name: "an agent's pasted reply before the user's own words is neither the request nor a rule",
		turns: []scripted.Turn{{User: "● Done. I will always squash the fixup commits before pushing from now on.\n" +
			"  └ git rebase -i origin/main\n\nThe retry test in client_test.go times out on CI, make it use a fake clock.",
			Steps: []scripted.Step{edit("client/client_test.go", "time.Sleep(2 * time.Second)", "clock.Advance(2 * time.Second)")},
			Final: "The retry test advances a fake clock instead of sleeping."}},
		must: []string{`The user asked: “The retry test in client_test\.go times out on CI, make it use a fake clock\.”`,
			`The user asked: \(pasted terminal output\) “● Done\. I will always squash`},
		mustNot: []string{`Preference signals:\n- “[^\n]*squash`, `(?m)^task: [^\n]*squash`},
	},
	{
		pattern: 1, name: "a pasted reply's paragraphs indented under its mark are pasted too, past a blank line",
		turns: []scripted.Turn{{User: "⏺ The cache key now includes the locale.\n\n  From now on I will always clear the cache " +
			"after changing a key.\n\nWhy do the German pages still show English prices?",
			Steps: []scripted.Step{run("go test ./cache", "ok  \tacme/cache\t0.01s", 0)},
			Final: "The price cache is keyed by currency, not locale; German pages read the EUR entry."}},
		must:    []string{`The user asked: “Why do the German pages still show English prices\?”`},
		mustNot: []string{`Preference signals:\n- “[^\n]*clear the cache`, `(?m)^task: [^\n]*cache key`},
	},
	{
		pattern: 1, name: "Codex's bullet is the terminal's mark beside its tool result's",
		turns: []scripted.Turn{{User: "• I'll prefer the pooled HTTP client instead of a new one per request.\n" +
			"  └ Edited api/http.go (+3 -1)\n\nwhy is the pool still empty after startup?",
			Steps: []scripted.Step{run("go test ./api", "ok  \tacme/api\t0.02s", 0)},
			Final: "The pool fills on the first request; it is empty until then."}},
		must:    []string{`The user asked: “why is the pool still empty after startup\?”`},
		mustNot: []string{`Preference signals:\n- “[^\n]*pooled`, `(?m)^task: [^\n]*pooled`},
	},
	{
		pattern: 1, guard: true, name: "a bullet the user typed is their own list",
		turns: []scripted.Turn{{User: "Tidy the README:\n• always write headings in sentence case\n• keep the badges on one line",
			Steps: []scripted.Step{edit("README.md", "## Getting Started", "## Getting started")},
			Final: "The README headings are in sentence case."}},
		must: []string{`(?s)Preference signals:\n- “always write headings in sentence case”`},
	},
	{
		pattern: 1, guard: true, name: "a message the user opens with an emoji is their own words",
		turns: []scripted.Turn{{User: "🚀 Deploy: set up the staging vhost for the shop and enable TLS on it.",
			Steps: []scripted.Step{edit("deploy/staging.conf", "listen 80;", "listen 443 ssl;")},
			Final: "The staging vhost listens on 443 with TLS."}},
		must:    []string{`The user asked: “🚀 Deploy: set up the staging vhost`},
		mustNot: []string{`pasted terminal output`},
	},
	{
		pattern: 2, guard: true, name: "a sentence that introduces a list is no rule of its own",
		turns: []scripted.Turn{{User: "In the config file, make sure to change:\n- the port to 8081\n- the log level to debug",
			Steps: []scripted.Step{edit("app.toml", "port = 8080", "port = 8081")},
			Final: "The port is 8081 and the log level is debug."}},
		mustNot: []string{`Preference signals:\n- “In the config file, make sure to change:”`},
	},
	{
		pattern: 2, name: "a rule said as \"you never …\" inside a longer sentence is a standing rule",
		turns: []scripted.Turn{{User: "Bump the parser to v2. Please take on as a habit that you never leave a " +
			"generated file edited by hand but rerun the generator instead.",
			Steps: []scripted.Step{edit("go.mod", "example.com/parser v1.4.0", "example.com/parser v2.0.0")},
			Final: "The parser is at v2.0.0."}},
		must: []string{`(?s)Preference signals:\n- “Please take on as a habit that you never leave a generated file`},
	},
	{
		pattern: 2, name: "a rule said as \"we never …\" is a standing rule",
		turns: []scripted.Turn{{User: "Remove the debug prints from server.go; keep in mind we never log request bodies in this service.",
			Steps: []scripted.Step{edit("server.go", "log.Printf(\"body=%s\", body)\n", "")},
			Final: "The debug prints are gone."}},
		must: []string{`(?s)Preference signals:\n- “keep in mind we never log request bodies in this service\.”`},
	},
	{
		pattern: 2, guard: true, name: "\"you never …\" in the past tense is a complaint, no rule",
		turns: []scripted.Turn{
			{User: "Add the release notes for 1.3.", Steps: []scripted.Step{edit("NOTES.md", "# Notes", "# Notes\n\n## 1.3")},
				Final: "Added the 1.3 section."},
			{User: "You never updated the changelog link at the bottom of the notes.",
				Steps: []scripted.Step{edit("NOTES.md", "[changelog]: v1.2", "[changelog]: v1.3")}, Final: "The link points to v1.3."}},
		mustNot: []string{`Preference signals:\n- “You never`},
	},
}

func TestWhoseWords(t *testing.T) { checkPatterns(t, wordsCases) }
