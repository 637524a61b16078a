// Package syncgit moves memory between machines through a git remote the
// user names (docs/sync.md). Each machine appends the records it owes to
// its own file, events/<machine>.jsonl, in a clone under the memctl home,
// commits, merges what the others pushed and pushes: a plain fast-forward,
// never a force. As no two machines write the same file, a push that lost
// a race is settled by fetching and merging again. What the merged log
// says is then brought into the store (internal/bundle).
//
// It runs the real git binary; the remote can be anything git can push
// to (a bare repository on disk, ssh, https).
package syncgit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// git runs git in the clone.
type git struct {
	bin string
	dir string
	env []string
}

// gitError is a failed git command with what it printed.
type gitError struct {
	args   []string
	err    error
	stderr string
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 && len(msg) > 400 {
		msg = msg[i+1:]
	}
	if msg == "" {
		msg = e.err.Error()
	}
	return fmt.Sprintf("git %s: %s", e.args[0], msg)
}

func (e *gitError) Unwrap() error { return e.err }

// run runs git with args and returns its stdout.
func (g *git) run(ctx context.Context, args ...string) (string, error) {
	return g.runIn(ctx, nil, args...)
}

func (g *git) runIn(ctx context.Context, stdin []byte, args ...string) (string, error) {
	// Settings that keep a sync from waiting on a person or signing with
	// a key the user's config names (memctl runs from cron), and that
	// check a symbolic link the remote holds out as a plain file naming
	// its target, so nothing in the clone ever points outside it.
	full := append([]string{"-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null", "-c", "merge.ff=true", "-c", "core.symlinks=false"}, args...)
	cmd := exec.CommandContext(ctx, g.bin, full...)
	cmd.Dir = g.dir
	cmd.Env = g.env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return out.String(), &gitError{args: args, err: err, stderr: errb.String()}
	}
	return out.String(), nil
}

// environ is the environment git runs with: the caller's, less what would
// point it at another repository, with prompts off.
func environ(base []string) []string {
	var env []string
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_TERMINAL_PROMPT", "GIT_ASKPASS", "SSH_ASKPASS":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_TERMINAL_PROMPT=0", "GIT_SSH_COMMAND="+sshCommand(base))
}

// sshCommand keeps the user's ssh command but never lets it ask for a
// password: a cron job has nobody to answer.
func sshCommand(base []string) string {
	for _, kv := range base {
		if v, ok := strings.CutPrefix(kv, "GIT_SSH_COMMAND="); ok && v != "" {
			return v
		}
	}
	return "ssh -o BatchMode=yes"
}

// head is the commit checked out, "" before the first.
func (g *git) head(ctx context.Context) string {
	out, err := g.run(ctx, "rev-parse", "--verify", "-q", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// ref resolves a ref, "" when it does not exist.
func (g *git) ref(ctx context.Context, name string) string {
	out, err := g.run(ctx, "rev-parse", "--verify", "-q", name+"^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// isAncestor reports whether a is an ancestor of b (or a == b).
func (g *git) isAncestor(ctx context.Context, a, b string) bool {
	_, err := g.run(ctx, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// conflicted lists the unmerged paths of a merge in progress.
func (g *git) conflicted(ctx context.Context) []string {
	out, _ := g.run(ctx, "diff", "--name-only", "--diff-filter=U", "-z")
	var files []string
	for _, f := range strings.Split(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	return files
}

// stage returns a path's content at a merge stage (2 ours, 3 theirs);
// ok is false when that side has no such file.
func (g *git) stage(ctx context.Context, n int, path string) (string, bool) {
	out, err := g.run(ctx, "show", fmt.Sprintf(":%d:%s", n, path))
	return out, err == nil
}

// findGit locates the git binary.
func findGit(bin string) (string, error) {
	if bin == "" {
		bin = "git"
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("sync needs git: %w", err)
	}
	return p, nil
}

// ensureClone makes dir a git repository whose origin is remote.
func ensureClone(ctx context.Context, g *git, remote, branch, machine string) error {
	if err := os.MkdirAll(g.dir, 0o700); err != nil {
		return fmt.Errorf("create the sync clone %s: %w", g.dir, err)
	}
	if _, err := os.Stat(filepath.Join(g.dir, ".git")); errors.Is(err, os.ErrNotExist) {
		if _, err := g.run(ctx, "init", "-q"); err != nil {
			return err
		}
		if _, err := g.run(ctx, "symbolic-ref", "HEAD", "refs/heads/"+branch); err != nil {
			return err
		}
		if _, err := g.run(ctx, "remote", "add", "origin", remote); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	// memctl's commits are the machine's, whoever the user is.
	for _, kv := range [][2]string{{"user.name", "memctl on " + machine}, {"user.email", "memctl@" + machine + ".invalid"}} {
		if _, err := g.run(ctx, "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	cur, err := g.run(ctx, "remote", "get-url", "origin")
	if err != nil {
		_, err = g.run(ctx, "remote", "add", "origin", remote)
		return err
	}
	if strings.TrimSpace(cur) != remote {
		_, err = g.run(ctx, "remote", "set-url", "origin", remote)
	}
	return err
}
