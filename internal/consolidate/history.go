package consolidate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/store"
)

// Generations (DESIGN.md section 8, "Control"). Every consolidation that
// changes the memory folder is recorded by the store as a generation: the
// folder's files, the raw memories it selected and the workspace diff it
// worked from. With review on, a run stops at a pending generation that
// was built in a staging folder, so the memory folder and the selection
// marks change only when it is approved. A rollback writes an older
// generation back and is itself recorded as one.

// Commit lands a successful run in one store transaction: the job done,
// the selection marked, the requests the claim saw answered and, when
// set, the baseline replaced and the generation recorded (history kept to
// Keep generations).
type Commit struct {
	Token        string
	Watermark    int64
	Selected     []Selected
	RequestsUpTo int64
	Baseline     []BaselineFile // nil keeps the stored baseline
	Generation   *store.NewGeneration
	Keep         int
	// Empty: the run had nothing to consolidate, so its success starts
	// no cooldown (store.GlobalCommit.LeftMemoryEmpty).
	Empty bool
}

// History is what review, approve, reject and rollback need from the
// store beyond [Jobs].
type History interface {
	Jobs
	// Pend records a pending generation and releases the lock.
	Pend(ctx context.Context, p store.GlobalPend) (owned bool, id int64, err error)
	// PendingGeneration returns the generation waiting for review.
	PendingGeneration(ctx context.Context) (store.Generation, bool, error)
	// ReleaseGlobal gives the lock back, marking neither success nor failure.
	ReleaseGlobal(ctx context.Context, token string) error
	Generation(ctx context.Context, id int64) (store.Generation, error)
	GenerationFiles(ctx context.Context, id int64) ([]BaselineFile, error)
	GenerationInputs(ctx context.Context, id int64) ([]store.GenerationInput, error)
	// Forgotten returns which of ids the user forgot, and when.
	Forgotten(ctx context.Context, ids []string) (map[string]time.Time, error)
	// BeginLanding journals, under the lock, that a generation's files are
	// about to be written; CancelLanding drops the journal again.
	BeginLanding(ctx context.Context, token, action string, id int64) (bool, error)
	CancelLanding(ctx context.Context, token string) error
	UnfinishedLanding(ctx context.Context) (store.Landing, bool, error)
	// LandGeneration records the landing and marks the job done.
	LandGeneration(ctx context.Context, l store.Land) (owned bool, id int64, err error)
	// RequestConsolidation asks the next consolidation to run inside the
	// cooldown (and, with regenerate, to rebuild the artifacts).
	RequestConsolidation(ctx context.Context, reason string, regenerate bool) error
	// RejectedProposal finds a rejected generation that was built on the
	// current one from exactly this workspace diff.
	RejectedProposal(ctx context.Context, workspaceDiff string) (id int64, ok bool, err error)
}

// ErrNoPending is returned by Approve when no generation waits for review.
var ErrNoPending = errors.New("no generation is pending review")

// ErrBusy is returned by Approve and Rollback when another process holds
// the consolidation lock (a consolidation is running).
var ErrBusy = errors.New("a consolidation is running")

// ErrPendingReview is returned by Rollback while a generation waits for
// review: it was built on the current folder, so the folder must not move
// under it.
var ErrPendingReview = errors.New("a generation is pending review")

// ForgottenError is returned by Approve and Rollback when the generation
// was built from memories the user has forgotten since: landing it would
// put them back into the memory folder.
type ForgottenError struct {
	Generation int64
	ThreadIDs  []string
}

func (e *ForgottenError) Error() string {
	return fmt.Sprintf("generation %d was built from %d memor%s forgotten since (%s); landing it would bring %s back",
		e.Generation, len(e.ThreadIDs), english.Noun(len(e.ThreadIDs), "y", "ies"), strings.Join(e.ThreadIDs, ", "), english.Noun(len(e.ThreadIDs), "it", "them"))
}

// ErrPurged is returned by Rollback for a generation whose files were
// purged when a memory it may hold text of was forgotten: there is
// nothing left to restore, forced or not.
var ErrPurged = errors.New("its files were purged when a memory it was built from was forgotten")

// isArtifact reports whether a folder path is consolidation output rather
// than input: everything but raw_memories.md, rollout_summaries/,
// extensions/ and the diff file.
func isArtifact(p string) bool {
	switch {
	case p == memdir.RawMemoriesFile, p == memdir.DiffFile:
		return false
	case strings.HasPrefix(p, memdir.RolloutSummariesDir+"/"), strings.HasPrefix(p, memdir.ExtensionsDir+"/"):
		return false
	}
	return true
}

