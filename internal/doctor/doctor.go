// Package doctor reports the health of a memctl home: memory that
// repeats itself or is never used, memory whose evidence changed, lines
// held back as instruction-shaped, files too large for the budgets they
// are read under, and whether the agents and the provider are wired up.
// Each finding names the command that fixes it (docs/doctor.md).
//
// The package only reads: it opens no file for writing and changes
// nothing in the store. The command layer gathers what only it can know
// (the agents' setup, the provider's resolution) and passes it in.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/bundle"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/evidence"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memmodel"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/owner"
	"github.com/memctl/memctl/internal/quarantine"
	"github.com/memctl/memctl/internal/reviewdir"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/textcut"
)

// Severity says whether a finding makes the home unhealthy.
type Severity string

// Severities.
const (
	// Warning: something is wrong or wasteful; doctor exits non-zero.
	Warning Severity = "warning"
	// Info: worth knowing, nothing to fix now.
	Info Severity = "info"
)

// Checks, in the order they run and are reported.
const (
	CheckDatabase       = "database"
	CheckDuplicates     = "duplicates"
	CheckNearDuplicates = "near_duplicates"
	CheckUncited        = "uncited"
	CheckStale          = "stale_evidence"
	CheckQuarantined    = "quarantined"
	CheckOversized      = "oversized_file"
	CheckSummarySize    = "summary_size"
	CheckAgents         = "agent_setup"
	CheckProvider       = "provider"
	CheckLeases         = "leases"
	CheckNotes          = "notes_over_summary"
	CheckReview         = "review_waiting"
)

// AllChecks lists every check.
var AllChecks = []string{CheckDatabase, CheckDuplicates, CheckNearDuplicates, CheckUncited, CheckStale, CheckQuarantined,
	CheckOversized, CheckSummarySize, CheckAgents, CheckAgentCLIs, CheckAgentMemory, CheckProvider, CheckLeases, CheckNotes, CheckReview}

// Finding is one problem, with the command that fixes it.
type Finding struct {
	Check    string   `json:"check"`
	Severity Severity `json:"severity"`
	// Subject is what the finding is about: a thread id, a file relative
	// to the memory folder, an agent, the provider.
	Subject string `json:"subject"`
	Message string `json:"message"`
	// Fix is a command to run (or a setting to change) that clears it;
	// empty for a finding that needs nothing done.
	Fix string `json:"fix,omitempty"`
	// ThreadIDs are the raw memories involved, when there are several.
	ThreadIDs []string `json:"thread_ids,omitempty"`
}

// CheckResult says how one check went.
type CheckResult struct {
	Name     string `json:"name"`
	Findings int    `json:"findings"`
	// Skipped says why the check did not run ("" when it ran).
	Skipped string `json:"skipped,omitempty"`
}

// Report is what doctor found.
type Report struct {
	// Healthy is false when any finding is a warning.
	Healthy       bool               `json:"healthy"`
	MemoryVersion memversion.Version `json:"memory_version"`
	MemoryRoot    string             `json:"memory_root"`
	RawMemories   int                `json:"raw_memories"`
	Checks        []CheckResult      `json:"checks"`
	Findings      []Finding          `json:"findings"`
	// Backup is the copy of the database memctl keeps (BackupPath); nil
	// when none was made yet. Restore says how to put it in place.
	Backup  *store.Backup `json:"backup"`
	Restore string        `json:"restore,omitempty"`
}

// Warnings counts the findings that make the home unhealthy.
func (r Report) Warnings() int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == Warning {
			n++
		}
	}
	return n
}

// UnhealthyError is returned by Run when a finding is a warning; the
// command layer maps it to its exit code (docs/exit-codes.md).
type UnhealthyError struct{ Warnings int }

func (e *UnhealthyError) Error() string {
	if e.Warnings == 1 {
		return "doctor found 1 problem"
	}
	return fmt.Sprintf("doctor found %d problems", e.Warnings)
}

// Store is what doctor reads from the store.
type Store interface {
	QuickCheck(ctx context.Context, limit int) ([]string, error)
	AllOutputs(ctx context.Context) ([]store.Output, error)
	Quarantined(ctx context.Context) ([]store.QuarantineItem, error)
	Uncited(ctx context.Context, n int) ([]store.UncitedMemory, error)
	HeldLeases(ctx context.Context) ([]store.HeldLease, error)
}

