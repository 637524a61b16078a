package inject

import (
	"testing"

	"github.com/google/uuid"
)

// FuzzParseCitations checks the parser's invariants on any bodies: no
// panic, ids de-duplicated, thread ids valid UUIDs, line ranges non-negative.
func FuzzParseCitations(f *testing.F) {
	f.Add("<citation_entries>\nMEMORY.md:1-3|note=[x]\n</citation_entries>\n<rollout_ids>\n019e1625-789d-76c0-80ab-3724b5ddb799\n</rollout_ids>")
	f.Add("<thread_ids>\nnot-a-uuid\n019e1625-789d-76c0-80ab-3724b5ddb799\n019e1625-789d-76c0-80ab-3724b5ddb799\n</thread_ids>")
	f.Add("<citation_entries>\na:b:c:1-2|note=[|note=[x]]\n:-|note=[]\n</citation_entries>")
	f.Fuzz(func(t *testing.T, body string) {
		c, _ := ParseCitations([]string{body, body})
		seen := map[string]bool{}
		for _, id := range c.RolloutIDs {
			if seen[id] {
				t.Fatalf("duplicate id %q", id)
			}
			seen[id] = true
		}
		for _, id := range c.ThreadIDs {
			if _, err := uuid.Parse(id); err != nil {
				t.Fatalf("invalid thread id %q", id)
			}
		}
		for _, e := range c.Entries {
			if e.LineStart < 0 || e.LineEnd < 0 {
				t.Fatalf("negative range %+v", e)
			}
		}
	})
}
