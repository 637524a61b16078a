package termtext

import "testing"

func TestEscape(t *testing.T) {
	for _, tt := range []struct {
		name, in, terminal, plain string
	}{
		{"plain text", "fix the parser\n\tdone", "fix the parser\n\tdone", "fix the parser\n\tdone"},
		{"unicode text", "déjà vu — 日本", "déjà vu — 日本", "déjà vu — 日本"},
		{"CSI clear screen", "a\x1b[2Jb", `a\x1b[2Jb`, `a\x1b[2Jb`},
		{"OSC title, BEL", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`, `\x1b]0;pwned\x07`},
		{"OSC 8 hyperlink", "\x1b]8;;http://evil.example\x1b\\x\x1b]8;;\x1b\\", `\x1b]8;;http://evil.example\x1b\x\x1b]8;;\x1b\`, `\x1b]8;;http://evil.example\x1b\x\x1b]8;;\x1b\`},
		{"carriage return, backspace, NUL", "ok\rFAIL\b\x00", `ok\x0dFAIL\x08\x00`, `ok\x0dFAIL\x08\x00`},
		{"C1 CSI", "a\u009b2Jb", `a\u009b2Jb`, "a\u009b2Jb"},
		{"DEL", "a\x7fb", `a\x7fb`, "a\x7fb"},
		{"bidi override", "access\u202e\u2066 // admin\u2069\u2066", `access\u202e\u2066 // admin\u2069\u2066`, "access\u202e\u2066 // admin\u2069\u2066"},
		{"invalid UTF-8", "a\xffb\xc3", `a\xffb\xc3`, "a\xffb\xc3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Escape(tt.in, true); got != tt.terminal {
				t.Errorf("terminal: %q, want %q", got, tt.terminal)
			}
			if got := Escape(tt.in, false); got != tt.plain {
				t.Errorf("plain: %q, want %q", got, tt.plain)
			}
		})
	}
}

func BenchmarkEscapeClean(b *testing.B) {
	s := "a line of ordinary memory text, with `code` and a path /src/x.go:12\n"
	for b.Loop() {
		Escape(s, true)
	}
}
