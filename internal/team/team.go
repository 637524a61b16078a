// Package team is the reviewed team layer (docs/team.md): memories a
// member chose to share, written as plain Markdown files into a folder of
// the repository (.memctl/ by default) and reviewed like any other change
// before they are committed. Every session in the project is then given
// them, ranked above the memory memctl inferred and below the
// repository's own rules files.
//
// Nothing is written without an explicit `memctl team propose`, a file
// that carries a secret or an instruction-shaped line is refused whole,
// and the same checks run again on read, since anyone can edit a file
// of the repository by hand.
package team

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/quarantine"
)

// Marker is the first front-matter key of a team file; a file without it
// is not memctl's and is left alone.
const Marker = "memctl_team: 1"

// Limits of what the read path takes from the folder, so that a folder
// grown by hand cannot crowd the summary or slow every turn.
const (
	MaxFiles     = 64
	MaxFileBytes = 16 << 10
)

// Entry is one team memory.
type Entry struct {
	ID      string `json:"id"`      // the raw memory it came from
	Title   string `json:"title"`   // its first line
	Author  string `json:"author"`  // who proposed it
	Session string `json:"session"` // the source session: thread id, agent, day
	Project string `json:"project"` // the project key
	Date    string `json:"date"`    // YYYY-MM-DD, when it was proposed
	Body    string `json:"body"`    // Markdown
	// File is the file's path relative to the team folder (read side).
	File string `json:"file,omitempty"`
}

// Render is the file of an entry: front matter, then the text.
func Render(e Entry) string {
	var b strings.Builder
	b.WriteString("---\n" + Marker + "\n")
	fmt.Fprintf(&b, "id: %s\n", oneLine(e.ID))
	fmt.Fprintf(&b, "author: %s\n", oneLine(e.Author))
	fmt.Fprintf(&b, "source_session: %s\n", oneLine(e.Session))
	fmt.Fprintf(&b, "project: %s\n", oneLine(e.Project))
	fmt.Fprintf(&b, "date: %s\n", oneLine(e.Date))
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "# %s\n\n", oneLine(e.Title))
	b.WriteString(strings.TrimSpace(e.Body))
	b.WriteString("\n")
	return b.String()
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Parse reads a team file; ok is false when it is not one.
func Parse(content string) (e Entry, ok bool) {
	rest, found := strings.CutPrefix(content, "---\n")
	if !found {
		return e, false
	}
	head, body, found := strings.Cut(rest, "\n---\n")
	if !found {
		return e, false
	}
	lines := strings.Split(head, "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != Marker {
		return e, false
	}
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ":")
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "id":
			e.ID = v
		case "author":
			e.Author = v
		case "source_session":
			e.Session = v
		case "project":
			e.Project = v
		case "date":
			e.Date = v
		}
	}
	body = strings.TrimSpace(body)
	if t, ok := strings.CutPrefix(body, "# "); ok {
		title, after, _ := strings.Cut(t, "\n")
		e.Title, body = strings.TrimSpace(title), strings.TrimSpace(after)
	}
	e.Body = body
	return e, true
}

// Title is what a memory's text is about: its front matter's
// description, else its first line that says something; cut to 80
// characters, without Markdown marks.
func Title(text string) string {
	if head, _, ok := frontMatter(text); ok {
		for _, l := range strings.Split(head, "\n") {
			if d, ok := strings.CutPrefix(strings.TrimSpace(l), "description:"); ok && strings.TrimSpace(d) != "" {
				d, _, _ = strings.Cut(strings.TrimSpace(d), " — outcome")
				return cut(d, 80)
			}
		}
	}
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#-*> "))
		if l == "" || strings.HasPrefix(l, "---") {
			continue
		}
		return cut(l, 80)
	}
	return "memory"
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// frontMatter splits a leading "---" block off text.
func frontMatter(text string) (head, body string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimLeft(text, "\n"), "---\n")
	if !found {
		return "", text, false
	}
	head, body, found = strings.Cut(rest, "\n---\n")
	if !found {
		return "", text, false
	}
	return head, body, true
}

// FileName is where an entry is written in the team folder: a slug of its
// title and the start of its id, both made safe for a path whatever text
// they came from.
func FileName(e Entry) string {
	return slug(e.Title, 50) + "-" + slug(e.ID, 8) + ".md"
}

func slug(s string, n int) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteRune(c)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
		if b.Len() >= n {
			break
		}
	}
	out := strings.Trim(b.String(), "-")
	if out == "" {
		return "memory"
	}
	return out
}

// RefusedError is a team file that cannot be shared: it carries a secret
// (Kind "secret", Rule the redaction rule) or an instruction-shaped line
// (Kind "instruction", Rule the quarantine reason). Nothing of it is
// written or injected.
type RefusedError struct {
	ID   string
	Kind string
	Rule string
	Line int // in the rendered file
}

