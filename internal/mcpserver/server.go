// Package mcpserver serves a memory folder to any MCP client (Codex, Claude
// Code, editors) as the tools list, read, search and add_ad_hoc_note, with
// the semantics of internal/memfs. Mistakes in a request (a path outside the
// folder, a missing file, a bad cursor) come back as tool errors the model
// can read and correct; only I/O failures are protocol errors.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memctl/memctl/internal/evidence"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memfs"
	"github.com/memctl/memctl/internal/origin"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/quarantine"
	"github.com/memctl/memctl/internal/review"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/textcut"
)

// Options configures a memory tool server.
type Options struct {
	// Root is the memory folder of the configured memory version.
	Root string
	// Version is memctl's build version, reported as the server version.
	Version string
	// Ranked runs a ranked full-text search (memctl search's engine:
	// StoreSearch), the search tool's engine for a query; nil leaves only
	// the line search (queries) available.
	Ranked func(ctx context.Context, req RankedRequest) ([]RankedHit, error)
	// Cwd is the folder the server was started in: its project is the
	// default scope of every tool (docs/projects.md).
	Cwd string
	// Overrides are the config's [[projects]] entries.
	Overrides []project.Override
	// Redact is applied to every file text and snippet returned and to
	// every note before it is written; nil returns text unchanged.
	Redact func(string) string
	// ReadOnly hides add_ad_hoc_note.
	ReadOnly bool
	// Now stamps note filenames built from a slug; nil means time.Now.
	Now func() time.Time
	// Review is the queue a note waits in for the user's approval (an
	// agent's note is a proposal); nil: the queue of Root.
	Review *review.Queue
	// StaleChecks flags, in read and search results, the memories whose
	// files or commands changed since they were written (docs/stale.md),
	// spending at most StaleBudget per call (0: evidence.DefaultBudget).
	StaleChecks      bool
	StaleBudget      time.Duration
	RewriteThreshold float64
}

// RankedRequest is a ranked search: the query, how many hits, and the
// project whose memory comes first ("" ranks every project alike).
type RankedRequest struct {
	Query        string
	Limit        int
	ProjectKey   string
	ProjectFiles string   // the project's folder in the memory folder, "projects/<dir>/"
	ProjectPaths []string // the project's rollout summaries
}

// RankedHit is one result of a ranked search.
type RankedHit struct {
	Kind     string  `json:"kind"`
	ThreadID string  `json:"thread_id,omitempty"`
	Path     string  `json:"path,omitempty"`
	Snippet  string  `json:"snippet"`
	Score    float64 `json:"score"`
	// Scope is project, shared or other; Project names the project a hit
	// of another (or this) project came from.
	Scope      string `json:"scope,omitempty"`
	Project    string `json:"project,omitempty"`
	ProjectKey string `json:"project_key,omitempty"`
	// Origin is where the hit's memory came from (a session, the user,
	// another machine, a bundle, an agent); absent for the files memctl
	// wrote.
	Origin *origin.Origin `json:"origin,omitempty"`
}

// StoreSearch is the ranked search of `memctl search` for Options.Ranked:
// the store's ranked index, opened per call (open is how `memctl mcp`
// opens the configured version's store) so the server holds no database
// handle between calls.
func StoreSearch(open func(ctx context.Context) (*store.Store, error)) func(ctx context.Context, req RankedRequest) ([]RankedHit, error) {
	return func(ctx context.Context, req RankedRequest) ([]RankedHit, error) {
		st, err := open(ctx)
		if err != nil {
			return nil, err
		}
		defer st.Close()
		hits, err := st.SearchMemories(ctx, req.Query, store.SearchOptions{Limit: req.Limit, ProjectKey: req.ProjectKey, ProjectFiles: req.ProjectFiles, ProjectPaths: req.ProjectPaths})
		if err != nil {
			return nil, err
		}
		out := make([]RankedHit, len(hits))
		for i, h := range hits {
			out[i] = RankedHit{Kind: h.Kind, ThreadID: h.ThreadID, Path: h.Path, Snippet: h.Snippet, Score: h.Score,
				ProjectKey: h.ProjectKey, Project: h.Project, Origin: h.Origin}
		}
		return out, nil
	}
}

