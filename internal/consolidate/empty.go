package consolidate

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memmodel"
)

// nothingToConsolidate reports whether a run over root has no input to
// make memory from: no raw memory selected, no ad hoc note and no
// extension resource. Such a run can only leave an empty memory.
func nothingToConsolidate(root string, selected []Selected) bool {
	return len(selected) == 0 && len(memmodel.ReadNotes(root, func(s string) string { return s })) == 0 && !hasExtensionResources(root)
}

// hasExtensionResources reports whether any extension under root holds a
// resources/*.md file, an input a model or agent consolidator reads.
func hasExtensionResources(root string) bool {
	exts, err := os.ReadDir(filepath.Join(root, memdir.ExtensionsDir))
	if err != nil {
		return false
	}
	for _, ext := range exts {
		if !ext.IsDir() {
			continue
		}
		res, err := os.ReadDir(filepath.Join(root, memdir.ExtensionsDir, ext.Name(), memdir.ExtensionResourcesDir))
		if err != nil {
			continue
		}
		for _, r := range res {
			if r.Type().IsRegular() && strings.HasSuffix(r.Name(), ".md") {
				return true
			}
		}
	}
	return false
}

// offlineWhenEmpty makes a pass with nothing to consolidate an offline
// one: the heuristic consolidator writes the empty memory, so no model is
// called and no agent runs to consolidate nothing, and the result says
// so. It reports whether the pass is empty.
func (r *runner) offlineWhenEmpty(root string, selected []Selected) bool {
	if !nothingToConsolidate(root, selected) {
		return false
	}
	r.opts.Consolidator, r.opts.Provider, r.opts.Model = NewHeuristic(), "", ""
	r.res.Consolidator = r.opts.Consolidator.Name()
	r.res.NothingToConsolidate = true
	return true
}
