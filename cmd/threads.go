package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/memctl/memctl/pkg/extract"
	"github.com/memctl/memctl/pkg/store"
	"github.com/spf13/cobra"
)

func newThreadsCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "threads <command>",
		Short: "List, inspect, enable, disable and forget indexed threads",
		Long: `Work with the threads memctl indexed from transcripts. A thread id may be
given in full or as a unique prefix of at least four characters.`,
		Example: `  $ memctl threads list
  $ memctl threads show 019e1625
  $ memctl threads forget 019e1625`,
	}
	c.AddCommand(newThreadsListCmd(f), newThreadsShowCmd(f), newThreadsInputCmd(f),
		newThreadsModeCmd(f, "enable", "enabled", "Allow a thread to be extracted and consolidated"),
		newThreadsModeCmd(f, "disable", "disabled", "Keep a thread out of extraction and consolidation"),
		newThreadsForgetCmd(f))
	return c
}

// threadJSON is the CLI.md shape of one thread.
type threadJSON struct {
	ID         string `json:"id"`
	Source     string `json:"source"`
	SourceKind string `json:"source_kind"`
	Path       string `json:"path"`
	Cwd        string `json:"cwd"`
	GitBranch  string `json:"git_branch,omitempty"`
	Preview    string `json:"preview"`
	CreatedAt  string `json:"created_at"`
	UpdatedAt  string `json:"updated_at"`
	MemoryMode string `json:"memory_mode"`
	HasMemory  bool   `json:"has_memory"`
	Subagent   bool   `json:"subagent"`
	Archived   bool   `json:"archived"`
}

func toThreadJSON(t store.Thread, hasMemory bool) threadJSON {
	return threadJSON{ID: t.ID, Source: t.Source, SourceKind: t.SourceKind, Path: t.Path, Cwd: t.Cwd, GitBranch: t.GitBranch,
		Preview: t.Preview, CreatedAt: rfc3339(t.CreatedAt), UpdatedAt: rfc3339(t.UpdatedAt), MemoryMode: t.MemoryMode,
		HasMemory: hasMemory, Subagent: t.Subagent, Archived: t.Archived}
}

