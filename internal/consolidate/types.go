// Package consolidate is memctl's Phase 2: it takes the global
// consolidation lock, syncs the selected raw memories and rollout summaries
// into the memory folder, diffs the folder against the last good baseline,
// runs a consolidator (heuristic, model or external agent) that rewrites
// MEMORY.md, memory_summary.md and skills/, validates what it wrote and
// records the new baseline.
//
// The baseline lives in the store (see [Jobs]) instead of a private git
// repository, so no git binary is needed; the diff file handed to the
// consolidator keeps the git-style format.
//
// Where each part lives: the runner (run.go, runsteps.go, order.go, sync.go,
// difffile.go, snapshot.go, validate.go, onstore.go), the generations
// and their review (history.go), the consolidators (heuristic*.go for
// the offline one: MEMORY.md, memory_summary.md, the facts it marks
// superseded, the profile's stack; modelc.go; agent.go), and the project
// layer (projects.go). What the offline consolidator and the project
// layer render from, the selected memories parsed with their stale marks
// and the notes, is internal/memmodel's.
package consolidate

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/memmodel"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/store"
)

// Status is the outcome of a consolidation run, named as Codex names it:
// succeeded…, skipped… (exit 0, nothing went wrong), dry_run or failed…;
// memctl adds pending_review (the run succeeded, its generation waits for
// approval; exit 0).
type Status string

// Succeeded reports a run that left valid memory files.
func (s Status) Succeeded() bool { return strings.HasPrefix(string(s), "succeeded") }

// Skipped reports a run that did not start: the lock is held, the
// cooldown has not passed or the last failure's backoff has not ended.
func (s Status) Skipped() bool { return strings.HasPrefix(string(s), "skipped") }

// Failed reports a run that failed; the previous memory files are kept.
func (s Status) Failed() bool { return strings.HasPrefix(string(s), "failed") }

// Claim statuses returned by [Jobs.ClaimGlobal]; all but claimClaimed are
// also the Status of the skipped run.
const (
	claimClaimed          Status = "claimed"
	ClaimRetryUnavailable Status = "skipped_retry_unavailable"
	ClaimRunning          Status = "skipped_running"
	ClaimCooldown         Status = "skipped_cooldown"
)

// Run statuses reported in [Result.Status], named as Codex names them.
const (
	StatusSucceeded          Status = "succeeded"
	StatusSucceededNoChanges Status = "succeeded_no_workspace_changes"
	statusDryRun             Status = "dry_run"
	// StatusPendingReview: the run succeeded and its generation waits for
	// `memctl approve` or `memctl reject` (consolidation.review).
	StatusPendingReview Status = "pending_review"
	// StatusSkippedPendingReview: a generation already waits for review.
	StatusSkippedPendingReview Status = "skipped_pending_review"
	// StatusSkippedRejected: with review on, the inputs are exactly those of
	// a proposal the user rejected, on the same folder; --force runs anyway.
	StatusSkippedRejected     Status = "skipped_rejected"
	statusFailedClaim         Status = "failed_claim"
	statusFailedPrepare       Status = "failed_prepare_workspace"
	statusFailedLoad          Status = "failed_load_stage1_outputs"
	statusFailedSync          Status = "failed_sync_workspace_inputs"
	statusFailedStatus        Status = "failed_workspace_status"
	statusFailedDiffFile      Status = "failed_workspace_diff_file"
	StatusFailedAgent         Status = "failed_agent" // consolidation.mode = "agent"
	statusFailedModel         Status = "failed_model"
	statusFailedHeuristic     Status = "failed_heuristic"
	statusFailedInvalid       Status = "failed_invalid_artifacts"
	statusFailedConfirm       Status = "failed_confirm_ownership"
	statusFailedCommit        Status = "failed_workspace_commit"
	statusFailedLostOwnership Status = "failed_lost_ownership"
	// StatusInterrupted is a run stopped by its context (Ctrl-C,
	// SIGTERM): the lock was given back and the previous memory files
	// are in place. It is not a failure: no backoff, no retry spent.
	StatusInterrupted Status = "interrupted"
)

