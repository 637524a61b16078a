package consolidate

import (
	"slices"
	"testing"
)

// A project's tips are capped at a dozen, newest first, so a
// run of sessions that each passed a routine check pushed an older fix
// (the failure and what overcame it) out of the summary, and the next
// session repeated the failure. At the same count, fixes rank first.
func TestRankedPutsFixesBeforeChecks(t *testing.T) {
	s := newItemSet()
	s.add("Check: `npm run build -- --only header` passed after the changes to src/partials/header.html.", "path:/p")
	s.add("Check: `npm run build -- --only footer` passed after the changes to src/partials/footer.html.", "path:/p")
	s.add("Fix: `make deploy` failed (`fatal error: Unable to locate credentials.`) and passed with `AWS_PROFILE=site-deploy` added.", "path:/p")
	s.add("Check: `npm run lint` passed.", "path:/p")
	s.add("Check: `npm run lint` passed.", "path:/p") // seen twice: frequency still comes first
	got := s.ranked(func(*scopedItem) bool { return true }, "")
	want := []string{
		"Check: `npm run lint` passed.",
		"Fix: `make deploy` failed (`fatal error: Unable to locate credentials.`) and passed with `AWS_PROFILE=site-deploy` added.",
		"Check: `npm run build -- --only header` passed after the changes to src/partials/header.html.",
		"Check: `npm run build -- --only footer` passed after the changes to src/partials/footer.html.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("ranked:\n%q\nwant:\n%q", got, want)
	}
}

// A project's summary ranks a tip by how often its own sessions stated
// it: the same check passing in another project (two folders memctl keys
// by path count as one repository, so the check stays in each project's
// summary) does not lift it above the project's own fix.
func TestRankedInAProjectCountsItsOwnSessions(t *testing.T) {
	s := newItemSet()
	s.add("Check: `npm run build` passed.", "path:/a")
	s.add("Check: `npm run build` passed.", "path:/b")
	s.add("Fix: `make deploy` failed (`no credentials`) and `AWS_PROFILE=a make deploy` passed.", "path:/a")
	want := []string{"Fix: `make deploy` failed (`no credentials`) and `AWS_PROFILE=a make deploy` passed.", "Check: `npm run build` passed."}
	if got := s.ranked(func(it *scopedItem) bool { return it.projects["path:/a"] }, "path:/a"); !slices.Equal(got, want) {
		t.Errorf("ranked in path:/a:\n%q\nwant:\n%q", got, want)
	}
}