// AgentState is an agent's integration, as internal/setup sees it.
type AgentState struct {
	Agent string
	// Installed: the agent's config folder exists.
	Installed bool
	// SetUp: memctl setup was applied (and not undone) for the agent.
	SetUp bool
	// Pending lists the files memctl setup would still change: its hooks,
	// MCP entry or permissions are missing or differ.
	Pending []string
	// Err is why the agent's config could not be read.
	Err string
}

// ProviderState is the provider setup, as the command layer resolved it.
type ProviderState struct {
	Configured string // provider.kind
	Resolved   string // what it resolves to
	// Problem says why extraction or consolidation cannot work as
	// configured; Fix what to do.
	Problem, Fix string
	// Note is worth saying without being a problem (auto fell back to
	// the offline heuristic).
	Note, NoteFix string
}

// Options configure Run.
type Options struct {
	Version memversion.Version
	Root    string // the memory folder
	// Database is the database file's path ("" when the home has none).
	Database string
	// Damaged says why the database could not be opened (empty, not
	// SQLite); "" when it opened or there is none.
	Damaged string
	// Store is nil when the home has no database yet, or it could not be
	// opened: the store checks are skipped.
	Store         Store
	UncitedAfter  int     // consolidations (health.uncited_after)
	NearDuplicate float64 // similarity 0.5..1 (health.near_duplicate / 100)
	// RewriteThreshold is the stale checks' (health.rewrite_threshold / 100).
	RewriteThreshold float64
	// SummaryTokens is summary's cut (inject.DefaultSummaryTokens).
	SummaryTokens int
	// ReadTokens is what one MCP read returns at most (memfs.DefaultReadTokens).
	ReadTokens int
	Agents     []AgentState
	// AgentCLIs are the agent CLIs found on this machine.
	AgentCLIs []AgentCLIState
	// AgentMemory is the agents' own memory (agentmemory.go).
	AgentMemory []AgentMemoryState
	Provider    ProviderState
	// StaleBudget bounds the stale checks (0: 10 s): doctor is not on the
	// hot path and checks everything it can.
	StaleBudget time.Duration
}

// maxListed bounds the findings of one check that list single memories;
// the rest are counted in a last finding.
const maxListed = 20

