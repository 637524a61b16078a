package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// An empty file, or one that does not start with a bundle's header, is
// refused with its name and line, and nothing is imported.
func TestImportRefusesAnEmptyOrHeaderlessBundle(t *testing.T) {
	dir := t.TempDir()
	note := `{"type":"note","path":"2026-06-01T00-00-00-n.md","content":"Imported from nowhere."}` + "\n"
	for _, tt := range []struct{ name, text, want string }{
		{"empty.jsonl", "", "empty.jsonl:1: no record"},
		{"headerless.jsonl", note, `headerless.jsonl:1: the first record is of type "note"`},
	} {
		path := filepath.Join(dir, tt.name)
		writeFile(t, path, tt.text)
		ios, code := runMemctl(t, false, nil, "import", path)
		if code != ExitError || !strings.Contains(ios.errOut.String(), "memctl: error: "+filepath.Join(dir, tt.want)) {
			t.Errorf("import %s: exit %d\n%s", tt.name, code, ios.errOut)
		}
		if strings.Contains(ios.errOut.String(), "imported") {
			t.Errorf("import %s reports an import:\n%s", tt.name, ios.errOut)
		}
	}
}