// ScopeInfo is the project a tool call was answered for.
type ScopeInfo struct {
	Key  string `json:"key,omitempty"`
	Name string `json:"name,omitempty"`
	// All is set when the call asked for every project ("*").
	All bool `json:"all,omitempty"`
}

// allProjects is the project argument that lifts the scope.
const allProjects = "*"

// Defaults of the ranked search mode.
const (
	defaultRankedLimit = 20
	maxRankedLimit     = 200
)

const instructions = `These tools read the memory folder that memctl builds from past agent sessions.
Start from memory_summary.md and MEMORY.md; search with a query for the memories that best match it (ranked),
or with queries for the lines that contain them, then read the files it points to.
Paths are relative to the memory folder. Only add a note when the user asks you to remember, correct or forget something.
Memory is scoped to the project of the folder the server runs in: results say their scope (project, shared or other);
other projects' memory is left out of list and search unless you pass project "*".`

// ListInput is the list tool's arguments.
type ListInput struct {
	Path       string `json:"path,omitempty" jsonschema:"directory or file to list, relative to the memory folder; default the folder itself"`
	Cursor     string `json:"cursor,omitempty" jsonschema:"next_cursor from the previous page"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"entries per page, 1 to 2000; default 2000"`
	Project    string `json:"project,omitempty" jsonschema:"project whose files to list: a project key or name; default the project of the folder the server runs in; \"*\" for every project"`
}

// ListOutput is the list tool's result.
type ListOutput struct {
	memfs.ListResult
	Scope ScopeInfo `json:"scope"`
}

// ReadInput is the read tool's arguments.
type ReadInput struct {
	Path       string `json:"path" jsonschema:"file to read, relative to the memory folder"`
	LineOffset *int   `json:"line_offset,omitempty" jsonschema:"first line to return, counting from 1; default 1"`
	MaxLines   *int   `json:"max_lines,omitempty" jsonschema:"how many lines to return (at least 1); default all"`
	Project    string `json:"project,omitempty" jsonschema:"project the reader works in: a project key or name; default the project of the folder the server runs in"`
}

// ReadOutput is the read tool's result: the file and where it stands.
type ReadOutput struct {
	memfs.ReadResult
	// Scope is project, shared or other; Project names the file's project.
	Scope   string    `json:"scope"`
	Project string    `json:"project,omitempty"`
	For     ScopeInfo `json:"for"`
	// Stale lists the stale memories the lines concern: the file is one's
	// rollout summary, or the lines name one or what changed under it.
	Stale []evidence.Notice `json:"stale,omitempty"`
}

// SearchInput is the search tool's arguments: a ranked full-text search
// of everything memctl stored (memctl search's engine) for a query, or a
// grep over the folder's lines for queries.
type SearchInput struct {
	Queries       []string        `json:"queries,omitempty" jsonschema:"substrings to look for, line by line (grep mode, the default when queries are given); at least one in grep mode, none blank"`
	MatchMode     memfs.MatchMode `json:"match_mode,omitzero" jsonschema:"how the queries combine: {\"type\":\"any\"} (default), {\"type\":\"all_on_same_line\"} or {\"type\":\"all_within_lines\",\"line_count\":n}"`
	Path          string          `json:"path,omitempty" jsonschema:"file or directory to search, relative to the memory folder; default the whole folder"`
	Cursor        string          `json:"cursor,omitempty" jsonschema:"next_cursor from the previous page"`
	ContextLines  int             `json:"context_lines,omitempty" jsonschema:"lines of context before and after each match; default 0"`
	CaseSensitive *bool           `json:"case_sensitive,omitempty" jsonschema:"match case exactly; default true"`
	Normalized    bool            `json:"normalized,omitempty" jsonschema:"compare letters and digits only, ignoring spaces and punctuation; default false"`
	MaxResults    int             `json:"max_results,omitempty" jsonschema:"results per page, 1 to 200; default 200 (20 in ranked mode)"`
	Mode          string          `json:"mode,omitempty" jsonschema:"ranked: relevance-ranked full-text search of everything memctl stored, for query (the default when query is given without queries); grep: substring search of the memory files' lines, for queries (the default otherwise)"`
	Query         string          `json:"query,omitempty" jsonschema:"free-text query for a ranked search; in mode ranked default the queries joined by spaces; at most 64 distinct words within 4096 bytes count"`
	Project       string          `json:"project,omitempty" jsonschema:"project whose memory to answer from first: a project key or name; default the project of the folder the server runs in; \"*\" for every project alike"`
}

