package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/origin"
	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/textcut"
	"github.com/spf13/cobra"
)

// `memctl memories` works on raw memories one at a time (threads is the
// view of the sessions they came from). A raw memory's id is its thread's.

func newMemoriesCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "memories <command>",
		Short: "List, show, pin, unpin, forget and edit single raw memories",
		Long: `Work with the raw memories Phase 1 extracted, one at a time (memctl threads shows
the sessions they came from). A memory's id is its thread's id, given in full
or as a unique prefix of at least four characters.

A pinned memory is never pruned and ranks first in the consolidation's
selection, whatever its age. A forgotten memory is deleted from the store and
the search index at once, its thread is disabled so it is not extracted again,
and the next consolidation (which runs even inside the cooldown) rebuilds the
memory folder without it. An edited memory holds the text you wrote: it is
marked user-asserted in the memory folder, and a new extraction of its thread
leaves it alone. Pin, unpin and forget apply to every generated memory version;
list, show and edit to the configured one. See docs/history.md.`,
		Example: `  $ memctl memories list --pinned
  $ memctl memories show 019e1625
  $ memctl memories pin 019e1625
  $ memctl memories forget 019e1625 && memctl consolidate
  $ memctl memories edit 019e1625`,
	}
	c.AddCommand(
		newMemoriesListCmd(f, nil),
		newMemoriesShowCmd(f, nil),
		newMemoriesPinCmd(f, nil, true),
		newMemoriesPinCmd(f, nil, false),
		newMemoriesForgetCmd(f, nil),
		newMemoriesEditCmd(f, nil),
	)
	return c
}

// memoryJSON is one raw memory in the --json documents of memories.
type memoryJSON struct {
	ID                string  `json:"id"`
	Description       string  `json:"description"`
	Pinned            bool    `json:"pinned"`
	UserAsserted      bool    `json:"user_asserted"`
	EditedAt          *string `json:"edited_at"`
	UsageCount        int64   `json:"usage_count"`
	LastUsage         *string `json:"last_usage"`
	SelectedForPhase2 bool    `json:"selected_for_phase2"`
	// UpdatedAt is the thread's update the memory was extracted from
	// (source_updated_at elsewhere, in unix seconds); ExtractedAt when.
	UpdatedAt   string `json:"updated_at"`
	ExtractedAt string `json:"extracted_at"`
	Cwd         string `json:"cwd"`
	Source      string `json:"source"`
	MemoryMode  string `json:"memory_mode"`
	// Origin is where the memory came from: a session here, the user,
	// another machine (sync), a bundle (import).
	Origin         origin.Origin `json:"origin"`
	RawMemory      *string       `json:"raw_memory,omitempty"`
	RolloutSummary *string       `json:"rollout_summary,omitempty"`
}

func rfc3339Ptr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := rfc3339(*t)
	return &s
}

func toMemoryJSON(m store.Memory, withText bool) memoryJSON {
	out := memoryJSON{ID: m.ThreadID, Description: memoryDescription(m), Pinned: m.Pinned, UserAsserted: m.UserAsserted(),
		EditedAt: rfc3339Ptr(m.EditedAt), UsageCount: m.UsageCount, LastUsage: rfc3339Ptr(m.LastUsage),
		SelectedForPhase2: m.SelectedForPhase2, UpdatedAt: rfc3339(time.Unix(m.SourceUpdatedAt, 0)),
		ExtractedAt: rfc3339(time.Unix(m.GeneratedAt, 0)), Cwd: m.Cwd, Source: m.Source, MemoryMode: m.MemoryMode, Origin: m.From}
	if withText {
		out.RawMemory, out.RolloutSummary = &m.RawMemory, &m.RolloutSummary
	}
	return out
}

