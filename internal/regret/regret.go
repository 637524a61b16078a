// Package regret measures, offline and without a model, whether memory
// keeps coding agents from repeating their mistakes, on the sessions they
// left on disk (`memctl eval`).
//
// It reads every session of the configured sources and finds the lessons
// they teach: a user's message that corrects what the agent just did, and
// a failed command that a later run fixed. Lessons are grouped by topic
// per project (see topics.go); a topic comes back when a later session of
// the same project repeats the mistake or meets the same need. For each
// return it rebuilds the memory as it stood just before that session, by
// replaying the offline extraction and the heuristic consolidation over
// the sessions that ended before it in a scratch home (replay.go), and
// sorts the return into one class:
//
//   - prevented: the lesson was in the memory given (injected, or found by
//     a search for the session's first prompt) and the mistake was not
//     repeated;
//   - extraction miss: repeated, and the lesson was never extracted;
//   - ranking miss: repeated; extracted, but neither in the injected
//     summary within its budget nor found by the search;
//   - compliance miss: repeated although the memory given held the lesson;
//   - unaided: not repeated, with no lesson in the memory given.
//
// The report adds memory precision (the share of injected memories ever
// cited), the junk rate (injected memories never cited and never matching
// a later need) and the tokens injected per session, per project and
// overall, and a timeline of repeats.
package regret

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/memctl/memctl/internal/inject"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
)

// Class is what became of one return of a lesson.
type Class string

// The classes of a return, in report order.
const (
	ClassPrevented      Class = "prevented"
	ClassExtractionMiss Class = "extraction_miss"
	ClassRankingMiss    Class = "ranking_miss"
	ClassComplianceMiss Class = "compliance_miss"
	ClassUnaided        Class = "unaided"
)

// Classes lists every class in report order.
var Classes = []Class{ClassPrevented, ClassExtractionMiss, ClassRankingMiss, ClassComplianceMiss, ClassUnaided}

// Misses are the classes of a repeated mistake.
var Misses = []Class{ClassExtractionMiss, ClassRankingMiss, ClassComplianceMiss}

// Options configure [Run].
type Options struct {
	// Home is the home whose sessions are replayed: the replay runs in a
	// scratch home made from it (pipeline.Home.Scratch), on its config
	// (windows, limits, redaction, projects, templates), and never
	// extracts a session run in its memory folders.
	Home *pipeline.Home
	// Sources are the transcript folders to read; nil reads the Home's.
	Sources []sessions.Source
	// Scratch is an existing empty folder for the replay home; the caller
	// removes it.
	Scratch string
	// MaxTokens is the injected summary's budget (0: inject's default).
	MaxTokens int
	// SearchLimit is how many memories the search for a first prompt
	// returns (0: 5).
	SearchLimit int
	// Redact scrubs secrets from what the report quotes; nil is the
	// Home's redaction.
	Redact func(string) string
	// Used are the memories the user's own store recorded a use of (by
	// thread id); they count as cited.
	Used map[string]bool
	// Disabled are the threads the user took out of memory (threads
	// disable, forget): they are neither replayed nor quoted.
	Disabled map[string]bool
	// Progress, when set, is called with the sessions replayed so far.
	Progress func(done, total int)
	// Log receives warnings; nil discards them.
	Log io.Writer
}