// failedStatus is the status of a run whose consolidator failed, named
// after the mode that ran (Codex only has agents, so only failed_agent).
func failedStatus(mode string) Status {
	switch mode {
	case "model":
		return statusFailedModel
	case "heuristic":
		return statusFailedHeuristic
	default:
		return StatusFailedAgent
	}
}

// Selected is one raw memory chosen for Phase 2 (store selection, Codex
// 7.2, already sorted by thread_id ASC): the store's record.
type Selected = store.Selected

// Claim is the outcome of [Jobs.ClaimGlobal]. Status is one of the Claim*
// constants; Token and InputWatermark are set only when claimed.
type Claim struct {
	Status         Status
	Token          string
	InputWatermark int64
	// Requests are the reasons (pin, edit, forget of a memory) the user
	// asked for this run; they let it through the cooldown.
	Requests []string
	// RequestsUpTo identifies the newest request seen; a successful run
	// answers those and keeps any made while it worked.
	RequestsUpTo int64
	// Regenerate is set when a request (a forgotten memory) needs the
	// artifacts rebuilt from the inputs, even if the inputs look unchanged.
	Regenerate bool
}

// BaselineFile is one file of the memory folder as the last run left it
// (Path slash-separated and relative to the root; Mode one of the mode*
// constants): the store's record.
type BaselineFile = store.BaselineFile

// Git-style file modes used in [BaselineFile.Mode].
const (
	modeRegular    uint32 = 0o100644
	modeExecutable uint32 = 0o100755
	modeSymlink    uint32 = 0o120000
)

// Jobs is what Phase 2 needs from the store: the global lock with its
// lease, backoff and cooldown (Codex 3.9), the input selection (Codex 7.2)
// and the baseline of the memory folder.
type Jobs interface {
	// ClaimGlobal takes the global consolidation lock. force (--force)
	// skips the 6 h success cooldown and the failure backoff, never a live
	// lease.
	ClaimGlobal(ctx context.Context, workerID string, force bool) (Claim, error)
	// HeartbeatGlobal extends the lease; false means the token no longer owns the job.
	HeartbeatGlobal(ctx context.Context, token string) (bool, error)
	// Commit marks the job done, records the selection and, when the
	// commit says so, the new baseline and generation, all at once; false
	// means the token no longer owns the job (nothing changed).
	Commit(ctx context.Context, c Commit) (owned bool, generation int64, err error)
	// FailGlobal marks the job failed with reason and starts the backoff.
	FailGlobal(ctx context.Context, token, reason string) error
	// Selection returns up to n raw memories, sorted by thread id.
	Selection(ctx context.Context, n, maxUnusedDays int) ([]Selected, error)
	// Baseline returns the folder as recorded after the last successful
	// consolidation; ok is false when there is none yet.
	Baseline(ctx context.Context) (files []BaselineFile, ok bool, err error)
}

// Change is one difference between the baseline and the current folder.
type Change struct {
	Status byte // 'A' added, 'M' modified (content or mode), 'D' deleted
	Path   string
}

// Consolidator rewrites the memory artifacts from the synced inputs.
type Consolidator interface {
	// Name is the mode: heuristic, model or agent.
	Name() string
	// Consolidate updates the files under ws.Root. It must write every file
	// atomically; Run validates the result and restores the previous
	// artifacts when it fails.
	Consolidate(ctx context.Context, ws *Workspace) (model.Usage, error)
}

// Workspace is what a consolidator gets to work with.
type Workspace struct {
	Root     string // absolute memory root
	Version  memversion.Version
	Selected []Selected
	Changes  []Change
	DiffFile string // the rendered phase2_workspace_diff.md
	Prompt   string // the rendered consolidation prompt
	// TemplateDir overrides the embedded templates when set.
	TemplateDir string
	Now         time.Time
	// Redact scrubs secrets from text a consolidator writes; nil means identity.
	Redact func(string) string
	// Log receives warnings; never nil when Run builds the workspace.
	Log io.Writer
	// Stale holds, by thread id, the selected memories whose evidence
	// changed since extraction: a consolidator demotes them, or drops
	// those whose evidence is all gone (docs/stale.md).
	Stale map[string]memmodel.Stale
	// NoteMarks rank the ad hoc notes, by file name, when more exist than
	// the summary holds (memmodel.MaxSummaryNotes).
	NoteMarks map[string]store.NoteMark
}

