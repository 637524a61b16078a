package bundle

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memfs"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/origin"
	"github.com/memctl/memctl/internal/quarantine"
	"github.com/memctl/memctl/internal/store"
)

// Store is the part of the store that export, import and sync need.
// *store.Store implements it.
type Store interface {
	PortableMemories(ctx context.Context, projectKey string) ([]store.PortableMemory, error)
	Forgotten(ctx context.Context, ids []string) (map[string]time.Time, error)
	ProjectOfThreads(ctx context.Context, ids []string) (map[string]string, error)
	ImportMemory(ctx context.Context, m store.PortableMemory, origin string) (store.ImportOutcome, error)
	ForgetMemory(ctx context.Context, id string) error
	SetPinned(ctx context.Context, id string, pinned bool) (bool, error)
	DropImported(ctx context.Context, id string) (bool, error)
	SyncStates(ctx context.Context) (map[string]store.SyncMemoryState, error)
	SetSyncState(ctx context.Context, mems []store.SyncMemoryState, notes map[string]string) error
	SyncNotes(ctx context.Context) (map[string]string, error)
	RequestConsolidation(ctx context.Context, reason string, regenerate bool) error
}

// Note is an ad hoc note of a memory folder.
type Note struct {
	Name    string // file name under extensions/ad_hoc/notes/
	Content string
}

// Notes reads the ad hoc notes of a memory folder, by name. Files whose
// name is not a note's (memfs.ValidateNoteFilename) are left out.
func Notes(root string) ([]Note, error) {
	dir := filepath.Join(root, filepath.FromSlash(memdir.NotesDir))
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Note
	for _, e := range ents {
		if !e.Type().IsRegular() || memfs.ValidateNoteFilename(e.Name()) != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, Note{Name: e.Name(), Content: string(b)})
	}
	return out, nil
}

// noteProject is the project a note is for ("" for every project): the
// key of its first line, as project.NoteHeader writes it.
func noteProject(content string) string {
	first, _, _ := strings.Cut(content, "\n")
	if k, ok := strings.CutPrefix(strings.TrimSpace(first), "project:"); ok {
		return strings.TrimSpace(k)
	}
	return ""
}

// writeNote writes a note from elsewhere that is not there yet (its text
// already through the intake); an existing note of the same name is left
// as it is (notes are never overwritten). It reports whether it wrote.
func writeNote(root string, n Note) (bool, error) {
	if err := memfs.ValidateNoteFilename(n.Name); err != nil {
		return false, err
	}
	_, err := memfs.AddNote(root, n.Name, n.Content)
	if errors.Is(err, memfs.ErrAlreadyExists) {
		return false, nil
	}
	return err == nil, err
}

// ExportOptions says what to export.
type ExportOptions struct {
	// Project is the key of the one project to export; "" exports all.
	Project       string
	MemoryVersion memversion.Version
	Now           time.Time
	// Redact scrubs the notes, which are written by hand and were never
	// redacted (memory text was, when it was stored); nil keeps them.
	Redact func(string) string
}

// Export collects the portable memory of st and root as bundle records:
// a header, the memories, the forgets and the notes, in a stable order.
func Export(ctx context.Context, st Store, root string, opts ExportOptions) ([]Record, error) {
	scope := opts.Project
	if scope == "" {
		scope = "all"
	}
	recs := []Record{{Type: TypeHeader, Format: Format, Schema: Schema, Scope: scope, MemoryVersion: opts.MemoryVersion,
		At: Time(opts.Now), Description: "memctl memory bundle: JSON Lines, one record per line; memory text is Markdown. Import with `memctl import FILE`."}}
	mems, err := st.PortableMemories(ctx, opts.Project)
	if err != nil {
		return nil, err
	}
	for _, m := range mems {
		recs = append(recs, Record{Type: TypeMemory, ID: m.ThreadID, Rev: Rev(m), At: Time(opts.Now), Memory: FromStore(m)})
	}
	forgotten, err := st.Forgotten(ctx, nil)
	if err != nil {
		return nil, err
	}
	ids := slices.Sorted(maps.Keys(forgotten))
	var projects map[string]string
	if opts.Project != "" {
		if projects, err = st.ProjectOfThreads(ctx, ids); err != nil {
			return nil, err
		}
	}
	for _, id := range ids {
		if opts.Project != "" && projects[id] != opts.Project {
			continue
		}
		recs = append(recs, Record{Type: TypeForget, ID: id, At: Time(forgotten[id])})
	}
	notes, err := Notes(root)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		if opts.Project != "" && noteProject(n.Content) != opts.Project {
			continue
		}
		content := n.Content
		if opts.Redact != nil {
			content = opts.Redact(content)
		}
		recs = append(recs, Record{Type: TypeNote, Path: n.Name, Rev: NoteRev(content), Content: content})
	}
	return recs, nil
}

