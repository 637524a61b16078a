// Package bundle is the portable form of memory (docs/sync.md): raw
// memories with their provenance, pins, forgets and ad hoc notes as JSON
// Lines records, each memory's text in Markdown. `memctl export` writes
// a bundle, `memctl import` merges one, and `memctl sync` keeps one
// append-only log of such records per machine in a git repository.
//
// A record never carries a path memctl writes to without checking it: a
// note's name must be a valid note file name, and a memory's id names a
// row, never a file.
package bundle

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/textcut"
)

// Schema is the version of the record format this binary writes; it reads
// this one and older.
const Schema = 1

// Format names a bundle file in its header record.
const Format = "memctl-bundle"

// Record types.
const (
	TypeHeader = "header"
	TypeMemory = "memory"
	TypeForget = "forget"
	TypePin    = "pin"
	TypeNote   = "note"
)

// Record is one line of a bundle or of a sync log. Which fields are set
// depends on Type; unknown fields are ignored by readers.
type Record struct {
	Type string `json:"type"`

	// header
	Format        string             `json:"format,omitempty"`
	Schema        int                `json:"schema,omitempty"`
	Scope         string             `json:"scope,omitempty"` // "all" or a project key
	MemoryVersion memversion.Version `json:"memory_version,omitempty"`
	Description   string             `json:"description,omitempty"`

	// every other type
	ID      string `json:"id,omitempty"`      // the memory (its thread's id)
	At      string `json:"at,omitempty"`      // RFC 3339 UTC: when the record was written
	Machine string `json:"machine,omitempty"` // the machine that wrote it (sync logs)

	// memory
	Rev    string   `json:"rev,omitempty"`   // revision of the text (see Rev)
	Bases  []string `json:"bases,omitempty"` // revisions this one replaces
	Memory *Memory  `json:"memory,omitempty"`

	// forget: the newest extraction the forgetting machine knew of; a
	// memory extracted again after it (a changed session, re-enabled)
	// outlives the forget.
	SourceUpdatedAt int64 `json:"source_updated_at,omitempty"`

	// pin
	Pinned *bool `json:"pinned,omitempty"`

	// note
	Path    string `json:"path,omitempty"` // the note's file name under extensions/ad_hoc/notes/
	Content string `json:"content,omitempty"`
}

// Memory is a raw memory with its provenance.
type Memory struct {
	RawMemory       string  `json:"raw_memory"`        // Markdown
	RolloutSummary  string  `json:"rollout_summary"`   // Markdown
	RolloutSlug     *string `json:"rollout_slug"`      // null when the extractor gave none
	SourceUpdatedAt int64   `json:"source_updated_at"` // unix seconds: the session version extracted
	GeneratedAt     int64   `json:"generated_at"`
	UsageCount      int64   `json:"usage_count"`
	LastUsage       *int64  `json:"last_usage"`
	Pinned          bool    `json:"pinned"`
	EditedAt        *int64  `json:"edited_at"` // set: the user wrote the text (user-asserted)

	// Provenance: the session the memory was extracted from.
	SourceKind      string `json:"source_kind"` // codex | claude-code | jsonl | imported
	Origin          string `json:"origin,omitempty"`
	RolloutPath     string `json:"rollout_path"`
	Cwd             string `json:"cwd"`
	GitBranch       string `json:"git_branch,omitempty"`
	GitOriginURL    string `json:"git_origin_url,omitempty"`
	Preview         string `json:"preview,omitempty"`
	ThreadCreatedAt string `json:"thread_created_at"`
	ThreadUpdatedAt string `json:"thread_updated_at"`
	ProjectKey      string `json:"project_key"`
	ProjectName     string `json:"project_name"`
	ProjectRoot     string `json:"project_root,omitempty"`
}

// FromStore turns a stored memory into its record form.
func FromStore(m store.PortableMemory) *Memory {
	return &Memory{
		RawMemory: m.RawMemory, RolloutSummary: m.RolloutSummary, RolloutSlug: m.RolloutSlug,
		SourceUpdatedAt: m.SourceUpdatedAt, GeneratedAt: m.GeneratedAt, UsageCount: m.UsageCount,
		LastUsage: m.LastUsage, Pinned: m.Pinned, EditedAt: m.EditedAt,
		SourceKind: m.SourceKind, Origin: m.Origin, RolloutPath: m.RolloutPath, Cwd: m.Cwd,
		GitBranch: m.GitBranch, GitOriginURL: m.GitOriginURL, Preview: m.Preview,
		ThreadCreatedAt: Time(m.CreatedAt), ThreadUpdatedAt: Time(m.UpdatedAt),
		ProjectKey: m.ProjectKey, ProjectName: m.ProjectName, ProjectRoot: m.ProjectRoot,
	}
}

