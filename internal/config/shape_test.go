package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestFileShapeIsTheKeyTable writes every key of the table into a file with
// its default value and reads it back: the file's shape is generated from
// the table, so no key can be documented but refused, or accepted but not
// applied.
func TestFileShapeIsTheKeyTable(t *testing.T) {
	var b strings.Builder
	section := ""
	for _, k := range keys() {
		s, field, _ := strings.Cut(k.name, ".")
		if s != section {
			fmt.Fprintf(&b, "[%s]\n", s)
			section = s
		}
		fmt.Fprintf(&b, "%s = %s\n", field, tomlValue(k.def))
	}
	b.WriteString("[[sources]]\nkind = \"jsonl\"\npath = \"/x\"\n")
	c, err := Parse(strings.NewReader(b.String()), "all.toml")
	if err != nil {
		t.Fatalf("the defaults, written out, do not parse: %v\n%s", err, b.String())
	}
	for _, k := range keys() {
		if c.Origin(k.name) != FromFile {
			t.Errorf("%s: origin %s, want file", k.name, c.Origin(k.name))
		}
	}
	if len(c.Sources) != 1 || c.Sources[0] != (Source{Kind: "jsonl", Path: "/x"}) {
		t.Errorf("sources = %+v", c.Sources)
	}
}

// TestWrongTypesInTheKeysWords: a value of the wrong type is described by
// the key's kind, with its line, never in Go's terms.
func TestWrongTypesInTheKeysWords(t *testing.T) {
	tests := []struct {
		name, toml, key, want string
		line                  int
	}{
		{"string for an integer", "[memories]\nmax_unused_days = \"30\"\n", "memories.max_unused_days", "want an integer, got a string", 2},
		{"float for an integer", "[extract]\nconcurrency = 2.5\n", "extract.concurrency", "want an integer, got 2.5", 2},
		{"string for a bool", "[memories]\n\nuse_memories = \"yes\"\n", "memories.use_memories", "want true or false, got a string", 3},
		{"number in an array", "[provider]\ncommand = [\"sh\", 1]\n", "provider.command", "element 1 is an integer", 2},
		{"number for a duration", "[provider]\ntimeout = 10\n", "provider.timeout", "want a duration string", 2},
		{"table for a string", "[templates]\ndir = { x = 1 }\n", "templates.dir", "want a string, got a table", 2},
		{"number for a source field", "[[sources]]\nkind = 3\npath = \"/x\"\n", "sources.kind", "want a string, got an integer", 2},
		{"string for the sources", "sources = \"x\"\n", "sources", "want [[sources]] tables, got a string", 1},
		{"number for a section", "memories = 3\n", "memories", "want a [memories] table, got an integer", 1},
		{"bad value in an inline table", "\nmemories = { version = \"v3\" }\n", "memories.version", "invalid value", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.toml), "bad.toml")
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("want *config.Error, got %v", err)
			}
			if ce.Key != tt.key || ce.Line != tt.line || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got key %q line %d: %v; want key %q line %d and %q", ce.Key, ce.Line, err, tt.key, tt.line, tt.want)
			}
			if strings.Contains(err.Error(), "struct") {
				t.Errorf("message speaks Go: %v", err)
			}
		})
	}
}
