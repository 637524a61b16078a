package extract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/redact"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
)

// TestNothingHeldBackFromTheEvaluationSet extracts every session of the
// offline extractor's evaluation set (internal/extract/heuristic/testdata/eval)
// as `memctl extract` does, quarantine included, and requires that no
// line is held back: those sessions hold no planted orders, so anything
// held back would be a fact lost, and the evaluation (docs/quality.md)
// would no longer score what is stored.
func TestNothingHeldBackFromTheEvaluationSet(t *testing.T) {
	root, _ := filepath.Abs("../..")
	files, err := filepath.Glob(filepath.Join(root, "internal/extract/heuristic/testdata/eval/*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no evaluation files: %v", err)
	}
	sort.Strings(files)
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var ev struct {
			Session string `json:"session"`
			Source  string `json:"source"`
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		path := filepath.Join(root, filepath.FromSlash(ev.Session))
		f := sessions.File{Kind: sessions.Kind(ev.Source), Path: path}
		meta, _, err := sessions.ReadMeta(f)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, version := range memversion.All() {
			prov := newProvenance()
			out, err := offline(version, f, meta, redact.Default().String, prov.add)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			h := holdBack(out, store.Thread{Cwd: meta.Cwd}, prov)
			for _, q := range h.quarantine {
				t.Errorf("%s (%s): held back %s line %d (%s): %s", filepath.Base(p), version, q.Field, q.Line, q.Reason, q.Text)
			}
		}
	}
}
