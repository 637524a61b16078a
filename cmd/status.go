package cmd

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/inject"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/textcut"
	"github.com/spf13/cobra"
)

// versionStatus is the --json shape of one memory version.
type versionStatus struct {
	Version           memversion.Version `json:"version"`
	Database          string             `json:"database"`
	MemoryRoot        string             `json:"memory_root"`
	Threads           int                `json:"threads"`
	ThreadsByMode     map[string]int     `json:"threads_by_mode"`
	RawMemories       int                `json:"raw_memories"`
	SelectedForPhase2 int                `json:"selected_for_phase2"`
	// SearchableMemories are the raw memories search finds: those of
	// threads in memory (threads disable takes one out).
	SearchableMemories int `json:"searchable_memories"`
	// Eligible counts the threads the next extract claims (were there no
	// limit); NotEligible the others, by the reason extract --json gives
	// under not_claimed.
	Eligible    int            `json:"eligible_threads"`
	NotEligible map[string]int `json:"not_eligible"`
	// NextExtractTakes is how many of the eligible threads the next
	// extract claims (its limit, widened by the first run's rule).
	NextExtractTakes int `json:"next_extract_takes"`
	// FirstRun is the first run the next extract is under, if any.
	FirstRun *pipeline.FirstRun `json:"first_run,omitempty"`
	Pinned   int                `json:"pinned"`
	// Generations counts the kept generations (memctl history); the
	// current one is what the folder holds, 0 before the first.
	Generations       int   `json:"generations"`
	CurrentGeneration int64 `json:"current_generation"`
	// CurrentGenerationAt is when the current generation landed.
	CurrentGenerationAt *time.Time `json:"current_generation_at,omitempty"`
	// PendingReview is the generation waiting for memctl approve, or 0.
	PendingReview int64 `json:"pending_review"`
	// MemoryEmpty is true when the last consolidation had nothing to
	// consolidate (no raw memory, no note): summary prints nothing.
	MemoryEmpty bool `json:"memory_empty"`
	// Projects counts threads and raw memories per project (key "" for
	// threads with no folder, or not keyed yet).
	Projects          []store.ProjectCount   `json:"projects"`
	Jobs              map[string]jobSummary  `json:"jobs"`
	Running           []jobView              `json:"running"`
	Backoff           []jobView              `json:"backoff"`
	Failures          []jobView              `json:"failures"`
	LastConsolidation *jobView               `json:"last_consolidation"`
	MemoryFolderBytes int64                  `json:"memory_folder_bytes"`
	Spend             []store.TokenUsage     `json:"spend"`
	StageRuns         []store.StageRun       `json:"stage_runs"`
	RateLimits        []store.RateLimitState `json:"rate_limits"`
}

type jobSummary map[string]int // status → count

type jobView struct {
	Kind           string     `json:"kind"`
	Key            string     `json:"key"`
	Status         string     `json:"status"`
	LeaseUntil     *time.Time `json:"lease_until,omitempty"`
	RetryAt        *time.Time `json:"retry_at,omitempty"`
	FinishedAt     *time.Time `json:"finished_at,omitempty"`
	RetryRemaining int        `json:"retry_remaining"`
	LastError      string     `json:"last_error,omitempty"`
}

func viewJob(j store.Job) jobView {
	conv := func(p *int64) *time.Time {
		if p == nil {
			return nil
		}
		t := time.Unix(*p, 0).UTC()
		return &t
	}
	return jobView{Kind: j.Kind, Key: j.Key, Status: j.Status, LeaseUntil: conv(j.LeaseUntil), RetryAt: conv(j.RetryAt),
		FinishedAt: conv(j.FinishedAt), RetryRemaining: j.RetryRemaining, LastError: j.LastError}
}

// StatusOptions is what `memctl status` needs: injected loaders first,
// then the flag values.
type StatusOptions struct {
	IO     *IOStreams
	Config func() (*config.Config, error)
	// Pipeline builds the Home whose stores, sources and eligibility
	// status shows.
	Pipeline func(*config.Config, pipeline.Reporter) (*pipeline.Home, error)
	Now      func() time.Time

	JSON bool
}

