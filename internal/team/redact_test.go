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
		// Every file is committed as it is: only the secret keeps it out.
		committed := map[string]string{}
		write := func(name string, e Entry) {
			b := []byte(Render(e))
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
			committed[name] = GitBlobID(b)
		}
		for i, f := range batch {
			write(fmt.Sprintf("f%02d.md", i), Entry{ID: fmt.Sprintf("f%02d", i), Title: f.Name, Body: "The deploy notes:\n\n" + f.Text})
		}
		write("ok.md", Entry{ID: "ok", Title: "clean", Body: "Run make check before pushing."})
		l, err := Load(LoadOptions{Dir: dir, Redact: redact.Default().String, Committed: committed})
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
		// A file the quarantine holds for review (a command line that
		// carries its password, say) is kept out too, before any
		// approval looks at it.
		if secret+len(l.Waiting) != len(batch) || len(l.Entries) != 1 {
			t.Errorf("%d of %d files refused as secret, %d held, %d loaded: %+v %+v", secret, len(batch), len(l.Waiting), len(l.Entries), l.Dropped, l.Waiting)
		}
	}
}
