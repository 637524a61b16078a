package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// terminalHostile is what a transcript can carry to take over a terminal:
// an OSC window title, a CSI screen clear and colour, a bidi override, a
// C1 CSI, a backspace.
const terminalHostile = "\x1b]0;pwned\x07 \x1b[2J\x1b[31mred \u202egnirts\u202c \u009b31m \x08 parser"

// TestStoredTextIsEscaped: escape sequences from a
// transcript printed raw in threads list/show, memories show and the other
// commands that print stored text. On a terminal none of the controls may
// reach stdout; piped, the C0 ones (ESC, BEL, BS) may not, and --json is
// JSON whose strings hold the text as it was.
func TestStoredTextIsEscaped(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	home := filepath.Join(dir, "home")
	madeHome(t, home)
	if err := os.MkdirAll(src, 0o700); err != nil {
		t.Fatal(err)
	}
	ts := time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	id := "11111111-0000-4000-8000-000000000001"
	var lines []string
	for _, v := range []map[string]any{
		{"type": "session", "id": id, "cwd": "/src/es\x1b[31mcape", "source": "cli"},
		{"type": "message", "role": "user", "text": "fix the flaky parser test " + terminalHostile},
		{"type": "tool_call", "id": "c1", "name": "shell", "command": "go test ./parser " + terminalHostile},
		{"type": "tool_result", "id": "c1", "output": "ok " + terminalHostile, "exit_code": 0},
		{"type": "message", "role": "assistant", "text": "Fixed the parser: " + terminalHostile, "final": true},
	} {
		v["timestamp"] = ts
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(filepath.Join(src, "t.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(fmt.Sprintf("[provider]\nkind = \"heuristic\"\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", src)), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MEMCTL_HOME": home, "MEMCTL_CONFIG": cfgPath, "HOME": dir}
	getenv := func(k string) string { return env[k] }
	if _, errOut, code := runCLI(t, []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath}, "", "run", "--all"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}

	commands := [][]string{
		{"threads", "list"}, {"threads", "show", id}, {"threads", "input", id}, {"memories", "list"}, {"memories", "show", id},
		{"search", "parser"}, {"status"}, {"summary", "--all-projects"}, {"history", "show", "1"}, {"doctor"},
	}
	// The planted text must reach the output at all, or the test proves
	// nothing: every command but status and doctor shows some of it.
	shows := func(out string) bool { return strings.Contains(out, "pwned") || strings.Contains(out, "31mcape") }
	for _, tty := range []bool{true, false} {
		for _, args := range commands {
			name := fmt.Sprintf("%s (tty %v)", strings.Join(args, " "), tty)
			ios := newTestIO(tty)
			run(args, ios.IOStreams, time.Now, getenv)
			out := ios.out.String()
			if !shows(out) && args[0] != "status" && args[0] != "doctor" {
				t.Errorf("%s: the planted text is not in the output:\n%s", name, out)
			}
			// memctl's own colour codes are SGR sequences; strip those.
			plain := ansiEscape().ReplaceAllString(out, "")
			for i, r := range plain {
				bad := r < 0x20 && r != '\n' && r != '\t'
				if tty {
					bad = bad || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x202e || r == 0x202c || r == utf8.RuneError
				}
				if bad {
					t.Errorf("%s: %U printed raw at byte %d: %q", name, r, i, plain[max(0, i-20):min(len(plain), i+20)])
					break
				}
			}
		}
	}

	// Warnings and errors on stderr too: a file name found on disk can
	// hold an escape.
	for _, tty := range []bool{true, false} {
		name := fmt.Sprintf("bad-%v\x1b]0;pwned\x07.jsonl", tty)
		if err := os.WriteFile(filepath.Join(src, name), []byte("not json\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		ios := newTestIO(tty)
		run([]string{"scan"}, ios.IOStreams, time.Now, getenv)
		errOut := ios.errOut.String()
		if !strings.Contains(errOut, fmt.Sprintf(`bad-%v\x1b]0;pwned\x07.jsonl`, tty)) {
			t.Errorf("scan (tty %v) does not name the broken file, escaped:\n%q", tty, errOut)
		}
		if strings.ContainsAny(ansiEscape().ReplaceAllString(errOut, ""), "\x1b\x07") {
			t.Errorf("scan (tty %v) printed a control raw on stderr: %q", tty, errOut)
		}
	}

	// --json carries the text as it was, in JSON's own escapes.
	ios := newTestIO(true)
	run([]string{"memories", "show", id, "--json"}, ios.IOStreams, time.Now, getenv)
	var doc struct {
		RawMemory string `json:"raw_memory"`
	}
	if err := json.Unmarshal(ios.out.Bytes(), &doc); err != nil {
		t.Fatalf("memories show --json: %v\n%s", err, ios.out.String())
	}
	if !strings.Contains(doc.RawMemory, "\x1b]0;pwned\x07") || !strings.Contains(doc.RawMemory, "\u202egnirts") {
		t.Errorf("--json lost the text: %q", doc.RawMemory)
	}
	if strings.ContainsAny(ios.out.String(), "\x1b\u202e\u009b") {
		t.Errorf("--json printed a control raw: %q", ios.out.String())
	}
}
