package consolidate

import (
	"time"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/templates"
)

// adHocInstructionsTemplate is the template seeded into
// extensions/ad_hoc/instructions.md.
const adHocInstructionsTemplate = "ad_hoc_instructions.md"

// PrepareLayout makes root usable for Phase 2 (see memdir.Repair), seeding
// extensions/ad_hoc/instructions.md from the ad hoc instructions template,
// overridable in templateDir. A root that is a symbolic link is refused
// with an error matching memdir.ErrSymlinkedRoot. now is the caller's
// clock (temporary files abandoned an hour before it are removed).
func PrepareLayout(root, templateDir string, now time.Time) error {
	text, err := templates.Get(adHocInstructionsTemplate, templateDir)
	if err != nil {
		return err
	}
	return memdir.Repair(root, []byte(text), now)
}