// inputFiles are the files of a folder state that are not artifacts.
func inputFiles(files []BaselineFile) []BaselineFile {
	var out []BaselineFile
	for _, f := range files {
		if !isArtifact(f.Path) {
			out = append(out, f)
		}
	}
	return out
}

// Landed reports whether a landing (approve, rollback) writes a path:
// whatever Phase 2 generates. extensions/ holds notes and resources that
// users and agents add at any time: a landing never deletes or rewinds
// them.
func Landed(p string) bool {
	return p != memdir.DiffFile && !strings.HasPrefix(p, memdir.ExtensionsDir+"/")
}

// FileDiff is one file's change between two states of the folder.
type FileDiff struct {
	Status string `json:"status"` // A, M or D
	Path   string `json:"path"`
	// Artifact is set for consolidation output (see isArtifact).
	Artifact bool   `json:"artifact"`
	Diff     string `json:"diff"`
}

// DiffFiles compares two states of the folder and returns one FileDiff per
// changed path (sorted by path), each with its git-style unified diff;
// keep, when non-nil, selects the paths to report.
func DiffFiles(old, cur []BaselineFile, keep func(path string) bool) []FileDiff {
	o, n := indexFiles(old), indexFiles(cur)
	var out []FileDiff
	for _, c := range diffSnapshots(old, cur) {
		if keep != nil && !keep(c.Path) {
			continue
		}
		of, hadOld := o[c.Path]
		nf, hasNew := n[c.Path]
		out = append(out, FileDiff{Status: string(c.Status), Path: c.Path, Artifact: isArtifact(c.Path),
			Diff: unifiedFileDiff(c.Path, of, hadOld, nf, hasNew)})
	}
	return out
}

// applyFiles makes the generated part of root (everything outside
// extensions/) hold exactly files: changed files are rewritten atomically
// (memory_summary.md, the file agents read first, last), the others
// removed, empty folders left by removed skills deleted. Symbolic links in
// root are removed first and never written; extension resources past
// their retention are pruned as a sync would (now). A path that is not a
// clean relative path is refused before anything is written.
func applyFiles(root string, files []BaselineFile, now time.Time) error {
	want := map[string]BaselineFile{}
	for _, f := range files {
		if !cleanRel(f.Path) {
			return fmt.Errorf("apply generation: unsafe path %q", f.Path)
		}
		if f.Mode == modeSymlink || !Landed(f.Path) {
			continue
		}
		want[f.Path] = f
	}
	if fi, err := os.Lstat(root); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w: %s", memdir.ErrSymlinkedRoot, root)
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return err
	}
	if _, err := memdir.RemoveSymlinks(root); err != nil {
		return err
	}
	// What a writer killed earlier left behind goes first (a killed
	// rollback leaves .memctl-tmp-* files that nothing else removes).
	memdir.RemoveAbandonedTemps(root, now)
	cur, err := Snapshot(root)
	if err != nil {
		return err
	}
	have := indexFiles(cur)
	if err := writeWanted(root, want, have); err != nil {
		return err
	}
	if err := removeUnwanted(root, want, cur); err != nil {
		return err
	}
	stale, err := staleExtensionResources(root, now)
	if err != nil {
		return err
	}
	for _, p := range stale {
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(p))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// writeWanted writes the files of want that root does not hold as they
// are (have), atomically, in crash order.
func writeWanted(root string, want, have map[string]BaselineFile) error {
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	// Crash order (order.go): the files pointed at first, the index,
	// MEMORY.md and memory_summary.md after them, removals last.
	sortForWrite(paths)
	for _, p := range paths {
		f := want[p]
		if h, ok := have[p]; ok && h.Mode == f.Mode && string(h.Content) == string(f.Content) {
			continue
		}
		full := filepath.Join(root, filepath.FromSlash(p))
		if dir := path.Dir(p); dir != "." {
			if err := memdir.EnsureDir(root, dir); err != nil {
				return err
			}
		}
		if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
			if err := dropTree(full); err != nil {
				return err
			}
		}
		if err := putFile(full, f.Content, fileMode(f.Mode)); err != nil {
			return err
		}
	}
	return nil
}