// memoryDescription is a memory's one-line description: its front matter,
// else its title, else its first line, else its thread's first request.
func memoryDescription(m store.Memory) string {
	for _, text := range []string{m.RawMemory, m.RolloutSummary} {
		doc := rawmemory.Parse(text)
		for _, d := range []string{doc.Front.Description, doc.Title} {
			if d = strings.TrimSpace(d); d != "" {
				return d
			}
		}
	}
	for _, text := range []string{m.RawMemory, m.RolloutSummary} {
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(strings.Trim(l, "#-* ")); l != "" && l != "---" {
				return l
			}
		}
	}
	return m.Preview
}

func memoryFlags(m store.Memory) string {
	var f []string
	if m.Pinned {
		f = append(f, "pinned")
	}
	if m.UserAsserted() {
		f = append(f, "edited")
	}
	if m.SelectedForPhase2 {
		f = append(f, "selected")
	}
	if len(f) == 0 {
		return "-"
	}
	return strings.Join(f, ",")
}

// resolveMemory turns an id or prefix into a stored memory's id, with
// messages that say what to do next. A memory id is a thread id, so the
// mistakes are usage errors (exit 2) as they are for lookupThread: no such
// memory, a prefix too short, a prefix shared by several.
func resolveMemory(ctx context.Context, st *store.Store, version memversion.Version, id string) (string, error) {
	full, err := st.ResolveMemory(ctx, id)
	var amb *store.AmbiguousError
	switch {
	case errors.As(err, &amb):
		return "", withHint(&FlagError{Err: err}, "give more characters of the id")
	case errors.Is(err, store.ErrNotFound):
		nf := &FlagError{Err: &notFoundError{fmt.Sprintf("%s: no raw memory %q", version, id)}}
		if len(id) < store.MinIDPrefix {
			return "", withHint(nf, fmt.Sprintf("an id prefix needs at least %d characters", store.MinIDPrefix))
		}
		return "", withHint(nf, "`memctl memories list` shows the stored memories")
	}
	return full, err
}

// lookupMemory is the stored memory an id or prefix names, with
// resolveMemory's messages.
func lookupMemory(ctx context.Context, st *store.Store, version memversion.Version, id string) (store.Memory, error) {
	full, err := resolveMemory(ctx, st, version, id)
	if err != nil {
		return store.Memory{}, err
	}
	return st.Memory(ctx, full)
}

// notFoundError is a lookup that found nothing, said in the command's
// words; it matches store.ErrNotFound.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }
func (e *notFoundError) Unwrap() error { return store.ErrNotFound }

// MemoriesListOptions is what `memctl memories list` needs: injected
// loaders first, then the flag values.
type MemoriesListOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Now       func() time.Time

	JSON   bool
	Limit  int
	Pinned bool
	Edited bool
}

func newMemoriesListCmd(f *Factory, runF func(context.Context, *MemoriesListOptions) error) *cobra.Command {
	opts := &MemoriesListOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now}
	c := &cobra.Command{
		Use:   "list",
		Short: "List raw memories in the order the consolidation ranks them",
		Long: `List the raw memories, pinned first, then by uses, last use and update (the order
of the consolidation's selection). FLAGS says which are pinned, edited by you
and selected by the last consolidation.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl memories list
  $ memctl memories list --pinned --json | jq -r '.[].id'`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			if opts.Limit < 0 {
				return FlagErrorf("--limit must not be negative, got %d", opts.Limit)
			}
			return runOrHook(c.Context(), opts, runF, runMemoriesList)
		},
	}
	c.Flags().IntVar(&opts.Limit, "limit", 0, "list at most `N` memories (0: all)")
	c.Flags().BoolVar(&opts.Pinned, "pinned", false, "only pinned memories")
	c.Flags().BoolVar(&opts.Edited, "edited", false, "only memories you edited (user-asserted)")
	return c
}

