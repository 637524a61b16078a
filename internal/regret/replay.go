package regret

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/inject"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
)

// The replay rebuilds, in a scratch home, the memory each session would
// have been given, through the pipeline users run: a pipeline.Home made by
// Scratch from the user's Home (its config, windows, limits, redaction,
// templates and memory folders), which extracts with the offline extractor
// and consolidates with the offline consolidator. Every session is
// extracted first (the Home's Phase 1, as `memctl extract --all` claims):
// a raw memory depends on its transcript alone. Each memory then stays
// hidden (its thread disabled, so that no consolidation selects it and
// no search finds it, the store's rules for a memory taken out of memory)
// until its session has ended: before a session starts, the memories of
// the sessions that ended before it are let in and the uses their answers
// cited recorded. The Home's Phase 2 then rebuilds the folder and its
// search index, on the store's clock set to the session's start, so that
// retention and the success cooldown see replayed time: before a session
// where a lesson returns it runs forced, so that the lesson has every
// chance; before the others it runs as a memctl run from cron would, and
// the cooldown decides. The session is given what `memctl summary` prints
// in its project, cut to the same budget.

// replay is the scratch home and its clock.
type replay struct {
	home    *pipeline.Home
	version memversion.Version
	st      *store.Store
	root    string
	opts    *Options
	clock   time.Time
	// hidden are the memories of sessions that have not ended yet.
	hidden  map[string]bool
	changed bool // new memories or uses since the last consolidation
	// stems are the rollout summary file stems of the stored memories,
	// by thread id; nil after an extraction.
	stems map[string]string
}

func (r *replay) now() time.Time { return r.clock }

// prepare extracts every session and hides the memories.
func (r *replay) prepare(ctx context.Context, all []*session) error {
	r.hidden = map[string]bool{}
	if len(all) == 0 {
		return nil
	}
	ids := make([]string, len(all))
	first := all[0].start
	for i, s := range all {
		ids[i] = s.id
		if s.start.Before(first) {
			first = s.start
		}
	}
	// Extracted before any session ended: a memory's retention clock
	// starts at its session's update, as if extracted right after it.
	r.clock = first.Add(-time.Second)
	if _, err := r.home.ExtractStore(ctx, r.st, r.version, pipeline.ExtractRequest{All: true, Threads: ids, Max: len(ids)}); err != nil {
		return fmt.Errorf("replay extraction: %w", err)
	}
	outs, err := r.st.AllOutputs(ctx)
	if err != nil {
		return err
	}
	for _, o := range outs {
		if err := r.st.SetMemoryMode(ctx, o.ThreadID, sessions.MemoryDisabled); err != nil {
			return err
		}
		r.hidden[o.ThreadID] = true
	}
	return nil
}

// advance makes the memory what it was when s started, given the sessions
// that ended since the last call; eager forces a consolidation through
// the success cooldown.
func (r *replay) advance(ctx context.Context, s *session, ended []*session, eager bool) error {
	r.clock = s.start
	for _, e := range ended {
		if r.hidden[e.id] {
			if err := r.st.SetMemoryMode(ctx, e.id, sessions.MemoryEnabled); err != nil {
				return err
			}
			delete(r.hidden, e.id)
			r.changed = true
			r.stems = nil
		}
		if len(e.cited) > 0 {
			if n, err := r.st.RecordUsage(ctx, uniq(e.cited)); err != nil {
				return fmt.Errorf("replay citations: %w", err)
			} else if n > 0 {
				r.changed = true
			}
		}
	}
	if !r.changed {
		return nil // nothing a consolidation would change
	}
	rep, err := r.home.ConsolidateStore(ctx, r.st, r.version, pipeline.ConsolidateRequest{Force: eager})
	if err != nil {
		return fmt.Errorf("replay consolidation: %w", err)
	}
	switch status := rep.Result.Status; {
	case status.Succeeded():
		r.changed = false
	case status == consolidate.ClaimCooldown:
		// The next session's run tries again, as cron would.
	default:
		return fmt.Errorf("replay consolidation: %s", status)
	}
	if rep.IndexErr != nil {
		return fmt.Errorf("replay search index: %w", rep.IndexErr)
	}
	return nil
}