// Intake is how text from elsewhere is taken in: where it came from, the
// redaction it passes, and the gate that may hold it for the user's
// review.
type Intake struct {
	// From is its origin: Import with the bundle, or Sync (Apply fills
	// in the machine of each record).
	From origin.Origin
	// Clean redacts the text of every memory and note taken in (nil keeps
	// it): a bundle or another machine may carry what this one's rules
	// redact. Taking the same records in twice still changes nothing: the
	// cleaned text is what is compared.
	Clean func(string) string
	// Gate sees every memory and note before it is stored; nil lets all
	// in.
	Gate Gate
}

// Gate decides what of the text taken in may be stored now: what it
// holds waits for the user's review, and is neither stored nor written.
type Gate interface {
	// Memory is given a memory about to be stored (its From set) and the
	// label its thread would get; held reports that it was put aside.
	Memory(id, source string, m store.PortableMemory) (held bool, err error)
	// Note is given a note about to be written, as for Memory.
	Note(name, content string, from origin.Origin) (held bool, err error)
}

// admitMemory passes m through the intake: cleaned, its origin set, and
// through the gate. ok is false when the gate held it.
func (in Intake) admitMemory(id, source string, m store.PortableMemory, from origin.Origin) (store.PortableMemory, bool, error) {
	m = cleaned(m, in.Clean)
	m.From = from
	if in.Gate == nil {
		return m, true, nil
	}
	held, err := in.Gate.Memory(id, source, m)
	return m, !held, err
}

// admitNote is admitMemory for a note: cleaned, labelled with its origin
// unless the gate holds it.
func (in Intake) admitNote(name, content string, from origin.Origin) (string, bool, error) {
	if in.Clean != nil {
		content = in.Clean(content)
	}
	if in.Gate != nil {
		held, err := in.Gate.Note(name, content, from)
		if held || err != nil {
			return "", false, err
		}
	}
	return origin.WithNoteOrigin(content, from), true, nil
}