func runMemoriesList(ctx context.Context, opts *MemoriesListOptions) error {
	_, st, err := configAndStore(ctx, opts.Config, opts.OpenStore)
	if err != nil {
		return err
	}
	defer st.Close()
	mems, err := st.Memories(ctx, store.MemoryFilter{PinnedOnly: opts.Pinned, EditedOnly: opts.Edited, Limit: opts.Limit})
	if err != nil {
		return err
	}
	if opts.JSON {
		out := make([]memoryJSON, 0, len(mems))
		for _, m := range mems {
			out = append(out, toMemoryJSON(m, false))
		}
		return printJSON(opts.IO.Out, out)
	}
	tb := newTable(opts.IO, "ID", "FLAGS", "USES", "UPDATED", "CWD", "DESCRIPTION")
	tb.ids("ID").paths("CWD").shrink("CWD", 24).shrink("DESCRIPTION", 40).drop("CWD").drop("USES").
		shrink("DESCRIPTION", 24).shrink("FLAGS", 8).drop("UPDATED").shrink("DESCRIPTION", minFlexWidth)
	for _, m := range mems {
		tb.add(m.ThreadID, memoryFlags(m), strconv.FormatInt(m.UsageCount, 10), timeCell(opts.IO, time.Unix(m.SourceUpdatedAt, 0), opts.Now()),
			orDash(m.Cwd), textcut.LineRunes(memoryDescription(m), 70))
	}
	return tb.print()
}

// MemoriesShowOptions is what `memctl memories show` needs.
type MemoriesShowOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)

	JSON bool
	ID   string
}

func newMemoriesShowCmd(f *Factory, runF func(context.Context, *MemoriesShowOptions) error) *cobra.Command {
	opts := &MemoriesShowOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore}
	return &cobra.Command{
		Use:   "show ID",
		Short: "Print one raw memory and its rollout summary",
		Args:  cobra.ExactArgs(1),
		Example: `  $ memctl memories show 019e1625
  $ memctl memories show 019e1625 --json | jq -r .raw_memory`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON, opts.ID = f.JSON, args[0]
			return runOrHook(c.Context(), opts, runF, runMemoriesShow)
		},
	}
}

func runMemoriesShow(ctx context.Context, opts *MemoriesShowOptions) error {
	cfg, st, err := configAndStore(ctx, opts.Config, opts.OpenStore)
	if err != nil {
		return err
	}
	defer st.Close()
	version := cfg.Memories.Version
	m, err := lookupMemory(ctx, st, version, opts.ID)
	if err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, toMemoryJSON(m, true))
	}
	w, ios := opts.IO.Out, opts.IO
	tx := ios.Text // the memory's fields come from a transcript or a model
	fmt.Fprintf(w, "%s %s\n", ios.Bold("memory"), tx(m.ThreadID))
	fmt.Fprintf(w, "  flags     %s\n  origin    %s\n  uses      %d\n", memoryFlags(m), tx(m.From.String()), m.UsageCount)
	if m.LastUsage != nil {
		fmt.Fprintf(w, "  last use  %s\n", rfc3339(*m.LastUsage))
	}
	fmt.Fprintf(w, "  updated   %s\n  extracted %s\n", rfc3339(time.Unix(m.SourceUpdatedAt, 0)), rfc3339(time.Unix(m.GeneratedAt, 0)))
	if m.EditedAt != nil {
		fmt.Fprintf(w, "  edited    %s (user-asserted)\n", rfc3339(*m.EditedAt))
	}
	fmt.Fprintf(w, "  cwd       %s\n  thread    %s (memctl threads show %s)\n", tx(orDash(m.Cwd)), tx(orDash(m.MemoryMode)), tx(m.ThreadID))
	if strings.TrimSpace(m.RawMemory) != "" {
		fmt.Fprintf(w, "\n%s\n%s\n", ios.Bold("raw memory"), tx(strings.TrimSpace(m.RawMemory)))
	}
	if strings.TrimSpace(m.RolloutSummary) != "" {
		fmt.Fprintf(w, "\n%s\n%s\n", ios.Bold("rollout summary"), tx(strings.TrimSpace(m.RolloutSummary)))
	}
	return nil
}

