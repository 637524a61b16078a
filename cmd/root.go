package cmd

import (
	"fmt"
	"strings"

	"github.com/memctl/memctl/internal/memversion"
	"github.com/spf13/cobra"
)

// newRootCmd builds the whole command tree.
func newRootCmd(f *Factory) *cobra.Command {
	root := newBareRoot(f)
	root.AddGroup(&cobra.Group{ID: "pipeline", Title: "Pipeline commands:"},
		&cobra.Group{ID: "memory", Title: "Memory commands:"},
		&cobra.Group{ID: "setup", Title: "Setup and inspection:"})

	// One command per line, so adding one merges cleanly.
	addCommands(root, "pipeline",
		newPruneCmd(f, nil),
		newExtractCmd(f, nil),
		newConsolidateCmd(f, nil),
		newSummaryCmd(f, nil),
		newCiteCmd(f, nil),
		newClearCmd(f, nil),
		newRunCmd(f, nil),
	)
	addCommands(root, "memory",
		newScanCmd(f, nil),
		newThreadsCmd(f),
		newMemoriesCmd(f),
		newHistoryCmd(f, nil),
		newReviewCmd(f, nil),
		newApproveCmd(f, nil),
		newRejectCmd(f, nil),
		newRollbackCmd(f, nil),
		newSearchCmd(f, nil),
		newNoteCmd(f),
		newTeamCmd(f),
		newSyncCmd(f, nil),
		newExportCmd(f, nil),
		newImportCmd(f, nil),
		newMCPCmd(f, nil),
		newRedactCmd(f, nil),
	)
	addCommands(root, "setup",
		newStatusCmd(f, nil),
		newDoctorCmd(f, nil),
		newEvalCmd(f, nil),
		newSetupCmd(f, nil),
		newConfigCmd(f),
		newDemoCmd(f, nil),
		newVersionCmd(f, nil),
		newCompletionCmd(f, nil),
		helpTopic("environment", "Environment variables memctl reads", environmentHelp),
		helpTopic("exit-codes", "Exit codes and what they mean", exitCodesHelp),
	)
	root.SetHelpCommandGroupID("setup")
	root.SetCompletionCommandGroupID("setup")
	root.CompletionOptions.HiddenDefaultCmd = true
	wrapArgErrors(root)
	return root
}

func addCommands(root *cobra.Command, group string, cmds ...*cobra.Command) {
	for _, c := range cmds {
		c.GroupID = group
		root.AddCommand(c)
	}
}

// newBareRoot is the root command without subcommands: the global flags,
// their checks and the flag-error translation. Command tests hang the
// command under test on it.
func newBareRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "memctl <command> [flags]",
		Short: "Give coding agents a memory built from their past sessions",
		Long: `memctl reads the sessions coding agents (Codex CLI, Claude Code, or any
agent writing memctl's JSONL format) leave on disk, distils each idle session
into a raw memory (Phase 1, extract), merges the best raw memories into a memory
folder a future agent reads (Phase 2, consolidate), prints the summary for the
next prompt (summary), counts which memories the agent cited (cite), forgets
what nobody used (prune) and resets everything on request (clear).

Each command is one stage over one TOML config and one SQLite file, so a host
agent, a shell script or a cron job can drive the flow step by step, or run it
all with "memctl run".`,
		Example: `  # Index sessions, extract memories offline, consolidate, print the summary
  $ memctl run --provider heuristic --all
  $ memctl summary

  # After the agent answers: strip the citation block and count the uses
  $ agent-reply | memctl cite`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			f.IO.decideColor(f.NoColor, f.Getenv)
			if f.clockErr != nil {
				if hook := cmd.Flags().Lookup("hook"); hook != nil && hook.Changed {
					return &hookError{err: f.clockErr} // a hook is never told to block
				}
				return f.clockErr
			}
			if f.IO.Quiet && f.IO.Verbose {
				return FlagErrorf("--quiet and --verbose cannot be used together")
			}
			return f.checkHome(cmd)
		},
	}
	root.Version = version()
	root.SetVersionTemplate(versionLine() + "\n")
	pf := root.PersistentFlags()
	pf.StringVar(&f.HomeFlag, "home", "", "memctl home `DIR` (default: $MEMCTL_HOME, else ~/.memctl)")
	pf.StringVar(&f.ConfigFlag, "config", "", "config `FILE` (default: $MEMCTL_CONFIG, else <home>/config.toml)")
	stringEnumFlag(root, pf, &f.MemoryVersion, "memory-version", "", memversion.Names(), "memory version to use (overrides memories.version)")
	pf.BoolVar(&f.JSON, "json", false, "print one machine-readable JSON document on stdout")
	pf.BoolVar(&f.NoColor, "no-color", false, "disable colour (also: NO_COLOR)")
	pf.BoolVarP(&f.IO.Quiet, "quiet", "q", false, "print less on stderr")
	pf.BoolVarP(&f.IO.Verbose, "verbose", "v", false, "print more on stderr")
	root.SetFlagErrorFunc(flagError)
	return root
}

