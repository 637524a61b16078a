package config

import (
	"fmt"
	"strings"
)

// DefaultFile renders the commented default config written by
// `memctl config init`: every key with its default value and what it does.
func DefaultFile() string {
	var b strings.Builder
	b.WriteString("# memctl configuration. Every key is optional; the values below are the defaults.\n")
	b.WriteString("# Precedence: command-line flag > MEMCTL_<SECTION>_<KEY> environment variable > this file > default.\n")
	b.WriteString("# Reference: docs/config.md\n")
	for _, section := range sortedSections() {
		fmt.Fprintf(&b, "\n[%s]\n", section)
		for _, k := range keys {
			s, field, _ := strings.Cut(k.name, ".")
			if s != section {
				continue
			}
			fmt.Fprintf(&b, "# %s\n%s = %s\n", k.doc, field, tomlValue(k.def))
		}
	}
	b.WriteString(`
# Where transcripts live. Repeat the block for each source. With no
# [[sources]] at all, codex (~/.codex/sessions) and claude-code
# (~/.claude/projects) are read when those folders exist.
# [[sources]]
# kind = "codex"            # codex | claude-code | jsonl
# path = "~/.codex/sessions"
`)
	return b.String()
}

func tomlValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case []string:
		if len(x) == 0 {
			return "[]"
		}
		q := make([]string, len(x))
		for i, s := range x {
			q[i] = fmt.Sprintf("%q", s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	default:
		return fmt.Sprint(x)
	}
}

// Doc describes one key for docs/config.md.
type Doc struct {
	Key, Default, Doc, Env string
}

// Docs lists every scalar key with its default and description.
func Docs() []Doc {
	out := make([]Doc, len(keys))
	for i, k := range keys {
		out[i] = Doc{Key: k.name, Default: tomlValue(k.def), Doc: k.doc, Env: EnvName(k.name)}
	}
	return out
}