// MemoriesPinOptions is what `memctl memories pin` and `unpin` need.
type MemoriesPinOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)

	JSON bool
	ID   string
	// Pin is true for pin, false for unpin.
	Pin bool
}

// memoryPinJSON is the --json document of memories pin and unpin.
type memoryPinJSON struct {
	ID       string               `json:"id"`
	Pinned   bool                 `json:"pinned"`
	Changed  bool                 `json:"changed"`
	Versions []memversion.Version `json:"versions"`
}

func newMemoriesPinCmd(f *Factory, runF func(context.Context, *MemoriesPinOptions) error, pin bool) *cobra.Command {
	opts := &MemoriesPinOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Pin: pin}
	c := &cobra.Command{
		Use:   "pin ID",
		Short: "Pin a raw memory: never pruned, selected first by the consolidation",
		Long: `Pin a raw memory: prune never deletes it, however long it goes unused, and the
consolidation selects it before every other memory, whatever its age. The next
consolidation may run inside the six-hour cooldown to take it in.`,
		Args:    cobra.ExactArgs(1),
		Example: `  $ memctl memories pin 019e1625`,
	}
	if !pin {
		c.Use = "unpin ID"
		c.Short = "Unpin a raw memory: it is ranked and pruned like any other again"
		c.Long = ""
		c.Example = `  $ memctl memories unpin 019e1625`
	}
	c.RunE = func(c *cobra.Command, args []string) error {
		opts.JSON, opts.ID = f.JSON, args[0]
		return runOrHook(c.Context(), opts, runF, runMemoriesPin)
	}
	return c
}

func runMemoriesPin(ctx context.Context, opts *MemoriesPinOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	doc := memoryPinJSON{Pinned: opts.Pin, Versions: []memversion.Version{}}
	err = eachVersionWithMemory(ctx, cfg, opts.OpenStore, opts.ID, func(st *store.Store, version memversion.Version, id string) error {
		changed, err := st.SetPinned(ctx, id, opts.Pin)
		doc.ID, doc.Changed = id, doc.Changed || changed
		doc.Versions = append(doc.Versions, version)
		return err
	})
	if err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, doc)
	}
	verb := map[bool]string{true: "pinned", false: "unpinned"}[opts.Pin]
	if !doc.Changed {
		opts.IO.Infof("%s was already %s", doc.ID, verb)
		return nil
	}
	opts.IO.Infof("%s %s", verb, doc.ID)
	return nil
}

// eachVersionWithMemory runs fn on every generated version's store that
// holds the memory id (a unique prefix is resolved in each). It fails when
// no version holds it.
func eachVersionWithMemory(ctx context.Context, cfg *config.Config, open func(context.Context, memversion.Version) (*store.Store, error), id string,
	fn func(st *store.Store, version memversion.Version, full string) error) error {
	var firstErr error
	found := false
	for _, version := range cfg.Versions() {
		st, err := open(ctx, version)
		if err != nil {
			return err
		}
		full, err := resolveMemory(ctx, st, version, id)
		if err == nil {
			found = true
			err = fn(st, version, full)
			st.Close()
			if err != nil {
				return err
			}
			continue
		}
		st.Close()
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if !found {
		return firstErr
	}
	return nil
}

// MemoriesForgetOptions is what `memctl memories forget` needs.
type MemoriesForgetOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)

	JSON bool
	// IDs are the memories to forget: ids or unique prefixes.
	IDs []string
}

// memoryForgetJSON is the --json document of memories forget: the first
// memory's id and versions (the shape of one), and every memory in
// Forgotten.
type memoryForgetJSON struct {
	ID        string               `json:"id"`
	Versions  []memversion.Version `json:"versions"`
	Forgotten []memoryForgotJSON   `json:"forgotten"`
}

// memoryForgotJSON is one forgotten memory.
type memoryForgotJSON struct {
	ID       string               `json:"id"`
	Versions []memversion.Version `json:"versions"`
}

