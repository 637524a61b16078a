package syncgit

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/bundle"
	"github.com/memctl/memctl/internal/memdir"
)

// LogFormat names a machine's log in its header record.
const LogFormat = "memctl-sync-log"

// EventsDir is the folder of the machines' logs in the sync repository.
const EventsDir = "events"

// Conflict policies of a merge that git cannot do alone.
const (
	// ConflictFail: stop, change nothing, exit with the documented code.
	ConflictFail = "fail"
	// ConflictUnion: keep every record of both sides of a log file (the
	// records are idempotent, so their union is always a valid log).
	ConflictUnion = "union"
)

// ConflictPolicies lists the values of --conflict.
var ConflictPolicies = []string{ConflictFail, ConflictUnion}

// DivergedError is a remote whose history cannot be merged with this
// machine's without a conflict: a log file was changed on both sides
// (someone edited or rewrote it, or another machine uses this one's id).
// Nothing was changed: not the clone, not the remote, not the store.
type DivergedError struct {
	Remote string
	Branch string
	Files  []string
	Why    string
}

func (e *DivergedError) Error() string {
	return fmt.Sprintf("the sync remote %s (branch %s) has diverged from this machine's log and cannot be merged cleanly: %s (%s); nothing was changed",
		e.Remote, e.Branch, e.Why, strings.Join(e.Files, ", "))
}

// Options configures one sync.
type Options struct {
	// Dir is the local clone, under the memctl home.
	Dir     string
	Remote  string
	Branch  string // "" = main
	Machine string
	// Conflict is ConflictFail ("" too) or ConflictUnion.
	Conflict string
	// Env is the environment git runs with (nil: the process's).
	Env []string
	// Git is the git binary ("" = git on the PATH).
	Git string
	// Attempts bounds the push attempts when other machines keep pushing
	// first (0: 10).
	Attempts int
	Now      func() time.Time
	// Outgoing lists the records this machine owes the log, given the log
	// as this clone has it.
	Outgoing func(ctx context.Context, log *bundle.State) ([]bundle.Record, error)
	// Apply brings the store to what the merged log says.
	Apply func(ctx context.Context, log *bundle.State) error
	// Pause waits between push attempts (nil: a short random sleep, so
	// machines that keep colliding drift apart).
	Pause func(ctx context.Context, attempt int)
}

// Result is what one sync did.
type Result struct {
	Remote  string `json:"remote"`
	Branch  string `json:"branch"`
	Machine string `json:"machine"`
	// Sent counts the records this run appended to this machine's log.
	Sent int `json:"sent"`
	// Received counts the records of other machines that reached the
	// clone in this run.
	Received int `json:"received"`
	// Pushed: the remote now has every commit of the clone.
	Pushed bool `json:"pushed"`
	// Offline: the remote could not be reached; what was sent waits in
	// the clone (Queued commits) for the next sync.
	Offline       bool   `json:"offline"`
	OfflineReason string `json:"offline_reason,omitempty"`
	Queued        int    `json:"queued"`
	Attempts      int    `json:"attempts"`
	// Union lists the log files a --conflict=union merge settled.
	Union []string `json:"union_merged,omitempty"`
	// SetAside lists the lines of the logs that were not taken in (not a
	// record, too long, a type this version does not know, a file that is
	// a symbolic link): each is left in its log as it is, and every other
	// record is synced.
	SetAside []bundle.SetAside `json:"set_aside,omitempty"`
}

