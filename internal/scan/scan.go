// Package scan indexes transcripts into the threads table, incrementally:
// a file whose size and modification time match the index is not opened;
// one whose size or time changed but whose content fingerprint did not (a
// copy, a touch) is not read again either. Broken transcripts are indexed
// from what is readable and their problems reported; the scan goes on.
package scan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/agentcli"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
)

// Store is the part of the store a scan needs.
type Store interface {
	FileStates(ctx context.Context) (map[string]store.FileState, error)
	UpsertThread(ctx context.Context, t store.Thread, policy store.UpsertPolicy) (store.UpsertResult, error)
	TouchFile(ctx context.Context, id string, size, mtimeNs int64) error
	ThreadProjects(ctx context.Context, rules string) ([]store.ThreadProject, error)
	WeakThreadProjects(ctx context.Context, rules string) ([]store.ThreadProject, error)
	SetThreadProjects(ctx context.Context, ps []store.ThreadProject) error
}

// Options configures a scan.
type Options struct {
	Sources []sessions.Source
	Policy  store.UpsertPolicy
	// Redact scrubs what the index keeps of the transcript text (the
	// preview); nil keeps it as is.
	Redact func(string) string
	// Progress, when set, is called after each file (for a progress display).
	Progress func(done int)
	// Projects are the [[projects]] overrides of the config; every thread
	// gets its project key after the files are indexed (internal/project).
	Projects []project.Override
	// NewResolver builds the project resolver (tests replace it); nil
	// uses project.NewResolver.
	NewResolver func([]project.Override) *project.Resolver
}

// FileError is a file that could not be indexed, or a problem found in one.
type FileError struct {
	Path  string `json:"path"`
	Line  int    `json:"line,omitempty"`
	Error string `json:"error"`
}