func newMemoriesForgetCmd(f *Factory, runF func(context.Context, *MemoriesForgetOptions) error) *cobra.Command {
	opts := &MemoriesForgetOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore}
	return &cobra.Command{
		Use:   "forget ID...",
		Short: "Forget raw memories: out of the store and the index now, out of the folder at the next consolidation",
		Long: `Forget a raw memory for good. At once: it is deleted from the store and the search
index (with the copy of its rollout summary that the index held), its thread
is disabled so it is not extracted again (memctl threads enable undoes that
for future sessions only) and its preview blanked, every kept generation that
may hold its text is purged (memctl history marks it; rollback cannot restore
it, forced or not), and the database file is rewritten so no free page keeps
the text. At the next consolidation, which runs even inside the six-hour
cooldown: its rollout summary leaves the memory folder and the memory files
are rebuilt from the remaining inputs, so nothing derived from it survives.

Several ids forget several memories (doctor's fix for duplicates names them
all); every id is checked before any memory is forgotten.`,
		Args: cobra.MinimumNArgs(1),
		Example: `  $ memctl memories forget 019e1625 && memctl consolidate
  $ memctl memories forget 019e1625 019e2fa0 019e33c1`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON, opts.IDs = f.JSON, args
			return runOrHook(c.Context(), opts, runF, runMemoriesForget)
		},
	}
}

func runMemoriesForget(ctx context.Context, opts *MemoriesForgetOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	// Every id must name a memory before any is forgotten: a typo in the
	// fifth id does not leave four forgotten.
	for _, id := range opts.IDs {
		if err := eachVersionWithMemory(ctx, cfg, opts.OpenStore, id, func(*store.Store, memversion.Version, string) error { return nil }); err != nil {
			return err
		}
	}
	doc := memoryForgetJSON{Versions: []memversion.Version{}, Forgotten: []memoryForgotJSON{}}
	seen := map[string]bool{}
	for _, arg := range opts.IDs {
		one := memoryForgotJSON{Versions: []memversion.Version{}}
		err = eachVersionWithMemory(ctx, cfg, opts.OpenStore, arg, func(st *store.Store, version memversion.Version, id string) error {
			one.ID = id
			one.Versions = append(one.Versions, version)
			return st.ForgetMemory(ctx, id)
		})
		if errors.Is(err, store.ErrNotFound) && seen[one.ID] {
			continue // the same memory named twice
		}
		if err != nil {
			return err
		}
		if seen[one.ID] {
			continue
		}
		seen[one.ID] = true
		doc.Forgotten = append(doc.Forgotten, one)
	}
	if len(doc.Forgotten) > 0 {
		doc.ID, doc.Versions = doc.Forgotten[0].ID, doc.Forgotten[0].Versions
	}
	scrubbed := map[memversion.Version]bool{}
	for _, one := range doc.Forgotten {
		for _, v := range one.Versions {
			if scrubbed[v] {
				continue
			}
			scrubbed[v] = true
			st, err := opts.OpenStore(ctx, v)
			if err != nil {
				return err
			}
			scrubAfterForget(ctx, opts.IO, st, v)
			st.Close()
		}
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, doc)
	}
	if len(doc.Forgotten) == 1 {
		opts.IO.Infof("forgot %s; the next consolidation rebuilds the memory folder without it (`memctl consolidate`)", doc.ID)
		return nil
	}
	for _, one := range doc.Forgotten {
		opts.IO.Infof("forgot %s", one.ID)
	}
	opts.IO.Infof("the next consolidation rebuilds the memory folder without these %d memories (`memctl consolidate`)", len(doc.Forgotten))
	return nil
}