// SearchOutput is the search tool's result: memfs's fields for a grep, or
// mode, query and hits for a ranked search.
type SearchOutput struct {
	memfs.SearchResult
	Mode  string      `json:"mode,omitempty"`
	Query string      `json:"query,omitempty"`
	Hits  []RankedHit `json:"hits,omitempty"`
	Scope ScopeInfo   `json:"scope"`
	// Stale lists the stale memories any result concerns.
	Stale []evidence.Notice `json:"stale,omitempty"`
	// Note says what a ranked search left out of a long query; Query is
	// then what it searched for.
	Note string `json:"note,omitempty"`
}

// NoteInput is the add_ad_hoc_note tool's arguments.
type NoteInput struct {
	Filename string `json:"filename,omitempty" jsonschema:"note file name: YYYY-MM-DDTHH-MM-SS-slug.md in UTC, slug of lowercase letters, digits and '-'; give this or slug"`
	Slug     string `json:"slug,omitempty" jsonschema:"short slug (lowercase letters, digits, '-'); the server adds the current UTC time; give this or filename"`
	Note     string `json:"note" jsonschema:"what to remember, correct or forget, in a few sentences"`
	Project  string `json:"project,omitempty" jsonschema:"project the note is for: the key or name of a project in memory; default the project of the folder the server runs in (when it is a repository); \"*\" for a note that holds in every project"`
}

// NoteOutput is the add_ad_hoc_note tool's result.
type NoteOutput struct {
	Path string `json:"path"`
	// Project is the key of the project the note is for; "" when it holds
	// in every project.
	Project string `json:"project"`
	// Redacted is set when secrets were cut from the note before it was
	// written.
	Redacted bool `json:"redacted,omitempty"`
	// Held is always set: the note is a proposal that waits for the
	// user's approval (memctl review) before any session sees it, and
	// Path is where it will be written then. Review is its id there.
	Held   bool   `json:"held"`
	Review string `json:"review"`
	// Note says so, for the agent to tell the user.
	Note string `json:"note"`
}

// NewServer returns an MCP server with the memory tools over opts.Root.
func NewServer(opts Options) *mcp.Server {
	if opts.Redact == nil {
		opts.Redact = func(s string) string { return s }
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Review == nil {
		opts.Review = review.Open(opts.Root, opts.Now)
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "memctl", Title: "memctl memories", Version: version},
		&mcp.ServerOptions{Instructions: instructions})
	h := &handlers{opts: opts}
	closed := false
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed}

	mcp.AddTool(s, &mcp.Tool{
		Name:        "list",
		Title:       "List memory files",
		Description: "List the files and folders directly inside a folder of the memory (hidden entries and symlinks are not shown). Page with next_cursor.",
		Annotations: readOnly,
	}, h.list)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "read",
		Title:       "Read a memory file",
		Description: "Read a memory file, optionally from line_offset for max_lines lines. Long content is cut in the middle to about 20,000 tokens; truncated says more remains.",
		Annotations: readOnly,
	}, h.read)
	mcp.AddTool(s, &mcp.Tool{
		Name:  "search",
		Title: "Search the memory",
		Description: "With a query: a relevance-ranked full-text search over every stored memory (raw memories, rollout summaries, memory files), " +
			"best match first, each hit with its kind, thread or path and a snippet. " +
			"With queries: the lines of the memory files containing those substrings, optionally ignoring case (case_sensitive=false), " +
			"comparing only letters and digits (normalized), or requiring all queries on one line or within a window of lines (match_mode); " +
			"sorted by path and line, paged with next_cursor. mode (\"ranked\" or \"grep\") picks the engine explicitly.",
		Annotations: readOnly,
	}, h.search)
	if !opts.ReadOnly {
		mcp.AddTool(s, &mcp.Tool{
			Name:  "add_ad_hoc_note",
			Title: "Add a memory note",
			Description: "Only when the user explicitly asks to remember, correct or forget something: propose a short note for extensions/ad_hoc/notes/. " +
				"The note waits for the user's approval (memctl review, memctl approve) before the next consolidation applies it; tell the user it waits. " +
				"Existing notes are never overwritten. The note is for the current project unless project is \"*\" " +
				"(the user says it holds in all their projects).",
			Annotations: &mcp.ToolAnnotations{DestructiveHint: &closed, OpenWorldHint: &closed},
		}, h.addNote)
	}
	return s
}

