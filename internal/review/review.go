// Package review is the queue of memory that waits for the user: notes
// an agent proposed over MCP, and memories and notes from another
// machine or a bundle that the quarantine's untrusted rules held
// (docs/security.md). Nothing in the queue reaches the memory folder,
// the database or a summary until the user approves it; a rejected item
// is deleted. Team files of a repository are reviewed where they are
// (internal/team): the queue keeps only the user's approvals of them.
//
// The queue is a folder of small JSON files beside the memory folder,
// <home>/review/<memory folder's name>/, one per held item, named by its
// id. summary counts them with one directory read and opens no database;
// an agent working in the memory folder (the agent consolidator, the MCP
// tools) never sees them.
package review

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/bundle"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memfs"
	"github.com/memctl/memctl/internal/origin"
	"github.com/memctl/memctl/internal/quarantine"
	"github.com/memctl/memctl/internal/reviewdir"
	"github.com/memctl/memctl/internal/store"
)

// Kinds of held items. Team files are reviewed where they lie (see
// team.go); the queue holds notes and memories.
const (
	KindNote   = "note"
	KindMemory = "memory"
	KindTeam   = "team"
)

// Item is one held item.
type Item struct {
	// ID is the kind and a hash of what was held: holding the same text
	// from the same origin again finds the same item.
	ID     string        `json:"id"`
	Kind   string        `json:"kind"`
	Origin origin.Origin `json:"origin"`
	HeldAt time.Time     `json:"held_at"`
	// Reasons are the lines the quarantine held; none for a proposal held
	// for its origin alone (an agent's note).
	Reasons []quarantine.Item `json:"reasons"`
	Note    *Note             `json:"note,omitempty"`
	Memory  *Memory           `json:"memory,omitempty"`
}

// Note is a held note: its file name and text as they would be written
// (the project line first, when it has one).
type Note struct {
	Name    string `json:"name"`
	Content string `json:"content"`
}

// Memory is a held raw memory: its id, the record as it would be stored,
// and the label its thread row would get (the machine, the bundle).
type Memory struct {
	ID     string         `json:"id"`
	Source string         `json:"source"`
	Record *bundle.Memory `json:"record"`
}

// Text is what the item would add, for the reader: a note's text, a
// memory's raw memory and rollout summary.
func (it Item) Text() string {
	switch {
	case it.Note != nil:
		return it.Note.Content
	case it.Memory != nil && it.Memory.Record != nil:
		r := it.Memory.Record
		if strings.TrimSpace(r.RawMemory) == "" {
			return r.RolloutSummary
		}
		if strings.TrimSpace(r.RolloutSummary) == "" {
			return r.RawMemory
		}
		return r.RawMemory + "\n\n" + r.RolloutSummary
	}
	return ""
}

// Subject names what the item is: a note's file name, a memory's id.
func (it Item) Subject() string {
	switch {
	case it.Note != nil:
		return it.Note.Name
	case it.Memory != nil:
		return it.Memory.ID
	}
	return ""
}

// Queue is the review folder of one memory folder.
type Queue struct {
	dir string
	now func() time.Time
}

// Open returns the queue of the memory folder root; nothing is created
// until an item is held.
func Open(root string, now func() time.Time) *Queue {
	if now == nil {
		now = time.Now
	}
	return &Queue{dir: reviewdir.Dir(root), now: now}
}

// idOf is the item's id: its kind and the first 12 hex digits of a hash
// of its origin kind, subject and text.
func idOf(it Item) string {
	h := sha256.Sum256([]byte(it.Kind + "\x00" + string(it.Origin.Kind) + "\x00" + it.Subject() + "\x00" + it.Text()))
	return it.Kind + "-" + hex.EncodeToString(h[:6])
}

// Hold puts it in the queue and returns it with its id and time. An item
// already held (the same text, subject and origin) stays as it was, with
// its first time: importing a bundle twice holds its items once.
func (q *Queue) Hold(it Item) (Item, error) {
	if it.Note == nil && it.Memory == nil {
		return it, errors.New("review: an item holds a note or a memory")
	}
	it.ID = idOf(it)
	if it.Reasons == nil {
		it.Reasons = []quarantine.Item{}
	}
	path := filepath.Join(q.dir, it.ID+".json")
	if old, err := readItem(path); err == nil {
		return old, nil
	}
	it.HeldAt = q.now().UTC().Truncate(time.Second)
	if err := os.MkdirAll(q.dir, 0o700); err != nil {
		return it, fmt.Errorf("review: %w", err)
	}
	b, err := json.MarshalIndent(it, "", "  ")
	if err != nil {
		return it, err
	}
	if err := memdir.WriteAtomic(path, append(b, '\n'), 0o600); err != nil {
		return it, fmt.Errorf("review: hold %s: %w", it.ID, err)
	}
	return it, nil
}

func readItem(path string) (Item, error) {
	var it Item
	b, err := os.ReadFile(path)
	if err != nil {
		return it, err
	}
	if err := json.Unmarshal(b, &it); err != nil {
		return it, fmt.Errorf("review: %s: %w", path, err)
	}
	return it, nil
}