// wrapArgErrors makes positional-argument errors usage errors (exit 2) in
// memctl's words; a command group run without a subcommand says which
// exist, and bare memctl prints the help.
func wrapArgErrors(c *cobra.Command) {
	switch {
	case c.HasSubCommands() && c.RunE == nil && c.Run == nil:
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return nil
		}
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if !cmd.HasParent() {
				return cmd.Help() // bare memctl: what it can do, exit 0
			}
			return FlagErrorf("%s needs a subcommand: %s", cmd.CommandPath(), strings.Join(subNames(cmd), ", "))
		}
	default:
		inner := c.Args
		if inner == nil {
			inner = cobra.NoArgs // cobra would take any words silently
		}
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := inner(cmd, args); err != nil {
				if cmd.HasSubCommands() && len(args) > 0 {
					return unknownCommand(cmd, args[0]) // a mistyped subcommand, most likely
				}
				return argError(cmd, args, err)
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		wrapArgErrors(sub)
	}
}

func subNames(c *cobra.Command) []string {
	var out []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			out = append(out, s.Name())
		}
	}
	return out
}

func helpTopic(name, short, long string) *cobra.Command {
	return &cobra.Command{
		Use:     name,
		Short:   short,
		Long:    long,
		Example: "  $ memctl help " + name,
		Args:    cobra.NoArgs,
		Run:     func(c *cobra.Command, _ []string) { fmt.Fprint(c.OutOrStdout(), c.Long) },
	}
}

const environmentHelp = `memctl reads these environment variables:

  MEMCTL_HOME      memctl home (default ~/.memctl); --home wins. A named home
                   that does not exist is refused, except by config init, setup,
                   run, scan, extract, import and sync, which create it
  MEMCTL_CONFIG    config file (default <home>/config.toml); --config wins
  MEMCTL_<SECTION>_<KEY>
                   any config key, e.g. MEMCTL_MEMORIES_VERSION=v2 or
                   MEMCTL_PROVIDER_KIND=heuristic; a flag wins, the file loses
  MEMCTL_NOW       pin the clock to an RFC 3339 time (e.g. 2026-06-10T12:00:00Z)
                   for tests and reproductions: every window, cooldown, lease and
                   timestamp uses it; a malformed value is refused (exit 2)
  NO_COLOR         disable colour (any value)
  CLICOLOR_FORCE   force colour even when not a terminal
  CODEX_HOME       where Codex keeps sessions (default ~/.codex)
  CLAUDE_CONFIG_DIR
                   where Claude Code keeps projects (default ~/.claude)
  OPENAI_API_KEY, ANTHROPIC_API_KEY
                   provider keys (the name can be changed with provider.api_key_env);
                   provider.kind = "auto" picks openai, then anthropic, then heuristic
`

const exitCodesHelp = `memctl exits with one of these codes:

  0    success, including "nothing to do" and a stage skipped because another
       process holds its lock or its cooldown has not passed
  1    error (and every failure of cite --hook, which never exits 2)
  2    usage error or invalid config: an unknown command or flag, missing or
       extra arguments, a value the flag or key does not allow, a thread or
       memory id that names none, or several, a generation id that names no
       kept generation (the message names the flag, argument or key; see
       docs/exit-codes.md)
  3    partial: some jobs of this run failed (each failure is recorded with its
       reason and retried later)
  5    doctor found problems (each finding names the command that fixes it)
  6    sync: the remote diverged and cannot be merged cleanly; nothing changed
  7    team propose: a memory was refused (a secret or an instruction); nothing
       written
  130  interrupted (SIGINT or SIGTERM)
`
