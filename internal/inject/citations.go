package inject

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/memctl/memctl/internal/uuidtext"
)

// The citation block's literal delimiters. Matching is literal and
// non-nested, as in the reference parser.
const (
	CitationOpen  = "<oai-mem-citation>"
	CitationClose = "</oai-mem-citation>"
)

// maxBodyBytes bounds how much of one citation body is kept, so a reply
// that opens a block and never closes it cannot grow memory without limit.
// Real blocks are a few hundred bytes.
const maxBodyBytes = 1 << 20

// readChunk is the size of each read from the source.
const readChunk = 32 << 10

// StripCitations copies src to dst without the <oai-mem-citation> blocks
// and returns the bodies found between the tags, in order. It streams, so
// the visible text is never held in memory beyond one chunk and a partial
// tag. The rules are those of Codex's streaming parser: literal tags, no
// nesting (a second open tag is body text and the first close tag ends the
// block), no whitespace trimming around a removed block, a block still open
// at end of input is closed there (its body is returned), and a partial
// open tag left at the very end is visible text.
func StripCitations(dst io.Writer, src io.Reader) (bodies []string, err error) {
	var p citationParser
	buf := make([]byte, readChunk)
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			if err := p.push(dst, buf[:n]); err != nil {
				return p.bodies, err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return p.bodies, rerr
		}
	}
	if err := p.finish(dst); err != nil {
		return p.bodies, err
	}
	return p.bodies, nil
}

// StripCitationsString is StripCitations for text already in memory.
func StripCitationsString(s string) (visible string, bodies []string) {
	var b strings.Builder
	bodies, _ = StripCitations(&b, strings.NewReader(s)) // strings.Builder never fails
	return b.String(), bodies
}

type citationParser struct {
	pending []byte // bytes not yet known to be visible text or body
	active  bool   // inside a block
	body    []byte
	bodies  []string
}

var (
	openTag  = []byte(CitationOpen)
	closeTag = []byte(CitationClose)
)

func (p *citationParser) push(dst io.Writer, chunk []byte) error {
	p.pending = append(p.pending, chunk...)
	for {
		if p.active {
			if i := bytes.Index(p.pending, closeTag); i >= 0 {
				p.addBody(p.pending[:i])
				p.bodies = append(p.bodies, string(p.body))
				p.body, p.active = p.body[:0], false
				p.pending = p.consume(i + len(closeTag))
				continue
			}
			take := len(p.pending) - suffixPrefixLen(p.pending, closeTag)
			p.addBody(p.pending[:take])
			p.pending = p.consume(take)
			return nil
		}
		if i := bytes.Index(p.pending, openTag); i >= 0 {
			if err := write(dst, p.pending[:i]); err != nil {
				return err
			}
			p.active = true
			p.pending = p.consume(i + len(openTag))
			continue
		}
		take := len(p.pending) - suffixPrefixLen(p.pending, openTag)
		if err := write(dst, p.pending[:take]); err != nil {
			return err
		}
		p.pending = p.consume(take)
		return nil
	}
}

func (p *citationParser) finish(dst io.Writer) error {
	if p.active {
		p.addBody(p.pending)
		p.bodies = append(p.bodies, string(p.body))
		p.active, p.pending = false, p.pending[:0]
		return nil
	}
	err := write(dst, p.pending)
	p.pending = p.pending[:0]
	return err
}

// consume drops the first n pending bytes, reusing the buffer.
func (p *citationParser) consume(n int) []byte {
	rest := copy(p.pending, p.pending[n:])
	return p.pending[:rest]
}

func (p *citationParser) addBody(b []byte) {
	if room := maxBodyBytes - len(p.body); room > 0 {
		p.body = append(p.body, b[:min(len(b), room)]...)
	}
}

func write(w io.Writer, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, err := w.Write(b)
	return err
}

// suffixPrefixLen is the length of the longest proper prefix of tag that
// s ends with: those bytes may still become the tag once more input comes.
func suffixPrefixLen(s, tag []byte) int {
	for k := min(len(s), len(tag)-1); k > 0; k-- {
		if bytes.HasSuffix(s, tag[:k]) {
			return k
		}
	}
	return 0
}