// Run checks the home and returns the report; with any warning it also
// returns an *UnhealthyError. Other errors (the store cannot be read) are
// returned as they are.
func Run(ctx context.Context, opts Options) (Report, error) {
	r := Report{MemoryVersion: opts.Version, MemoryRoot: opts.Root, Checks: []CheckResult{}, Findings: []Finding{}}
	if opts.SummaryTokens <= 0 {
		opts.SummaryTokens = 2500
	}
	if opts.ReadTokens <= 0 {
		opts.ReadTokens = 20000
	}
	if opts.NearDuplicate <= 0 || opts.NearDuplicate > 1 {
		opts.NearDuplicate = 0.8
	}
	if opts.UncitedAfter <= 0 {
		opts.UncitedAfter = 5
	}
	run := func(name string, fn func() ([]Finding, string, error)) error {
		fs, skipped, err := fn()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		r.Checks = append(r.Checks, CheckResult{Name: name, Findings: len(fs), Skipped: skipped})
		r.Findings = append(r.Findings, fs...)
		return nil
	}
	if opts.Database != "" {
		if b, ok := store.StatBackup(opts.Database); ok {
			r.Backup, r.Restore = &b, restoreCommand(opts.Database)
		}
	}
	dbFindings, err := database(ctx, opts, r.Backup)
	if err != nil {
		return r, fmt.Errorf("%s: %w", CheckDatabase, err)
	}
	r.Checks = append(r.Checks, CheckResult{Name: CheckDatabase, Findings: len(dbFindings), Skipped: databaseSkipped(opts)})
	r.Findings = append(r.Findings, dbFindings...)
	noDB := "no database yet"
	if len(dbFindings) > 0 {
		// The other checks would fail on the pages that cannot be read.
		opts.Store, noDB = nil, "the database is damaged"
	}
	var outs []store.Output
	if opts.Store != nil {
		var err error
		if outs, err = opts.Store.AllOutputs(ctx); err != nil {
			return r, fmt.Errorf("read raw memories: %w", err)
		}
		r.RawMemories = len(outs)
	}
	noStore := func(fn func() []Finding) func() ([]Finding, string, error) {
		return func() ([]Finding, string, error) {
			if opts.Store == nil {
				return nil, noDB, nil
			}
			return fn(), "", nil
		}
	}
	exact, near := duplicates(outs, opts.NearDuplicate)
	steps := []struct {
		name string
		fn   func() ([]Finding, string, error)
	}{
		{CheckDuplicates, noStore(func() []Finding { return exact })},
		{CheckNearDuplicates, noStore(func() []Finding { return near })},
		{CheckUncited, func() ([]Finding, string, error) {
			if opts.Store == nil {
				return nil, noDB, nil
			}
			fs, err := uncited(ctx, opts.Store, opts.UncitedAfter)
			return fs, "", err
		}},
		{CheckStale, func() ([]Finding, string, error) { return stale(opts) }},
		{CheckQuarantined, func() ([]Finding, string, error) {
			var fs []Finding
			if opts.Store != nil {
				var err error
				if fs, err = quarantined(ctx, opts.Store); err != nil {
					return nil, "", err
				}
			}
			return append(fs, heldInFolder(opts.Root)...), "", nil
		}},
		{CheckOversized, func() ([]Finding, string, error) { return oversized(opts, len(outs)) }},
		{CheckSummarySize, func() ([]Finding, string, error) { return summarySize(opts) }},
		{CheckAgents, func() ([]Finding, string, error) { return agents(opts.Agents), "", nil }},
		{CheckAgentCLIs, func() ([]Finding, string, error) { return agentCLIs(opts.AgentCLIs), "", nil }},
		{CheckAgentMemory, func() ([]Finding, string, error) { return agentMemory(opts.AgentMemory), "", nil }},
		{CheckProvider, func() ([]Finding, string, error) { return provider(opts.Provider), "", nil }},
		{CheckLeases, func() ([]Finding, string, error) {
			if opts.Store == nil {
				return nil, noDB, nil
			}
			fs, err := leases(ctx, opts.Store)
			return fs, "", err
		}},
		{CheckNotes, func() ([]Finding, string, error) { return notesOverSummary(opts.Root) }},
		{CheckReview, func() ([]Finding, string, error) { return reviewWaiting(opts.Root), "", nil }},
	}
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		if err := run(s.name, s.fn); err != nil {
			return r, err
		}
	}
	r.Healthy = r.Warnings() == 0
	if !r.Healthy {
		return r, &UnhealthyError{Warnings: r.Warnings()}
	}
	return r, nil
}

// maxIntegrityProblems bounds what quick_check lists: the first few say
// the file is damaged and where; a hundred more say nothing new.
const maxIntegrityProblems = 5

// database checks that the database file can be read whole: it opened
// (Damaged is empty) and SQLite's quick_check finds every page sound. A
// damaged file is a warning whose fix is the backup when there is one,
// else the salvage.
func database(ctx context.Context, opts Options, backup *store.Backup) ([]Finding, error) {
	why := opts.Damaged
	if why == "" && opts.Store != nil {
		problems, err := opts.Store.QuickCheck(ctx, maxIntegrityProblems)
		if err != nil {
			return nil, err
		}
		if len(problems) == 0 {
			return nil, nil
		}
		var shown []string
		for _, p := range problems {
			shown = append(shown, textcut.Line(p, 200))
		}
		why = "SQLite's integrity check (quick_check) finds it damaged: " + strings.Join(shown, "; ")
	}
	if why == "" {
		return nil, nil
	}
	f := Finding{Check: CheckDatabase, Severity: Warning, Subject: opts.Database, Message: why}
	// export exits 3 when it salvaged with rows left out: go on then too.
	salvage := "{ memctl export -o rescue.jsonl || [ $? -eq 3 ]; } && " + moveAside(opts.Database) + " && memctl import rescue.jsonl"
	if backup != nil {
		// The backup first: it has everything up to its day. The salvage
		// keeps what the damaged file still has of later days.
		f.Message += fmt.Sprintf("; the fix puts back the backup written %s (what changed since is lost); or salvage what can still be read: %s",
			backup.ModTime.Format(time.RFC3339), salvage)
		f.Fix = restoreCommand(opts.Database)
	} else {
		f.Message += "; there is no backup to put back (memctl makes one before the first consolidation of each day); the fix salvages what can still be read (export says what it left out)"
		f.Fix = salvage
	}
	return []Finding{f}, nil
}