// given is what one session was given: the injected text and the memories
// the search for its first prompt ranks first.
type given struct {
	text    string
	tokens  int
	entries []string // thread ids whose memory the injected text shows
	found   map[string]bool
}

// give renders the session's summary and runs its search.
func (r *replay) give(ctx context.Context, s *session, withSearch bool) (given, error) {
	var g given
	// The project by its key: the session's folder may be gone, or on
	// another machine, and its key was computed when it was scanned.
	where := s.projectKey
	cfg := r.home.Config()
	res, err := inject.Scoped(inject.Request{Root: r.root, Version: r.version, MaxTokens: r.opts.MaxTokens,
		TemplateDir: cfg.Templates.Dir, Project: where, Overrides: cfg.ProjectOverrides()})
	if err != nil {
		return g, fmt.Errorf("replay summary for %s: %w", s.id, err)
	}
	if res.Injected {
		g.text, g.tokens = res.Text, res.ApproxTokens
		if r.stems == nil {
			outs, err := r.st.AllOutputs(ctx)
			if err != nil {
				return g, err
			}
			r.stems = make(map[string]string, len(outs))
			for _, o := range outs {
				if r.hidden[o.ThreadID] {
					continue
				}
				slug := ""
				if o.RolloutSlug != nil {
					slug = *o.RolloutSlug
				}
				r.stems[o.ThreadID] = memdir.RolloutSummaryStem(o.ThreadID, o.SourceUpdatedAt, slug)
			}
		}
		for id, stem := range r.stems {
			if strings.Contains(g.text, stem) {
				g.entries = append(g.entries, id)
			}
		}
		sort.Strings(g.entries)
	}
	if withSearch {
		if g.found, err = r.search(ctx, s); err != nil {
			return g, err
		}
	}
	return g, nil
}

// maxQueryTerms bounds the words of a first prompt that are searched.
const maxQueryTerms = 8

// search runs the ranked search for the session's first prompt the way an
// agent would use it: one query per distinctive word of the prompt
// (memctl's search wants every word of a query to match, so the whole
// prompt would find nothing), fused by reciprocal rank, the session's
// project first. It returns the threads of the top SearchLimit results.
// It finds what `memctl search` finds: a memory still hidden is not
// searchable (its thread is disabled).
func (r *replay) search(ctx context.Context, s *session) (map[string]bool, error) {
	score := map[string]float64{}
	seen := map[string]bool{}
	n := 0
	for _, w := range rawWords(s.firstPrompt) {
		if n == maxQueryTerms {
			break
		}
		if len(w) < 3 || stopwords()[w] || seen[w] {
			continue
		}
		seen[w] = true
		n++
		hits, err := r.st.SearchWith(ctx, w, store.SearchOptions{Limit: 10, ProjectKey: s.projectKey})
		if err != nil {
			return nil, fmt.Errorf("replay search: %w", err)
		}
		rank := 0
		for _, h := range hits {
			id := h.ThreadID
			if id == "" {
				continue // a file of the folder, not one memory
			}
			rank++
			score[id] += 1 / (60 + float64(rank))
		}
	}
	ids := make([]string, 0, len(score))
	for id := range score {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if math.Abs(score[ids[i]]-score[ids[j]]) > 1e-12 {
			return score[ids[i]] > score[ids[j]]
		}
		return ids[i] < ids[j]
	})
	out := map[string]bool{}
	for i, id := range ids {
		if i == r.opts.SearchLimit {
			break
		}
		out[id] = true
	}
	return out, nil
}

// memoryOf is what the replay store holds for a thread: its raw memory and
// rollout summary; "" when it has none.
func (r *replay) memoryOf(ctx context.Context, id string) (string, error) {
	o, err := r.st.Output(ctx, id)
	if err != nil {
		if err == store.ErrNotFound {
			return "", nil
		}
		return "", err
	}
	return o.RawMemory + "\n" + o.RolloutSummary, nil
}
