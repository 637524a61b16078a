package cmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"
	"github.com/memctl/memctl/pkg/hooks"
	"github.com/memctl/memctl/pkg/inject"
	"github.com/spf13/cobra"
)

type citeResult struct {
	Visible    string         `json:"visible"`
	Entries    []inject.Entry `json:"entries"`
	RolloutIDs []string       `json:"rollout_ids"`
	Recorded   int            `json:"recorded"`
	Cited      bool           `json:"cited"`
}

func newCiteCmd(f *Factory) *cobra.Command {
	var ids []string
	var dryRun bool
	var hook string
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
		RunE: func(cmd *cobra.Command, args []string) error {
			err := runCite(cmd, f, args, ids, dryRun, hook)
			if err != nil && hook != "" {
				return &hookError{err: err}
			}
			return err
		},
	}
	c.Flags().StringArrayVar(&ids, "id", nil, "record one use of this thread `ID` (repeatable)")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "parse and print, record nothing")
	c.Flags().StringVar(&hook, "hook", "", "read the reply from an agent hook: claude or codex (prints nothing; failures exit 1, never 2)")
	return c
}

func runCite(cmd *cobra.Command, f *Factory, args, ids []string, dryRun bool, hook string) error {
	for _, id := range ids {
		if !plausibleThreadID(id) {
			return FlagErrorf("--id %q is not a thread id", id)
		}
	}
	var in io.Reader = f.IO.In
	out := f.IO.Out
	var visible bytes.Buffer
	// turnKey names the agent turn a hook reports, so the same turn
	// reported twice adds its uses once.
	var turnKey string
	if f.JSON {
		out = &visible
	}
	switch hook {
	case "":
		if len(args) == 1 && args[0] != "-" {
			fh, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer fh.Close()
			in = fh
		}
	case "claude":
		reply, err := hooks.ClaudeStop(f.IO.In)
		if err != nil {
			return err
		}
		in, out, turnKey = strings.NewReader(reply.Text), io.Discard, reply.TurnKey
		f.debugf("cite: reply read from the hook %s", reply.From)
	case "codex":
		if len(args) != 1 {
			return FlagErrorf("--hook codex needs the notify JSON as its argument")
		}
		reply, err := hooks.CodexNotify(args[0])
		if err != nil {
			return err
		}
		// Codex strips the citation block from the reply it notifies;
		// the turn's rollout still has it.
		text := reply.Text
		if reply.TurnID != "" {
			cit, err := hooks.CodexTurnCitation(codexHome(f), reply.ThreadID, reply.TurnID, 3*time.Second)
			if err != nil {
				f.debugf("cite: read the rollout of %s: %v", reply.ThreadID, err)
			}
			text += "\n" + cit
		}
		in, out, turnKey = strings.NewReader(text), io.Discard, reply.TurnKey
	default:
		return FlagErrorf("--hook: invalid value %q (want claude or codex)", hook)
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
	for _, id := range ids {
		threadIDs = append(threadIDs, normalizeUUID(id))
	}
	threadIDs = dedupe(threadIDs)
	res := citeResult{Visible: visible.String(), Entries: nonNilSlice(cites.Entries), RolloutIDs: nonNilSlice(cites.RolloutIDs), Cited: cited}
	if len(threadIDs) > 0 && !dryRun {
		cfg, err := f.Config()
		if err != nil {
			return err
		}
		st, err := f.OpenStore(cmd.Context(), cfg.Memories.Version)
		if err != nil {
			return err
		}
		n, dup, err := st.RecordTurnUsage(cmd.Context(), turnKey, threadIDs)
		st.Close()
		if err != nil {
			return fmt.Errorf("record citation usage: %w", err)
		}
		res.Recorded = n
		if dup {
			f.debugf("cite: turn %s was already counted", turnKey)
		}
	}
	if f.JSON {
		return printJSON(f.IO.Out, res)
	}
	if len(threadIDs) > 0 {
		f.debugf("cited %d memories, recorded %d uses", len(threadIDs), res.Recorded)
	}
	return nil
}

// codexHome is where Codex keeps its sessions: $CODEX_HOME, else ~/.codex.
func codexHome(f *Factory) string {
	if h := f.Getenv("CODEX_HOME"); h != "" {
		return h
	}
	uh, _ := f.UserHome()
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
