package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/bundle"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/filelock"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/origin"
	"github.com/memctl/memctl/internal/review"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/syncgit"
	"github.com/spf13/cobra"
)

// SyncOptions is what `memctl sync` needs: injected loaders first, then
// the flag values.
type SyncOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	Home       func() (string, error)
	OpenStore  func(ctx context.Context, version memversion.Version) (*store.Store, error)
	MemoryRoot func(version memversion.Version) (string, error)
	Now        func() time.Time
	Hostname   func() (string, error)

	JSON     bool
	Remote   string
	Branch   string
	Conflict string
}

// syncJSON is the --json document of sync.
type syncJSON struct {
	syncgit.Result
	// Applied is what the merged log changed, per memory version.
	Applied map[memversion.Version]bundle.ApplyResult `json:"applied"`
	// Conflicts are the memories edited apart on two machines (both
	// kept; the configured version's).
	Conflicts []bundle.Conflict `json:"conflicts"`
}

func newSyncCmd(f *Factory, runF func(context.Context, *SyncOptions) error) *cobra.Command {
	opts := &SyncOptions{IO: f.IO, Config: f.Config, Home: f.Home, OpenStore: f.OpenStore, MemoryRoot: f.MemoryRoot, Now: f.Now, Hostname: os.Hostname}
	c := &cobra.Command{
		Use:   "sync",
		Short: "Push and pull memory through a git remote shared by your machines",
		Long: `Send this machine's portable memory to a git remote and take in what the other
machines sent: raw memories with their provenance, pins, forgets and ad hoc
notes. The transcripts and the database file never leave the machine
(docs/sync.md).

Each machine appends records to its own log (events/<machine>.jsonl) in a
clone under <home>/sync/, commits, merges what the others pushed and pushes.
It never force-pushes: a push that lost a race to another machine is
followed by a fetch, a merge and another push. Records merge by rule: a
forget wins over every copy extracted before it, two edits of one memory
made apart are both kept and flagged (edit the memory to settle it), the
newest pin wins. Run 'memctl run' afterwards (or let cron do it): the next
consolidation takes the new memories in like local ones.

The remote is --remote, else sync.remote in the config. Without the network
the records wait in the clone and go with the next sync (exit 0, reported
as offline). A remote that is a folder of this machine (a path, or a
file:// URL) this home never synced with must exist: a mistyped path is an
error (exit 2), not offline; one synced with before and gone now (a disk
that is not mounted) is offline.

A line of a log that this version cannot use (not a record, too long, a
record type of a newer memctl) is set aside with a warning naming the file
and line; every other record still syncs, and the line stays in its log for
the versions that can read it. A symbolic link in the remote is never
followed.

EXIT STATUS
  0  synced, or the remote could not be reached (the records are queued)
  1  an error (git missing, the clone cannot be read)
  2  no remote configured, a local remote folder never synced with that
     does not exist, or a bad flag
  6  the remote diverged and cannot be merged cleanly (--conflict=fail):
     nothing was changed, here or on the remote`,
		Args: cobra.NoArgs,
		Example: `  $ memctl config path   # then set remote under [sync], e.g. "git@github.com:me/memory.git"
  $ memctl sync && memctl run
  $ memctl sync --remote /srv/git/memory.git --json`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			cfg, err := opts.Config()
			if err != nil {
				return err
			}
			if !c.Flags().Changed("remote") {
				opts.Remote = cfg.Sync.Remote
			}
			if !c.Flags().Changed("branch") {
				opts.Branch = cfg.Sync.Branch
			}
			if !c.Flags().Changed("conflict") {
				opts.Conflict = cfg.Sync.Conflict
			}
			if opts.Remote == "" {
				return withHint(FlagErrorf("no sync remote: pass --remote or set remote under [sync] in the config"), "a private git repository all your machines can push to, e.g. remote = \"git@github.com:me/memory.git\"")
			}
			if opts.Branch == "" {
				return FlagErrorf("--branch must not be empty")
			}
			return runOrHook(c.Context(), opts, runF, runSync)
		},
	}
	c.Flags().StringVar(&opts.Remote, "remote", "", "the git `URL` or path to sync with (default: sync.remote)")
	c.Flags().StringVar(&opts.Branch, "branch", "main", "the branch of the remote (default: sync.branch)")
	stringEnumFlag(c, c.Flags(), &opts.Conflict, "conflict", "fail", syncgit.ConflictPolicies, "a merge git cannot settle: fail (change nothing, exit 6) or union (keep every record of both sides)")
	return c
}

