package claude

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/sessions/internal/transcript"
)

// Discover yields the sessions under root: Claude Code's projects folder,
// one project folder, or Claude Code's config folder (~/.claude, what
// CLAUDE_CONFIG_DIR names), whose projects/ holds them. A project folder is
// never itself named projects: Claude Code names it after the absolute
// working directory, with a leading '-'.
func Discover(ctx context.Context, root string, fn func(transcript.File) error) error {
	if fi, err := os.Stat(filepath.Join(root, "projects")); err == nil && fi.IsDir() {
		root = filepath.Join(root, "projects")
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	// Links are followed only inside the folder read.
	real := transcript.RealRoot(root)
	rootIsProject := false
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			rootIsProject = true
			continue
		}
		if e.IsDir() {
			if err := claudeProject(ctx, filepath.Join(root, e.Name()), real, fn); err != nil {
				return err
			}
		}
	}
	if rootIsProject {
		return claudeProject(ctx, root, real, fn)
	}
	return nil
}

// claudeProject yields the sessions of one project folder with their
// sub-agent files attached. A file that is a link out of root is
// reported as skipped, never opened.
func claudeProject(ctx context.Context, dir, root string, fn func(transcript.File) error) error {
	ents, err := transcript.ReadSourceDir(ctx, dir, transcript.KindClaudeCode, fn)
	if err != nil {
		return err
	}
	sessions := map[string]*transcript.File{}
	var order []string
	var agents []string
	var skipped []string
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		p := filepath.Join(dir, name)
		// Only regular files are opened: a FIFO named like a transcript
		// would block the scan forever.
		info, err := transcript.RegularInfo(e, p, root)
		if errors.Is(err, transcript.ErrLinkOutside) {
			skipped = append(skipped, p)
			continue
		}
		if err != nil {
			continue
		}
		if strings.HasPrefix(name, "agent-") {
			agents = append(agents, p)
			continue
		}
		stem := strings.TrimSuffix(name, ".jsonl")
		sessions[stem] = &transcript.File{Kind: transcript.KindClaudeCode, Path: p, Size: info.Size(), ModTime: info.ModTime()}
		order = append(order, stem)
	}
	attach := func(f *transcript.File, p string) {
		st, err := transcript.LinkedInfo(p, root)
		if errors.Is(err, transcript.ErrLinkOutside) {
			skipped = append(skipped, p)
			return
		}
		if err != nil {
			return
		}
		f.Related = append(f.Related, p)
		f.Size += st.Size()
		if st.ModTime().After(f.ModTime) {
			f.ModTime = st.ModTime()
		}
	}
	for _, p := range agents {
		if f := sessions[firstLineSessionID(p)]; f != nil {
			attach(f, p)
		}
	}
	for _, stem := range order {
		sub := filepath.Join(dir, stem, "subagents")
		subs, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		for _, e := range subs {
			if n := e.Name(); !e.IsDir() && strings.HasPrefix(n, "agent-") && strings.HasSuffix(n, ".jsonl") {
				attach(sessions[stem], filepath.Join(sub, n))
			}
		}
	}
	for _, p := range skipped {
		if err := fn(transcript.File{Kind: transcript.KindClaudeCode, Path: p, Skipped: transcript.ErrLinkOutside}); err != nil {
			return err
		}
	}
	for _, stem := range order {
		if err := fn(*sessions[stem]); err != nil {
			return err
		}
	}
	return nil
}

// firstLineSessionID reads the sessionId of an old-layout agent file from
// its first line. Only the first 256 KiB are read: the envelope fields come
// before the message, and eachField reports complete fields even when the
// object is cut short.
func firstLineSessionID(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		buf = buf[:i]
	}
	return transcript.FieldString(buf, "sessionId")
}