func (e *RefusedError) Error() string {
	what := "a secret"
	if e.Kind == KindInstruction {
		what = "an instruction-shaped line"
	}
	return fmt.Sprintf("memory %s is refused whole: line %d of its team file holds %s (rule %s)", e.ID, e.Line, what, e.Rule)
}

// Kinds of refusal.
const (
	KindSecret      = "secret"
	KindInstruction = "instruction"
)

// Finder finds the first secret in a text (redact.Redactor.Find fits).
type Finder func(s string) (rule string, line int, found bool)

// Check refuses a rendered team file that carries a secret or a line the
// quarantine holds back whatever the session (an injection phrase, an
// exfiltration shape); nil when it is clean.
func Check(id, content string, find Finder) *RefusedError {
	if find != nil {
		if rule, line, found := find(content); found {
			return &RefusedError{ID: id, Kind: KindSecret, Rule: rule, Line: line}
		}
	}
	for i, l := range strings.Split(content, "\n") {
		if why := quarantine.Strong(l); why != "" {
			return &RefusedError{ID: id, Kind: KindInstruction, Rule: why, Line: i + 1}
		}
	}
	return nil
}

// Proposed is one file Propose wrote.
type Proposed struct {
	ID   string `json:"id"`
	File string `json:"file"` // relative to the repository's top folder
	// Replaced is the earlier file of the same memory it replaced.
	Replaced string `json:"replaced,omitempty"`
}

// Propose writes entries into dir (made if missing), one file each; an
// earlier file of the same memory is replaced. Every file is checked
// first: if one is refused, nothing is written and the error lists each
// refusal (a *RefusedError, or several joined). rel is how dir is named
// in the result (its path from the repository's top folder).
func Propose(dir, rel string, entries []Entry, find Finder) ([]Proposed, error) {
	var refused []error
	files := make([]string, len(entries))
	for i, e := range entries {
		files[i] = Render(e)
		if r := Check(e.ID, files[i], find); r != nil {
			refused = append(refused, r)
		}
	}
	if len(refused) > 0 {
		return nil, errors.Join(refused...)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the team folder %s: %w", dir, err)
	}
	existing, err := byID(dir)
	if err != nil {
		return nil, err
	}
	var out []Proposed
	for i, e := range entries {
		name := FileName(e)
		p := Proposed{ID: e.ID, File: filepath.ToSlash(filepath.Join(rel, name))}
		if err := memdir.WriteAtomic(filepath.Join(dir, name), []byte(files[i]), 0o644); err != nil {
			return out, err
		}
		if old, ok := existing[e.ID]; ok && old != name {
			if err := os.Remove(filepath.Join(dir, old)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return out, err
			}
			p.Replaced = filepath.ToSlash(filepath.Join(rel, old))
		}
		out = append(out, p)
	}
	return out, nil
}

// byID maps the memory id of each team file in dir to its file name.
func byID(dir string) (map[string]string, error) {
	out := map[string]string{}
	names, err := mdFiles(dir)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil || len(b) > MaxFileBytes {
			continue
		}
		if e, ok := Parse(string(b)); ok && e.ID != "" {
			out[e.ID] = n
		}
	}
	return out, nil
}

func mdFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".md") && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// Dropped is a team file the read path left out, and why.
type Dropped struct {
	File   string `json:"file"`
	Reason string `json:"reason"` // secret | too_large | not_a_team_file | too_many
}

// States of a team file that waits for review instead of being injected.
const (
	// StateUntracked: git does not track the file; StateModified: it
	// differs from what HEAD committed (or git could not tell). Only a
	// commit makes either team memory.
	StateUntracked = "untracked"
	StateModified  = "modified"
	// StateHeld: committed, but a line of it is one the quarantine holds
	// in text from an untrusted origin; the user's approval of its bytes
	// lets it in.
	StateHeld = "held"
)

// Waiting is a team file that waits: a proposal not committed yet, or a
// committed file the quarantine held. It is never injected as it is.
type Waiting struct {
	File    string            `json:"file"`
	State   string            `json:"state"`
	Reasons []quarantine.Item `json:"reasons,omitempty"`
	// Hash is what the user's approval of the file records
	// (reviewdir.TeamHash of its bytes).
	Hash string `json:"hash"`
	Text string `json:"-"`
}

// Layer is what the read path takes from a team folder.
type Layer struct {
	Entries []Entry
	Dropped []Dropped
	Waiting []Waiting
}

// LoadOptions say how the read path checks a team folder.
type LoadOptions struct {
	Dir string
	// Redact finds secrets: a file it changes is left out whole.
	Redact func(string) string
	// Committed holds the git blob id HEAD has for each file of Dir, by
	// file name (CommittedFiles); a file missing from it, or whose bytes
	// differ, is not team memory.
	Committed map[string]string
	// Approved reports the user's approval of a held file's bytes (by
	// Hash); nil approves nothing. It is asked only when a file is held.
	Approved func(hash string) bool
	// Hash is how the bytes of a file are named for an approval.
	Hash func([]byte) string
}