// Serve runs the memory tools on transport t until the client disconnects
// or ctx is done, answering every request it has read before it returns.
// memctl mcp passes Stdio(os.Stdin, os.Stdout).
func Serve(ctx context.Context, opts Options, t mcp.Transport) error {
	return NewServer(opts).Run(ctx, answerBeforeEOF(t))
}

type handlers struct{ opts Options }

// clean is what every text returned goes through: the redactor, then the
// quarantine's strong rules, which replace a line that reads like an
// order to the agent (a note or a hand edit may hold one) with a marker,
// keeping the line numbers.
func (h *handlers) clean(text string) string {
	text, _ = quarantine.Mask(h.opts.Redact(text))
	return text
}

// toolError turns an error into what the SDK sends: request errors become
// tool results with IsError set, anything else a JSON-RPC internal error.
// Either way the message repeats at most a short prefix of what the
// request sent (bounded).
func (h *handlers) toolError(err error) error {
	if memfs.IsRequestError(err) || errors.Is(err, errRequest) {
		return errors.New(bounded(h.opts.Redact(err.Error())))
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: bounded(h.opts.Redact(err.Error()))}
}

// errRequest marks request errors found by this package itself.
var errRequest = errors.New("invalid request")

func requestErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errRequest}, args...)...)
}

// scoped is the project a call is answered for, with the memory folder's
// project index to place files by.
type scoped struct {
	info ScopeInfo
	ix   *project.Index
	dir  string // the project's folder under projects/, "" when it has none
}

// scope resolves a tool's project argument (project.Resolve, as every
// command does): a name several projects share is a request error that
// lists their keys, never the first of them.
func (h *handlers) scope(arg string) (scoped, error) {
	ix := h.index()
	arg = strings.TrimSpace(arg)
	if arg == allProjects || (arg == "" && h.opts.Cwd == "") {
		return scoped{info: ScopeInfo{All: true}, ix: ix}, nil
	}
	if arg == "" {
		arg = h.opts.Cwd
	}
	r, err := project.Resolve(arg, ix, nil, h.opts.Overrides)
	if err != nil {
		return scoped{}, ambiguous(err)
	}
	sc := scoped{info: ScopeInfo{Key: r.Identity.Key, Name: r.Identity.Name}, ix: ix}
	if r.Known {
		sc.info = ScopeInfo{Key: r.Entry.Key, Name: r.Entry.Name}
		sc.dir = r.Entry.Dir
	}
	return sc, nil
}

// index is the memory folder's project index (nil when there is none).
func (h *handlers) index() *project.Index {
	ix, _ := project.LoadIndex(filepath.Join(h.opts.Root, filepath.FromSlash(memdir.ProjectIndexFile)))
	return ix
}

// ambiguous makes project.Resolve's refusal of a shared name a request
// error the model can correct: it lists the keys to choose from.
func ambiguous(err error) error {
	var amb *project.AmbiguousError
	if errors.As(err, &amb) {
		return requestErrorf("project: %s; %s", amb.Error(), amb.Hint())
	}
	return err
}

// place ranks a file for the scope: the project's own first, shared
// files next, other projects' last (and left out unless every project
// was asked for).
func (sc scoped) place(path string) (int, string, bool) {
	if sc.info.All {
		return 0, "", true
	}
	scope, _ := sc.ix.ScopeOf(sc.info.Key, path, "", "")
	switch scope {
	case project.ScopeProject:
		return 0, scope, true
	case project.ScopeShared:
		return 1, scope, true
	default:
		return 2, scope, false
	}
}

