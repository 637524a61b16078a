package consolidate

import (
	"regexp"
	"testing"

	"github.com/memctl/memctl/internal/memdir"
)

var (
	stemShape  = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-[0-9a-zA-Z]{4}(-[a-z0-9_]{1,60})?$`)
	skillShape = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)
)

// FuzzFileNames checks that names built from model output (rollout slugs,
// skill names) are always safe single path components of the right shape.
func FuzzFileNames(f *testing.F) {
	f.Add("0194f5a6-89ab-7cde-8123-456789abcdef", int64(1739288119), "Unsafe Slug/With Spaces & Symbols", "deploy-checklist")
	f.Add("not-a-uuid", int64(0), "../../x", "../evil")
	f.Add("", int64(-1), "\x00/etc/passwd", "A/B")
	f.Fuzz(func(t *testing.T, id string, ts int64, slug, skill string) {
		if ts < -62135596800 || ts > 253402300799 {
			return // outside the years 1–9999 a timestamp has no 4-digit year
		}
		if stem := memdir.RolloutSummaryStem(id, ts, slug); !stemShape.MatchString(stem) {
			t.Fatalf("memdir.RolloutSummaryStem(%q, %d, %q) = %q", id, ts, slug, stem)
		}
		if name, err := sanitizeSkillName(skill); err == nil && !skillShape.MatchString(name) {
			t.Fatalf("SanitizeSkillName(%q) = %q", skill, name)
		}
	})
}
