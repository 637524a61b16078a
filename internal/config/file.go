package config

import (
	"fmt"
	"strings"
)

// DefaultFile renders the commented default config written by
// `memctl config init`: every key with its default value and what it does,
// commented out, so that `config show` reports each as a default and a
// later release's defaults still apply (a file that set every key would
// freeze them all).
func DefaultFile() string {
	var b strings.Builder
	b.WriteString("# memctl configuration. Every key is optional and commented out here, showing its\n")
	b.WriteString("# default; uncomment a line to change it.\n")
	b.WriteString("# Precedence: command-line flag > MEMCTL_<SECTION>_<KEY> environment variable > this file > default.\n")
	b.WriteString("# Reference: docs/config.md\n")
	for _, section := range sortedSections() {
		fmt.Fprintf(&b, "\n[%s]\n", section)
		for _, k := range keys() {
			s, field, _ := strings.Cut(k.name, ".")
			if s != section {
				continue
			}
			fmt.Fprintf(&b, "# %s\n# %s = %s\n", k.doc, field, tomlValue(k.def))
		}
	}
	b.WriteString(`
# Where transcripts live. With no [[sources]] at all, codex
# (~/.codex/sessions) and claude-code (~/.claude/projects) are read when
# those folders exist. Any [[sources]] block replaces that default: list
# every source you want, and give codex or claude-code no path to keep
# its default folder. A source that cannot be read fails scan and run.
# [[sources]]
# kind = "codex"            # codex | claude-code | jsonl; no path: the default folder
# [[sources]]
# kind = "jsonl"
# path = "~/agent-logs"
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
	// Clamp is the accepted range of an integer (values outside are
	// clamped) or the allowed values of an enum.
	Clamp string
}

// Docs lists every scalar key with its default and description.
func Docs() []Doc {
	out := make([]Doc, len(keys()))
	for i, k := range keys() {
		out[i] = Doc{Key: k.name, Default: tomlValue(k.def), Doc: k.doc, Env: EnvName(k.name), Clamp: k.clamp}
	}
	return out
}

// MarkdownTable renders Docs as the key table of docs/config.md.
func MarkdownTable() string {
	var b strings.Builder
	b.WriteString("| key | default | range or values | environment | meaning |\n|---|---|---|---|---|\n")
	for _, d := range Docs() {
		clamp := d.Clamp
		if clamp == "" {
			clamp = "—"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | `%s` | %s |\n", d.Key, d.Default, clamp, d.Env, strings.ReplaceAll(d.Doc, "|", "\\|"))
	}
	return b.String()
}