// sourceStatus is one transcript source in status: active (scanned) or a
// default folder [[sources]] leaves unread, and for an active one whether
// its folder can be read.
type sourceStatus struct {
	Kind    string `json:"kind"`
	Path    string `json:"path"`
	Default bool   `json:"default"`
	Active  bool   `json:"active"`
	// Missing: a default folder that does not exist on this machine, so
	// nothing is read from it.
	Missing bool   `json:"missing,omitempty"`
	Error   string `json:"error,omitempty"`
}

// sourceStatuses checks every source's folder (one stat and one read of
// the folder each, no walk).
func sourceStatuses(home *pipeline.Home) []sourceStatus {
	out := []sourceStatus{}
	for _, s := range home.Sources() {
		ss := sourceStatus{Kind: string(s.Kind), Path: s.Path, Default: s.Default, Active: true}
		var se *sessions.SourceError
		if errors.As(sessions.CheckSource(s), &se) {
			ss.Error = se.Reason
		}
		out = append(out, ss)
	}
	for _, s := range home.UnreadDefaults() {
		out = append(out, sourceStatus{Kind: string(s.Kind), Path: s.Path, Default: true})
	}
	for _, s := range home.MissingDefaults() {
		out = append(out, sourceStatus{Kind: string(s.Kind), Path: s.Path, Default: true, Missing: true})
	}
	return out
}

// statusJSON is the --json document of status: the configured version's
// fields, then every generated version's.
type statusJSON struct {
	versionStatus
	Versions []versionStatus `json:"versions"`
	Sources  []sourceStatus  `json:"sources"`
}

func newStatusCmd(f *Factory, runF func(context.Context, *StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{IO: f.IO, Config: f.Config, Pipeline: f.Pipeline, Now: f.Now}
	return &cobra.Command{
		Use:   "status",
		Short: "Show what is stored, what is running and what it cost",
		Long: `Show, for each generated memory version: threads by memory mode, raw
memories (and how many search finds), the threads the next extract would claim
(and why the others would not be), jobs by kind and status, running leases with their expiry, backoffs
with their retry time, the last errors, the last consolidation, the memory
folder's size, the tokens spent per stage and provider, and when each stage
last ran and how it ended. Then the transcript sources: each one scan reads (and
why its folder cannot be read, if it cannot), and the agents' default folders
that [[sources]] leaves unread.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl status
  $ memctl status --json | jq .raw_memories`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			return runOrHook(c.Context(), opts, runF, runStatus)
		},
	}
}

func runStatus(ctx context.Context, opts *StatusOptions) error {
	cfg, home, err := configAndQuietHome(opts.Config, opts.Pipeline)
	if err != nil {
		return err
	}
	var all []versionStatus
	for _, v := range home.Versions() {
		vs, err := collectStatus(ctx, home, v)
		if err != nil {
			return err
		}
		all = append(all, vs)
	}
	sources := sourceStatuses(home)
	if opts.JSON {
		doc := statusJSON{Versions: all, Sources: sources}
		for _, vs := range all {
			if vs.Version == cfg.Memories.Version || len(all) == 1 {
				doc.versionStatus = vs
			}
		}
		return printJSON(opts.IO.Out, doc)
	}
	for i, vs := range all {
		if i > 0 {
			fmt.Fprintln(opts.IO.Out)
		}
		printStatus(opts.IO, opts.Now(), vs)
	}
	printSources(opts.IO, sources)
	return nil
}

// printSources lists where transcripts are read from, and what is wrong
// with a folder that cannot be read.
func printSources(ios *IOStreams, sources []sourceStatus) {
	if len(sources) == 0 {
		return
	}
	fmt.Fprintf(ios.Out, "\n%s\n", ios.Bold("transcript sources"))
	for _, s := range sources {
		line := fmt.Sprintf("  %-11s %s", s.Kind, s.Path)
		switch {
		case s.Missing:
			line += ": does not exist (nothing to read)"
		case !s.Active:
			line += ": not read ([[sources]] in the config replaces the default folders)"
		case s.Error != "":
			line += ": cannot read: " + s.Error
		case s.Default:
			line += " (default)"
		}
		fmt.Fprintln(ios.Out, ios.Text(line))
	}
}

