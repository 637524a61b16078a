package team

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/memctl/memctl/internal/redact"
	"github.com/memctl/memctl/internal/redact/redacttest"
)

// TestLoadRefusesEverySecretFamily: a team file a repository holds, with a
// secret of any family of the leak corpus, never reaches the summary; the
// clean file beside them does. The families go in folders of fewer than
// MaxFiles files.
func TestLoadRefusesEverySecretFamily(t *testing.T) {
	fams := redacttest.Families()
	const per = MaxFiles - 1
	for start := 0; start < len(fams); start += per {
		dir := t.TempDir()
		batch := fams[start:min(start+per, len(fams))]
		for i, f := range batch {
			e := Entry{ID: fmt.Sprintf("f%02d", i), Title: f.Name, Body: "The deploy notes:\n\n" + f.Text}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.md", i)), []byte(Render(e)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		clean := Entry{ID: "ok", Title: "clean", Body: "Run make check before pushing."}
		if err := os.WriteFile(filepath.Join(dir, "ok.md"), []byte(Render(clean)), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := Load(dir, redact.Default().String)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range l.Entries {
			if e.ID != "ok" {
				t.Errorf("the team file of %s was loaded", e.Title)
			}
		}
		secret := 0
		for _, d := range l.Dropped {
			if d.Reason == KindSecret {
				secret++
			}
		}
		if secret != len(batch) || len(l.Entries) != 1 {
			t.Errorf("%d of %d files refused as secret, %d loaded: %+v", secret, len(batch), len(l.Entries), l.Dropped)
		}
	}
}