func databaseSkipped(opts Options) string {
	if opts.Store == nil && opts.Damaged == "" {
		return "no database yet"
	}
	return ""
}

// restoreCommand is the shell line that puts the backup of the database
// at dbPath in its place, the damaged file moved aside first.
func restoreCommand(dbPath string) string {
	return moveAside(dbPath) + " && cp -p " + shellQuote(store.BackupPath(dbPath)) + " " + shellQuote(dbPath)
}

// moveAside is the shell line that moves a damaged database out of the
// way with its -wal file, whose changes belong to it (SQLite would apply
// them to the next file of that name), and drops its -shm.
func moveAside(dbPath string) string {
	db, damaged := shellQuote(dbPath), shellQuote(dbPath+".damaged")
	return fmt.Sprintf("mv %s %s && { mv %s-wal %s-wal 2>/dev/null; rm -f %s-shm; }", db, damaged, db, damaged, db)
}

// notesOverSummary reports a memory folder with more ad hoc notes than
// the summary holds: the others reach MEMORY.md only (v1) or stay in the
// notes folder (v2), ranked out by pin, use and age.
func notesOverSummary(root string) ([]Finding, string, error) {
	notes, err := bundle.Notes(root)
	if err != nil {
		return nil, "", err
	}
	if len(notes) <= memmodel.MaxSummaryNotes {
		return nil, "", nil
	}
	return []Finding{{Check: CheckNotes, Severity: Info, Subject: memdir.NotesDir,
		Message: fmt.Sprintf("%d ad hoc notes: the summary holds the %d best-ranked (pinned, most used, newest); the other %d are not in it",
			len(notes), memmodel.MaxSummaryNotes, len(notes)-memmodel.MaxSummaryNotes),
		Fix: "memctl note pin NAME (keep one in the summary); fold old notes into fewer with memctl note add and delete them"}}, "", nil
}

// reviewWaiting reports memory held for the user's review: notes agents
// proposed, memory from another machine or a bundle the quarantine held.
func reviewWaiting(root string) []Finding {
	n := reviewdir.Count(root)
	if n == 0 {
		return nil
	}
	return []Finding{{Check: CheckReview, Severity: Info, Subject: "review queue",
		Message: fmt.Sprintf("%s of memory %s for your review and %s not in memory until you approve", english.Count(n, "item", "items"),
			english.Noun(n, "waits", "wait"), english.Noun(n, "is", "are")),
		Fix: "memctl review; then memctl approve ID|--all or memctl reject ID|--all"}}
}

// capped keeps maxListed findings and counts the rest in one more.
func capped(fs []Finding, check string, sev Severity, what string) []Finding {
	if len(fs) <= maxListed {
		return fs
	}
	rest := fs[maxListed:]
	ids := make([]string, 0, len(rest))
	for _, f := range rest {
		ids = append(ids, f.Subject)
	}
	out := append(fs[:maxListed:maxListed], Finding{Check: check, Severity: sev, Subject: fmt.Sprintf("%d more", len(rest)),
		Message: fmt.Sprintf("and %d more %s", len(rest), what), ThreadIDs: ids})
	return out
}

func uncited(ctx context.Context, st Store, n int) ([]Finding, error) {
	us, err := st.Uncited(ctx, n)
	if err != nil {
		return nil, err
	}
	var fs []Finding
	for _, u := range us {
		fs = append(fs, Finding{Check: CheckUncited, Severity: Info, Subject: u.ThreadID,
			Message: fmt.Sprintf("selected by %s and never cited by an agent", english.Count(u.Consolidations, "consolidation", "consolidations")),
			Fix:     "memctl memories forget " + u.ThreadID})
	}
	return capped(fs, CheckUncited, Info, "memories never cited"), nil
}