func collectStatus(ctx context.Context, home *pipeline.Home, version memversion.Version) (versionStatus, error) {
	st, err := home.OpenStore(ctx, version)
	if err != nil {
		return versionStatus{}, err
	}
	defer st.Close()
	s, err := st.Status(ctx)
	if err != nil {
		return versionStatus{}, err
	}
	root := home.MemoryRoot(version)
	vs := versionStatus{
		Version: version, Database: st.Path(), MemoryRoot: root,
		Threads: s.Threads, ThreadsByMode: s.ThreadsByMode, RawMemories: s.RawMemories, SelectedForPhase2: s.SelectedPhase2,
		Jobs: map[string]jobSummary{}, Running: []jobView{}, Backoff: []jobView{}, Failures: []jobView{},
		Spend: nonNilSlice(s.Spend), StageRuns: nonNilSlice(s.StageRuns), RateLimits: nonNilSlice(s.RateLimits),
	}
	if vs.Projects, err = st.ProjectCounts(ctx); err != nil {
		return versionStatus{}, err
	}
	if vs.SearchableMemories, err = st.SearchableMemories(ctx); err != nil {
		return versionStatus{}, err
	}
	c, err := home.Candidacy(ctx, st)
	if err != nil {
		return versionStatus{}, err
	}
	vs.Eligible, vs.NotEligible, vs.NextExtractTakes, vs.FirstRun = c.Eligible, c.NotEligible, c.Takes, c.FirstRun
	for _, mode := range []string{"enabled", "disabled", "polluted"} {
		if _, ok := vs.ThreadsByMode[mode]; !ok {
			vs.ThreadsByMode[mode] = 0
		}
	}
	for _, c := range s.JobCounts {
		if vs.Jobs[c.Kind] == nil {
			vs.Jobs[c.Kind] = jobSummary{}
		}
		vs.Jobs[c.Kind][c.Status] = c.Count
	}
	for _, j := range s.Running {
		vs.Running = append(vs.Running, viewJob(j))
	}
	for _, j := range s.Backoff {
		vs.Backoff = append(vs.Backoff, viewJob(j))
	}
	for _, j := range s.Failures {
		vs.Failures = append(vs.Failures, viewJob(j))
	}
	if s.Global != nil {
		g := viewJob(*s.Global)
		vs.LastConsolidation = &g
	}
	// A missing folder (nothing consolidated yet) counts as empty.
	vs.MemoryFolderBytes, _ = memdir.Size(root)
	vs.MemoryEmpty = inject.Empty(root)
	pinned, err := st.Memories(ctx, store.MemoryFilter{PinnedOnly: true})
	if err != nil {
		return vs, err
	}
	vs.Pinned = len(pinned)
	gens, err := st.Generations(ctx, 0)
	if err != nil {
		return vs, err
	}
	vs.Generations = len(gens)
	for _, g := range gens {
		switch {
		case g.Current:
			vs.CurrentGeneration = g.ID
			at := g.CreatedAt
			if g.SettledAt != nil {
				at = *g.SettledAt
			}
			vs.CurrentGenerationAt = &at
		case g.State == store.GenerationPending:
			vs.PendingReview = g.ID
		}
	}
	return vs, nil
}

func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// maxStatusProjects bounds the project lines of the status text.
const maxStatusProjects = 10