// Load reads the team folder for the read path. Team memory is what the
// repository committed: a file git does not track, or one that differs
// from HEAD, waits as a proposal. A committed file is checked again (a
// secret: left out whole; a line the quarantine holds in untrusted text:
// held until the user approves its bytes). Files over MaxFileBytes and
// past MaxFiles are left out, and so are Markdown files that are not
// team files. A missing folder is an empty layer.
func Load(o LoadOptions) (Layer, error) {
	var l Layer
	names, err := mdFiles(o.Dir)
	if err != nil {
		return l, err
	}
	type file struct {
		name, text string
		e          Entry
	}
	var files []file
	for i, n := range names {
		if i == MaxFiles {
			l.Dropped = append(l.Dropped, Dropped{File: n, Reason: "too_many"})
			continue
		}
		path := filepath.Join(o.Dir, n)
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if fi.Size() > MaxFileBytes {
			l.Dropped = append(l.Dropped, Dropped{File: n, Reason: "too_large"})
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		e, ok := Parse(string(b))
		if !ok {
			l.Dropped = append(l.Dropped, Dropped{File: n, Reason: "not_a_team_file"})
			continue
		}
		reasons := quarantine.Hold(n, string(b))
		hash := ""
		if o.Hash != nil {
			hash = o.Hash(b)
		}
		if blob, tracked := o.Committed[n]; !tracked || blob != GitBlobID(b) {
			state := StateUntracked
			if tracked {
				state = StateModified
			}
			l.Waiting = append(l.Waiting, Waiting{File: n, State: state, Reasons: reasons, Hash: hash, Text: string(b)})
			continue
		}
		if len(reasons) > 0 && (o.Approved == nil || !o.Approved(hash)) {
			l.Waiting = append(l.Waiting, Waiting{File: n, State: StateHeld, Reasons: reasons, Hash: hash, Text: string(b)})
			continue
		}
		files = append(files, file{name: n, text: string(b), e: e})
	}
	// One redaction of every file at once is the common case (all clean);
	// only when it finds something is each file redacted alone.
	each := false
	if o.Redact != nil {
		all := make([]string, len(files))
		for i, f := range files {
			all[i] = f.text
		}
		joined := strings.Join(all, "\n")
		each = o.Redact(joined) != joined
	}
	for _, f := range files {
		if each && o.Redact(f.text) != f.text {
			l.Dropped = append(l.Dropped, Dropped{File: f.name, Reason: KindSecret})
			continue
		}
		f.e.File = f.name
		l.Entries = append(l.Entries, f.e)
	}
	return l, nil
}

// GitBlobID is the id git gives a file of these bytes (the SHA-1 of its
// blob object), to compare a file on disk with what HEAD committed
// without asking git about the working tree.
func GitBlobID(b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// CommittedFiles asks git which files of the team folder dir HEAD holds
// in the repository whose top folder is top: their blob ids, by file
// name. Only `git ls-tree` runs, which reads objects and runs no hook or
// filter of the repository; a folder outside the repository, a
// repository without a commit, or no git, commits nothing.
func CommittedFiles(ctx context.Context, top, dir string) (map[string]string, error) {
	rel, err := filepath.Rel(top, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return map[string]string{}, nil
	}
	c := exec.CommandContext(ctx, "git", "-C", top, "-c", "core.fsmonitor=false", "ls-tree", "-z", "--full-tree", "HEAD", "--", filepath.ToSlash(rel)+"/")
	c.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	out, err := c.Output()
	if err != nil {
		return map[string]string{}, fmt.Errorf("git ls-tree in %s: %w", top, err)
	}
	files := map[string]string{}
	for _, rec := range strings.Split(string(out), "\x00") {
		// "<mode> blob <id>\t<path>"
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" || !strings.HasPrefix(f[0], "100") {
			continue
		}
		if path.Dir(p) == filepath.ToSlash(rel) {
			files[path.Base(p)] = f[2]
		}
	}
	return files, nil
}

// Section renders the layer for the summary, with what it ranks above and
// below; "" when it has no entry. rel names the folder in the repository.
func (l Layer) Section(rel string) string {
	if len(l.Entries) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Team memory (reviewed, committed in this repository)\n\n")
	fmt.Fprintf(&b, "Your team reviewed these notes and committed them under %s/ in this repository. "+
		"They rank above the personal and project memory below, which memctl inferred from past sessions. "+
		"The repository's own rules files (AGENTS.md, CLAUDE.md) rank above them: where the two disagree, follow the rules files.\n", rel)
	for _, e := range l.Entries {
		fmt.Fprintf(&b, "\n### %s\n\n%s\n\n(%s, %s; %s/%s)\n", oneLine(e.Title), strings.TrimSpace(e.Body), oneLine(e.Author), oneLine(e.Date), rel, e.File)
	}
	return strings.TrimRight(b.String(), "\n")
}