// leases reports the jobs whose lease has not run out: the consolidation
// lock and the threads claimed for extraction, one finding per holder. A
// holder that has exited on this host is a warning (the next run takes
// the jobs back at once; until then summary reads memory that misses
// them); a live one is a run in progress.
func leases(ctx context.Context, st Store) ([]Finding, error) {
	held, err := st.HeldLeases(ctx)
	if err != nil {
		return nil, err
	}
	type group struct {
		lock    bool
		worker  string
		gone    bool
		until   int64
		threads []string
	}
	var groups []*group
	byHolder := map[string]*group{}
	for _, h := range held {
		if h.Kind == store.KindConsolidate {
			groups = append(groups, &group{lock: true, worker: h.WorkerID, gone: h.Gone, until: h.Until})
			continue
		}
		g, ok := byHolder[h.WorkerID]
		if !ok {
			g = &group{worker: h.WorkerID, gone: h.Gone}
			byHolder[h.WorkerID] = g
			groups = append(groups, g)
		}
		g.until = max(g.until, h.Until)
		g.threads = append(g.threads, h.Key)
	}
	var out []Finding
	for _, g := range groups {
		until := time.Unix(g.until, 0).UTC().Format(time.RFC3339)
		who := owner.Describe(g.worker)
		f := Finding{Check: CheckLeases, Severity: Info, Subject: "consolidation lock"}
		what, n := "the consolidation lock is", 1
		if !g.lock {
			n = len(g.threads)
			f.Subject = english.Count(len(g.threads), "extraction claim", "extraction claims")
			what = f.Subject + " " + english.Noun(len(g.threads), "is", "are")
			f.ThreadIDs = g.threads
		}
		if g.gone {
			f.Severity = Warning
			f.Message = fmt.Sprintf("%s held by %s, which has exited without giving %s back (the lease runs until %s)",
				what, who, english.Noun(n, "it", "them"), until)
			f.Fix = "memctl run (it takes " + english.Noun(n, "it", "them") + " back at once)"
		} else {
			f.Message = fmt.Sprintf("%s held by %s until %s: a run in progress", what, who, until)
		}
		out = append(out, f)
	}
	return out, nil
}

// stale checks the evidence index of the folder, as summary does but
// with a budget meant to finish.
func stale(opts Options) ([]Finding, string, error) {
	budget := opts.StaleBudget
	if budget <= 0 {
		budget = 10 * time.Second
	}
	c := &evidence.Checker{Deadline: time.Now().Add(budget), RewriteThreshold: opts.RewriteThreshold}
	scan, err := evidence.CheckIndex(filepath.Join(opts.Root, memdir.EvidenceIndexFile), "", c)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "no evidence index yet", nil
	}
	if err != nil {
		return nil, "", err
	}
	var out []Finding
	for _, n := range scan.Stale {
		f := Finding{Check: CheckStale, Severity: Warning, Subject: n.ThreadID,
			Message: fmt.Sprintf("%s (%s): %s", textcut.Words(n.Description, 100), n.RolloutFile, n.Summary()),
			Fix:     "memctl consolidate --force"}
		if n.Handled != "" {
			// The last consolidation already demoted or dropped it: only
			// the user can tell whether it is obsolete.
			f.Severity = Info
			f.Message += "; the last consolidation " + n.Handled + " it"
			f.Fix = "memctl memories forget " + n.ThreadID
		}
		out = append(out, f)
	}
	if scan.Unchecked > 0 {
		out = append(out, Finding{Check: CheckStale, Severity: Info, Subject: memdir.EvidenceIndexFile,
			Message: fmt.Sprintf("%d piece(s) of evidence could not be checked (too large to hash, unreadable, or out of time)", scan.Unchecked)})
	}
	return capped(out, CheckStale, Warning, "stale memories"), "", nil
}

func quarantined(ctx context.Context, st Store) ([]Finding, error) {
	items, err := st.Quarantined(ctx)
	if err != nil {
		return nil, err
	}
	// One finding per raw memory: a planted order tends to be quoted in
	// several sections of the same memory.
	var out []Finding
	for i := 0; i < len(items); {
		j := i
		reasons := map[string]bool{}
		for j < len(items) && items[j].ThreadID == items[i].ThreadID {
			reasons[items[j].Reason] = true
			j++
		}
		q := items[i]
		sev := Info
		if reasons[quarantine.ReasonInjection] || reasons[quarantine.ReasonExfiltration] {
			sev = Warning // someone planted it: the session deserves a look
		}
		var rs []string
		for r := range reasons {
			rs = append(rs, r)
		}
		sort.Strings(rs)
		f := Finding{Check: CheckQuarantined, Severity: sev, Subject: q.ThreadID,
			Message: fmt.Sprintf("%d line(s) held back from this memory (%s), first %s line %d: %s; they never reach an agent",
				j-i, strings.Join(rs, ", "), q.Field, q.Line, textcut.Words(q.Text, 200))}
		if sev == Warning {
			// A planted order: the session that carried it is not to be
			// trusted; forgetting it clears the finding (`memories show`
			// would change nothing).
			f.Message += "; the session looks hostile: forget its memory"
			f.Fix = "memctl memories forget " + q.ThreadID
		}
		out = append(out, f)
		i = j
	}
	return capped(out, CheckQuarantined, Info, "memories with held-back lines"), nil
}