// Run reads the sources, replays the memory and returns the report.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Home == nil {
		return nil, errors.New("regret: no home to replay")
	}
	if opts.SearchLimit <= 0 {
		opts.SearchLimit = 5
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = inject.DefaultSummaryTokens
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Scratch == "" {
		return nil, errors.New("regret: no scratch folder")
	}
	started := time.Now()
	r := &replay{opts: &opts, clock: time.Now()}
	r.home = opts.Home.Scratch(opts.Scratch, opts.Sources, r.now)
	r.version = r.home.Versions()[0]
	r.root = r.home.MemoryRoot(r.version)
	if opts.Redact == nil {
		red, err := pipeline.Redactor(r.home.Config())
		if err != nil {
			return nil, err
		}
		opts.Redact = red
	}
	st, err := r.home.OpenStore(ctx, r.version)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	r.st = st
	scanned, err := r.home.ScanStore(ctx, st)
	if err != nil {
		return nil, err
	}
	if err := scanned.Err(); err != nil {
		return nil, err
	}
	all, err := readSessions(ctx, st, opts.Disabled, opts.Log)
	if err != nil {
		return nil, err
	}
	describe(all)
	topics := group(all)
	if err := r.prepare(ctx, all); err != nil {
		return nil, err
	}
	if err := r.home.Prepare(r.version); err != nil {
		return nil, err
	}

	byStart := append([]*session(nil), all...)
	sort.SliceStable(byStart, func(i, j int) bool { return byStart[i].start.Before(byStart[j].start) })
	byEnd := append([]*session(nil), all...)
	sort.SliceStable(byEnd, func(i, j int) bool { return byEnd[i].end.Before(byEnd[j].end) })
	returnsAt := map[*session][]*ret{}
	for _, t := range topics {
		for _, rt := range t.returns {
			returnsAt[rt.session] = append(returnsAt[rt.session], rt)
		}
	}
	gave := map[*session]given{}
	next := 0
	for i, s := range byStart {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var ended []*session
		for next < len(byEnd) && !byEnd[next].end.After(s.start) && byEnd[next] != s {
			ended = append(ended, byEnd[next])
			next++
		}
		if err := r.advance(ctx, s, ended, len(returnsAt[s]) > 0); err != nil {
			return nil, err
		}
		g, err := r.give(ctx, s, len(returnsAt[s]) > 0)
		if err != nil {
			return nil, err
		}
		for _, rt := range returnsAt[s] {
			if err := r.classify(ctx, rt, g); err != nil {
				return nil, err
			}
		}
		g.text = "" // only the classification reads it
		gave[s] = g
		if opts.Progress != nil {
			opts.Progress(i+1, len(byStart))
		}
	}
	rep := build(all, topics, gave, &opts)
	rep.Elapsed = time.Since(started)
	return rep, nil
}

// classify sorts one return, from the memory the replay gave its session.
func (r *replay) classify(ctx context.Context, rt *ret, g given) error {
	for _, ev := range rt.evidence {
		mem, err := r.memoryOf(ctx, ev.session.id)
		if err != nil {
			return err
		}
		if mem == "" || !mentions(mem, ev) {
			continue
		}
		rt.extracted = true
		if mentions(g.text, ev) {
			rt.injected = true
		}
		if g.found[ev.session.id] {
			rt.found = true
		}
	}
	rt.class = decide(rt.repeated, rt.extracted, rt.injected || rt.found)
	return nil
}

// decide is the class of a return: whether the mistake was repeated,
// whether the lesson was ever extracted, and whether the memory the
// session was given held it (injected or found by search).
func decide(repeated, extracted, given bool) Class {
	switch {
	case !repeated && given:
		return ClassPrevented
	case !repeated:
		return ClassUnaided
	case !extracted:
		return ClassExtractionMiss
	case !given:
		return ClassRankingMiss
	default:
		return ClassComplianceMiss
	}
}

// readSessions reads every main thread with a human message, but those
// the user took out of memory, on as many goroutines as there are CPUs.
func readSessions(ctx context.Context, st *store.Store, disabled map[string]bool, log io.Writer) ([]*session, error) {
	threads, err := st.ListThreads(ctx, store.ThreadFilter{})
	if err != nil {
		return nil, err
	}
	var todo []*session
	for _, t := range threads {
		if t.Subagent || t.Preview == "" || disabled[t.ID] {
			continue
		}
		s := &session{id: t.ID, kind: sessions.Kind(t.SourceKind), path: t.Path, cwd: t.Cwd, projectKey: t.ProjectKey,
			projectName: t.ProjectName, start: t.CreatedAt, end: t.UpdatedAt}
		if s.projectKey == "" {
			s.projectKey = "path:" + t.Cwd
		}
		if s.projectName == "" {
			s.projectName = filepath.Base(t.Cwd)
		}
		// Keys and names come from folder names: one printable line each.
		id := project.Printable(project.Identity{Key: s.projectKey, Name: s.projectName})
		s.projectKey, s.projectName = id.Key, id.Name
		if s.end.Before(s.start) {
			s.end = s.start
		}
		todo = append(todo, s)
	}
	failed := make([]error, len(todo))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s := todo[i]
				rd := newReader(s)
				_, failed[i] = sessions.Events(sessions.File{Kind: s.kind, Path: s.path}, func(e sessions.Event) error {
					rd.event(e)
					return nil
				})
				rd.failures()
				sort.SliceStable(s.incidents, func(a, b int) bool { return s.incidents[a].line < s.incidents[b].line })
			}
		}()
	}
	for i := range todo {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]*session, 0, len(todo))
	for i, s := range todo {
		if failed[i] != nil {
			fmt.Fprintf(log, "memctl: warning: read %s: %v; session left out\n", s.path, failed[i])
			continue
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].start.Equal(out[j].start) {
			return out[i].start.Before(out[j].start)
		}
		return out[i].id < out[j].id
	})
	return out, nil
}
