package consolidate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/memversion"
)

const validV2 = "v1\n\n## User Profile\nx\n\n## User preferences\n- y\n\n  ## General Tips  \n\n## What's in Memory\n"

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		version memversion.Version
		files   map[string]string
		link    bool
		wantErr string
	}{
		{"v1 ok", "v1", map[string]string{"MEMORY.md": "m", "memory_summary.md": "v1\nbody"}, false, ""},
		{"v1 crlf ok", "v1", map[string]string{"MEMORY.md": "m", "memory_summary.md": "v1\r\nbody"}, false, ""},
		{"v1 summary only line", "v1", map[string]string{"MEMORY.md": "m", "memory_summary.md": "v1"}, false, ""},
		{"v1 missing MEMORY.md", "v1", map[string]string{"memory_summary.md": "v1\n"}, false, "MEMORY.md is missing"},
		{"missing summary", "v1", map[string]string{"MEMORY.md": "m"}, false, "not readable"},
		{"empty summary", "v1", map[string]string{"MEMORY.md": "m", "memory_summary.md": ""}, false, "first line"},
		{"summary header with space", "v1", map[string]string{"MEMORY.md": "m", "memory_summary.md": "v1 \n"}, false, "first line"},
		{"summary with BOM", "v1", map[string]string{"MEMORY.md": "m", "memory_summary.md": "\ufeffv1\n"}, false, "first line"},
		{"summary header v2", "v1", map[string]string{"MEMORY.md": "m", "memory_summary.md": "v2\n"}, false, "first line"},
		{"v2 ok without MEMORY.md", "v2", map[string]string{"memory_summary.md": validV2}, false, ""},
		{"v2 missing heading", "v2", map[string]string{"memory_summary.md": strings.Replace(validV2, "## General Tips", "## Tips", 1)}, false, "General Tips"},
		{"v2 too large", "v2", map[string]string{"memory_summary.md": validV2 + strings.Repeat("x", 10000-len(validV2))}, false, "limit is 10000"},
		{"v2 just under", "v2", map[string]string{"memory_summary.md": validV2 + strings.Repeat("x", 9999-len(validV2))}, false, ""},
		{"symlink makes it invalid", "v1", map[string]string{"MEMORY.md": "m", "memory_summary.md": "v1\n"}, true, "removed 1 symbolic links"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for p, c := range tt.files {
				writeFile(t, filepath.Join(root, p), c)
			}
			outside := filepath.Join(t.TempDir(), "target")
			writeFile(t, outside, "keep")
			if tt.link {
				writeFile(t, filepath.Join(root, "skills", "x", "SKILL.md"), "s")
				if err := os.Symlink(outside, filepath.Join(root, "skills", "x", "evil")); err != nil {
					t.Fatal(err)
				}
			}
			err := Validate(root, tt.version)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, errInvalidArtifacts) {
				t.Fatalf("Validate = %v, want error containing %q", err, tt.wantErr)
			}
			if tt.link {
				if exists(filepath.Join(root, "skills", "x", "evil")) {
					t.Error("symlink not removed")
				}
				if readFile(t, outside) != "keep" {
					t.Error("symlink target touched")
				}
			}
		})
	}
}

func TestValidateMemoryMDMustBeRegular(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "memory_summary.md"), "v1\n")
	if err := os.Mkdir(filepath.Join(root, "MEMORY.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Validate(root, "v1"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Validate = %v", err)
	}
}