func printStatus(ios *IOStreams, now time.Time, vs versionStatus) {
	out := ios.Out
	tx := ios.Text // paths, project names, job keys and errors are not memctl's words
	fmt.Fprintf(out, "%s %s\n", ios.Bold("memory version"), vs.Version)
	fmt.Fprintf(out, "  database      %s\n", tx(vs.Database))
	fmt.Fprintf(out, "  memory folder %s (%s)\n", tx(vs.MemoryRoot), humanBytes(vs.MemoryFolderBytes))
	if vs.MemoryEmpty {
		fmt.Fprintf(out, "  memory        empty: nothing consolidated yet, so summary prints nothing\n")
	}
	fmt.Fprintf(out, "  threads       %d (enabled %d, disabled %d, polluted %d)\n", vs.Threads,
		vs.ThreadsByMode["enabled"], vs.ThreadsByMode["disabled"], vs.ThreadsByMode["polluted"])
	pinned := ""
	if vs.Pinned > 0 {
		pinned = fmt.Sprintf(", %d pinned", vs.Pinned)
	}
	fmt.Fprintf(out, "  raw memories  %d (%d in the last consolidation, %d searchable%s)\n", vs.RawMemories, vs.SelectedForPhase2, vs.SearchableMemories, pinned)
	for i, p := range vs.Projects {
		if i == maxStatusProjects {
			fmt.Fprintf(out, "  project       and %d more (memctl status --json)\n", len(vs.Projects)-i)
			break
		}
		name := p.Name
		if p.Key == "" {
			name = "(no project)"
		}
		fmt.Fprintf(out, "  project       %s: %s, %s\n", tx(name), english.Count(p.RawMemories, "raw memory", "raw memories"), english.Count(p.Threads, "thread", "threads"))
	}
	others := ""
	if len(vs.NotEligible) > 0 {
		others = " (others: " + reasonsText(vs.NotEligible) + ")"
	}
	takes := ""
	if vs.NextExtractTakes < vs.Eligible {
		takes = fmt.Sprintf(", which takes %d", vs.NextExtractTakes)
		if vs.FirstRun == nil || vs.FirstRun.State == pipeline.FirstRunAsks {
			takes += " (memories.max_rollouts_per_startup)"
		}
	}
	fmt.Fprintf(out, "  eligible      %s for the next extract%s%s\n", english.Count(vs.Eligible, "thread", "threads"), takes, others)
	if line := firstRunLine(vs.FirstRun); line != "" {
		fmt.Fprintf(out, "  first run     %s\n", line)
	}
	kinds := make([]string, 0, len(vs.Jobs))
	for k := range vs.Jobs {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var jobs []string
	for _, k := range kinds {
		statuses := make([]string, 0, len(vs.Jobs[k]))
		for status := range vs.Jobs[k] {
			statuses = append(statuses, status)
		}
		sort.Strings(statuses)
		parts := make([]string, len(statuses))
		for i, status := range statuses {
			parts[i] = fmt.Sprintf("%d %s", vs.Jobs[k][status], strings.ReplaceAll(status, "_", " "))
		}
		jobs = append(jobs, jobKindName(k)+": "+strings.Join(parts, ", "))
	}
	if len(jobs) > 0 {
		// Job kinds by their names for people: the store's
		// (memory_stage1, …) mean nothing to a reader.
		fmt.Fprintf(out, "  jobs          %s\n", strings.Join(jobs, "; "))
	}
	for _, j := range vs.Running {
		fmt.Fprintf(out, "  running       %s, lease until %s\n", tx(jobName(j)), timeCell(ios, *j.LeaseUntil, now))
	}
	for _, j := range vs.Backoff {
		fmt.Fprintf(out, "  backoff       %s, retry %s (%s left)\n", tx(jobName(j)), timeCell(ios, *j.RetryAt, now), english.Count(j.RetryRemaining, "try", "tries"))
	}
	for _, j := range vs.Failures {
		fmt.Fprintf(out, "  last error    %s: %s\n", tx(jobName(j)), tx(textcut.LineRunes(j.LastError, 120)))
	}
	fmt.Fprintf(out, "  consolidation %s\n", consolidationLine(ios, now, vs))
	if vs.CurrentGeneration != 0 {
		fmt.Fprintf(out, "  generation    %d (%d kept; memctl history)\n", vs.CurrentGeneration, vs.Generations)
	}
	if vs.PendingReview != 0 {
		fmt.Fprintf(out, "  review        generation %d waits (memctl review, then approve or reject)\n", vs.PendingReview)
	}
	for _, r := range vs.StageRuns {
		phrase := stagePhrase(r.Status)
		if r.Status == "pending_review" && vs.PendingReview == 0 {
			phrase = "waited for review, approved or rejected since" // not still waiting
		}
		fmt.Fprintf(out, "  last %-9s %s, %s", r.Stage, phrase, timeCell(ios, r.FinishedAt, now))
		if r.Detail != "" {
			fmt.Fprintf(out, " (%s)", tx(textcut.LineRunes(r.Detail, 80)))
		}
		fmt.Fprintln(out)
	}
	for _, u := range vs.Spend {
		fmt.Fprintf(out, "  spend         %s via %s: %d tokens (in %d, cached %d, out %d)", u.Stage, u.Provider, u.TotalTokens, u.InputTokens, u.CachedInputTokens, u.OutputTokens)
		if u.CostUSD > 0 {
			fmt.Fprintf(out, ", $%.4f as reported", u.CostUSD)
		}
		fmt.Fprintln(out)
	}
	for _, r := range vs.RateLimits {
		fmt.Fprintf(out, "  rate limit    %s: %.0f%% remaining (%s)\n", r.Provider, r.RemainingPercent, timeCell(ios, r.ObservedAt, now))
	}
}

// firstRunLine says what the first-run rule does to the next extract.
func firstRunLine(fr *pipeline.FirstRun) string {
	if fr == nil {
		return ""
	}
	past := english.Count(fr.PastSessions, "past session", "past sessions")
	switch fr.State {
	case pipeline.FirstRunNext:
		return fmt.Sprintf("the next extract is the first: it takes all %s (the usual windows would take %d)", past, fr.UsualTake)
	case pipeline.FirstRunAsks:
		return fmt.Sprintf("the next run is the first: it asks before extracting all %s with the model (--yes takes them); without a yes it takes %d", past, fr.UsualTake)
	case pipeline.FirstRunContinues:
		if fr.PastSessions == 0 {
			return "cut short; its past sessions left are waiting for a retry"
		}
		return fmt.Sprintf("cut short; the next extract takes the %s it left", past)
	}
	return ""
}

// jobKindName is how status names a kind of job.
func jobKindName(kind string) string {
	switch kind {
	case store.KindStage1:
		return "extraction"
	case store.KindConsolidate:
		return "consolidation"
	}
	return kind
}

// jobName names one job for a reader: an extraction by its thread, the
// consolidation by itself.
func jobName(j jobView) string {
	if j.Kind == store.KindConsolidate {
		return "consolidation"
	}
	return jobKindName(j.Kind) + " of thread " + j.Key
}

// stagePhrase turns a recorded status into words.
func stagePhrase(status string) string {
	switch status {
	case "succeeded_no_workspace_changes":
		return "succeeded, nothing changed"
	case "pending_review":
		return "waiting for review"
	}
	return strings.ReplaceAll(status, "_", " ")
}

// consolidationLine says what the memory folder holds and how the last
// consolidation ended. The job row alone misled: after memctl reject it
// reads "pending" with no finish time, which would say "never finished"
// after runs that had all succeeded.
func consolidationLine(ios *IOStreams, now time.Time, vs versionStatus) string {
	g := vs.LastConsolidation
	landed := ""
	if vs.CurrentGeneration != 0 && vs.CurrentGenerationAt != nil {
		landed = fmt.Sprintf("generation %d in the folder, from %s", vs.CurrentGeneration, timeCell(ios, *vs.CurrentGenerationAt, now))
	}
	switch {
	case g == nil:
		return "never ran"
	case g.Status == "running":
		return "running now" + prefixed("; ", landed)
	case g.Status == "pending" && g.FinishedAt == nil && landed != "":
		return "ready to run again; " + landed
	case g.Status == "pending" && g.FinishedAt == nil:
		return "due at the next run"
	case g.FinishedAt != nil && landed != "":
		return fmt.Sprintf("%s, %s; %s", strings.ReplaceAll(g.Status, "_", " "), timeCell(ios, *g.FinishedAt, now), landed)
	case g.FinishedAt != nil:
		return fmt.Sprintf("%s, %s", strings.ReplaceAll(g.Status, "_", " "), timeCell(ios, *g.FinishedAt, now))
	}
	return strings.ReplaceAll(g.Status, "_", " ")
}

func prefixed(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

func humanBytes(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/1024/1024)
	}
}
