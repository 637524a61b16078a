package extract

import (
	"testing"
	"time"

	"github.com/memctl/memctl/internal/store"
)

// TestExplainSaysDurationsReadably: threads show said
// "updated 6635h45m0s ago"; a person reads "276d".
func TestExplainSaysDurationsReadably(t *testing.T) {
	now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	th := store.Thread{ID: "t1", Source: "cli", Interactive: true, MemoryMode: "enabled", Preview: "p",
		UpdatedAt: now.Add(-(6635*time.Hour + 45*time.Minute))}
	e := Explain(th, nil, nil, Window{MaxAgeDays: 10, MinIdleHours: 6, InteractiveOnly: true}, now)
	want := map[string]string{
		"age":  "updated 276d ago, window 10 days (extract --all ignores it)",
		"idle": "idle 276d, needs 6 hours (extract --all ignores it)",
	}
	for _, c := range e.Checks {
		if w, ok := want[c.Name]; ok && c.Detail != w {
			t.Errorf("%s: %q, want %q", c.Name, c.Detail, w)
		}
	}
}

// TestReasonOfPrefersAlreadyExtracted: a thread extracted once and since
// aged out of the window is "up_to_date", not "too_old"; a rule that is not
// a window (archived) still comes first, and an unextracted old thread is
// "too_old".
func TestReasonOfPrefersAlreadyExtracted(t *testing.T) {
	now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	old := store.Thread{ID: "t1", Source: "cli", Interactive: true, MemoryMode: "enabled", Preview: "p",
		UpdatedAt: now.Add(-40 * 24 * time.Hour)}
	extracted := &store.Output{ThreadID: "t1", SourceUpdatedAt: old.UpdatedAt.Unix()}
	w := Window{MaxAgeDays: 30, MinIdleHours: 12, InteractiveOnly: true}
	archived := old
	archived.Archived = true
	sub := old
	sub.Subagent = true
	for _, tc := range []struct {
		name string
		th   store.Thread
		out  *store.Output
		want string
	}{
		{"extracted, then too old", old, extracted, ReasonUpToDate},
		{"never extracted, too old", old, nil, store.ReasonTooOld},
		{"extracted and archived", archived, extracted, store.ReasonArchived},
		{"sub-agent of an interactive session", sub, nil, store.ReasonSubagent},
	} {
		if got := reasonOf(tc.th, Explain(tc.th, nil, tc.out, w, now)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