func newThreadsListCmd(f *Factory) *cobra.Command {
	var limit int
	c := &cobra.Command{
		Use:   "list",
		Short: "List indexed threads, most recently updated first",
		Args:  cobra.NoArgs,
		Example: `  $ memctl threads list
  $ memctl threads list --json | jq '.[] | select(.has_memory)'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			st, err := f.OpenStore(cmd.Context(), cfg.Memories.Version)
			if err != nil {
				return err
			}
			defer st.Close()
			threads, err := st.ListThreads(cmd.Context(), store.ThreadFilter{Limit: limit})
			if err != nil {
				return err
			}
			if f.JSON {
				out := make([]threadJSON, 0, len(threads))
				for _, t := range threads {
					out = append(out, toThreadJSON(t.Thread, t.HasMemory))
				}
				return printJSON(f.IO.Out, out)
			}
			tb := newTable(f.IO, "ID", "SOURCE", "UPDATED", "MODE", "MEMORY", "CWD", "PREVIEW")
			for _, t := range threads {
				mem := "-"
				if t.HasMemory {
					mem = "yes"
				}
				tb.add(t.ID, t.Source, timeCell(f.IO, t.UpdatedAt, f.Now()), t.MemoryMode, mem, t.Cwd, shorten(t.Preview, 60))
			}
			return tb.print()
		},
	}
	c.Flags().IntVar(&limit, "limit", 0, "list at most `N` threads (0: all)")
	return c
}

func lookupThread(cmd *cobra.Command, st *store.Store, id string) (store.Thread, error) {
	t, err := st.Thread(cmd.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return t, withHint(fmt.Errorf("no thread %q", id), "run `memctl scan`, then `memctl threads list`")
	}
	return t, err
}

func newThreadsShowCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Show one thread, its raw memory and why it is or is not eligible for extraction",
		Args:  cobra.ExactArgs(1),
		Example: `  $ memctl threads show 019e1625
  $ memctl threads show 019e1625 --json | jq .memory.rollout_summary`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			st, err := f.OpenStore(ctx, cfg.Memories.Version)
			if err != nil {
				return err
			}
			defer st.Close()
			t, err := lookupThread(cmd, st, args[0])
			if err != nil {
				return err
			}
			var out *store.Output
			if o, err := st.Output(ctx, t.ID); err == nil {
				out = &o
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
			var job *store.Job
			if j, err := st.Job(ctx, store.KindStage1, t.ID); err == nil {
				job = &j
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
			elig := extract.Explain(t, job, out, extract.Window{MaxAgeDays: cfg.Memories.MaxRolloutAgeDays,
				MinIdleHours: cfg.Memories.MinRolloutIdleHours, InteractiveOnly: true}, f.Now())
			if f.JSON {
				var mem any
				if out != nil {
					mem = map[string]any{"raw_memory": out.RawMemory, "rollout_summary": out.RolloutSummary, "rollout_slug": out.RolloutSlug,
						"usage_count": out.UsageCount, "last_usage": out.LastUsage, "source_updated_at": out.SourceUpdatedAt,
						"selected_for_phase2": out.SelectedForPhase2}
				}
				return printJSON(f.IO.Out, map[string]any{"thread": toThreadJSON(t, out != nil), "memory": mem, "eligibility": elig,
					"related_paths": t.Related, "problems": t.Problems})
			}
			w := f.IO.Out
			fmt.Fprintf(w, "%s %s\n", f.IO.Bold("thread"), t.ID)
			fmt.Fprintf(w, "  source    %s (%s)\n  path      %s\n  cwd       %s\n", t.Source, t.SourceKind, t.Path, t.Cwd)
			if t.GitBranch != "" {
				fmt.Fprintf(w, "  branch    %s\n", t.GitBranch)
			}
			fmt.Fprintf(w, "  created   %s\n  updated   %s\n  mode      %s\n  preview   %s\n", rfc3339(t.CreatedAt), rfc3339(t.UpdatedAt), t.MemoryMode, shorten(t.Preview, 100))
			if t.Problems > 0 {
				fmt.Fprintf(w, "  problems  %d unreadable parts (see `memctl scan`)\n", t.Problems)
			}
			verdict := f.IO.Red("not eligible")
			if elig.Eligible {
				verdict = f.IO.Green("eligible")
			}
			fmt.Fprintf(w, "\n%s: %s\n", f.IO.Bold("extraction"), verdict)
			for _, c := range elig.Checks {
				mark := "ok "
				if !c.OK {
					mark = "NO "
				}
				fmt.Fprintf(w, "  %s %-15s %s\n", mark, c.Name, c.Detail)
			}
			if out != nil {
				fmt.Fprintf(w, "\n%s (used %d times)\n", f.IO.Bold("raw memory"), out.UsageCount)
				if out.RawMemory != "" {
					fmt.Fprintln(w, strings.TrimSpace(out.RawMemory))
				}
				fmt.Fprintf(w, "\n%s\n%s\n", f.IO.Bold("rollout summary"), strings.TrimSpace(out.RolloutSummary))
			}
			return nil
		},
	}
}

func newThreadsInputCmd(f *Factory) *cobra.Command {
	var systemToo bool
	c := &cobra.Command{
		Use:   "input ID",
		Short: "Print exactly the text Phase 1 would send to the model for a thread",
		Long: `Print the user message(s) Phase 1 would send for a thread: filtered, redacted
and cut to the token budget, wrapped in the input template. v2 splits its evidence
into messages of at most 8,900 bytes; they are separated by a line of dashes.`,
		Args:    cobra.ExactArgs(1),
		Example: `  $ memctl threads input 019e1625 | less`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			red, err := redactor(cfg)
			if err != nil {
				return err
			}
			st, err := f.OpenStore(cmd.Context(), cfg.Memories.Version)
			if err != nil {
				return err
			}
			defer st.Close()
			t, err := lookupThread(cmd, st, args[0])
			if err != nil {
				return err
			}
			system, input, err := extract.Input(t, cfg.Memories.Version, cfg.TokenLimit(), red, cfg.Templates.Dir)
			if err != nil {
				return err
			}
			if f.JSON {
				return printJSON(f.IO.Out, map[string]any{"system": system, "input": input})
			}
			if systemToo {
				fmt.Fprintln(f.IO.Out, system)
				fmt.Fprintln(f.IO.Out, "-----")
			}
			_, err = fmt.Fprint(f.IO.Out, strings.Join(input, "\n-----\n"))
			return err
		},
	}
	c.Flags().BoolVar(&systemToo, "system", false, "print the system prompt first")
	return c
}

func newThreadsModeCmd(f *Factory, use, mode, short string) *cobra.Command {
	return &cobra.Command{
		Use:     use + " ID",
		Short:   short,
		Args:    cobra.ExactArgs(1),
		Example: fmt.Sprintf("  $ memctl threads %s 019e1625", use),
		RunE: func(cmd *cobra.Command, args []string) error {
			return setMode(cmd, f, args[0], mode, false)
		},
	}
}

func newThreadsForgetCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "forget ID",
		Short: "Disable a thread and delete its raw memory",
		Long: `Disable a thread and delete its raw memory. When the memory was part of the
last consolidation, the next consolidate removes its summary file from the memory
folder and the workspace diff shows it as deleted, so the memory is forgotten.`,
		Args:    cobra.ExactArgs(1),
		Example: `  $ memctl threads forget 019e1625 && memctl consolidate --force`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return setMode(cmd, f, args[0], "disabled", true)
		},
	}
}

// setMode applies a mode in every generated version's store.
func setMode(cmd *cobra.Command, f *Factory, id, mode string, forget bool) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	var resolved string
	for _, v := range cfg.Versions() {
		st, err := f.OpenStore(cmd.Context(), v)
		if err != nil {
			return err
		}
		t, err := lookupThread(cmd, st, id)
		if err == nil {
			resolved = t.ID
			if forget {
				err = st.ForgetThread(cmd.Context(), t.ID)
			} else {
				err = st.SetMemoryMode(cmd.Context(), t.ID, mode)
			}
		}
		st.Close()
		if err != nil {
			return err
		}
	}
	if f.JSON {
		return printJSON(f.IO.Out, map[string]string{"id": resolved, "memory_mode": mode})
	}
	verb := map[string]string{"enabled": "enabled", "disabled": "disabled"}[mode]
	if forget {
		verb = "forgot"
	}
	f.infof("%s %s", verb, resolved)
	return nil
}