// ToStore turns a record's memory back into the store's form.
func (m *Memory) ToStore(id string) store.PortableMemory {
	created, _ := time.Parse(time.RFC3339, m.ThreadCreatedAt)
	updated, _ := time.Parse(time.RFC3339, m.ThreadUpdatedAt)
	// The project's key and name are listed in every other project's
	// summary: from another machine or a file, they print on one line.
	p := project.Printable(project.Identity{Key: m.ProjectKey, Name: m.ProjectName, Root: m.ProjectRoot})
	return store.PortableMemory{
		ThreadID: id, SourceUpdatedAt: m.SourceUpdatedAt, GeneratedAt: m.GeneratedAt,
		RawMemory: m.RawMemory, RolloutSummary: m.RolloutSummary, RolloutSlug: m.RolloutSlug,
		UsageCount: m.UsageCount, LastUsage: m.LastUsage, Pinned: m.Pinned, EditedAt: m.EditedAt,
		SourceKind: m.SourceKind, Origin: m.Origin, RolloutPath: m.RolloutPath, Cwd: m.Cwd,
		GitBranch: m.GitBranch, GitOriginURL: m.GitOriginURL, Preview: m.Preview,
		CreatedAt: created.UTC(), UpdatedAt: updated.UTC(),
		ProjectKey: p.Key, ProjectName: p.Name, ProjectRoot: m.ProjectRoot,
	}
}