// List returns the held items, oldest first (then by id). A file that is
// not an item is reported, not skipped: a queue that cannot be read
// must not look empty.
func (q *Queue) List() ([]Item, error) {
	ents, err := os.ReadDir(q.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("review: %w", err)
	}
	var out []Item
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		it, err := readItem(filepath.Join(q.dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].HeldAt.Equal(out[j].HeldAt) {
			return out[i].HeldAt.Before(out[j].HeldAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// NoteWaiting reports a held note of that file name.
func (q *Queue) NoteWaiting(name string) (bool, error) {
	items, err := q.List()
	for _, it := range items {
		if it.Note != nil && it.Note.Name == name {
			return true, err
		}
	}
	return false, err
}

// Remove deletes a held item (rejected, or approved and stored).
func (q *Queue) Remove(id string) error {
	err := os.Remove(filepath.Join(q.dir, id+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Store is what approving an item needs of the store.
type Store interface {
	ImportMemory(ctx context.Context, m store.PortableMemory, source string) (store.ImportOutcome, error)
	RequestConsolidation(ctx context.Context, reason string, regenerate bool) error
}

// Approved says what approving an item did.
type Approved struct {
	ID string `json:"id"`
	// Path is where an approved note was written (relative to the memory
	// folder); Stored, whether an approved memory was stored (a memory
	// forgotten here since stays forgotten).
	Path   string `json:"path,omitempty"`
	Stored bool   `json:"stored,omitempty"`
	// Removed counts lines taken out even now: the rules every text
	// passes (an order to an AI, a command that sends secrets away) hold
	// whatever the user approves.
	Removed int `json:"removed_lines,omitempty"`
}

// Approve stores an item into root and st as if it had been let in at
// once, and removes it from the queue. Its text loses only the lines
// quarantine.Strong holds in any text; the untrusted rules it was held
// for are what the user's approval lifts. A note lands with its origin
// line; a memory with its origin.
func (q *Queue) Approve(ctx context.Context, it Item, root string, st Store) (Approved, error) {
	res := Approved{ID: it.ID}
	switch {
	case it.Note != nil:
		content, n := quarantine.Scrub(it.Note.Content)
		res.Removed = n
		rel, err := memfs.AddNote(root, it.Note.Name, origin.WithNoteOrigin(content, it.Origin))
		switch {
		case errors.Is(err, memfs.ErrAlreadyExists):
			return res, fmt.Errorf("%s: a note named %s is in the memory folder already; reject this one", it.ID, it.Note.Name)
		case err != nil:
			return res, fmt.Errorf("%s: %w", it.ID, err)
		}
		res.Path = rel
		if err := st.RequestConsolidation(ctx, "approved note", false); err != nil {
			return res, err
		}
	case it.Memory != nil && it.Memory.Record != nil:
		m := it.Memory.Record.ToStore(it.Memory.ID)
		var a, b int
		m.RawMemory, a = quarantine.Scrub(m.RawMemory)
		m.RolloutSummary, b = quarantine.Scrub(m.RolloutSummary)
		res.Removed = a + b
		m.From = it.Origin
		out, err := st.ImportMemory(ctx, m, it.Memory.Source)
		if err != nil {
			return res, fmt.Errorf("%s: %w", it.ID, err)
		}
		res.Stored = out != store.ImportForgotten
	default:
		return res, fmt.Errorf("%s: holds neither a note nor a memory", it.ID)
	}
	return res, q.Remove(it.ID)
}

// Gate is what text from another machine or a bundle passes on its way
// in (it implements bundle.Gate): an item a line of which the
// quarantine's untrusted rules hold waits in the queue, whole, and is
// not stored.
type Gate struct{ Queue *Queue }

// Memory holds m when a line of its texts, its slug, its session's first
// request or its project's name is held.
func (g Gate) Memory(id, source string, m store.PortableMemory) (bool, error) {
	var reasons []quarantine.Item
	for _, f := range []struct{ name, text string }{
		{"raw_memory", m.RawMemory}, {"rollout_summary", m.RolloutSummary}, {"rollout_slug", deref(m.RolloutSlug)},
		{"preview", m.Preview}, {"project_name", m.ProjectName},
	} {
		reasons = append(reasons, quarantine.Hold(f.name, f.text)...)
	}
	if len(reasons) == 0 {
		return false, nil
	}
	_, err := g.Queue.Hold(Item{Kind: KindMemory, Origin: m.From, Reasons: reasons,
		Memory: &Memory{ID: id, Source: source, Record: bundle.FromStore(m)}})
	return true, err
}

// Note holds a note a line of which is held.
func (g Gate) Note(name, content string, from origin.Origin) (bool, error) {
	reasons := quarantine.Hold("note", content)
	if len(reasons) == 0 {
		return false, nil
	}
	_, err := g.Queue.Hold(Item{Kind: KindNote, Origin: from, Reasons: reasons, Note: &Note{Name: name, Content: content}})
	return true, err
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