// Result counts what the scan did (CLI.md's scan --json shape). A source
// folder that cannot be read is in Errors too, so readers of the
// documented shape see it.
type Result struct {
	Scanned   int `json:"scanned"`
	Added     int `json:"added"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	// Own counts the transcripts of memctl's own calls through an agent
	// CLI (run in its scratch folder), which are never indexed: memory
	// must not feed on its own extractions.
	Own     int            `json:"own,omitempty"`
	Errors  []FileError    `json:"errors"`
	Sources []SourceResult `json:"sources"`
}

// SourceResult is what the scan found in one source.
type SourceResult struct {
	Kind string `json:"kind"`
	Path string `json:"path"`
	// Default: an agent's default folder, not a [[sources]] path.
	Default     bool `json:"default"`
	Transcripts int  `json:"transcripts"`
	// Error says why the folder could not be read; "" when it was.
	Error string `json:"error,omitempty"`
}

// SourcesError reports the sources a scan could not read (the others were
// scanned). [Result.Err] returns it; the command layer exits 1 on it.
type SourcesError struct {
	Sources []SourceResult
}

func (e *SourcesError) Error() string {
	parts := make([]string, len(e.Sources))
	for i, s := range e.Sources {
		parts[i] = fmt.Sprintf("%s source %s: %s", s.Kind, s.Path, s.Error)
	}
	if len(parts) == 1 {
		return "cannot read the " + parts[0]
	}
	return fmt.Sprintf("cannot read %d transcript sources: %s", len(parts), strings.Join(parts, "; "))
}

// Err is a *SourcesError when a source could not be read, else nil.
func (r Result) Err() error {
	var bad []SourceResult
	for _, s := range r.Sources {
		if s.Error != "" {
			bad = append(bad, s)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &SourcesError{Sources: bad}
}

// maxProblemsPerFile bounds how many problems one broken file reports.
const maxProblemsPerFile = 5

// Run scans every source. A source whose folder cannot be read is
// recorded in the result (see [Result.Err]) and the others are scanned;
// the error is for what stops the whole scan (the store, ctx).
func Run(ctx context.Context, st Store, opts Options) (Result, error) {
	res := Result{Errors: []FileError{}, Sources: []SourceResult{}}
	known, err := st.FileStates(ctx)
	if err != nil {
		return res, err
	}
	for _, src := range opts.Sources {
		sr := SourceResult{Kind: string(src.Kind), Path: src.Path, Default: src.Default}
		var se *sessions.SourceError
		if err := sessions.CheckSource(src); errors.As(err, &se) {
			sr.Error = se.Reason
			res.Sources = append(res.Sources, sr)
			res.Errors = append(res.Errors, FileError{Path: src.Path, Error: "cannot read this " + string(src.Kind) + " source: " + se.Reason})
			continue
		}
		before := res.Scanned
		err := sessions.Discover(ctx, src, func(f sessions.File) error {
			if f.Unreadable != nil {
				// A folder inside the source: a problem, like an
				// unreadable file, not the source's failure.
				res.Errors = append(res.Errors, FileError{Path: f.Path, Error: "cannot read this folder: " + reasonOf(f.Unreadable)})
				return nil
			}
			if f.Skipped != nil {
				// Named, never opened: nothing of its content may reach
				// an error message, the index or a model.
				res.Errors = append(res.Errors, FileError{Path: f.Path, Error: "skipped: " + f.Skipped.Error()})
				return nil
			}
			res.Scanned++
			if err := indexFile(ctx, st, opts, known, f, &res); err != nil {
				return err
			}
			if opts.Progress != nil {
				opts.Progress(res.Scanned)
			}
			return nil
		})
		sr.Transcripts = res.Scanned - before
		res.Sources = append(res.Sources, sr)
		if err != nil {
			return res, fmt.Errorf("scan %s %s: %w", src.Kind, src.Path, err)
		}
	}
	if err := assignProjects(ctx, st, opts); err != nil {
		return res, fmt.Errorf("scan: projects: %w", err)
	}
	sort.SliceStable(res.Errors, func(i, j int) bool { return res.Errors[i].Path < res.Errors[j].Path })
	return res, nil
}

func indexFile(ctx context.Context, st Store, opts Options, known map[string]store.FileState, f sessions.File, res *Result) error {
	mtime := f.ModTime.UnixNano()
	prev, seen := known[f.Path]
	if seen && prev.Size == f.Size && prev.MtimeNs == mtime {
		res.Unchanged++
		return nil
	}
	fp, err := fingerprint(f)
	if err != nil {
		res.Errors = append(res.Errors, FileError{Path: f.Path, Error: err.Error()})
		return nil
	}
	if seen && prev.Fingerprint == fp && prev.Size == f.Size {
		res.Unchanged++
		return st.TouchFile(ctx, prev.ID, f.Size, mtime)
	}
	meta, problems, err := sessions.ReadMeta(f)
	if err != nil {
		res.Errors = append(res.Errors, FileError{Path: f.Path, Error: err.Error()})
		return ctx.Err()
	}
	if agentcli.IsScratch(meta.Cwd) {
		res.Own++
		return nil
	}
	for i, p := range problems {
		if i == maxProblemsPerFile {
			res.Errors = append(res.Errors, FileError{Path: f.Path, Error: fmt.Sprintf("%d more problems", len(problems)-i)})
			break
		}
		res.Errors = append(res.Errors, FileError{Path: p.Path, Line: p.Line, Error: p.Err})
	}
	if meta.ID == "" {
		if len(problems) == 0 {
			res.Errors = append(res.Errors, FileError{Path: f.Path, Error: "not a transcript: no thread id found"})
		}
		return nil
	}
	if opts.Redact != nil {
		meta.Preview = opts.Redact(meta.Preview)
	}
	t := threadRow(meta, f, fp, len(problems))
	r, err := st.UpsertThread(ctx, t, opts.Policy)
	if err != nil {
		return fmt.Errorf("index %s: %w", f.Path, err)
	}
	if r == store.Inserted {
		res.Added++
	} else {
		res.Updated++
	}
	return nil
}

// fingerprint covers the main file's content and the sizes of the files
// that belong to the same thread.
func fingerprint(f sessions.File) (string, error) {
	fp, err := sessions.Fingerprint(f.Path)
	if err != nil {
		return "", err
	}
	if len(f.Related) == 0 {
		return fp, nil
	}
	return fmt.Sprintf("%s+%d:%d", fp, len(f.Related), f.Size), nil
}

func threadRow(m sessions.Meta, f sessions.File, fp string, problems int) store.Thread {
	created, updated := m.CreatedAt, m.UpdatedAt
	if updated.IsZero() {
		updated = f.ModTime
	}
	if created.IsZero() {
		created = updated
	}
	return store.Thread{
		ID: m.ID, SourceKind: string(f.Kind), Path: f.Path, Related: f.Related, Source: m.Source,
		Interactive: m.Interactive, Subagent: m.Subagent, ParentID: m.ParentID, Cwd: m.Cwd,
		GitBranch: m.GitBranch, GitOriginURL: m.GitRemote, GitSHA: m.GitSHA,
		Preview: strings.TrimSpace(m.Preview), Model: m.Model,
		CreatedAt: created.UTC(), UpdatedAt: updated.UTC(), Archived: f.Archived || m.Archived,
		MemoryMode: m.MemoryMode, UsedExternalContext: m.UsedExternalContext,
		FileSize: f.Size, FileMtimeNs: f.ModTime.UnixNano(), Fingerprint: fp, Problems: problems,
	}
}

// assignProjects keys every thread whose project was never computed, or
// was computed under other [[projects]] rules, and upgrades the weak keys
// whose folder now says more (project.Resolver.Upgrade). It runs after
// the files are indexed, so an unchanged rescan costs two queries and a
// look at the folders of the weakly keyed threads, and an existing home
// gets its projects on the first scan after upgrade.
func assignProjects(ctx context.Context, st Store, opts Options) error {
	rules := project.RulesFingerprint(opts.Projects)
	todo, err := st.ThreadProjects(ctx, rules)
	if err != nil {
		return err
	}
	weak, err := st.WeakThreadProjects(ctx, rules)
	if err != nil || len(todo)+len(weak) == 0 {
		return err
	}
	newResolver := opts.NewResolver
	if newResolver == nil {
		newResolver = func(ov []project.Override) *project.Resolver { return project.NewResolver(ov) }
	}
	r := newResolver(opts.Projects)
	upgrades := upgradeProjects(ctx, r, weak)
	if len(todo) == 0 {
		return st.SetThreadProjects(ctx, upgrades)
	}
	// What was learnt of a folder outlives it: the sessions recorded in a
	// folder that is gone (moved, deleted, another machine's) and keyed by
	// its path alone, because the repository had no remote yet when they
	// ran, join the repository its other sessions recorded there
	// (project.FolderKeys). Every thread's key counts, as this scan leaves
	// it.
	all, err := st.ThreadProjects(ctx, "")
	if err != nil {
		return err
	}
	keyed := make(map[string]store.ThreadProject, len(all))
	for _, t := range all {
		keyed[t.ID] = t
	}
	changed := map[string]bool{}
	for _, t := range upgrades {
		keyed[t.ID], changed[t.ID] = t, true
	}
	for _, t := range todo {
		id := r.Resolve(t.Cwd, t.GitOriginURL)
		t.Key, t.Name, t.Root, t.Rules = id.Key, id.Name, id.Root, rules
		keyed[t.ID], changed[t.ID] = t, true
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	folders := project.FolderKeys{}
	for _, t := range keyed {
		folders.Learn(t.Cwd, project.Identity{Key: t.Key, Name: t.Name, Root: t.Root})
	}
	updates := make([]store.ThreadProject, 0, len(changed))
	for _, t := range keyed {
		// An imported thread keeps the key its own machine gave it: only
		// the threads keyed under these rules are keyed again.
		if t.Root == "" && t.Rules == rules {
			if id, ok := folders.Of(t.Key); ok {
				t.Key, t.Name = id.Key, id.Name
				changed[t.ID] = true
			}
		}
		if changed[t.ID] {
			updates = append(updates, t)
		}
	}
	sort.Slice(updates, func(i, j int) bool { return updates[i].ID < updates[j].ID })
	return st.SetThreadProjects(ctx, updates)
}

// upgradeProjects gives the weakly keyed threads whose folder now says
// more (a first commit, a remote) the key their folder has now, so a
// repository's early sessions stay with its later ones.
//
// A root-commit key is the repository's history, wherever it lives: when
// the folders that hold it all moved to one remote key, the threads of
// the folders it left (moved, renamed; the scan cannot look there) follow,
// or a repository moved and then pushed would split in two. When a folder
// that is still there keeps the key (a copy with no remote) or two
// remotes claim it, which of them the old folder was is not known, and
// its threads stay.
func upgradeProjects(ctx context.Context, r *project.Resolver, weak []store.ThreadProject) []store.ThreadProject {
	var out, left []store.ThreadProject
	moved := map[string]project.Identity{} // root-commit key → the remote key it took; zero when two did
	kept := map[string]bool{}              // root-commit keys a folder that is there still holds
	for _, t := range weak {
		if ctx.Err() != nil {
			return out
		}
		id, ok := r.Upgrade(t.Cwd, t.GitOriginURL, t.Key)
		if ok {
			if project.IsRootKey(t.Key) {
				if prev, seen := moved[t.Key]; seen && prev.Key != id.Key {
					id = project.Identity{}
				}
				moved[t.Key] = id
			}
			t.Key, t.Name, t.Root = id.Key, id.Name, id.Root
			out = append(out, t)
			continue
		}
		if !project.IsRootKey(t.Key) {
			continue
		}
		if _, err := os.Stat(t.Cwd); err == nil {
			kept[t.Key] = true
		} else {
			left = append(left, t)
		}
	}
	for _, t := range left {
		if id := moved[t.Key]; id.Key != "" && !kept[t.Key] {
			t.Key, t.Name = id.Key, id.Name // Root stays the folder it ran in
			out = append(out, t)
		}
	}
	return out
}

// reasonOf is the reason of a file system error without its path.
func reasonOf(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