func runSync(ctx context.Context, opts *SyncOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	if err := localRemoteMissing(ctx, opts); err != nil {
		return err
	}
	home, err := opts.Home()
	if err != nil {
		return err
	}
	dir := filepath.Join(home, "sync")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// One sync at a time per home: they share the clone.
	release, err := filelock.Lock(ctx, filepath.Join(dir, "lock"))
	if err != nil {
		return err
	}
	defer release()
	machine, err := syncgit.MachineID(filepath.Join(dir, "machine"), opts.Hostname)
	if err != nil {
		return err
	}
	type target struct {
		version memversion.Version
		st      *store.Store
		root    string
	}
	var targets []target
	defer func() {
		for _, t := range targets {
			t.st.Close()
		}
	}()
	// The configured version sends; every generated version takes in.
	versions := []memversion.Version{cfg.Memories.Version}
	for _, v := range cfg.Versions() {
		if v != cfg.Memories.Version {
			versions = append(versions, v)
		}
	}
	for _, v := range versions {
		st, root, err := openVersion(ctx, v, opts.OpenStore, opts.MemoryRoot)
		if err != nil {
			return err
		}
		targets = append(targets, target{version: v, st: st, root: root})
	}
	red, err := redactor(cfg)
	if err != nil {
		return err
	}
	out := syncJSON{Applied: map[memversion.Version]bundle.ApplyResult{}, Conflicts: []bundle.Conflict{}}
	primary := targets[0]
	res, err := syncgit.Run(ctx, syncgit.Options{
		Dir: filepath.Join(dir, "repo"), Remote: opts.Remote, Branch: opts.Branch, Machine: machine,
		Conflict: opts.Conflict, Now: opts.Now,
		Outgoing: func(ctx context.Context, log *bundle.State) ([]bundle.Record, error) {
			return bundle.Outgoing(ctx, primary.st, primary.root, log, machine, opts.Now(), red)
		},
		Apply: func(ctx context.Context, log *bundle.State) error {
			for i, t := range targets {
				r, err := bundle.Apply(ctx, t.st, t.root, log, intake(origin.Origin{Kind: origin.Sync}, red, t.root))
				if err != nil {
					return fmt.Errorf("%s: %w", t.version, err)
				}
				out.Applied[t.version] = r
				if i == 0 {
					out.Conflicts = r.Conflicts
				}
			}
			return nil
		},
	})
	out.Result = res
	if err != nil {
		return err
	}
	for _, t := range targets {
		if out.Applied[t.version].Forgotten > 0 {
			scrubAfterForget(ctx, opts.IO, t.st, t.version)
		}
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, out)
	}
	if res.Offline {
		opts.IO.Warnf("the sync remote could not be reached (%s); %d commit(s) wait in %s for the next sync", res.OfflineReason, res.Queued, filepath.Join(dir, "repo"))
	}
	for _, a := range res.SetAside {
		opts.IO.Warnf("set aside, not synced: %s (the line stays in the log as it is; every other record was synced)", a)
	}
	for _, c := range out.Conflicts {
		opts.IO.Warnf("memory %s was edited on two machines: both are kept (%d versions; the others as %s~…); edit %s to settle it", c.ID, len(c.Versions), c.ID, c.ID)
	}
	a := out.Applied[primary.version]
	opts.IO.Infof("memctl: sync %s as %s: sent %d record(s), received %d; %d memories added, %d updated, %d forgotten, %d pin(s), %d note(s)%s",
		opts.Remote, machine, res.Sent, res.Received, a.Added, a.Updated, a.Forgotten, a.Pinned, a.Notes, pushedNote(res))
	warnHeld(opts.IO, a.Held)
	if a.Changed() {
		opts.IO.Infof("memctl: hint: run `memctl run` (or `memctl consolidate`) to fold them into the memory folder")
	}
	return nil
}

// intake is how memory from another machine or a bundle comes into the
// memory folder root and its store: redacted with this machine's rules,
// and held for the user's review, whole, when the quarantine's untrusted
// rules object to a line of it (there is no session here to vouch for
// any of it).
func intake(from origin.Origin, red func(string) string, root string) bundle.Intake {
	return bundle.Intake{From: from, Clean: red, Gate: review.Gate{Queue: review.Open(root, nil)}}
}

// warnHeld says that memory from elsewhere waits for the user's review.
func warnHeld(ios *IOStreams, n int) {
	if n > 0 {
		ios.Warnf("%s held for your review: they read like orders to an agent (a command, a URL to fetch, a destructive action); `memctl review` shows them, `memctl approve --all` or `memctl reject --all` settles them",
			english.Count(n, "memory or note", "memories or notes"))
	}
}

// localRemoteMissing refuses a remote that names a folder of this machine
// which is not there, unless this home has synced with it before. git
// takes a path (or a file:// URL) as a local repository and fails to
// reach it as it fails to reach a host, which sync reports as offline: a
// typo in a path would queue the records forever under exit 0. A folder
// synced with before and gone now is a disk that is not mounted: offline,
// as before. A URL with a scheme or git's scp form (host:path) is left to
// git.
func localRemoteMissing(ctx context.Context, opts *SyncOptions) error {
	remote := opts.Remote
	path, ok := strings.CutPrefix(remote, "file://")
	if !ok {
		if strings.Contains(remote, "://") {
			return nil
		}
		if i := strings.IndexByte(remote, ':'); i >= 0 && !strings.Contains(remote[:i], "/") {
			return nil // host:path
		}
	}
	if _, err := os.Stat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if home, err := opts.Home(); err == nil && syncedWith(ctx, filepath.Join(home, "sync", "repo"), remote) {
		return nil
	}
	abs, _ := filepath.Abs(path)
	return withHint(FlagErrorf("the sync remote %s is a folder of this machine that does not exist", abs),
		"fix sync.remote (or --remote), or create the repository there: git init --bare "+abs)
}

// syncedWith reports whether the sync clone dir syncs with remote: its
// origin is remote. It can be only after a sync found remote there, since
// localRemoteMissing runs before any sync touches the clone.
func syncedWith(ctx context.Context, dir, remote string) bool {
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "config", "--get", "remote.origin.url").Output()
	return err == nil && strings.TrimSpace(string(out)) == remote
}

func pushedNote(r syncgit.Result) string {
	switch {
	case r.Offline:
		return " (offline)"
	case r.Pushed && r.Attempts > 1:
		return fmt.Sprintf(" (pushed after %d attempts)", r.Attempts)
	}
	return ""
}
