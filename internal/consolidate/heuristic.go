package consolidate

import (
	"context"
	"path/filepath"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memmodel"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/model"
)

// Size bounds of the heuristic output. They keep memory_summary.md near
// the 2,500-token injection budget and MEMORY.md greppable; a summary's
// bullet is memmodel.MaxSummaryItem.
const (
	maxItemBytes = 1500 // a task heading in MEMORY.md, shortened by whole words
	// maxBulletBytes bounds one bullet of MEMORY.md. A raw memory is at
	// most about 8,000 bytes, so an item of one reaches the handbook as
	// Phase 1 chose it: Phase 1 already dropped whole items by value, and
	// a shorter cap would drop the end of a long answer by position. Only
	// a larger item loses whole sentences (memmodel.WholeItem).
	maxBulletBytes    = 8000
	maxBlockBullets   = 30 // per block-level section of a task group
	maxSummaryPrefs   = 15
	maxSummaryTips    = 15
	maxOlderPerScope  = 25
	maxRecentPerScope = 20
	maxProfileScopes  = 8
	summaryV2Target   = 9000 // comfortably under the 10,000-byte limit
)

// NewHeuristic returns the offline consolidator: it builds MEMORY.md and
// memory_summary.md (v2: the summary only) from the structure of the
// selected raw memories and rollout summaries, plus the ad hoc notes, with
// no model. The output is a pure function of its inputs, so an unchanged
// selection produces byte-identical files and the next run is a no-op.
func NewHeuristic() Consolidator { return heuristic{} }

type heuristic struct{}

func (heuristic) Name() string { return "heuristic" }

func (heuristic) Consolidate(ctx context.Context, ws *Workspace) (model.Usage, error) {
	mems := memmodel.Parse(ws.Selected)
	memmodel.MarkStale(mems, ws.Stale)
	notes := memmodel.ReadNotes(ws.Root, ws.redact)
	if err := ctx.Err(); err != nil {
		return model.Usage{}, err
	}
	// MEMORY.md lists every note; the summary the best-ranked.
	best := memmodel.SummaryNotes(notes, ws.NoteMarks)
	if ws.Version == memversion.V2 {
		return model.Usage{}, putFile(filepath.Join(ws.Root, memdir.SummaryFile), []byte(ws.redact(renderSummaryV2(mems, best))), 0o600)
	}
	if err := putFile(filepath.Join(ws.Root, memdir.MemoryFile), []byte(ws.redact(renderMemoryMD(mems, notes))), 0o600); err != nil {
		return model.Usage{}, err
	}
	return model.Usage{}, putFile(filepath.Join(ws.Root, memdir.SummaryFile), []byte(ws.redact(renderSummaryV1(mems, best))), 0o600)
}