// scrubAfterForget rewrites a database that memories were just forgotten
// from, so that no free page left by an older deletion keeps their text
// (store.Scrub). The forget itself is done either way: a failure is a
// warning.
func scrubAfterForget(ctx context.Context, ios *IOStreams, st *store.Store, v memversion.Version) {
	complete, err := st.Scrub(ctx)
	switch {
	case err != nil:
		ios.Warnf("%s: the forgotten text is deleted, but the database could not be rewritten to clear older free pages: %v", v, err)
	case !complete:
		ios.Warnf("%s: another memctl process was reading the database, so its write-ahead log (%s-wal) keeps older copies of pages until later writes reuse it", v, st.Path())
	}
}

// MemoriesEditOptions is what `memctl memories edit` needs: injected
// loaders (the environment and the editor runner too) first, then the
// argument and flag values.
type MemoriesEditOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Getenv    func(string) string
	// RunEditor opens path in editor (a command line) on the terminal.
	RunEditor func(ctx context.Context, ios *IOStreams, editor, path string) error

	JSON bool
	ID   string
	// Summary edits the rollout summary instead of the raw memory.
	Summary bool
	// From reads the new text from a file ("-": stdin) instead of an editor.
	From string
}

// memoryEditJSON is the --json document of memories edit.
type memoryEditJSON struct {
	ID      string             `json:"id"`
	Version memversion.Version `json:"version"`
	Field   string             `json:"field"` // raw_memory or rollout_summary
	Changed bool               `json:"changed"`
	// Redacted is set when secrets were cut from the text you wrote.
	Redacted bool `json:"redacted"`
}

func newMemoriesEditCmd(f *Factory, runF func(context.Context, *MemoriesEditOptions) error) *cobra.Command {
	opts := &MemoriesEditOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Getenv: f.Getenv, RunEditor: runEditor}
	c := &cobra.Command{
		Use:   "edit ID",
		Short: "Rewrite a raw memory in your editor; it becomes user-asserted",
		Long: `Open a raw memory in $EDITOR (else $VISUAL, else vi) and store what you save as
the memory's text. The memory is then user-asserted: the memory folder marks
it so (user_asserted: true in its raw_memories.md section and rollout summary,
"user-asserted" in what the consolidator writes about it), and a new
extraction of its thread no longer replaces it. The next consolidation runs
even inside the six-hour cooldown to take it in.

v1 memories are edited in their raw memory; --summary edits the rollout
summary instead (v2 memories have only that, so it is what v2 edits).
--from FILE (or - for stdin) takes the new text from a file instead of an
editor. Saving the text unchanged changes nothing; an empty text is refused
(memctl memories forget deletes a memory). Secrets are redacted from what you
write, as from everything memctl stores.`,
		Args: cobra.ExactArgs(1),
		Example: `  $ memctl memories edit 019e1625
  $ memctl memories edit 019e1625 --summary
  $ memctl memories edit 019e1625 --from fixed.md`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON, opts.ID = f.JSON, args[0]
			return runOrHook(c.Context(), opts, runF, runMemoriesEdit)
		},
	}
	c.Flags().BoolVar(&opts.Summary, "summary", false, "edit the rollout summary instead of the raw memory")
	c.Flags().StringVar(&opts.From, "from", "", "read the new text from `FILE` (- for stdin) instead of opening an editor")
	return c
}