// heldInFolder finds instruction-shaped lines in the files injected or
// read by agents: what a model consolidator or a note let through. summary
// drops them on the way out; the files still hold them.
func heldInFolder(root string) []Finding {
	var out []Finding
	for _, rel := range injectedFiles(root) {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		for i, line := range strings.Split(string(data), "\n") {
			if r := quarantine.Strong(line); r != "" {
				out = append(out, Finding{Check: CheckQuarantined, Severity: Warning, Subject: rel,
					Message: fmt.Sprintf("line %d reads like an order to the agent (%s), which summary leaves out but the file still holds: %s; if it came from a note under %s, remove the note",
						i+1, r, textcut.Words(strings.TrimSpace(line), 200), memdir.NotesDir),
					Fix: "memctl consolidate --force"})
			}
		}
	}
	return out
}

// injectedFiles are the files whose text reaches agents as memory: the
// summary, the handbook, skills and notes.
func injectedFiles(root string) []string {
	files := []string{memdir.SummaryFile, memdir.MemoryFile}
	for _, dir := range []string{memdir.SkillsDir, memdir.NotesDir} {
		_ = filepath.WalkDir(filepath.Join(root, filepath.FromSlash(dir)), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".md") {
				if rel, err := filepath.Rel(root, p); err == nil {
					files = append(files, filepath.ToSlash(rel))
				}
			}
			return nil
		})
	}
	return files
}

// oversized finds memory files an agent cannot read in one MCP read; raw
// is the number of raw memories stored.
func oversized(opts Options, raw int) ([]Finding, string, error) {
	if _, err := os.Stat(opts.Root); errors.Is(err, fs.ErrNotExist) {
		return nil, "no memory folder yet", nil
	}
	var out []Finding
	err := filepath.WalkDir(opts.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == memdir.GitDir || strings.HasPrefix(d.Name(), ".") && p != opts.Root) {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".md") {
			return nil
		}
		rel, _ := filepath.Rel(opts.Root, p)
		rel = filepath.ToSlash(rel)
		// raw_memories.md and the diff are Phase 2's inputs, not memory
		// an agent reads.
		if rel == memdir.RawMemoriesFile || rel == memdir.DiffFile {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		tokens := int((fi.Size() + 3) / 4)
		if tokens <= opts.ReadTokens {
			return nil
		}
		f := Finding{Check: CheckOversized, Severity: Warning, Subject: rel,
			Message: fmt.Sprintf("about %d tokens: one MCP read returns %d, so agents see it cut in the middle", tokens, opts.ReadTokens),
			Fix:     oversizedFix(opts.Root, rel)}
		if rel == memdir.MemoryFile {
			if k := memoryCap(raw, tokens, opts.ReadTokens); k > 0 {
				f.Message += fmt.Sprintf("; set memories.max_raw_memories_for_consolidation = %d in the config to keep it so", k)
				f.Fix = fmt.Sprintf("MEMCTL_MEMORIES_MAX_RAW_MEMORIES_FOR_CONSOLIDATION=%d memctl consolidate --force", k)
			}
		}
		out = append(out, f)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Subject < out[j].Subject })
	return out, "", err
}

// memoryCap is how many raw memories a consolidation may take for
// MEMORY.md to fit one read, in proportion to its size now (with a tenth
// to spare); 0 when a cap cannot help. A fixed cap (128) does nothing
// when fewer memories are stored.
func memoryCap(raw, tokens, readTokens int) int {
	if raw <= 1 || tokens <= 0 {
		return 0
	}
	k := raw * readTokens * 9 / (10 * tokens)
	if k < 1 || k >= raw {
		return 0
	}
	return k
}