// removeUnwanted removes the generated files of cur that want does not
// hold, then the folders they leave empty.
func removeUnwanted(root string, want map[string]BaselineFile, cur []BaselineFile) error {
	var dirs []string
	for _, h := range cur {
		if _, ok := want[h.Path]; ok || !Landed(h.Path) {
			continue
		}
		if err := dropFile(filepath.Join(root, filepath.FromSlash(h.Path))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if d := path.Dir(h.Path); d != "." && d != memdir.RolloutSummariesDir {
			dirs = append(dirs, d)
		}
	}
	// Remove the folders a removed file left empty, deepest first.
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	for _, d := range dirs {
		for ; d != "." && d != memdir.RolloutSummariesDir; d = path.Dir(d) {
			if os.Remove(filepath.Join(root, filepath.FromSlash(d))) != nil {
				break // not empty (or gone): its parents are not empty either
			}
		}
	}
	return nil
}

// cleanRel reports whether p is a clean, relative, slash-separated path
// that stays inside its root.
func cleanRel(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || path.Clean(p) != p {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || part == "." || part == "" {
			return false
		}
	}
	return true
}

// StagingRoot is the folder, beside the memory folders, that holds the
// folders review runs and dry runs work in; the memory folder itself is
// only written when a generation lands. Agents run inside it must not
// become memory, so extraction leaves its threads out like the memory
// folders'.
func StagingRoot(root string) string {
	return filepath.Join(filepath.Dir(root), memdir.StagingFolder)
}

// staleStagingAge is how old a leftover staging folder (from a run that
// was killed) must be before a later run deletes it.
const staleStagingAge = 24 * time.Hour

// newStaging creates a private working copy of root (its regular files;
// symbolic links are left out) under StagingRoot and returns its path.
func newStaging(root, purpose string, now time.Time) (string, error) {
	parent := StagingRoot(root)
	if fi, err := os.Lstat(parent); err == nil && !fi.IsDir() {
		return "", fmt.Errorf("staging folder %s is not a directory", parent)
	}
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return "", fmt.Errorf("create staging folder: %w", err)
	}
	if entries, err := os.ReadDir(parent); err == nil {
		for _, e := range entries {
			if fi, err := e.Info(); err == nil && fi.ModTime().Before(now.Add(-staleStagingAge)) {
				_ = os.RemoveAll(filepath.Join(parent, e.Name()))
			}
		}
	}
	dir, err := os.MkdirTemp(parent, filepath.Base(root)+"-"+purpose+"-")
	if err != nil {
		return "", fmt.Errorf("create staging folder: %w", err)
	}
	if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
		return dir, nil
	}
	files, err := Snapshot(root)
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	for _, f := range files {
		if f.Mode == modeSymlink {
			continue
		}
		full := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
		if err := os.WriteFile(full, f.Content, fileMode(f.Mode)); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}

// LandOptions configure Approve and Rollback.
type LandOptions struct {
	Root     string // the memory folder
	WorkerID string
	Keep     int // generations kept
	Now      func() time.Time
	// Force lands a generation built from memories forgotten since.
	Force bool
}

// LandResult says what Approve or Rollback did.
type LandResult struct {
	Action string `json:"action"`
	// Generation is the generation the folder now holds: the approved
	// one, or the new rollback generation.
	Generation int64 `json:"generation"`
	// RestoredFrom is the generation a rollback restored.
	RestoredFrom int64 `json:"restored_from,omitempty"`
	// Changes are the folder's changed paths, as "A path" lines.
	Changes []string `json:"changes"`
	// Recovered is set when an earlier approve or rollback, interrupted
	// after it started writing, was finished first.
	Recovered *store.Landing `json:"recovered,omitempty"`
}

// Approve lands the pending generation id (0: whichever is pending): the
// memory folder, the baseline and the selection marks become its, in one
// journaled step, and it becomes the current generation.
func Approve(ctx context.Context, h History, opts LandOptions, id int64) (LandResult, error) {
	return land(ctx, h, opts, store.LandApprove, id)
}

// Rollback writes generation id back into the memory folder, with the
// baseline and the selection marks it had, and records that as a new
// generation. It refuses while a generation waits for review.
func Rollback(ctx context.Context, h History, opts LandOptions, id int64) (LandResult, error) {
	return land(ctx, h, opts, store.LandRollback, id)
}

// check says why generation id cannot land now (nil when it can).
func check(ctx context.Context, h History, action string, id int64) (store.Generation, error) {
	p, pending, err := h.PendingGeneration(ctx)
	if err != nil {
		return store.Generation{}, err
	}
	if action == store.LandApprove {
		if !pending && id != 0 {
			return store.Generation{}, fmt.Errorf("%w: generation %d is not pending", ErrNoPending, id)
		}
		if !pending {
			return store.Generation{}, ErrNoPending
		}
		if id != 0 && id != p.ID {
			return store.Generation{}, fmt.Errorf("%w: generation %d is not pending (generation %d is)", ErrNoPending, id, p.ID)
		}
		return p, nil
	}
	if pending {
		return store.Generation{}, fmt.Errorf("%w: generation %d; approve or reject it first", ErrPendingReview, p.ID)
	}
	g, err := h.Generation(ctx, id)
	if err == nil && g.PurgedAt != nil {
		return store.Generation{}, fmt.Errorf("generation %d cannot be restored: %w", id, ErrPurged)
	}
	return g, err
}

