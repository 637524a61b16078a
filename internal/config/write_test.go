package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetInFile: one line changes, or is added, and everything else in
// the file stays as the user wrote it; an edit that would change more is
// refused with nothing written.
func TestSetInFile(t *testing.T) {
	for _, tt := range []struct {
		name, before, want, err string
	}{
		{name: "no file", before: "", want: "[provider]\nkind = \"claude-code\"  # chosen at memctl run\n"},
		{name: "config init's file", before: DefaultFile(),
			want: strings.Replace(DefaultFile(), "\n[provider]\n", "\n[provider]\nkind = \"claude-code\"  # chosen at memctl run\n", 1)},
		{name: "a kind already", before: "# mine\n[provider]\ntimeout = \"2m\"\nkind   = \"auto\" # old\n\n[[sources]]\nkind = \"jsonl\"\npath = \"/x\"\n",
			want: "# mine\n[provider]\ntimeout = \"2m\"\nkind = \"claude-code\"  # chosen at memctl run\n\n[[sources]]\nkind = \"jsonl\"\npath = \"/x\"\n"},
		{name: "no provider section", before: "[[sources]]\nkind = \"codex\"\n",
			want: "[[sources]]\nkind = \"codex\"\n\n[provider]\nkind = \"claude-code\"  # chosen at memctl run\n"},
		{name: "a dotted key", before: "provider.kind = \"auto\"\n", err: "would break it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if tt.before != "" {
				os.WriteFile(path, []byte(tt.before), 0o640)
			}
			err := SetInFile(path, "provider.kind", "claude-code", "chosen at memctl run")
			got, _ := os.ReadFile(path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || string(got) != tt.before {
					t.Fatalf("err = %v, file %q: want %q and the file untouched", err, got, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("file:\n%s\nwant:\n%s", got, tt.want)
			}
			cfg, err := Load(path, true)
			if err != nil || cfg.Provider.Kind != "claude-code" || cfg.Origin("provider.kind") != FromFile {
				t.Errorf("reloaded: %+v %v", cfg, err)
			}
			st, _ := os.Stat(path)
			if want := os.FileMode(0o640); tt.before == "" {
				want = 0o600
				if st.Mode().Perm() != want {
					t.Errorf("mode %v, want %v", st.Mode().Perm(), want)
				}
			} else if st.Mode().Perm() != want {
				t.Errorf("mode %v, want %v", st.Mode().Perm(), want)
			}
		})
	}
	if err := SetInFile(filepath.Join(t.TempDir(), "c.toml"), "provider.kind", "gpt", ""); err == nil {
		t.Error("a value the key does not allow was written")
	}
}
