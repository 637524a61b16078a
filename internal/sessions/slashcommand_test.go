package sessions

import (
	"fmt"
	"strings"
	"testing"
)

// slashLine writes one Claude Code user line of the slash-command tests.
func slashLine(uuid, parent, content string, meta bool) string {
	return fmt.Sprintf(`{"type":"user","uuid":%q,"parentUuid":%q,"sessionId":"77777777-1111-2222-3333-444444444444","cwd":"/s","timestamp":"2026-04-01T10:00:00Z","isMeta":%t,"message":{"role":"user","content":%q}}`,
		uuid, parent, meta, content)
}

func slashCommand(name, args string) string {
	return "<command-name>" + name + "</command-name>\n<command-message>" + strings.TrimPrefix(name, "/") +
		"</command-message>\n<command-args>" + args + "</command-args>"
}

const slashReply = `{"type":"assistant","uuid":"r1","parentUuid":"%s","sessionId":"77777777-1111-2222-3333-444444444444","timestamp":"2026-04-01T10:00:05Z","message":{"role":"assistant","model":"claude-x","content":[{"type":"text","text":"Done."}]}}`

// A slash command the UI ran itself (its answer is a <local-command-stdout>
// or -stderr line) operated the agent and is context, whether or not it is
// on the list of known harness commands; one whose expansion or answer
// went to the model is the human's request.
func TestClaudeSlashCommandAnsweredLocally(t *testing.T) {
	cases := []struct {
		name        string
		lines       []string
		wantHuman   []string // the human events, in order
		wantPreview string
	}{{
		name: "unlisted command answered by its stdout",
		lines: []string{
			slashLine("u1", "", slashCommand("/output-style", "terse"), false),
			slashLine("u2", "u1", "<local-command-stdout>Output style set to terse</local-command-stdout>", false),
			slashLine("u3", "u2", "rename the parser helper", false),
			fmt.Sprintf(slashReply, "u3"),
		},
		wantHuman:   []string{"rename the parser helper"},
		wantPreview: "rename the parser helper",
	}, {
		name: "only human input is a local command: it is the preview",
		lines: []string{
			slashLine("u1", "", slashCommand("/output-style", "terse"), false),
			slashLine("u2", "u1", "<local-command-stdout>Output style set to terse</local-command-stdout>", false),
		},
		wantPreview: "/output-style terse",
	}, {
		name: "a request before a setting as the preview",
		lines: []string{
			slashLine("u1", "", slashCommand("/output-style", "terse"), false),
			slashLine("u2", "u1", "<local-command-stdout>Output style set to terse</local-command-stdout>", false),
			slashLine("u3", "u2", slashCommand("/team:tidy-imports", "src/"), false),
			slashLine("u4", "u3", "Sort and group the imports of every file under the given folder.", true),
			fmt.Sprintf(slashReply, "u4"),
		},
		wantHuman:   []string{"/team:tidy-imports src/"},
		wantPreview: "/team:tidy-imports src/",
	}, {
		name: "command answered by stderr",
		lines: []string{
			slashLine("u1", "", slashCommand("/toggle-thing", "sideways"), false),
			slashLine("u2", "u1", "<local-command-stderr>Unknown value: sideways</local-command-stderr>", false),
		},
		wantPreview: "/toggle-thing sideways",
	}, {
		name: "custom command expanded into a prompt for the model",
		lines: []string{
			slashLine("u1", "", slashCommand("/team:tidy-imports", "src/"), false),
			slashLine("u2", "u1", "Sort and group the imports of every file under the given folder.", true),
			fmt.Sprintf(slashReply, "u2"),
		},
		wantHuman:   []string{"/team:tidy-imports src/"},
		wantPreview: "/team:tidy-imports src/",
	}, {
		name: "command the agent answers directly",
		lines: []string{
			slashLine("u1", "", slashCommand("/explain-build", ""), false),
			fmt.Sprintf(slashReply, "u1"),
		},
		wantHuman:   []string{"/explain-build"},
		wantPreview: "/explain-build",
	}, {
		name: "stdout of another line does not answer the command",
		lines: []string{
			slashLine("u1", "", slashCommand("/explain-build", ""), false),
			slashLine("u2", "u0", "<local-command-stdout>unrelated</local-command-stdout>", false),
		},
		wantHuman:   []string{"/explain-build"},
		wantPreview: "/explain-build",
	}, {
		name: "listed harness command without a stdout line stays context",
		lines: []string{
			slashLine("u1", "", slashCommand("/model", "opus"), false),
			fmt.Sprintf(slashReply, "u1"),
		},
		wantPreview: "/model opus",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "proj/77777777-1111-2222-3333-444444444444.jsonl", strings.Join(c.lines, "\n")+"\n")
			f := File{Kind: KindClaudeCode, Path: p}
			evs, probs := collectEvents(t, f)
			if len(probs) > 0 {
				t.Fatal(probs)
			}
			var human []string
			for _, e := range evs {
				if e.Kind == EventHuman {
					human = append(human, e.Text)
				}
			}
			if fmt.Sprint(human) != fmt.Sprint(c.wantHuman) {
				t.Errorf("human events %q, want %q\n%s", human, c.wantHuman, describe(evs))
			}
			m, _, err := ReadMeta(f)
			if err != nil {
				t.Fatal(err)
			}
			if m.Preview != c.wantPreview {
				t.Errorf("preview %q, want %q", m.Preview, c.wantPreview)
			}
		})
	}
}
