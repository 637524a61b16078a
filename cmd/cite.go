package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/inject"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memfs"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

type citeResult struct {
	Visible    string         `json:"visible"`
	Entries    []inject.Entry `json:"entries"`
	RolloutIDs []string       `json:"rollout_ids"`
	Recorded   int            `json:"recorded"`
	Cited      bool           `json:"cited"`
	// UnknownIDs are cited ids with no stored memory (pruned, forgotten,
	// never extracted, or mistyped); they are not counted.
	UnknownIDs []string `json:"unknown_ids"`
}

// CiteOptions is what `memctl cite` needs: injected loaders first, then
// the arguments and flag values.
type CiteOptions struct {
	IO        *IOStreams
	Config    func() (*config.Config, error)
	OpenStore func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Now       func() time.Time
	// Getenv and UserHome find Codex's sessions for --hook codex.
	Getenv   func(string) string
	UserHome func() (string, error)

	JSON bool
	// Arg is the FILE argument (or, with --hook codex, the notify JSON); "" for stdin.
	Arg    string
	IDs    []string
	DryRun bool
	Hook   string // "", claude or codex
}

// citeHooks are the values of cite --hook.
var citeHooks = []string{"claude", "codex"}

func newCiteCmd(f *Factory, runF func(context.Context, *CiteOptions) error) *cobra.Command {
	opts := &CiteOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, Getenv: f.Getenv, UserHome: f.UserHome}
	c := &cobra.Command{
		Use:   "cite [FILE]",
		Short: "Strip the memory citation from an agent's reply and count the uses",
		Long: `Read an agent's final reply from FILE or stdin, print it without its
<oai-mem-citation> block, and add one use to each raw memory whose thread id the
block cites. Used memories rank higher in the next consolidation and are not
pruned. --id records a use directly; --dry-run records nothing.

The reply streams through: text is printed as it arrives.

--hook adapts cite to an agent's hook, prints nothing and records the uses:
  claude  a Claude Code Stop hook: the hook's JSON arrives on stdin with the
          reply in last_assistant_message (the transcript it names is read
          only when that field is absent)
  codex   a Codex notify program: the JSON is the last argument; Codex strips
          the citation block from that reply, so the turn's citation is read
          from its rollout under $CODEX_HOME/sessions
A turn reported twice (same session and turn id) is counted once.`,
		Args: cobra.MaximumNArgs(1),
		Example: `  $ agent --print "$prompt" | memctl cite
  $ memctl cite reply.md --json
  $ memctl cite --id 019e1625-789d-76c0-80ab-3724b5ddb799 < /dev/null
  $ memctl cite --hook claude         # in .claude/settings.json "Stop" hooks
  $ memctl cite --hook codex "$JSON"  # as Codex's notify program`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON = f.JSON
			if len(args) == 1 {
				opts.Arg = args[0]
			}
			err := checkCite(opts)
			if err == nil {
				err = runOrHook(c.Context(), opts, runF, runCite)
			}
			if err != nil && opts.Hook != "" {
				return &hookError{err: err}
			}
			return err
		},
	}
	c.Flags().StringArrayVar(&opts.IDs, "id", nil, "record one use of this thread `ID` (repeatable)")
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "parse and print, record nothing")
	// Not an enum flag: a bad --hook value is a hook failure (exit 1), and
	// the flag layer would make it a usage error (exit 2), which Claude
	// Code reads as "do not stop".
	c.Flags().StringVar(&opts.Hook, "hook", "", fmt.Sprintf("read the reply from an agent hook; prints nothing, failures exit 1, never 2: {%s}", strings.Join(citeHooks, "|")))
	_ = c.RegisterFlagCompletionFunc("hook", fixedCompletions(citeHooks))
	return c
}

func checkCite(opts *CiteOptions) error {
	for _, id := range opts.IDs {
		if !plausibleThreadID(id) {
			return FlagErrorf("--id %q is not a thread id", id)
		}
	}
	if opts.Hook != "" && !slices.Contains(citeHooks, opts.Hook) {
		return FlagErrorf("--hook: invalid value %q: want one of: %s", opts.Hook, strings.Join(citeHooks, ", "))
	}
	if opts.Hook == "codex" && opts.Arg == "" {
		return FlagErrorf("--hook codex needs the notify JSON as its argument")
	}
	return nil
}