// Entry is one cited location: lines LineStart..LineEnd of Path (relative
// to the memory folder), with the model's short reason.
type Entry struct {
	Path      string `json:"path"`
	LineStart int    `json:"line_start"`
	LineEnd   int    `json:"line_end"`
	Note      string `json:"note"`
}

// Citations is what the bodies of one reply's citation blocks contained.
type Citations struct {
	Entries []Entry `json:"entries"`
	// RolloutIDs holds every id listed, de-duplicated, first seen first.
	RolloutIDs []string `json:"rollout_ids"`
	// ThreadIDs holds the ids among RolloutIDs that are valid UUIDs, in
	// canonical lowercase form; these are the ones whose usage is recorded.
	ThreadIDs []string `json:"thread_ids"`
}

// ParseCitations reads the sections of citation bodies the way Codex does:
// the first <citation_entries> section of each body gives entries of the
// form "path:start-end|note=[reason]" (malformed lines are skipped), the
// first <rollout_ids> section (else the legacy <thread_ids>) gives one id
// per line. ok is false when no body yields an entry or an id.
func ParseCitations(bodies []string) (Citations, bool) {
	var c Citations
	seen := map[string]bool{}
	for _, body := range bodies {
		if sec, found := section(body, "citation_entries"); found {
			for _, line := range strings.Split(sec, "\n") {
				if e, ok := parseEntry(line); ok {
					c.Entries = append(c.Entries, e)
				}
			}
		}
		sec, found := section(body, "rollout_ids")
		if !found {
			sec, found = section(body, "thread_ids")
		}
		if !found {
			continue
		}
		for _, line := range strings.Split(sec, "\n") {
			id := strings.TrimSpace(line)
			if id == "" || seen[id] {
				continue
			}
			seen[id] = true
			c.RolloutIDs = append(c.RolloutIDs, id)
			if u, ok := uuidtext.Parse(id); ok {
				c.ThreadIDs = append(c.ThreadIDs, u.String())
			}
		}
	}
	if len(c.Entries) == 0 && len(c.RolloutIDs) == 0 {
		return Citations{}, false
	}
	return c, true
}

// section returns the text between the first <name> and the next </name>.
func section(body, name string) (string, bool) {
	open, closing := "<"+name+">", "</"+name+">"
	i := strings.Index(body, open)
	if i < 0 {
		return "", false
	}
	rest := body[i+len(open):]
	j := strings.Index(rest, closing)
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}

func parseEntry(line string) (Entry, bool) {
	line = strings.TrimSpace(line)
	if line == "" {
		return Entry{}, false
	}
	i := strings.LastIndex(line, "|note=[")
	if i < 0 {
		return Entry{}, false
	}
	location, note := line[:i], line[i+len("|note=["):]
	note, ok := strings.CutSuffix(note, "]")
	if !ok {
		return Entry{}, false
	}
	j := strings.LastIndexByte(location, ':')
	if j < 0 {
		return Entry{}, false
	}
	path, lines := strings.TrimSpace(location[:j]), location[j+1:]
	from, to, ok := strings.Cut(lines, "-")
	if !ok {
		return Entry{}, false
	}
	start, err1 := parseLineNumber(from)
	end, err2 := parseLineNumber(to)
	if err1 != nil || err2 != nil {
		return Entry{}, false
	}
	return Entry{Path: path, LineStart: start, LineEnd: end, Note: strings.TrimSpace(note)}, true
}

var errBadNumber = errors.New("not a non-negative integer")

// parseLineNumber accepts what an unsigned integer parse accepts in the
// reference implementation: ASCII digits with an optional leading '+'.
func parseLineNumber(s string) (int, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "+")
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, errBadNumber
	}
	n, err := strconv.ParseUint(s, 10, 63)
	if err != nil {
		return 0, errBadNumber
	}
	return int(n), nil
}
