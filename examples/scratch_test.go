package examples

import (
	"context"
	"fmt"
	"testing"

	"github.com/memctl/memctl/pkg/extract"
	"github.com/memctl/memctl/pkg/redact"
	"github.com/memctl/memctl/pkg/sessions"
)

func TestScratch(t *testing.T) {
	for _, src := range []sessions.Source{{Kind: sessions.KindCodex, Path: "sessions/codex/sessions"}, {Kind: sessions.KindClaudeCode, Path: "sessions/claude/projects"}, {Kind: sessions.KindJSONL, Path: "sessions/jsonl"}} {
		sessions.Discover(context.Background(), src, func(f sessions.File) error {
			m, probs, err := sessions.ReadMeta(f)
			fmt.Printf("==== %s\n%+v\nprobs=%v err=%v related=%v\n", f.Path, m, probs, err, f.Related)
			var evs []sessions.Event
			sessions.Events(f, func(e sessions.Event) error {
				r := redact.Default()
				e.Text, e.Command, e.Input, e.Output = r.String(e.Text), r.String(e.Command), r.String(e.Input), r.String(e.Output)
				evs = append(evs, e)
				return nil
			})
			o := extract.Heuristic("v1", m, evs)
			s := ""
			if o.RolloutSlug != nil {
				s = *o.RolloutSlug
			}
			fmt.Printf("slug=%s\n--- summary\n%s\n--- raw\n%s\n", s, o.RolloutSummary, o.RawMemory)
			return nil
		})
	}
}
