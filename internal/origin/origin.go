// Package origin names where a memory item came from: a session on this
// machine, the user at the command line, an agent over MCP, another
// machine by sync, a bundle by import, or a repository's team folder.
// Only the first two are the user's own; text from the others is
// untrusted and passes the quarantine's untrusted rules before anything
// of it is injected (docs/security.md).
package origin

import "strings"

// Kind is a way into memory.
type Kind string

// The ways into memory.
const (
	// Session: extracted from a session on this machine.
	Session Kind = "session"
	// User: written by the user at the command line (memctl note add,
	// memctl memories edit), or by hand in the memory folder.
	User Kind = "user"
	// Agent: written by an agent over MCP (add_ad_hoc_note).
	Agent Kind = "agent"
	// Sync: from another machine, by memctl sync.
	Sync Kind = "sync"
	// Import: from a bundle, by memctl import.
	Import Kind = "import"
	// Team: from the team folder (.memctl/) of a repository.
	Team Kind = "team"
)

// Trusted reports the user's own ways in: sessions and the command line.
// An unknown kind (a newer memctl's) is not trusted.
func (k Kind) Trusted() bool { return k == Session || k == User }

// Origin is a kind and what names the source within it: the machine for
// sync, the bundle for import, the repository for team, the client for
// an agent.
type Origin struct {
	Kind   Kind   `json:"kind"`
	Detail string `json:"detail,omitempty"`
}

// String is "kind" or "kind detail", on one line.
func (o Origin) String() string {
	d := strings.Join(strings.Fields(o.Detail), " ")
	if d == "" {
		return string(o.Kind)
	}
	return string(o.Kind) + " " + d
}

// Parse reads what String writes. Text that names no known kind is an
// origin of that kind all the same, untrusted.
func Parse(s string) Origin {
	k, d, _ := strings.Cut(strings.TrimSpace(s), " ")
	return Origin{Kind: Kind(k), Detail: strings.TrimSpace(d)}
}

// noteKey starts the header line that records a note's origin.
const noteKey = "origin:"

// NoteHeader is the line that records a note's origin, written after
// the project line if the note has one. A note without it is the user's.
func NoteHeader(o Origin) string { return noteKey + " " + o.String() + "\n" }

// OfNote is a note's origin: its header line's, else the user's.
func OfNote(content string) Origin {
	for _, l := range headerLines(content) {
		if v, ok := strings.CutPrefix(l, noteKey); ok {
			return Parse(v)
		}
	}
	return Origin{Kind: User}
}

// WithNoteOrigin returns content with its origin header set to o, after
// the project line when there is one: an origin line that came with the
// text (a note from elsewhere claiming to be the user's) is replaced.
func WithNoteOrigin(content string, o Origin) string {
	project, rest := "", content
	for i := 0; i < 2; i++ {
		l, after, _ := strings.Cut(rest, "\n")
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "project:") && project == "":
			project = t + "\n"
		case strings.HasPrefix(t, noteKey):
		default:
			return project + NoteHeader(o) + rest
		}
		rest = after
	}
	return project + NoteHeader(o) + rest
}

// Body is a note's text without its header lines (project, origin).
func Body(content string) string {
	lines := strings.SplitAfter(content, "\n")
	n := len(headerLines(content))
	return strings.Join(lines[n:], "")
}

// headerLines are a note's leading header lines: the project line, then
// the origin line, each at most once and in that order.
func headerLines(content string) []string {
	var out []string
	rest := content
	for i := 0; i < 2 && rest != ""; i++ {
		l, after, _ := strings.Cut(rest, "\n")
		t := strings.TrimSpace(l)
		if !(i == 0 && strings.HasPrefix(t, "project:")) && !strings.HasPrefix(t, noteKey) {
			break
		}
		out = append(out, t)
		rest = after
		if strings.HasPrefix(t, noteKey) {
			break
		}
	}
	return out
}
