package prompttemplate

import (
	"strings"
	"testing"
)

// Synthetic messages: prompt templates in the shapes they reach a
// transcript in, and messages users type, long ones included.
func TestIs(t *testing.T) {
	const (
		personaSteps = "Take on the persona set out below and follow its start-up steps exactly as written.\n\n" +
			"## Start-up\n1. Read the settings file the team keeps for this persona.\n2. Greet the user by the name found there.\n" +
			"3. Show the numbered menu and WAIT for a choice.\n\n## Conduct\n- Stay in the persona until the exit command.\n- Answer in the configured language."
		personaPlain = "Stay in the persona described here for the whole conversation and follow each start-up step in order. " +
			"1. Load the profile file before anything else. 2. Introduce yourself in one line. 3. Offer the menu of tasks and wait. " +
			"ALWAYS answer in the persona's voice and NEVER drop it until the user types the exit word."
		personaTags = "<persona-setup>\n- Load the role sheet from the agents folder and read it whole.\n- Keep every answer in the voice the sheet sets.\n" +
			"- Ask before running anything that writes files.\n</persona-setup>\nThe steps above apply to every reply in this conversation, whatever the question, and to the files the sheet lists."
		commandBody   = "# /release — Purpose: cut a release of the service\n\nRead CHANGELOG.md, bump the version and tag it."
		commandFolded = "# /release — Purpose: cut a release of the service Read CHANGELOG.md, bump the version and tag it."
		docFolded     = "Review the change. ## Steps 1. read the diff 2. list the risks"
		role          = "You are a careful release engineer for this repository. Before each release read the changelog, check that every merged pull request is listed, run the full test suite, and write a short note on what changed for the operators who deploy it."
		repeated      = "Read the open issues labelled bug, pick the oldest one nobody is assigned to, reproduce it with a failing test, fix it in the smallest change that makes the test pass, and open a pull request that links the issue."
		slot          = "Summarise the ticket $1 for the changelog in two lines, then draft the release note for it with the ticket's number, its title, who asked for it and which service it touches, in the house style."

		personal = "I tried the export again this morning and my numbers still do not match the dashboard. Here is what I see:\n" +
			"1. The CSV has 1,204 rows but the dashboard says 1,198.\n2. The totals differ by the six refunds from last week.\n" +
			"3. When I filter by region the gap goes away.\nCan you check whether the export includes refunded orders? I think it should NEVER count them."
		personalShout = "The importer is still broken after your change and this is URGENT for me: my team runs it every night. " +
			"**Please** look at the parser first, then the writer, and tell me what you find before you change anything else in the importer or the writer or the tests."
		plainLong = "The cache in front of the pricing service returns stale prices after a deploy because the keys do not include the catalogue version, so old entries survive; " +
			"add the version to the key, keep the expiry as it is, and make the cache tests cover a deploy that changes the catalogue."
		wrong     = "You are wrong about the cache: the eviction does not work, entries stay after their expiry and the expiry check in the cache never runs, as the logs from last night show for every entry that was written before midnight."
		shortRule = "Never push to main."
		price     = "Keep the API bill under $5 a day."
	)
	for _, c := range []struct {
		name string
		m    Message
		want bool
	}{
		{"a persona's activation under headings, no 'You are'", Message{Text: personaSteps}, true},
		{"a persona's activation as numbered steps with words in capitals", Message{Text: personaPlain}, true},
		{"a persona's activation wrapped in markup tags, as a list", Message{Text: personaTags}, true},
		{"a slash command's body", Message{Text: commandBody}, true},
		{"a slash command's body folded into one line", Message{Text: commandFolded}, true},
		{"a document's lines folded into one", Message{Text: docFolded}, true},
		{"a placeholder left in", Message{Text: "Implement $ARGUMENTS step by step."}, true},
		{"a named placeholder", Message{Text: "Fill in {{ticket}} and open the pull request."}, true},
		{"a numbered slot in a long text", Message{Text: slot}, true},
		{"a role's opening in a long text", Message{Text: role}, true},
		{"a long text repeated word for word", Message{Text: repeated, Repeats: 1}, true},
		{"a Chinese text repeated word for word", Message{Text: "请阅读下面的检查清单并按顺序执行每一步，然后报告每一步的结果。", Repeats: 1}, true},

		{"the same long text once", Message{Text: repeated}, false},
		{"a short request said twice", Message{Text: "Run the tests again.", Repeats: 1}, false},
		{"a user's long message in the first person with a list", Message{Text: personal}, false},
		{"a user's long message in the first person with emphasis", Message{Text: personalShout}, false},
		{"a long request in plain prose", Message{Text: plainLong}, false},
		{"a long correction opening 'You are wrong'", Message{Text: wrong}, false},
		{"a short rule restated in every session", Message{Text: shortRule, Repeats: 4}, false},
		{"a price is no slot", Message{Text: price}, false},
	} {
		if got := Is(c.m); got != c.want {
			t.Errorf("%s: Is = %v, want %v (%+v)\n%s", c.name, got, c.want, form(c.m.Text), c.m.Text)
		}
	}
}

// TestListLength: items at a line's start, and numbered items inside a
// folded text only when they count up from one.
func TestListLength(t *testing.T) {
	for text, want := range map[string]int{
		"steps:\n1. a\n2. b\n3. c":                 3,
		"- a\n- b\n* c\n• d":                       4,
		"do this 1. read it 2. fix it 3. test it":  3,
		"upgrade to version 2. then rerun 3. done": 0,
		"see section 1. it says 3. nothing":        1,
		strings.Repeat("plain words ", 20):         0,
	} {
		if got := listLength(text); got != want {
			t.Errorf("listLength(%q) = %d, want %d", text, got, want)
		}
	}
}
