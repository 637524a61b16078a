package extract

import (
	"testing"
	"time"

	"github.com/memctl/memctl/internal/store"
)

// TestExplainSaysDurationsReadably: issue 17, item 4. threads show said
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
