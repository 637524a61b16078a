package consolidate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/templates"
)

// extensionsFolderBlock describes the extensions folder inside the
// prompt's folder layout; rendered only when the folder exists.
const extensionsFolderBlock = "- `{{ memory_extensions_root }}/<extension>/`: extra memory sources. Each extension has an\n" +
	"  `instructions.md` that says how to use it, and its material in `resources/*.md` (the `ad_hoc`\n" +
	"  extension keeps hand-written notes in `notes/*.md`)."

// extensionsInputsBlock tells the consolidator how extension material
// enters the work list.
const extensionsInputsBlock = "## Extensions\n\n" +
	"Extensions in `{{ memory_extensions_root }}` are inputs too. Before you use anything from an extension,\n" +
	"read its `instructions.md` and follow it. Added or changed extension files in the diff are new\n" +
	"material; a deleted resource means that memory derived only from it must be removed."

var placeholder = lazyre.New(`\{\{\s*([a-zA-Z0-9_]+)\s*\}\}`)

// renderTemplate replaces {{ name }} placeholders; a placeholder without a
// value is an error, so a broken override template is noticed.
func renderTemplate(text string, vars map[string]string) (string, error) {
	var missing []string
	out := placeholder().ReplaceAllStringFunc(text, func(m string) string {
		name := placeholder().FindStringSubmatch(m)[1]
		v, ok := vars[name]
		if !ok {
			missing = append(missing, name)
			return m
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("template uses unknown variables %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// templateName returns the consolidation prompt for the memory version.
func templateName(version memversion.Version) string {
	if version == memversion.V2 {
		return "consolidation_v2.md"
	}
	return "consolidation.md"
}

// renderPrompt renders the consolidation prompt for root. When the template
// cannot be loaded or rendered, a minimal prompt naming the folder and the
// diff file is returned with the error, so a run can still proceed.
func renderPrompt(root string, version memversion.Version, templateDir string) (string, error) {
	extRoot := filepath.Join(root, memdir.ExtensionsDir)
	vars := map[string]string{
		"memory_root":                        root,
		"phase2_workspace_diff_file":         memdir.DiffFile,
		"memory_extensions_folder_structure": "",
		"memory_extensions_primary_inputs":   "",
	}
	if fi, err := os.Stat(extRoot); err == nil && fi.IsDir() {
		ext := map[string]string{"memory_extensions_root": extRoot}
		folder, err1 := renderTemplate(extensionsFolderBlock, ext)
		inputs, err2 := renderTemplate(extensionsInputsBlock, ext)
		if err1 == nil && err2 == nil {
			vars["memory_extensions_folder_structure"] = folder
			vars["memory_extensions_primary_inputs"] = "\n" + inputs
		}
	}
	text, err := templates.Get(templateName(version), templateDir)
	if err == nil {
		text, err = renderTemplate(text, vars)
	}
	if err != nil {
		return fallbackPrompt(root, version), err
	}
	return text, nil
}

func fallbackPrompt(root string, version memversion.Version) string {
	files := memdir.MemoryFile + " and " + memdir.SummaryFile
	if version == memversion.V2 {
		files = memdir.SummaryFile
	}
	return fmt.Sprintf("Consolidate the memory folder %s. Read %s there first; it lists what changed since the last "+
		"consolidation. Then update %s from the inputs in the folder. The first line of %s must be exactly v1.\n",
		root, memdir.DiffFile, files, memdir.SummaryFile)
}