func (h *handlers) list(_ context.Context, _ *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
	if err := checkArgs(map[string]string{"path": in.Path, "cursor": in.Cursor, "project": in.Project}); err != nil {
		return nil, ListOutput{}, h.toolError(err)
	}
	sc, err := h.scope(in.Project)
	if err != nil {
		return nil, ListOutput{}, h.toolError(err)
	}
	res, err := memfs.ListPlaced(h.opts.Root, in.Path, in.Cursor, in.MaxResults, sc.place)
	if err != nil {
		return nil, ListOutput{}, h.toolError(err)
	}
	return nil, ListOutput{ListResult: res, Scope: sc.info}, nil
}

func (h *handlers) read(_ context.Context, _ *mcp.CallToolRequest, in ReadInput) (*mcp.CallToolResult, ReadOutput, error) {
	if err := checkArgs(map[string]string{"path": in.Path, "project": in.Project}); err != nil {
		return nil, ReadOutput{}, h.toolError(err)
	}
	offset, maxLines := 1, 0
	if in.LineOffset != nil {
		offset = *in.LineOffset
	}
	if in.MaxLines != nil {
		if *in.MaxLines < 1 {
			return nil, ReadOutput{}, h.toolError(memfs.ErrInvalidMaxLines)
		}
		maxLines = *in.MaxLines
	}
	res, err := memfs.Read(h.opts.Root, in.Path, offset, maxLines)
	if err != nil {
		return nil, ReadOutput{}, h.toolError(err)
	}
	res.Content = h.clean(res.Content)
	// A file of another project can be read (the summary points to them),
	// but it says whose it is.
	sc, err := h.scope(in.Project)
	if err != nil {
		return nil, ReadOutput{}, h.toolError(err)
	}
	out := ReadOutput{ReadResult: res, Scope: project.ScopeShared, For: sc.info}
	if !sc.info.All {
		out.Scope, out.Project = sc.ix.ScopeOf(sc.info.Key, res.Path, "", "")
	} else if e, ok := sc.ix.Owner(res.Path); ok {
		out.Project = e.Name
	}
	for _, n := range h.stale() {
		if n.RolloutFile == res.Path || n.Mentions(res.Content) {
			out.Stale = append(out.Stale, n)
		}
	}
	return nil, out, nil
}

// stale checks the folder's evidence index within the budget; nil when
// the checks are off or there is no index.
func (h *handlers) stale() []evidence.Notice {
	if !h.opts.StaleChecks {
		return nil
	}
	budget := h.opts.StaleBudget
	if budget <= 0 {
		budget = evidence.DefaultBudget
	}
	// The budget is real elapsed time: the wall clock, not opts.Now.
	c := &evidence.Checker{Deadline: time.Now().Add(budget), RewriteThreshold: h.opts.RewriteThreshold}
	scan, _ := evidence.CheckIndex(filepath.Join(h.opts.Root, memdir.EvidenceIndexFile), "", c)
	return scan.Stale
}

// searchMode is the engine a search call asked for. Without a mode the
// ranked index (memctl search's engine) answers, unless the call uses
// Codex's line-search arguments: queries promise line matches with their
// paths and line numbers, which only the grep over the folder gives (and
// a note just added is in the folder before the index).
func searchMode(in SearchInput) string {
	if in.Mode != "" {
		return in.Mode
	}
	if len(in.Queries) > 0 || strings.TrimSpace(in.Query) == "" {
		return modeGrep
	}
	return modeRanked
}

// The search tool's modes.
const (
	modeGrep   = "grep"
	modeRanked = "ranked"
)

