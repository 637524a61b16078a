package regret

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/inject"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
)

// The replay rebuilds, in a scratch home, the memory each session would
// have been given. Every session is extracted first, in parallel, by the
// offline extractor (extract.Run, the heuristic provider, the candidate
// rules of `memctl extract --all`): a raw memory depends on its transcript
// alone. Each memory then stays hidden (its thread disabled, so no
// consolidation selects it and the search skips it) until its session has
// ended: before a session starts, the memories of the sessions that ended
// before it are let in and the uses their answers cited recorded. A
// heuristic consolidation (consolidate.Run, as `memctl consolidate
// --force` runs it) then rebuilds the folder, with the store's clock set
// to the session's start so that retention sees the same ages: always
// before a session where a lesson returns, so that the lesson has every
// chance; before the others at most once per consolidation cooldown (six
// hours of replayed time), as a memctl run from cron would. The session is
// given what `memctl summary` prints in its project, cut to the same
// budget; the folder is indexed for search only when a search is run.

// replay is the scratch home and its clock.
type replay struct {
	st    *store.Store
	root  string
	opts  *Options
	clock time.Time
	// hidden are the memories of sessions that have not ended yet.
	hidden  map[string]bool
	changed bool // new memories or uses since the last consolidation
	// stems are the rollout summary file stems of the stored memories,
	// by thread id; nil after an extraction.
	stems map[string]string
	// consolidated is when the last consolidation ran (replayed time).
	consolidated time.Time
	// indexed is false when the folder changed since it was indexed.
	indexed bool
}

// cooldown is Phase 2's success cooldown: a memctl run from cron
// consolidates at most this often.
const cooldown = 6 * time.Hour

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
	if _, err := extract.Run(ctx, r.st, extract.RunOptions{
		Version: r.opts.Version, ProviderName: model.KindHeuristic,
		Filter: store.CandidateFilter{AllWindows: true, InteractiveOnly: true, ThreadIDs: ids,
			ExcludeCwdUnder: r.opts.ExcludeCwdUnder, Limit: len(ids)},
		MaxClaims: len(ids), Concurrency: runtime.GOMAXPROCS(0), Redact: r.opts.Redact, TemplateDir: r.opts.TemplateDir,
		WorkerID: "memctl-eval", Now: r.now,
	}); err != nil {
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
// that ended since the last call; eager asks for a consolidation whatever
// the cooldown.
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
	if !r.changed || !eager && !r.consolidated.IsZero() && s.start.Sub(r.consolidated) < cooldown {
		return nil
	}
	r.changed, r.indexed, r.consolidated = false, false, s.start
	// Jobs only: the replay needs no history, and the files a memory rests
	// on are checked against the disk as it is today, which says nothing
	// about the day being replayed.
	res, err := consolidate.Run(ctx, consolidate.JobsOnStore(r.st), consolidate.Options{
		Root: r.root, Version: r.opts.Version, Mode: "heuristic", MaxRaw: r.opts.MaxRaw, MaxUnusedDays: r.opts.MaxUnusedDays,
		Force: true, Consolidator: consolidate.NewHeuristic(), WorkerID: "memctl-eval", Now: r.now,
		TemplateDir: r.opts.TemplateDir, Redact: r.opts.Redact, Heartbeat: time.Hour,
	})
	if err != nil {
		return fmt.Errorf("replay consolidation: %w", err)
	}
	if !res.Status.Succeeded() {
		return fmt.Errorf("replay consolidation: %s", res.Status)
	}
	return nil
}

// index puts the memory folder's files in the search index, as a
// consolidation run by memctl does.
func (r *replay) index(ctx context.Context) error {
	if r.indexed {
		return nil
	}
	r.indexed = true
	var files []store.IndexedFile
	err := filepath.WalkDir(r.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(r.root, p)
		rel = filepath.ToSlash(rel)
		if !d.Type().IsRegular() || !strings.HasSuffix(rel, ".md") || rel == memdir.DiffFile || rel == memdir.RawMemoriesFile {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil {
			files = append(files, store.IndexedFile{Path: rel, Body: string(b)})
		}
		return nil
	})
	if err != nil {
		return err
	}
	return r.st.ReplaceIndexedFiles(ctx, files)
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
	res, err := inject.Scoped(inject.Request{Root: r.root, Version: r.opts.Version, MaxTokens: r.opts.MaxTokens,
		TemplateDir: r.opts.TemplateDir, Project: where, Overrides: r.opts.Projects})
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
func (r *replay) search(ctx context.Context, s *session) (map[string]bool, error) {
	if err := r.index(ctx); err != nil {
		return nil, err
	}
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
			if id == "" || r.hidden[id] {
				continue // a file of the folder (not one memory), or a session yet to end
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