func land(ctx context.Context, h History, opts LandOptions, action string, id int64) (LandResult, error) {
	res := LandResult{Action: action, Changes: []string{}}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if fi, err := os.Lstat(opts.Root); err == nil && fi.IsDir() {
		memdir.RemoveAbandonedTemps(opts.Root, opts.Now()) // what a killed writer left
	}
	// Say what is wrong before taking the lock, and check again under it:
	// taking the lock and giving it back clears the job's cooldown and
	// failure backoff, so a refused landing must not take it.
	g, err := check(ctx, h, action, id)
	if err != nil {
		return res, err
	}
	gone, err := forgottenInputs(ctx, h, g, opts.Force)
	if err != nil {
		return res, err
	}
	if held, err := alreadyHeld(ctx, h, opts, action, g, len(gone)); err != nil || held {
		if held {
			res.Generation, res.RestoredFrom = g.ID, g.ID
		}
		return res, err
	}
	token, err := claimForLanding(ctx, h, opts, &res)
	if err != nil {
		return res, err
	}
	release := func(err error) (LandResult, error) {
		bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = h.ReleaseGlobal(bg, token)
		return res, err
	}
	if g, err = check(ctx, h, action, id); err != nil {
		return release(err)
	}
	if action == store.LandRollback {
		res.RestoredFrom = g.ID
	}
	if gone, err = forgottenInputs(ctx, h, g, opts.Force); err != nil {
		return release(err)
	}
	before, err := applyLanding(ctx, h, opts, token, action, g)
	if err != nil {
		return release(err)
	}
	owned, newID, err := h.LandGeneration(ctx, store.Land{Token: token, Action: action, GenerationID: g.ID, Keep: opts.Keep})
	if err != nil {
		return release(err)
	}
	if !owned {
		return res, errLostOwnership
	}
	res.Generation = newID
	// Forced past forgotten memories: the next consolidation must take
	// them out again without waiting for the cooldown.
	for id := range gone {
		if err := h.RequestConsolidation(context.WithoutCancel(ctx), "forget "+id, true); err != nil {
			return res, err
		}
	}
	if after, err := Snapshot(opts.Root); err == nil {
		for _, c := range diffSnapshots(onlyGenerated(before), onlyGenerated(after)) {
			res.Changes = append(res.Changes, c.String())
		}
	}
	return res, nil
}

// alreadyHeld reports whether a rollback to the current generation would
// write nothing: the folder already holds it. Recording it would copy the
// current generation, push an older, different one out of the history
// and start the cooldown (a consolidation that changes nothing records
// nothing either). After a hand edit it is a real rollback; after an
// interrupted landing, the folder is not what the store says it holds.
func alreadyHeld(ctx context.Context, h History, opts LandOptions, action string, g store.Generation, forgotten int) (bool, error) {
	_, unfinished, err := h.UnfinishedLanding(ctx)
	if err != nil || action != store.LandRollback || !g.Current || forgotten > 0 || unfinished {
		return false, err
	}
	files, before, err := generationAndFolder(ctx, h, g.ID, opts.Root)
	if err != nil {
		return false, err
	}
	return len(diffSnapshots(onlyGenerated(before), landedFiles(files))) == 0, nil
}

// claimForLanding takes the global lock for a landing and returns its
// token. An approve or rollback killed mid-way is finished first (res
// says so) and the lock taken again for this one.
func claimForLanding(ctx context.Context, h History, opts LandOptions, res *LandResult) (string, error) {
	claim, err := h.ClaimGlobal(ctx, opts.WorkerID, true)
	if err != nil {
		return "", err
	}
	if claim.Status != claimClaimed {
		return "", fmt.Errorf("%w (%s); try again when it has finished", ErrBusy, strings.ReplaceAll(string(claim.Status), "_", " "))
	}
	rec, ok, err := finishLanding(ctx, h, opts, claim.Token)
	if err != nil {
		bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = h.ReleaseGlobal(bg, claim.Token)
		return "", err
	}
	if !ok {
		return claim.Token, nil
	}
	// That landing marked the job done; take the lock again for ours.
	res.Recovered = &rec
	if claim, err = h.ClaimGlobal(ctx, opts.WorkerID, true); err != nil {
		return "", err
	}
	if claim.Status != claimClaimed {
		return "", fmt.Errorf("%w (%s)", ErrBusy, claim.Status)
	}
	return claim.Token, nil
}