// noteRanker is a Jobs that knows the notes' pins and uses; without it,
// notes rank by recency alone.
type noteRanker interface {
	NoteMarks(ctx context.Context) (map[string]store.NoteMark, error)
}

// NotesCap says that more notes exist than the summary holds: Total
// notes, of which the summary holds the Summary best-ranked.
type NotesCap struct {
	Total   int `json:"total"`
	Summary int `json:"summary"`
}

func (ws *Workspace) redact(s string) string {
	if ws.Redact == nil {
		return s
	}
	return ws.Redact(s)
}

// Options configure [Run].
type Options struct {
	Root    string // memory folder, e.g. <home>/memories
	Version memversion.Version
	Mode    string // informational; the consolidator decides the work
	// Provider and Model name what answered (model mode), for the history.
	Provider string
	Model    string
	// Review stops a run that changed something at a pending generation,
	// built in a staging folder: the memory folder, the baseline and the
	// selection marks change only when it is approved. The Jobs passed to
	// Run must then be a [History].
	Review bool
	// Keep is how many generations the history keeps (0: the store's default).
	Keep          int
	MaxRaw        int // max_raw_memories_for_consolidation
	MaxUnusedDays int
	// Force skips the success cooldown (never a live lease or the backoff).
	Force bool
	// DryRun claims nothing and writes nothing to the memory folder or the
	// store: it reports the selection, the changes the sync would make and
	// the planned diff of every artifact, which the consolidator computes
	// in a scratch copy of the folder.
	DryRun       bool
	Consolidator Consolidator
	WorkerID     string
	Now          func() time.Time
	// Heartbeat is the lease renewal interval (90 s in Codex).
	Heartbeat   time.Duration
	TemplateDir string
	// Log receives warnings and progress; nil discards them.
	Log io.Writer
	// Redact scrubs secrets from consolidator output; nil means identity.
	Redact func(string) string
	// RewriteThreshold is the share of a file's lines that must be gone
	// for a memory resting on it to be stale (0: the default, half).
	RewriteThreshold float64
}

// Result reports what a run did.
type Result struct {
	Status       Status      `json:"status"`
	Selected     int         `json:"selected"`
	Changes      []Change    `json:"-"`
	ChangeLines  []string    `json:"changes,omitempty"`
	Usage        model.Usage `json:"usage"`
	Error        string      `json:"error,omitempty"`
	Consolidator string      `json:"consolidator,omitempty"`
	StorageBytes int64       `json:"storage_bytes,omitempty"`
	Watermark    int64       `json:"watermark,omitempty"`
	// Generation is the generation recorded (succeeded) or waiting for
	// review (pending_review); 0 when none was.
	Generation int64 `json:"generation,omitempty"`
	// Requests are the reasons this run answered: the user's (pin, edit,
	// forget) and raw memories that an earlier consolidation missed.
	Requests []string `json:"requests,omitempty"`
	// Passes is how many consolidations the run made when raw memories
	// landed while it worked (absent: one).
	Passes int `json:"passes,omitempty"`
	// Plan is the dry run's diff of every artifact against the folder.
	Plan []FileDiff `json:"plan,omitempty"`
	// Held are the lines removed from the folder's files because they read
	// like orders to the agent (internal/quarantine's strong rules), from
	// the inputs before the consolidator ran and from its output.
	Held []HeldLine `json:"held_back,omitempty"`
	// Notes is set when more ad hoc notes exist than the summary holds.
	Notes *NotesCap `json:"notes,omitempty"`
	// NothingToConsolidate: the run had no raw memory, note or extension
	// resource to consolidate. The offline consolidator wrote the empty
	// memory (no model call), and the success starts no cooldown.
	NothingToConsolidate bool `json:"nothing_to_consolidate,omitempty"`
}
