package consolidate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
)

func TestRenderPrompt(t *testing.T) {
	root := t.TempDir()
	bare, err := renderPrompt(root, "v1", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := PrepareLayout(root, "", testNow); err != nil {
		t.Fatal(err)
	}
	for _, v := range memversion.All() {
		got, err := renderPrompt(root, v, "")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(got, "{{") || !strings.Contains(got, root) || !strings.Contains(got, memdir.DiffFile) {
			t.Errorf("%s prompt badly rendered:\n%s", v, got)
		}
		if !strings.Contains(got, filepath.Join(root, "extensions")+"/<extension>/") {
			t.Errorf("%s prompt lacks the extensions block", v)
		}
	}
	if strings.Contains(bare, "extensions") {
		t.Error("extension blocks rendered without an extensions folder")
	}
	v2, _ := renderPrompt(root, "v2", "")
	if !strings.Contains(v2, "thread_id=<exact id>") || strings.Contains(v2, "MEMORY.md") {
		t.Error("v2 prompt is not the summary-only prompt")
	}
}

func TestRenderPromptFallsBack(t *testing.T) {
	override := t.TempDir()
	writeFile(t, filepath.Join(override, "consolidation.md"), "root {{ memory_root }} and {{ no_such_variable }}")
	got, err := renderPrompt("/mem", "v1", override)
	if err == nil || !strings.Contains(err.Error(), "no_such_variable") {
		t.Errorf("err = %v", err)
	}
	if !strings.Contains(got, "/mem") || !strings.Contains(got, memdir.DiffFile) {
		t.Errorf("fallback prompt = %q", got)
	}
}