// Rev is the revision of a memory's content: what a consolidation reads
// of it (the texts, the session version, whether the user wrote it). Uses
// and pins are not part of it: they change without a new revision.
func Rev(m store.PortableMemory) string {
	h := sha256.New()
	slug := "\x00none"
	if m.RolloutSlug != nil {
		slug = *m.RolloutSlug
	}
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d\x00%t", m.RawMemory, m.RolloutSummary, slug, m.SourceUpdatedAt, m.EditedAt != nil)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// NoteRev is the revision of a note's content.
func NoteRev(content string) string {
	h := sha256.Sum256([]byte(content))
	return hex.EncodeToString(h[:])[:16]
}

// Time formats t as the records do (RFC 3339 UTC, seconds).
func Time(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// maxLine bounds one record: a memory is at most 64 KiB of text twice
// over, with its provenance.
const maxLine = 4 << 20

// LineError is a record that cannot be read: the file (as given to Read)
// and the line, 1-based.
type LineError struct {
	Name string
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Name, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ErrTooNew is returned (in a *LineError) for a bundle whose schema is newer
// than Schema.
var ErrTooNew = errors.New("written by a newer memctl")

// Read parses the JSON Lines records of a bundle. Blank lines are skipped;
// the first record must be a bundle's header, and a line that is not a
// record, or a record of a type this version does not know, is an error
// naming the line (a bundle is taken whole or not at all). name labels
// the errors.
func Read(r io.Reader, name string) ([]Record, error) {
	var out []Record
	last := 0
	err := eachLine(r, func(line int, b []byte, tooLong bool) error {
		last = line
		rec, err := parseLine(b, tooLong)
		if err == nil && rec != nil && len(out) == 0 {
			err = bundleHeader(*rec)
		}
		if err != nil {
			return &LineError{Name: name, Line: line, Err: err}
		}
		if rec != nil {
			out = append(out, *rec)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, &LineError{Name: name, Line: max(last, 1), Err: errors.New("no record: an empty file is not a memctl bundle (memctl export writes one)")}
	}
	return out, nil
}

// bundleHeader checks the first record of a bundle: a file that does not
// start with one (a sync log, a list of records cut from somewhere) is
// refused rather than taken in as it comes.
func bundleHeader(r Record) error {
	switch {
	case r.Type != TypeHeader:
		return fmt.Errorf("the first record is of type %s; a memctl bundle starts with its header record (memctl export writes one)", QuoteShort(r.Type))
	case r.Format != Format:
		return fmt.Errorf("the header names format %s, not %q: not a memctl bundle", QuoteShort(r.Format), Format)
	}
	return nil
}

// SetAside is a line of a sync log that was left out of the fold: it is
// not a record, it is too long, or it is a record this version cannot use
// (an unknown type, a field missing). The line stays in the log as it is,
// so a newer memctl that knows it still reads it.
type SetAside struct {
	File string `json:"file"`
	// Line is 1-based; 0 when the whole file is set aside unread.
	Line   int    `json:"line"`
	Reason string `json:"reason"`
	// err is why, for the reader's caller (TooNew).
	err error
}

// TooNew reports whether the line is a header of a schema newer than
// this memctl reads.
func (s SetAside) TooNew() bool { return errors.Is(s.err, ErrTooNew) }

func (s SetAside) String() string {
	if s.Line == 0 {
		return s.File + ": " + s.Reason
	}
	return fmt.Sprintf("%s:%d: %s", s.File, s.Line, s.Reason)
}

// ReadLenient parses JSON Lines records as Read does, but a line Read would
// refuse is set aside (returned in aside, naming the file and line) and the
// reading goes on: one machine's bad line in a sync log must not stop every
// other record. Only an I/O error is returned as an error. name labels the
// lines set aside.
func ReadLenient(r io.Reader, name string) (recs []Record, aside []SetAside, err error) {
	err = eachLine(r, func(line int, b []byte, tooLong bool) error {
		rec, err := parseLine(b, tooLong)
		switch {
		case err != nil:
			aside = append(aside, SetAside{File: name, Line: line, Reason: err.Error(), err: err})
		case rec != nil:
			recs = append(recs, *rec)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", name, err)
	}
	return recs, aside, nil
}

// parseLine turns one line into a record; nil for a blank line.
func parseLine(b []byte, tooLong bool) (*Record, error) {
	if tooLong {
		return nil, fmt.Errorf("a line longer than %d bytes", maxLine)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("not a record: %v", err)
	}
	if err := rec.check(); err != nil {
		return nil, err
	}
	return &rec, nil
}

// eachLine calls fn with each line of r (1-based, without its newline). A
// line longer than maxLine is read to its end without being kept: fn gets
// tooLong and no bytes. fn's error stops the reading and is returned.
func eachLine(r io.Reader, fn func(line int, b []byte, tooLong bool) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for line := 1; ; line++ {
		buf = buf[:0]
		tooLong := false
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			if !tooLong {
				if len(buf)+len(chunk) > maxLine+2 { // "\r\n" may follow the limit
					tooLong, buf = true, buf[:0]
				} else {
					buf = append(buf, chunk...)
				}
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(buf) > 0 || tooLong {
			if ferr := fn(line, bytes.TrimRight(buf, "\r\n"), tooLong); ferr != nil {
				return ferr
			}
		}
		if err != nil { // io.EOF
			return nil
		}
	}
}

func (r Record) check() error {
	switch r.Type {
	case TypeHeader:
		if r.Schema > Schema {
			return fmt.Errorf("schema %d: %w (this one reads up to %d)", r.Schema, ErrTooNew, Schema)
		}
	case TypeMemory:
		if r.ID == "" || r.Memory == nil || r.Rev == "" {
			return errors.New("a memory record needs id, rev and memory")
		}
	case TypeForget:
		if r.ID == "" {
			return errors.New("a forget record needs id")
		}
	case TypePin:
		if r.ID == "" || r.Pinned == nil {
			return errors.New("a pin record needs id and pinned")
		}
	case TypeNote:
		if r.Path == "" {
			return errors.New("a note record needs path")
		}
	default:
		return fmt.Errorf("unknown record type %s (written by a newer memctl?)", QuoteShort(r.Type))
	}
	if r.ID != "" && !validID(r.ID) {
		return fmt.Errorf("id %s is not a memory id", QuoteShort(r.ID))
	}
	return nil
}

// validID accepts what a thread id can be (UUIDs, the ids agents write,
// a conflict copy's id) and refuses what could be mistaken for anything
// else: control characters, spaces, slashes.
func validID(id string) bool {
	if len(id) > 200 {
		return false
	}
	for _, c := range id {
		if c <= ' ' || c == '/' || c == '\\' || c == 0x7f {
			return false
		}
	}
	return true
}

// Write writes records as JSON Lines, one per line.
func Write(w io.Writer, recs []Record) error {
	bw := bufio.NewWriter(w)
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if _, err := bw.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// Line renders one record as its JSON line, newline included.
func Line(r Record) string {
	b, _ := json.Marshal(r)
	return string(b) + "\n"
}

// atOf parses a record's time; the zero time when it has none.
func atOf(r Record) time.Time {
	t, _ := time.Parse(time.RFC3339, r.At)
	return t
}

// QuoteShort quotes the start of a value read from a file, for a message:
// a hostile file may hold a megabyte where a word belongs.
func QuoteShort(s string) string { return strconv.Quote(textcut.Head(s, 64)) }

// short is the first eight characters of a revision, for people.
func short(rev string) string {
	if len(rev) > 8 {
		return rev[:8]
	}
	return rev
}