// generationAndFolder reads generation id's files and the memory folder
// as it is now, which a landing compares or writes over.
func generationAndFolder(ctx context.Context, h History, id int64, root string) (files, folder []BaselineFile, err error) {
	if files, err = h.GenerationFiles(ctx, id); err != nil {
		return nil, nil, err
	}
	folder, err = snapshotIfExists(root)
	return files, folder, err
}

// applyLanding writes generation g's files into the memory folder under
// the landing mark, and returns the folder as it was before. A failed
// write puts the folder back when it can, so nothing is half-landed;
// when it cannot, the mark stays and the next approve, rollback or
// consolidate finishes the landing.
func applyLanding(ctx context.Context, h History, opts LandOptions, token, action string, g store.Generation) ([]BaselineFile, error) {
	files, before, err := generationAndFolder(ctx, h, g.ID, opts.Root)
	if err != nil {
		return nil, err
	}
	if ok, err := h.BeginLanding(ctx, token, action, g.ID); err != nil || !ok {
		if err == nil {
			err = errLostOwnership
		}
		return nil, err
	}
	if err := applyFiles(opts.Root, files, opts.Now()); err != nil {
		if uerr := applyFiles(opts.Root, before, opts.Now()); uerr == nil {
			_ = h.CancelLanding(context.WithoutCancel(ctx), token)
			return nil, fmt.Errorf("%s generation %d: %w (the folder is unchanged)", action, g.ID, err)
		}
		return nil, fmt.Errorf("%s generation %d: %w (the next approve, rollback or consolidate finishes it)", action, g.ID, err)
	}
	return before, nil
}

// forgottenInputs returns the memories g was built from that the user
// has forgotten since, and a *ForgottenError when there are some and
// force is off.
func forgottenInputs(ctx context.Context, h History, g store.Generation, force bool) (map[string]time.Time, error) {
	inputs, err := h.GenerationInputs(ctx, g.ID)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(inputs))
	for i, in := range inputs {
		ids[i] = in.ThreadID
	}
	gone, err := h.Forgotten(ctx, ids)
	if err != nil || len(gone) == 0 || force {
		return gone, err
	}
	fe := &ForgottenError{Generation: g.ID}
	for id := range gone {
		fe.ThreadIDs = append(fe.ThreadIDs, id)
	}
	sort.Strings(fe.ThreadIDs)
	return gone, fe
}

// landedFiles are the files of a generation that applyFiles writes.
func landedFiles(files []BaselineFile) []BaselineFile {
	var out []BaselineFile
	for _, f := range files {
		if f.Mode != modeSymlink && Landed(f.Path) {
			out = append(out, f)
		}
	}
	return out
}

func onlyGenerated(files []BaselineFile) []BaselineFile {
	var out []BaselineFile
	for _, f := range files {
		if Landed(f.Path) {
			out = append(out, f)
		}
	}
	return out
}

// FolderFiles returns the memory folder's files as a landing compares
// them: none when the folder does not exist, symbolic links left out.
func FolderFiles(root string) ([]BaselineFile, error) {
	files, err := snapshotIfExists(root)
	var out []BaselineFile
	for _, f := range files {
		if f.Mode != modeSymlink {
			out = append(out, f)
		}
	}
	return out, err
}

func snapshotIfExists(root string) ([]BaselineFile, error) {
	if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return Snapshot(root)
}

// finishLanding completes an approve or rollback that a crash interrupted
// after it began writing the folder: the same files are written again and
// the landing recorded (which marks the job done). token must hold the
// lock; ok is false when nothing was unfinished.
func finishLanding(ctx context.Context, h History, opts LandOptions, token string) (store.Landing, bool, error) {
	l, ok, err := h.UnfinishedLanding(ctx)
	if err != nil || !ok {
		return l, false, err
	}
	files, err := h.GenerationFiles(ctx, l.GenerationID)
	if err != nil {
		return l, false, err
	}
	if err := applyFiles(opts.Root, files, opts.Now()); err != nil {
		return l, false, fmt.Errorf("finish the interrupted %s of generation %d: %w", l.Action, l.GenerationID, err)
	}
	owned, _, err := h.LandGeneration(ctx, store.Land{Token: token, Action: l.Action, GenerationID: l.GenerationID, Keep: opts.Keep})
	if err != nil {
		return l, false, fmt.Errorf("finish the interrupted %s of generation %d: %w", l.Action, l.GenerationID, err)
	}
	if !owned {
		return l, false, errLostOwnership
	}
	return l, true, nil
}