// ImportResult counts what Import did.
type ImportResult struct {
	Added     int `json:"added"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	// Forgotten counts memories the bundle forgets that were forgotten here
	// now; Skipped, memories of the bundle forgotten here before.
	Forgotten int `json:"forgotten"`
	Skipped   int `json:"skipped"`
	Notes     int `json:"notes"`
	// Held counts memories and notes the gate held for the user's review.
	Held int `json:"held"`
}

// Changed reports whether the import changed anything.
func (r ImportResult) Changed() bool { return r.Added+r.Updated+r.Forgotten+r.Notes > 0 }

// Import merges bundle records into st and root: a memory is added or
// takes the bundle's text (never a second copy of it), a forget forgets,
// a note missing here is written, each through the intake (in). source
// labels the memories whose thread this home does not know. Importing the
// same records again changes nothing.
func Import(ctx context.Context, st Store, root string, recs []Record, source string, in Intake) (ImportResult, error) {
	var res ImportResult
	for _, r := range recs {
		if r.Type == TypeHeader && r.Format != "" && r.Format != Format {
			return res, fmt.Errorf("not a memctl bundle (format %q)", r.Format)
		}
	}
	forgets := map[string]bool{}
	for _, r := range recs {
		if r.Type == TypeForget {
			forgets[r.ID] = true
		}
	}
	var stored map[string]bool // the memories stored here, read at the first forget
	forgottenHere, err := st.Forgotten(ctx, nil)
	if err != nil {
		return res, err
	}
	// What this home holds already (an item approved after an earlier
	// import) is not held again: importing a bundle twice changes nothing.
	mems, err := st.PortableMemories(ctx, "")
	if err != nil {
		return res, err
	}
	storedRev := map[string]string{}
	for _, m := range mems {
		storedRev[m.ThreadID] = Rev(m)
	}
	for _, r := range recs {
		switch r.Type {
		case TypeMemory:
			if forgets[r.ID] {
				continue
			}
			o := source
			if r.Memory.Origin != "" {
				o = r.Memory.Origin
			}
			incoming := r.Memory.ToStore(r.ID)
			gate := in
			if approved := approvedForm(cleaned(incoming, in.Clean)); storedRev[r.ID] != "" && storedRev[r.ID] == Rev(approved) {
				// The user approved this text before: take it as approved.
				incoming, gate.Gate = approved, nil
			}
			m, ok, err := gate.admitMemory(r.ID, o, incoming, in.From)
			if err != nil {
				return res, fmt.Errorf("import memory %s: %w", r.ID, err)
			}
			if !ok {
				res.Held++
				continue
			}
			out, err := st.ImportMemory(ctx, m, o)
			if err != nil {
				return res, fmt.Errorf("import memory %s: %w", r.ID, err)
			}
			switch out {
			case store.ImportAdded:
				res.Added++
			case store.ImportUpdated:
				res.Updated++
			case store.ImportForgotten:
				res.Skipped++
			default:
				res.Unchanged++
			}
		case TypeForget:
			if _, done := forgottenHere[r.ID]; done {
				continue
			}
			if stored == nil {
				mems, err := st.PortableMemories(ctx, "")
				if err != nil {
					return res, err
				}
				stored = map[string]bool{}
				for _, m := range mems {
					stored[m.ThreadID] = true
				}
			}
			// A thread known here without its memory is disabled all the
			// same, so its session is not extracted into memory again.
			err := st.ForgetMemory(ctx, r.ID)
			if errors.Is(err, store.ErrNotFound) {
				continue // never known here
			}
			if err != nil {
				return res, fmt.Errorf("forget %s: %w", r.ID, err)
			}
			if stored[r.ID] {
				forgottenHere[r.ID] = time.Time{}
				res.Forgotten++
			}
		case TypeNote:
			if err := memfs.ValidateNoteFilename(r.Path); err != nil {
				return res, fmt.Errorf("import note %s: %w", r.Path, err)
			}
			if noteExists(root, r.Path) {
				continue // notes are never overwritten
			}
			content, ok, err := in.admitNote(r.Path, r.Content, in.From)
			if err != nil {
				return res, fmt.Errorf("import note %s: %w", r.Path, err)
			}
			if !ok {
				res.Held++
				continue
			}
			wrote, err := writeNote(root, Note{Name: r.Path, Content: content})
			if err != nil {
				return res, fmt.Errorf("import note %s: %w", r.Path, err)
			}
			if wrote {
				res.Notes++
			}
		}
	}
	if res.Notes > 0 {
		// A note alone changes no raw memory: ask for the consolidation
		// that folds it in, cooldown or not.
		if err := st.RequestConsolidation(ctx, "import notes", false); err != nil {
			return res, err
		}
	}
	return res, nil
}

// approvedForm is the memory as the user's approval stores it: without
// the lines no approval lets through (quarantine.Scrub).
func approvedForm(m store.PortableMemory) store.PortableMemory {
	m.RawMemory, _ = quarantine.Scrub(m.RawMemory)
	m.RolloutSummary, _ = quarantine.Scrub(m.RolloutSummary)
	return m
}

// noteExists reports a note of that name in the memory folder.
func noteExists(root, name string) bool {
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(memdir.NotesDir), name))
	return err == nil
}

// cleaned applies clean to what of a memory is text from elsewhere.
func cleaned(m store.PortableMemory, clean func(string) string) store.PortableMemory {
	if clean != nil {
		m.RawMemory, m.RolloutSummary, m.Preview = clean(m.RawMemory), clean(m.RolloutSummary), clean(m.Preview)
		if m.RolloutSlug != nil {
			slug := clean(*m.RolloutSlug)
			m.RolloutSlug = &slug
		}
	}
	return m
}

// ConflictSep separates a memory's id from the revision of a conflicting
// copy kept beside it (<id>~<rev>).
const ConflictSep = "~"

// conflictOrigin marks the thread of a conflicting copy.
const conflictOrigin = "sync-conflict:"

// IsConflictCopy reports whether a memory is a conflicting copy sync keeps.
func IsConflictCopy(m store.PortableMemory) bool {
	return m.SourceKind == store.SourceImported && strings.HasPrefix(m.Origin, conflictOrigin)
}

// Outgoing lists the records this machine owes the log: each memory whose
// current revision the log lacks (replacing the revisions last agreed
// with it), each pin changed here since, each forget made here, each note
// the log lacks. log is the log as this machine has it.
// redact scrubs the notes (see ExportOptions.Redact); nil keeps them.
func Outgoing(ctx context.Context, st Store, root string, log *State, machine string, now time.Time, redact func(string) string) ([]Record, error) {
	mems, err := st.PortableMemories(ctx, "")
	if err != nil {
		return nil, err
	}
	states, err := st.SyncStates(ctx)
	if err != nil {
		return nil, err
	}
	at := Time(now)
	var out []Record
	for _, m := range mems {
		if IsConflictCopy(m) {
			continue
		}
		ms := log.Memories[m.ThreadID]
		agreed, known := states[m.ThreadID]
		rev := Rev(m)
		if !ms.Has(rev) {
			mem := FromStore(m)
			mem.UsageCount, mem.LastUsage, mem.Pinned = 0, nil, false // uses stay on each machine; pins travel as pin records
			mem.Origin = ""
			out = append(out, Record{Type: TypeMemory, ID: m.ThreadID, Rev: rev, Bases: agreed.Heads, At: at, Machine: machine, Memory: mem})
		}
		pinned := ms != nil && ms.Pinned
		if known {
			pinned = agreed.Pinned
		}
		if m.Pinned != pinned {
			p := m.Pinned
			out = append(out, Record{Type: TypePin, ID: m.ThreadID, Pinned: &p, At: at, Machine: machine})
		}
	}
	forgotten, err := st.Forgotten(ctx, nil)
	if err != nil {
		return nil, err
	}
	ids := slices.Sorted(maps.Keys(forgotten))
	for _, id := range ids {
		ms := log.Memories[id]
		if states[id].Forgotten || ms != nil && ms.Forgotten {
			continue
		}
		out = append(out, Record{Type: TypeForget, ID: id, SourceUpdatedAt: ms.NewestExtraction(), At: Time(forgotten[id]), Machine: machine})
	}
	notes, err := Notes(root)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		if _, ok := log.Notes[n.Name]; ok {
			continue // in the log already (under another text, it stays: notes are never replaced)
		}
		content := n.Content
		if redact != nil {
			content = redact(content)
		}
		out = append(out, Record{Type: TypeNote, Path: n.Name, Rev: NoteRev(content), Content: content, At: at, Machine: machine})
	}
	return out, nil
}

// Conflict is a memory edited apart on two machines: every current
// revision is kept, the newest as the memory, the others as copies.
type Conflict struct {
	ID       string         `json:"id"`
	Versions []ConflictCopy `json:"versions"`
}

// ConflictCopy is one revision of a conflicting memory.
type ConflictCopy struct {
	Rev     string `json:"rev"`
	Machine string `json:"machine"`
	At      string `json:"at"`
	// StoredAs is the memory id it is kept under here.
	StoredAs string `json:"stored_as"`
}

// ApplyResult counts what Apply changed in one store.
type ApplyResult struct {
	Added     int        `json:"added"`
	Updated   int        `json:"updated"`
	Forgotten int        `json:"forgotten"`
	Pinned    int        `json:"pinned"`
	Notes     int        `json:"notes"`
	Conflicts []Conflict `json:"conflicts"`
	// Held counts memories and notes the gate held for the user's review.
	Held int `json:"held"`
}

// Changed reports whether anything was changed.
func (r ApplyResult) Changed() bool {
	return r.Added+r.Updated+r.Forgotten+r.Pinned+r.Notes > 0
}

// Apply brings st and root to what the log says, then records the log's
// state as agreed. Only what changed in the log since the last agreement
// is taken in, so a change made here and not yet in the log is never
// undone (Outgoing sends it first).
//
// Every memory and note passes the intake (in), its origin the machine
// that wrote the record; a text its redaction changed differs from the
// log's and goes back to the log as this machine's edit at the next sync,
// so the log converges to the cleaned text. What the gate holds is
// agreed with the log all the same: it is not taken in again until the
// log changes it, and the user's approval takes it in.
func Apply(ctx context.Context, st Store, root string, log *State, in Intake) (ApplyResult, error) {
	res := ApplyResult{Conflicts: []Conflict{}}
	mems, err := st.PortableMemories(ctx, "")
	if err != nil {
		return res, err
	}
	local := map[string]store.PortableMemory{}
	copies := map[string][]string{} // id → ids of its conflicting copies here
	for _, m := range mems {
		local[m.ThreadID] = m
		if IsConflictCopy(m) {
			base, _, _ := strings.Cut(m.ThreadID, ConflictSep)
			copies[base] = append(copies[base], m.ThreadID)
		}
	}
	forgottenHere, err := st.Forgotten(ctx, nil)
	if err != nil {
		return res, err
	}
	states, err := st.SyncStates(ctx)
	if err != nil {
		return res, err
	}
	var agreed []store.SyncMemoryState
	for _, id := range log.IDs() {
		ms := log.Memories[id]
		prev := states[id]
		next := store.SyncMemoryState{ThreadID: id, Heads: ms.Heads, Pinned: ms.Pinned, Forgotten: ms.Forgotten}
		keepCopies := map[string]bool{}
		cur, has := local[id]
		switch {
		case ms.Forgotten:
			if _, done := forgottenHere[id]; !done && (has || !prev.Forgotten) {
				if err := st.ForgetMemory(ctx, id); err == nil {
					res.Forgotten++
				} else if !errors.Is(err, store.ErrNotFound) {
					return res, fmt.Errorf("forget %s: %w", id, err)
				}
			}
		case len(ms.Heads) > 0:
			win, _ := ms.Winner()
			_, forgot := forgottenHere[id]
			curRev := ""
			if has {
				curRev = Rev(cur)
			}
			// Take the log's text when this home has one the log has since
			// replaced, or has none and the log changed since the last
			// agreement; keep a text it has not sent yet, and do not bring
			// back a memory this home pruned while the log stood still.
			take := !forgot && curRev != win.Rev && (has && ms.Has(curRev) || !has && !sameHeads(prev.Heads, ms.Heads))
			var m store.PortableMemory
			if take {
				m = win.Memory.ToStore(id)
				m.Pinned = ms.Pinned
				if has {
					m.UsageCount, m.LastUsage = cur.UsageCount, cur.LastUsage
				}
				var ok bool
				var err error
				m, ok, err = in.admitMemory(id, win.Machine, m, syncFrom(in, win.Machine))
				if err != nil {
					return res, fmt.Errorf("import memory %s: %w", id, err)
				}
				if !ok {
					res.Held++
					take = false
				}
			}
			if take {
				out, err := st.ImportMemory(ctx, m, win.Machine)
				if err != nil {
					return res, fmt.Errorf("import memory %s: %w", id, err)
				}
				switch out {
				case store.ImportAdded:
					res.Added++
				case store.ImportUpdated:
					res.Updated++
				}
				cur, has = m, out != store.ImportForgotten
			}
			if has && cur.Pinned != ms.Pinned && prev.Pinned != ms.Pinned {
				if changed, err := st.SetPinned(ctx, id, ms.Pinned); err != nil {
					return res, fmt.Errorf("pin %s: %w", id, err)
				} else if changed {
					res.Pinned++
				}
			}
			if len(ms.Heads) > 1 && has {
				c := Conflict{ID: id, Versions: []ConflictCopy{{Rev: win.Rev, Machine: win.Machine, At: win.At, StoredAs: id}}}
				for _, h := range ms.Heads[1:] {
					v := ms.Versions[h]
					cid := id + ConflictSep + short(h)
					keepCopies[cid] = true
					c.Versions = append(c.Versions, ConflictCopy{Rev: h, Machine: v.Machine, At: v.At, StoredAs: cid})
					m, ok, err := in.admitMemory(cid, conflictOrigin+v.Machine, v.Memory.ToStore(cid), syncFrom(in, v.Machine))
					if err != nil {
						return res, fmt.Errorf("keep the conflicting copy %s: %w", cid, err)
					}
					if !ok {
						res.Held++
						continue
					}
					m.Preview = "conflicting copy of memory " + id + " (from " + v.Machine + "); edit " + id + " to settle it"
					m.Pinned = false
					if _, err := st.ImportMemory(ctx, m, conflictOrigin+v.Machine); err != nil {
						return res, fmt.Errorf("keep the conflicting copy %s: %w", cid, err)
					}
				}
				res.Conflicts = append(res.Conflicts, c)
			}
		}
		for _, cid := range copies[id] {
			if !keepCopies[cid] {
				if _, err := st.DropImported(ctx, cid); err != nil {
					return res, err
				}
			}
		}
		if !equalState(prev, next) {
			agreed = append(agreed, next)
		}
	}
	notes := map[string]string{}
	synced, err := st.SyncNotes(ctx)
	if err != nil {
		return res, err
	}
	for name, r := range log.Notes {
		if synced[name] == r.Rev {
			continue
		}
		notes[name] = r.Rev
		if err := memfs.ValidateNoteFilename(name); err != nil {
			return res, fmt.Errorf("note %s: %w", name, err)
		}
		if noteExists(root, name) {
			continue // notes are never overwritten
		}
		content, ok, err := in.admitNote(name, r.Content, syncFrom(in, r.Machine))
		if err != nil {
			return res, fmt.Errorf("note %s: %w", name, err)
		}
		if !ok {
			res.Held++
			continue
		}
		wrote, err := writeNote(root, Note{Name: name, Content: content})
		if err != nil {
			return res, fmt.Errorf("note %s: %w", name, err)
		}
		if wrote {
			res.Notes++
		}
	}
	if len(agreed) > 0 || len(notes) > 0 {
		if err := st.SetSyncState(ctx, agreed, notes); err != nil {
			return res, err
		}
	}
	if res.Notes > 0 {
		if err := st.RequestConsolidation(ctx, "sync notes", false); err != nil {
			return res, err
		}
	}
	return res, nil
}

// syncFrom is the origin of what machine wrote into the log.
func syncFrom(in Intake, machine string) origin.Origin {
	k := in.From.Kind
	if k == "" {
		k = origin.Sync
	}
	return origin.Origin{Kind: k, Detail: machine}
}

func equalState(a, b store.SyncMemoryState) bool {
	return a.ThreadID == b.ThreadID && a.Pinned == b.Pinned && a.Forgotten == b.Forgotten && sameHeads(a.Heads, b.Heads)
}

func sameHeads(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