// Run syncs once: fetch and merge what the others pushed, append and
// commit what this machine owes, push (merging again while another
// machine pushed first), and apply the merged log. It never force-pushes
// and never rewrites a commit the remote has. With ConflictFail a merge
// git cannot settle is a *DivergedError and leaves everything as it was.
// An unreachable remote is not an error: the records wait in the clone.
func Run(ctx context.Context, opts Options) (Result, error) {
	if opts.Branch == "" {
		opts.Branch = "main"
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 10
	}
	res := Result{Remote: opts.Remote, Branch: opts.Branch, Machine: opts.Machine}
	bin, err := findGit(opts.Git)
	if err != nil {
		return res, err
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	g := &git{bin: bin, dir: opts.Dir, env: environ(env)}
	if err := ensureClone(ctx, g, opts.Remote, opts.Branch, opts.Machine); err != nil {
		return res, err
	}
	s := &syncer{g: g, opts: opts, res: &res, start: g.head(ctx)}
	// A sync killed halfway may have left a merge or records not yet
	// committed: drop them. The records are not lost: the store has not
	// recorded them as agreed, so this sync writes them again.
	_, _ = g.run(ctx, "merge", "--abort")
	if s.start != "" {
		if _, err := g.run(ctx, "reset", "-q", "--hard", s.start); err != nil {
			return res, err
		}
	}
	before, err := s.countOthers()
	if err != nil {
		return res, err
	}
	online := s.fetch(ctx)
	if online {
		if err := s.integrate(ctx); err != nil {
			return res, s.undo(ctx, err)
		}
	}
	log, err := s.readLog()
	if err != nil {
		return res, err
	}
	recs, err := opts.Outgoing(ctx, bundle.Fold(log))
	if err != nil {
		return res, s.undo(ctx, err)
	}
	if err := s.commit(ctx, recs); err != nil {
		return res, s.undo(ctx, err)
	}
	res.Sent = len(recs)
	if online {
		if err := s.push(ctx); err != nil {
			var de *DivergedError
			if errors.As(err, &de) {
				return res, s.undo(ctx, err)
			}
			return res, err // the records stay committed in the clone
		}
	}
	log, err = s.readLog()
	if err != nil {
		return res, err
	}
	after, err := s.countOthers()
	if err != nil {
		return res, err
	}
	res.Received = max(0, after-before)
	res.Queued = s.queued(ctx)
	if err := opts.Apply(ctx, bundle.Fold(log)); err != nil {
		return res, err
	}
	return res, nil
}

type syncer struct {
	g     *git
	opts  Options
	res   *Result
	start string // HEAD before this sync ("" for a new clone)
}

func (s *syncer) ownFile() string { return EventsDir + "/" + s.opts.Machine + ".jsonl" }

func (s *syncer) remoteRef() string { return "refs/remotes/origin/" + s.opts.Branch }

// fetch updates the remote-tracking ref; false when the remote cannot be
// reached (the reason goes into the result).
func (s *syncer) fetch(ctx context.Context) bool {
	if _, err := s.g.run(ctx, "fetch", "-q", "--prune", "origin"); err != nil {
		if ctx.Err() != nil {
			return false
		}
		s.res.Offline, s.res.OfflineReason = true, err.Error()
		return false
	}
	return true
}

// undo puts the clone back where this sync found it, when err means the
// sync must change nothing (a divergence) or could not finish.
func (s *syncer) undo(ctx context.Context, err error) error {
	ctx = context.WithoutCancel(ctx)
	_, _ = s.g.run(ctx, "merge", "--abort")
	if s.start != "" {
		if _, rerr := s.g.run(ctx, "reset", "-q", "--hard", s.start); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	// A new clone: back to no commit at all.
	_, _ = s.g.run(ctx, "update-ref", "-d", "refs/heads/"+s.opts.Branch)
	_, _ = s.g.run(ctx, "read-tree", "--empty")
	_ = os.RemoveAll(filepath.Join(s.opts.Dir, EventsDir))
	return err
}

// integrate merges the remote branch into the clone.
func (s *syncer) integrate(ctx context.Context) error {
	theirs := s.g.ref(ctx, s.remoteRef())
	if theirs == "" {
		return nil // an empty remote: the first push creates the branch
	}
	ours := s.g.head(ctx)
	if ours == "" {
		if _, err := s.g.run(ctx, "update-ref", "refs/heads/"+s.opts.Branch, theirs); err != nil {
			return err
		}
		_, err := s.g.run(ctx, "reset", "-q", "--hard", theirs)
		return err
	}
	if s.g.isAncestor(ctx, theirs, ours) {
		return nil
	}
	own, _ := s.g.run(ctx, "show", ours+":"+s.ownFile())
	if s.g.isAncestor(ctx, ours, theirs) {
		if _, err := s.g.run(ctx, "merge", "-q", "--ff-only", theirs); err != nil {
			return err
		}
	} else if _, err := s.g.run(ctx, "merge", "-q", "--no-edit", "--allow-unrelated-histories",
		"-m", "memctl sync: merge "+s.opts.Branch+" on "+s.opts.Machine, theirs); err != nil {
		files := s.g.conflicted(ctx)
		if len(files) == 0 {
			return err
		}
		if !s.union() || !allLogs(files) {
			return &DivergedError{Remote: s.opts.Remote, Branch: s.opts.Branch, Files: files, Why: "a log file changed on both sides"}
		}
		if err := s.settleUnion(ctx, files); err != nil {
			return err
		}
	}
	// The remote must still hold every record this machine wrote: a log
	// rewritten there (history edited and force-pushed by someone) merges
	// without a conflict when this machine wrote nothing since.
	now, _ := s.readFile(s.ownFile()) // a symbolic link reads as no log at all
	if own != "" && !strings.HasPrefix(string(now), own) {
		if !s.union() {
			return &DivergedError{Remote: s.opts.Remote, Branch: s.opts.Branch, Files: []string{s.ownFile()}, Why: "the remote rewrote this machine's log"}
		}
		if err := s.writeLog(ctx, s.ownFile(), unionLines(own, string(now))); err != nil {
			return err
		}
		if err := s.commitAll(ctx, "memctl sync: restore the records of "+s.opts.Machine+" the remote lost"); err != nil {
			return err
		}
		s.res.Union = append(s.res.Union, s.ownFile())
	}
	return nil
}

func (s *syncer) union() bool { return s.opts.Conflict == ConflictUnion }

func allLogs(files []string) bool {
	for _, f := range files {
		if !strings.HasPrefix(f, EventsDir+"/") || !strings.HasSuffix(f, ".jsonl") {
			return false
		}
	}
	return true
}

// settleUnion resolves each conflicted log with the union of both sides'
// lines and concludes the merge.
func (s *syncer) settleUnion(ctx context.Context, files []string) error {
	for _, f := range files {
		ours, _ := s.g.stage(ctx, 2, f)
		theirs, _ := s.g.stage(ctx, 3, f)
		if err := s.writeLog(ctx, f, unionLines(ours, theirs)); err != nil {
			return err
		}
		if _, err := s.g.run(ctx, "add", "--", f); err != nil {
			return err
		}
		s.res.Union = append(s.res.Union, f)
	}
	_, err := s.g.run(ctx, "commit", "-q", "--no-edit", "-m", "memctl sync: merge "+s.opts.Branch+" on "+s.opts.Machine+" (union of "+strings.Join(files, ", ")+")")
	return err
}

// unionLines keeps every line of a, then the lines of b that a lacks.
func unionLines(a, b string) string {
	seen := map[string]bool{}
	var out strings.Builder
	for _, text := range []string{a, b} {
		for _, l := range strings.Split(text, "\n") {
			if strings.TrimSpace(l) == "" || seen[l] {
				continue
			}
			seen[l] = true
			out.WriteString(l)
			out.WriteByte('\n')
		}
	}
	return out.String()
}

// writeLog replaces a log file of the clone atomically, as a plain file:
// a path the remote made a symbolic link keeps that mode in git's index
// (core.symlinks=false checks it out as a file), so it leaves the index
// first and is added back as the file it now is.
func (s *syncer) writeLog(ctx context.Context, rel, content string) error {
	path := filepath.Join(s.opts.Dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if err := memdir.WriteAtomic(path, []byte(content), 0o600); err != nil {
		return err
	}
	staged, err := s.g.run(ctx, "ls-files", "-s", "--", rel)
	if err != nil {
		return err
	}
	for _, l := range strings.Split(staged, "\n") {
		if strings.HasPrefix(l, "120000 ") {
			_, err = s.g.run(ctx, "rm", "-q", "--cached", "--", rel)
			return err
		}
	}
	return nil
}

func (s *syncer) commitAll(ctx context.Context, msg string) error {
	if _, err := s.g.run(ctx, "add", "-A", "--", EventsDir); err != nil {
		return err
	}
	_, err := s.g.run(ctx, "commit", "-q", "-m", msg)
	return err
}

// commit appends recs to this machine's log and commits it.
func (s *syncer) commit(ctx context.Context, recs []bundle.Record) error {
	if len(recs) == 0 {
		return nil
	}
	old, err := s.readFile(s.ownFile())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var b bytes.Buffer
	b.Write(old)
	if len(old) > 0 && old[len(old)-1] != '\n' {
		b.WriteByte('\n')
	}
	if len(old) == 0 {
		b.WriteString(bundle.Line(bundle.Record{Type: bundle.TypeHeader, Format: LogFormat, Schema: bundle.Schema, Machine: s.opts.Machine,
			Description: "memctl sync log of one machine: JSON Lines, appended to by that machine only (docs/sync.md)"}))
	}
	for _, r := range recs {
		b.WriteString(bundle.Line(r))
	}
	if err := s.writeLog(ctx, s.ownFile(), b.String()); err != nil {
		return err
	}
	return s.commitAll(ctx, fmt.Sprintf("memctl sync: %d record(s) from %s", len(recs), s.opts.Machine))
}

// push pushes the clone's branch, merging again each time another machine
// pushed first. Never a force push: the remote only moves forward.
func (s *syncer) push(ctx context.Context) error {
	for attempt := 1; ; attempt++ {
		head := s.g.head(ctx)
		theirs := s.g.ref(ctx, s.remoteRef())
		if head == "" || theirs != "" && s.g.isAncestor(ctx, head, theirs) {
			s.res.Pushed = true
			return nil // the remote has everything
		}
		s.res.Attempts = attempt
		_, err := s.g.run(ctx, "push", "-q", "origin", "HEAD:refs/heads/"+s.opts.Branch)
		if err == nil {
			_, _ = s.g.run(ctx, "update-ref", s.remoteRef(), head)
			s.res.Pushed = true
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !rejected(err) {
			s.res.Offline, s.res.OfflineReason = true, err.Error()
			return nil
		}
		if attempt >= s.opts.Attempts {
			return fmt.Errorf("the sync remote %s kept moving: %d pushes lost the race to other machines; the records are committed in the clone and go with the next sync", s.opts.Remote, attempt)
		}
		s.pause(ctx, attempt)
		if !s.fetch(ctx) {
			return nil
		}
		if err := s.integrate(ctx); err != nil {
			return err
		}
	}
}

// rejected tells a push that lost a race (retry after a merge) from one
// that could not reach the remote.
func rejected(err error) bool {
	var ge *gitError
	if !errors.As(err, &ge) {
		return false
	}
	m := strings.ToLower(ge.stderr)
	for _, s := range []string{"non-fast-forward", "fetch first", "[rejected]", "failed to update ref", "cannot lock ref", "incorrect old value"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

func (s *syncer) pause(ctx context.Context, attempt int) {
	if s.opts.Pause != nil {
		s.opts.Pause(ctx, attempt)
		return
	}
	n, _ := rand.Int(rand.Reader, big.NewInt(int64(50*attempt)))
	t := time.NewTimer(time.Duration(20+n.Int64()) * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// queued counts the commits of the clone the remote does not have.
func (s *syncer) queued(ctx context.Context) int {
	if s.g.head(ctx) == "" {
		return 0
	}
	rng := "HEAD"
	if s.g.ref(ctx, s.remoteRef()) != "" {
		rng = s.remoteRef() + "..HEAD"
	}
	out, err := s.g.run(ctx, "rev-list", "--count", rng)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(out))
	return n
}

// logFiles lists the machines' logs in the clone's work tree: every
// *.jsonl entry of events/, symbolic links included (readLog sets them
// aside, naming them, rather than follow them).
func (s *syncer) logFiles() ([]string, error) {
	dir := filepath.Join(s.opts.Dir, EventsDir)
	if fi, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s in the sync clone is not a folder (a symbolic link or a file the remote put there); memctl does not follow it", EventsDir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			out = append(out, EventsDir+"/"+e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// errNotRegular is a log path in the clone that is not a plain file.
var errNotRegular = errors.New("not a regular file (a symbolic link?): memctl does not follow it")

// readFile reads a file of the clone without following a symbolic link:
// a link the remote planted must not carry another file's content into a
// log. git runs with core.symlinks=false, so it checks a link out as a
// plain file holding the link's target; this guards a clone checked out
// before that.
func (s *syncer) readFile(rel string) ([]byte, error) {
	f, err := s.openFile(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// openFile opens a file of the clone for reading, refusing a symbolic
// link (see readFile).
func (s *syncer) openFile(rel string) (*os.File, error) {
	path := filepath.Join(s.opts.Dir, filepath.FromSlash(rel))
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", rel, errNotRegular)
	}
	return os.Open(path)
}

// readLog reads every machine's log. A line that cannot be taken in (not
// a record, too long, an unknown type) is set aside in the result with a
// reason, and so is a whole log that is not a plain file, names another
// format or was written by a newer schema: none of them stops the rest.
// The lines stay in their logs as they are, so a newer memctl still finds
// them.
func (s *syncer) readLog() ([]bundle.Record, error) {
	files, err := s.logFiles()
	if err != nil {
		return nil, err
	}
	s.res.SetAside = nil // each read reports the logs as they are now
	var all []bundle.Record
	for _, rel := range files {
		f, err := s.openFile(rel)
		if errors.Is(err, errNotRegular) {
			s.res.SetAside = append(s.res.SetAside, bundle.SetAside{File: rel, Reason: errNotRegular.Error()})
			continue
		}
		if err != nil {
			return nil, err
		}
		// Streamed: a log of any size is read a line (at most 4 MiB) at
		// a time.
		recs, aside, err := bundle.ReadLenient(f, rel)
		f.Close()
		if err != nil {
			return nil, err
		}
		if whole, ok := wholeLogAside(rel, recs, aside); ok {
			s.res.SetAside = append(s.res.SetAside, whole)
			continue
		}
		s.res.SetAside = append(s.res.SetAside, capAside(rel, aside)...)
		for _, r := range recs {
			if r.Type != bundle.TypeHeader {
				all = append(all, r)
			}
		}
	}
	return all, nil
}

// maxAsidePerLog bounds the lines of one log listed as set aside; a log
// of garbage is reported in one more entry, not line by line.
const maxAsidePerLog = 20

func capAside(rel string, aside []bundle.SetAside) []bundle.SetAside {
	if len(aside) <= maxAsidePerLog {
		return aside
	}
	rest := aside[maxAsidePerLog:]
	return append(aside[:maxAsidePerLog:maxAsidePerLog], bundle.SetAside{File: rel, Line: rest[0].Line,
		Reason: fmt.Sprintf("and %d more lines of this log, from this one on, set aside", len(rest))})
}

// wholeLogAside says whether a log must be set aside whole: its header
// names another format, or a schema newer than this memctl reads (its
// records may mean something this version cannot tell).
func wholeLogAside(rel string, recs []bundle.Record, aside []bundle.SetAside) (bundle.SetAside, bool) {
	for _, a := range aside {
		if a.TooNew() {
			return bundle.SetAside{File: rel, Reason: fmt.Sprintf("line %d: %s; the whole log is left for a newer memctl", a.Line, a.Reason)}, true
		}
	}
	for _, r := range recs {
		if r.Type == bundle.TypeHeader && r.Format != LogFormat {
			return bundle.SetAside{File: rel, Reason: "not a memctl sync log: its header names format " + bundle.QuoteShort(r.Format)}, true
		}
	}
	return bundle.SetAside{}, false
}

// countOthers counts the record lines of the other machines' logs.
func (s *syncer) countOthers() (int, error) {
	files, err := s.logFiles()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, rel := range files {
		if rel == s.ownFile() {
			continue
		}
		f, err := s.openFile(rel)
		if errors.Is(err, errNotRegular) {
			continue
		}
		if err != nil {
			return 0, err
		}
		lines, err := countLines(f)
		f.Close()
		if err != nil {
			return 0, err
		}
		n += max(0, lines-1) // the header
	}
	return n, nil
}

// countLines counts the newlines of r without holding it.
func countLines(r io.Reader) (int, error) {
	buf := make([]byte, 64<<10)
	n := 0
	for {
		k, err := r.Read(buf)
		n += bytes.Count(buf[:k], []byte("\n"))
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// MachineID returns this home's machine id, kept in file; the first call
// makes one from the host name and random digits. The id names this
// machine's log in the sync repository, so it is made of [a-z0-9-] only.
func MachineID(file string, hostname func() (string, error)) (string, error) {
	if b, err := os.ReadFile(file); err == nil {
		id := strings.TrimSpace(string(b))
		if ValidMachineID(id) {
			return id, nil
		}
		return "", fmt.Errorf("%s: %q is not a machine id (want 1 to 64 of a-z, 0-9 and '-')", file, id)
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	host := "machine"
	if hostname != nil {
		if h, err := hostname(); err == nil {
			host = h
		}
	}
	var clean strings.Builder
	for _, c := range strings.ToLower(host) {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			clean.WriteRune(c)
		case clean.Len() > 0 && !strings.HasSuffix(clean.String(), "-"):
			clean.WriteByte('-')
		}
		if clean.Len() >= 40 {
			break
		}
	}
	name := strings.Trim(clean.String(), "-")
	if name == "" {
		name = "machine"
	}
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	id := name + "-" + hex.EncodeToString(rnd[:])
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", err
	}
	if err := memdir.WriteAtomic(file, []byte(id+"\n"), 0o600); err != nil {
		return "", err
	}
	return id, nil
}

// ValidMachineID reports whether id can name a machine's log.
func ValidMachineID(id string) bool {
	if id == "" || len(id) > 64 || id[0] == '-' {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