func (h *handlers) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	args := map[string]string{"path": in.Path, "cursor": in.Cursor, "project": in.Project, "mode": in.Mode}
	for i, q := range in.Queries {
		args[fmt.Sprintf("queries[%d]", i)] = q
	}
	if err := checkArgs(args); err != nil {
		return nil, SearchOutput{}, h.toolError(err)
	}
	sc, err := h.scope(in.Project)
	if err != nil {
		return nil, SearchOutput{}, h.toolError(err)
	}
	switch searchMode(in) {
	case modeGrep:
		res, err := memfs.Search(h.opts.Root, memfs.SearchRequest{
			Queries: in.Queries, MatchMode: in.MatchMode, Path: in.Path, Cursor: in.Cursor,
			ContextLines: in.ContextLines, CaseSensitive: in.CaseSensitive, Normalized: in.Normalized, MaxResults: in.MaxResults,
			Place: sc.place,
		})
		if err != nil {
			return nil, SearchOutput{}, h.toolError(err)
		}
		for i := range res.Matches {
			res.Matches[i].Content = h.clean(res.Matches[i].Content)
		}
		out := SearchOutput{SearchResult: res, Scope: sc.info}
		if len(res.Matches) > 0 {
			for _, n := range h.stale() {
				for _, m := range res.Matches {
					if n.RolloutFile == m.Path || n.Mentions(m.Content) {
						out.Stale = append(out.Stale, n)
						break
					}
				}
			}
		}
		return nil, out, nil
	case modeRanked:
		return h.ranked(ctx, in, sc)
	default:
		return nil, SearchOutput{}, h.toolError(requestErrorf("mode must be grep or ranked, got %q", in.Mode))
	}
}

func (h *handlers) ranked(ctx context.Context, in SearchInput, sc scoped) (*mcp.CallToolResult, SearchOutput, error) {
	if h.opts.Ranked == nil {
		return nil, SearchOutput{}, h.toolError(requestErrorf("ranked search is not available here; search the lines with queries (grep mode)"))
	}
	query := strings.TrimSpace(in.Query)
	if query == "" {
		query = strings.TrimSpace(strings.Join(in.Queries, " "))
	}
	if query == "" {
		return nil, SearchOutput{}, h.toolError(requestErrorf("ranked search needs a query"))
	}
	limit := in.MaxResults
	if limit == 0 {
		limit = defaultRankedLimit
	}
	limit = max(1, min(limit, maxRankedLimit))
	req := RankedRequest{Query: query, Limit: limit}
	if !sc.info.All {
		req.ProjectKey = sc.info.Key
		if e, ok := sc.ix.ByKey(sc.info.Key); ok {
			req.ProjectFiles = memdir.ProjectsDir + "/" + e.Dir + "/"
			req.ProjectPaths = e.Files
		}
	}
	hits, err := h.opts.Ranked(ctx, req)
	if err != nil {
		return nil, SearchOutput{}, h.toolError(err)
	}
	for i := range hits {
		hits[i].Snippet = h.clean(hits[i].Snippet)
		if !sc.info.All {
			hits[i].Scope, hits[i].Project = sc.ix.ScopeOf(sc.info.Key, hits[i].Path, hits[i].ProjectKey, hits[i].Project)
		}
	}
	if !sc.info.All {
		sort.SliceStable(hits, func(i, j int) bool { return project.ScopeRank(hits[i].Scope) < project.ScopeRank(hits[j].Scope) })
	}
	if hits == nil {
		hits = []RankedHit{}
	}
	out := SearchOutput{Mode: modeRanked, Query: query, Hits: hits, Scope: sc.info}
	if qt := store.SearchTerms(query); qt.Cut {
		out.Query, out.Note = qt.Query(), qt.Note()
	}
	if len(hits) > 0 {
		for _, n := range h.stale() {
			for _, hit := range hits {
				if hit.ThreadID == n.ThreadID || n.RolloutFile == hit.Path || n.Mentions(hit.Snippet) {
					out.Stale = append(out.Stale, n)
					break
				}
			}
		}
	}
	return nil, out, nil
}

