package store

import (
	"context"
	"errors"

	"github.com/memctl/memctl/internal/memdir"
)

// SearchMemories is SearchWith with one hit per memory: a memory matches
// as its raw memory, its rollout summary and its rollout summary file in
// the memory folder, and is one result, its best-scoring hit. Other files
// of the folder stay results of their own. `memctl search` and the MCP
// search tool both answer with it, so they give one answer.
func (s *Store) SearchMemories(ctx context.Context, query string, opts SearchOptions) ([]Hit, error) {
	limit := opts.Limit
	if limit <= 0 {
		limit = 20
	}
	opts.Limit = limit * 3 // room for the copies that fold away
	hits, err := s.SearchWith(ctx, query, opts)
	if err != nil {
		return nil, err
	}
	threadOf := map[string]string{} // rollout summary file → thread id
	looked := map[string]bool{}
	for _, h := range hits {
		if h.ThreadID == "" || looked[h.ThreadID] {
			continue
		}
		looked[h.ThreadID] = true
		m, err := s.Memory(ctx, h.ThreadID)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		slug := ""
		if m.RolloutSlug != nil {
			slug = *m.RolloutSlug
		}
		threadOf[memdir.RolloutSummariesDir+"/"+memdir.RolloutSummaryStem(m.ThreadID, m.SourceUpdatedAt, slug)+".md"] = m.ThreadID
	}
	seen := map[string]bool{}
	out := hits[:0:0]
	for _, h := range hits {
		key := h.ThreadID
		if key == "" {
			key = h.Path
			if id := threadOf[h.Path]; id != "" {
				key = id
			}
		}
		if seen[key] || len(out) == limit {
			continue
		}
		seen[key] = true
		out = append(out, h)
	}
	return out, nil
}