func oversizedFix(root, rel string) string {
	switch {
	case strings.HasPrefix(rel, memdir.NotesDir+"/"):
		// The full path: the user runs the fix from anywhere, not from
		// inside the memory folder.
		return "rm " + shellQuote(filepath.Join(root, filepath.FromSlash(rel))) + " && memctl consolidate --force"
	case strings.HasPrefix(rel, memdir.RolloutSummariesDir+"/"):
		if id := threadOfSummary(root, rel); id != "" {
			return "memctl memories forget " + id
		}
	}
	return "memctl consolidate --force"
}

// summarySize compares the summary with summary's cut.
func summarySize(opts Options) ([]Finding, string, error) {
	b, err := os.ReadFile(filepath.Join(opts.Root, memdir.SummaryFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "no " + memdir.SummaryFile + " yet", nil
	}
	if err != nil {
		return nil, "", err
	}
	tokens := textcut.ApproxTokens(strings.TrimSpace(string(b)))
	if tokens <= opts.SummaryTokens {
		return nil, "", nil
	}
	if _, err := os.Stat(filepath.Join(opts.Root, filepath.FromSlash(memdir.ProjectIndexFile))); err == nil {
		// Sessions are given their project's summary, which the project
		// layer keeps within budget; the global file reaches an agent
		// only through summary --all-projects. A cap on the raw memories
		// does not shrink it, so no fix is offered.
		return []Finding{{Check: CheckSummarySize, Severity: Info, Subject: memdir.SummaryFile,
			Message: fmt.Sprintf("about %d tokens, past the %d that summary injects; only `memctl summary --all-projects` injects this file (cut in the middle), sessions are given their project's summary",
				tokens, opts.SummaryTokens)}}, "", nil
	}
	return []Finding{{Check: CheckSummarySize, Severity: Warning, Subject: memdir.SummaryFile,
		Message: fmt.Sprintf("about %d tokens; summary injects %d, so about %d tokens from its middle never reach the agent, and there is no project layer to inject instead",
			tokens, opts.SummaryTokens, tokens-opts.SummaryTokens),
		// A consolidation writes the project layer: from then on a
		// session is given its project's summary, within budget.
		Fix: "memctl consolidate --force"}}, "", nil
}

func agents(states []AgentState) []Finding {
	var out []Finding
	for _, a := range states {
		switch {
		case a.Err != "":
			out = append(out, Finding{Check: CheckAgents, Severity: Warning, Subject: a.Agent,
				Message: "cannot read its config: " + a.Err,
				// A dry run changes nothing: the file itself needs repair,
				// which only its owner can do.
				Fix: "repair the file named above, then run memctl setup " + a.Agent})
		case !a.Installed:
			// Not installed: nothing to wire up, nothing to report.
		case len(a.Pending) == 0:
		case a.SetUp:
			out = append(out, Finding{Check: CheckAgents, Severity: Warning, Subject: a.Agent,
				Message: "memctl's hooks, MCP entry or permissions changed since memctl setup: " + strings.Join(a.Pending, ", ") + " would be rewritten",
				Fix:     "memctl setup " + a.Agent})
		default:
			out = append(out, Finding{Check: CheckAgents, Severity: Info, Subject: a.Agent,
				Message: "installed, but memctl is not wired in: no summary hook, no citation hook, no MCP server",
				Fix:     "memctl setup " + a.Agent})
		}
	}
	return out
}

func provider(p ProviderState) []Finding {
	var out []Finding
	if p.Problem != "" {
		out = append(out, Finding{Check: CheckProvider, Severity: Warning, Subject: p.Resolved, Message: p.Problem, Fix: p.Fix})
	}
	if p.Note != "" {
		out = append(out, Finding{Check: CheckProvider, Severity: Info, Subject: p.Resolved, Message: p.Note, Fix: p.NoteFix})
	}
	return out
}

// threadOfSummary reads the thread id a rollout summary names in its
// header ("" when it names none).
func threadOfSummary(root, rel string) string {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := f.Read(head)
	for _, line := range strings.Split(string(head[:n]), "\n") {
		if id, ok := strings.CutPrefix(line, "thread_id: "); ok {
			return strings.TrimSpace(id)
		}
	}
	return ""
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain
// path characters, so a fix with a path is copied and run as printed.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