func runMemoriesEdit(ctx context.Context, opts *MemoriesEditOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	version := cfg.Memories.Version
	red, err := redactor(cfg)
	if err != nil {
		return err
	}
	st, err := opts.OpenStore(ctx, version)
	if err != nil {
		return err
	}
	defer st.Close()
	m, err := lookupMemory(ctx, st, version, opts.ID)
	if err != nil {
		return err
	}
	id := m.ThreadID
	field, old := "raw_memory", m.RawMemory
	if opts.Summary || version == memversion.V2 {
		field, old = "rollout_summary", m.RolloutSummary
	}
	text, err := newMemoryText(ctx, opts, id, old)
	if err != nil {
		return err
	}
	doc := memoryEditJSON{ID: id, Version: version, Field: field}
	if strings.TrimSpace(text) == "" {
		return withHint(fmt.Errorf("the new text of %s is empty; nothing was stored", id), "`memctl memories forget "+id+"` deletes a memory")
	}
	if len(text) > maxEditBytes {
		return withHint(fmt.Errorf("the new text of %s is %s, over the %s a memory may hold; nothing was stored", id, humanBytes(int64(len(text))), humanBytes(maxEditBytes)),
			"keep what a future session needs; a long document belongs in the project (a memory can point to it)")
	}
	clean := red(text)
	doc.Redacted = clean != text
	if doc.Redacted {
		opts.IO.Warnf("secrets were redacted from the text of %s", id)
	}
	if strings.TrimSpace(clean) != strings.TrimSpace(old) {
		e := store.MemoryEdit{RawMemory: &clean}
		if field == "rollout_summary" {
			e = store.MemoryEdit{RolloutSummary: &clean}
		}
		if err := st.EditMemory(ctx, id, e); err != nil {
			return err
		}
		doc.Changed = true
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, doc)
	}
	if !doc.Changed {
		opts.IO.Infof("%s is unchanged", id)
		return nil
	}
	opts.IO.Infof("stored your text of %s (%s) as user-asserted; the next consolidation takes it in", id, strings.ReplaceAll(field, "_", " "))
	return nil
}

// maxEditBytes bounds a user's edit of one memory. Every consolidation
// reads each selected memory and each generation keeps a copy, so one
// pasted log of megabytes would cost every run that follows; a raw memory
// a model writes is a few kilobytes.
const maxEditBytes = 64 << 10

// newMemoryText gets the edited text: from --from, or from the editor run
// on a private temporary copy of the old text.
func newMemoryText(ctx context.Context, opts *MemoriesEditOptions, id, old string) (string, error) {
	switch opts.From {
	case "":
	case "-":
		b, err := io.ReadAll(opts.IO.In)
		return string(b), err
	default:
		b, err := os.ReadFile(opts.From)
		if err != nil {
			return "", fmt.Errorf("--from: %w", err)
		}
		return string(b), nil
	}
	editor := firstEnv(opts.Getenv, "EDITOR", "VISUAL")
	if editor == "" {
		editor = "vi"
	}
	dir, err := os.MkdirTemp("", "memctl-edit-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	// The name is the id made safe: it shows in the editor's title.
	path := filepath.Join(dir, safeFileName(id)+".md")
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		return "", err
	}
	if err := opts.RunEditor(ctx, opts.IO, editor, path); err != nil {
		return "", fmt.Errorf("editor %q: %w; nothing was stored", editor, err)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		// Saved elsewhere, or deleted on quit: the temporary path means
		// nothing to the user, what happened to the edit does.
		return "", fmt.Errorf("editor %q left no file to read; nothing was stored", editor)
	}
	if err != nil {
		return "", fmt.Errorf("read the edited text: %w; nothing was stored", err)
	}
	return string(b), nil
}

func firstEnv(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(getenv(n)); v != "" {
			return v
		}
	}
	return ""
}

func safeFileName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteRune('_')
		}
	}
	if b.Len() == 0 || b.Len() > 100 {
		return "memory"
	}
	return b.String()
}

// runEditor runs an editor command line on path with the process's
// terminal. The command goes through the shell, as git runs $EDITOR, so
// "code --wait" and quoted paths work.
func runEditor(ctx context.Context, ios *IOStreams, editor, path string) error {
	var c *exec.Cmd
	if runtime.GOOS == "windows" {
		args := strings.Fields(editor)
		c = exec.CommandContext(ctx, args[0], append(args[1:], path)...)
	} else {
		c = exec.CommandContext(ctx, "sh", "-c", editor+` "$1"`, editor, path)
	}
	// stdout carries data only: when it is piped, the editor draws on stderr.
	c.Stdin, c.Stdout, c.Stderr = ios.In, ios.Out, ios.ErrOut
	if !ios.StdoutTTY {
		c.Stdout = ios.ErrOut
	}
	return c.Run()
}