func (h *handlers) addNote(_ context.Context, req *mcp.CallToolRequest, in NoteInput) (*mcp.CallToolResult, NoteOutput, error) {
	if err := checkArgs(map[string]string{"filename": in.Filename, "slug": in.Slug, "project": in.Project}); err != nil {
		return nil, NoteOutput{}, h.toolError(err)
	}
	filename := in.Filename
	switch {
	case in.Filename != "" && in.Slug != "":
		return nil, NoteOutput{}, h.toolError(requestErrorf("give filename or slug, not both"))
	case in.Slug != "":
		name, err := memfs.NoteFilename(h.opts.Now(), in.Slug)
		if err != nil {
			return nil, NoteOutput{}, h.toolError(err)
		}
		filename = name
	case in.Filename == "":
		return nil, NoteOutput{}, h.toolError(requestErrorf("filename or slug is required"))
	}
	key, err := h.noteProject(in.Project)
	if err != nil {
		return nil, NoteOutput{}, h.toolError(err)
	}
	// The note will be written into the memory folder, which holds no
	// secret; the queue holds none either.
	text := h.opts.Redact(in.Note)
	redacted := text != in.Note
	if strings.TrimSpace(text) == "" {
		return nil, NoteOutput{}, h.toolError(memfs.ErrEmptyNote)
	}
	if err := memfs.ValidateNoteFilename(filename); err != nil {
		return nil, NoteOutput{}, h.toolError(err)
	}
	rel := memdir.NotesDir + "/" + filename
	if _, err := os.Lstat(filepath.Join(h.opts.Root, filepath.FromSlash(rel))); err == nil {
		return nil, NoteOutput{}, h.toolError(requestErrorf("note %s already exists; notes are never overwritten", rel))
	}
	if waiting, err := h.opts.Review.NoteWaiting(filename); err != nil {
		return nil, NoteOutput{}, h.toolError(err)
	} else if waiting {
		return nil, NoteOutput{}, h.toolError(requestErrorf("note %s already exists (it waits for the user's review); notes are never overwritten", rel))
	}
	content := text
	if key != "" {
		content = project.NoteHeader(key) + text
	}
	// Any agent can call this tool, one that read a hostile page too: the
	// note is a proposal, held whole until the user approves it, with
	// the lines the quarantine would hold from an untrusted origin.
	it, err := h.opts.Review.Hold(review.Item{Kind: review.KindNote, Origin: origin.Origin{Kind: origin.Agent, Detail: clientName(req)},
		Reasons: quarantine.Hold("note", text), Note: &review.Note{Name: filename, Content: content}})
	if err != nil {
		return nil, NoteOutput{}, h.toolError(err)
	}
	return nil, NoteOutput{Path: rel, Project: key, Redacted: redacted, Held: true, Review: it.ID,
		Note: "The note waits for the user's approval and no session sees it until then; tell the user to run `memctl review` to see it and `memctl approve " + it.ID + "` to keep it."}, nil
}

// clientName is the MCP client's name as it introduced itself, on one
// line and short: it labels the note's origin.
func clientName(req *mcp.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return ""
	}
	p := req.Session.InitializeParams()
	if p == nil || p.ClientInfo == nil {
		return ""
	}
	name := strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || r == ' ' {
			return '-'
		}
		return r
	}, strings.TrimSpace(p.ClientInfo.Name))
	return textcut.LineRunes(name, 40)
}

// noteProject is the project a note is for: the one named, none for "*",
// else the server's folder's when that is a repository. A named project
// must be in memory or be the server's own: a key made up in a tool call
// would become a project whose name (the caller's words) every other
// project's summary lists.
func (h *handlers) noteProject(arg string) (string, error) {
	arg = strings.TrimSpace(arg)
	own := h.ownProject()
	switch arg {
	case allProjects:
		return "", nil
	case "":
		return own.Key, nil
	}
	// The server's own project counts as known even before its memory
	// is consolidated; a name it shares with a project in memory is
	// ambiguous like any other.
	var ownKnown []project.Known
	if own.Key != "" {
		ownKnown = []project.Known{{Key: own.Key, Name: own.Name}}
	}
	r, err := project.Resolve(arg, h.index(), ownKnown, h.opts.Overrides)
	if err != nil {
		return "", ambiguous(err)
	}
	if r.Known {
		return r.Identity.Key, nil // a project in memory, or a folder of one
	}
	return "", requestErrorf("no project %q in memory; give the key or name of a project in memory (list shows projects/index.json), or \"*\"", arg)
}

// ownProject is the project of the folder the server runs in, when that
// is a repository; the zero Identity otherwise.
func (h *handlers) ownProject() project.Identity {
	r := project.NewResolver(h.opts.Overrides)
	if h.opts.Cwd == "" || !r.InRepository(h.opts.Cwd) {
		return project.Identity{}
	}
	return r.Resolve(h.opts.Cwd, "")
}