func runCite(ctx context.Context, opts *CiteOptions) error {
	in := opts.IO.In
	out := opts.IO.Out
	var visible bytes.Buffer
	// turnKey names the agent turn a hook reports, so the same turn
	// reported twice adds its uses once.
	var turnKey string
	if opts.JSON {
		out = &visible
	}
	switch opts.Hook {
	case "":
		if opts.Arg != "" && opts.Arg != "-" {
			fh, err := os.Open(opts.Arg)
			if err != nil {
				return err
			}
			defer fh.Close()
			in = fh
		}
	case "claude":
		reply, err := sessions.HookReply(sessions.KindClaudeCode, opts.IO.In)
		if err != nil {
			return err
		}
		in, out, turnKey = strings.NewReader(reply.Text), io.Discard, reply.TurnKey
		opts.IO.Debugf("cite: reply read from the hook %s", reply.From)
	case "codex":
		reply, err := sessions.HookReply(sessions.KindCodex, strings.NewReader(opts.Arg))
		if err != nil {
			return err
		}
		// Codex strips the citation block from the reply it notifies;
		// the turn's rollout still has it.
		text := reply.Text
		if reply.TurnID != "" {
			cit, err := sessions.TurnCitation(sessions.KindCodex, codexHome(opts.Getenv, opts.UserHome), reply.ThreadID, reply.TurnID, 3*time.Second)
			if err != nil {
				opts.IO.Debugf("cite: read the rollout of %s: %v", reply.ThreadID, err)
			}
			text += "\n" + cit
		}
		in, out, turnKey = strings.NewReader(text), io.Discard, reply.TurnKey
	}
	bodies, err := inject.StripCitations(out, in)
	if err != nil {
		return err
	}
	cites, cited := inject.ParseCitations(bodies)
	// Codex counts only UUIDs; memctl's own transcript format allows
	// any id, so every plausible id is counted (unknown ones match
	// no row and are ignored).
	threadIDs := append([]string{}, cites.ThreadIDs...)
	for _, id := range cites.RolloutIDs {
		if plausibleThreadID(id) {
			threadIDs = append(threadIDs, normalizeUUID(id))
		}
	}
	for _, id := range opts.IDs {
		threadIDs = append(threadIDs, normalizeUUID(id))
	}
	threadIDs = dedupe(threadIDs)
	notes := citedNotes(cites.Entries)
	res := citeResult{Visible: visible.String(), Entries: nonNilSlice(cites.Entries), RolloutIDs: nonNilSlice(cites.RolloutIDs), Cited: cited,
		UnknownIDs: []string{}}
	if (len(threadIDs) > 0 || len(notes) > 0) && !opts.DryRun {
		_, st, err := configAndStore(ctx, opts.Config, opts.OpenStore)
		if err != nil {
			return err
		}
		for _, id := range threadIDs {
			if _, err := st.Output(ctx, id); errors.Is(err, store.ErrNotFound) {
				res.UnknownIDs = append(res.UnknownIDs, id)
			}
		}
		n, dup, err := st.RecordTurnUsage(ctx, turnKey, threadIDs)
		if err == nil && !dup {
			// A note's uses rank it when more notes exist than the summary
			// holds (memmodel.MaxSummaryNotes).
			err = st.RecordNoteUses(ctx, notes)
		}
		st.Close()
		if err != nil {
			return fmt.Errorf("record citation usage: %w", err)
		}
		for _, id := range res.UnknownIDs {
			opts.IO.Warnf("cited id %q has no stored memory (pruned, forgotten, never extracted or mistyped); not counted", id)
		}
		res.Recorded = n
		if dup {
			opts.IO.Debugf("cite: turn %s was already counted", turnKey)
		}
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, res)
	}
	if len(threadIDs) > 0 {
		opts.IO.Debugf("cited %d memories, recorded %d uses", len(threadIDs), res.Recorded)
	}
	return nil
}

// citedNotes are the ad hoc notes a reply cited by their file, by name,
// each once.
func citedNotes(entries []inject.Entry) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(path.Clean(filepath.ToSlash(e.Path)), memdir.NotesDir+"/")
		if !ok || memfs.ValidateNoteFilename(rest) != nil || seen[rest] {
			continue
		}
		seen[rest] = true
		out = append(out, rest)
	}
	return out
}

// codexHome is where Codex keeps its sessions: $CODEX_HOME, else ~/.codex.
func codexHome(getenv func(string) string, userHome func() (string, error)) string {
	if h := getenv("CODEX_HOME"); h != "" {
		return h
	}
	uh, _ := userHome()
	return filepath.Join(uh, ".codex")
}

// plausibleThreadID accepts what a thread id can be: a UUID, or the id a
// JSONL transcript declares (one token, no whitespace, bounded length).
func plausibleThreadID(s string) bool {
	return s != "" && len(s) <= 200 && !strings.ContainsFunc(s, unicode.IsSpace)
}

func normalizeUUID(s string) string {
	if u, err := uuid.Parse(s); err == nil {
		return u.String()
	}
	return s
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	out := in[:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
