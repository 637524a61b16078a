package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/agentcli"
	"github.com/memctl/memctl/internal/agentmemory"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/doctor"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/inject"
	"github.com/memctl/memctl/internal/memfs"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/setup"
	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// DoctorOptions is what `memctl doctor` needs: injected loaders first,
// then the flag values.
type DoctorOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	OpenStore  func(ctx context.Context, version memversion.Version) (*store.Store, error)
	Now        func() time.Time
	MemoryRoot func(version memversion.Version) (string, error)
	Home       func() (string, error)
	// Agents resolves where each agent keeps its config and how the hooks
	// would run memctl (as memctl setup does).
	Agents func(cfg *config.Config) ([]setup.Target, error)
	Getenv func(string) string
	// Pipeline builds the Home whose plan the provider check resolves.
	Pipeline func(*config.Config, pipeline.Reporter) (*pipeline.Home, error)
	// AgentCLIs asks each agent CLI (Claude Code, Codex) whether it is
	// installed and logged in.
	AgentCLIs func(cfg *config.Config) []agentcli.Status

	JSON bool
}

func newDoctorCmd(f *Factory, runF func(context.Context, *DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{IO: f.IO, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot,
		Home: f.Home, Getenv: f.Getenv, Pipeline: f.Pipeline,
		Agents:    func(cfg *config.Config) ([]setup.Target, error) { return doctorTargets(f) },
		AgentCLIs: func(cfg *config.Config) []agentcli.Status { return detectAgentCLIs(f, cfg) }}
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Report the health of the memory, the agents' setup and the provider",
		Long: `Check the memory of the configured version and print what needs attention,
each finding with the command that fixes it (docs/doctor.md):

  database          the database file can be read whole: it opens, and
                    SQLite's quick_check finds every page sound (a damaged
                    file: the fix restores the backup memctl keeps, or
                    salvages what can be read)
  duplicates        raw memories that say exactly the same thing
  near_duplicates   raw memories that say nearly the same thing
                    (health.near_duplicate)
  uncited           memories selected by health.uncited_after consolidations
                    and never cited by an agent
  stale_evidence    memories whose files or commands changed since they were
                    written (docs/stale.md)
  quarantined       lines held back from memory because they read like orders
                    to the agent, and such lines left in the memory files
  oversized_file    memory files larger than one MCP read returns
  summary_size      memory_summary.md against the cut summary applies
  agent_setup       the hooks, MCP entry and permissions memctl setup writes
  agent_cli         the Claude Code and Codex CLIs installed here: version,
                    login, and whether memctl writes memory through them
                    (or could: then it says how, and what it costs)
  agent_memory      Claude Code's auto memory and Codex's memories feature:
                    whether each is on, what it injects beside memctl's
                    summary, and how to keep one (docs/integrations.md)
  provider          the provider configured for extraction and consolidation
  leases            the consolidation lock and the threads claimed for
                    extraction, and whether the process holding them has
                    exited (then the next run takes them back at once)

It only reads: nothing is changed. It also names the backup of the database
memctl keeps (<home>/backups/, refreshed before the first consolidation of
each day) and the command that puts it back.

EXIT STATUS
  0  healthy: no finding is a warning (findings marked info may remain)
  5  unhealthy: at least one warning (a damaged database among them); the
     report says what to run
  1  the check itself failed (the home cannot be read)`,
		Args: cobra.NoArgs,
		Example: `  $ memctl doctor
  $ memctl doctor --json | jq '.findings[] | select(.severity == "warning") | .fix'`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			return runOrHook(c.Context(), opts, runF, runDoctor)
		},
	}
	return c
}

func runDoctor(ctx context.Context, opts *DoctorOptions) error {
	cfg, root, err := configAndRoot(opts.Config, opts.MemoryRoot)
	if err != nil {
		return err
	}
	version := cfg.Memories.Version
	home, err := opts.Home()
	if err != nil {
		return err
	}
	dopts := doctor.Options{
		Version: version, Root: root,
		UncitedAfter:     cfg.Health.UncitedAfter,
		NearDuplicate:    float64(cfg.Health.NearDuplicate) / 100,
		RewriteThreshold: float64(cfg.Health.RewriteThreshold) / 100,
		SummaryTokens:    inject.DefaultSummaryTokens,
		ReadTokens:       memfs.DefaultReadTokens,
	}
	pipe, err := opts.Pipeline(cfg, pipeline.Quiet{})
	if err != nil {
		return err
	}
	check := pipe.CheckModels()
	clis := opts.AgentCLIs(cfg)
	dopts.Provider = providerState(cfg, check, clis)
	for _, st := range clis {
		dopts.AgentCLIs = append(dopts.AgentCLIs, doctor.AgentCLIState{Status: st, Provider: string(check.Choice.Kind),
			Offer: check.Auto && check.Choice.Kind == model.KindHeuristic})
	}
	// The doctor reads: it does not create a database where none is, and
	// a damaged one is a finding, not a failure.
	dbPath := filepath.Join(home, store.FileName(version))
	if _, err := os.Stat(dbPath); err == nil {
		dopts.Database = dbPath
		st, err := opts.OpenStore(ctx, version)
		switch {
		case store.IsDamaged(err):
			dopts.Damaged = err.Error()
		case err != nil:
			return err
		default:
			defer st.Close()
			dopts.Store = st
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	targets, err := opts.Agents(cfg)
	if err != nil {
		return err
	}
	for _, t := range targets {
		s, err := setup.Inspect(t, filepath.Join(home, "setup-backups"))
		state := doctor.AgentState{Agent: t.Agent, Installed: s.Installed, SetUp: s.SetUp, Pending: s.Pending}
		if err != nil {
			state.Err = err.Error()
		}
		dopts.Agents = append(dopts.Agents, state)
		dopts.AgentMemory = append(dopts.AgentMemory, agentMemoryOf(t, s.SetUp, opts.Getenv))
	}
	rep, err := doctor.Run(ctx, dopts)
	var unhealthy *doctor.UnhealthyError
	if err != nil && !errors.As(err, &unhealthy) {
		return err
	}
	if opts.JSON {
		if perr := printJSON(opts.IO.Out, rep); perr != nil {
			return perr
		}
		return err
	}
	printDoctor(opts.IO, rep)
	return err
}

// printDoctor writes the report: one block per finding on stdout, the
// verdict on stderr.
func printDoctor(ios *IOStreams, rep doctor.Report) {
	w := ios.Out
	for _, f := range rep.Findings {
		label := string(f.Severity)
		// Subjects, messages and fixes quote paths and held-back lines.
		if ios.StdoutTTY {
			fmt.Fprintf(w, "%s %s: %s\n", ios.Bold(label), f.Check, ios.Text(f.Subject))
		} else {
			fmt.Fprintf(w, "%s\t%s\t%s\n", label, f.Check, ios.Text(f.Subject))
		}
		if !ios.StdoutTTY {
			fmt.Fprintf(w, "  %s\n", ios.Text(f.Message))
			if f.Fix != "" {
				fmt.Fprintf(w, "  fix: %s\n", ios.Text(f.Fix))
			}
			continue
		}
		// On a terminal the lines break at spaces within its width, so
		// a long fix does not wrap mid-word.
		width := ios.TerminalWidth()
		fmt.Fprint(w, wrapWords(ios.Text(f.Message), width, "  ", "  "))
		if f.Fix != "" {
			fmt.Fprint(w, wrapWords(ios.Text(f.Fix), width, "  fix: ", "       "))
		}
	}
	var skipped []string
	for _, c := range rep.Checks {
		if c.Skipped != "" {
			skipped = append(skipped, c.Name+" ("+c.Skipped+")")
		}
	}
	if len(skipped) > 0 {
		ios.Debugf("skipped: %s", strings.Join(skipped, ", "))
	}
	if rep.Backup != nil {
		ios.Infof("memctl: backup of the database: %s, written %s; to restore it: %s", rep.Backup.Path, rep.Backup.ModTime.Format(time.RFC3339), rep.Restore)
	}
	if rep.Healthy {
		msg := fmt.Sprintf("healthy: %d checks, %s", len(rep.Checks), english.Count(rep.RawMemories, "raw memory", "raw memories"))
		if n := len(rep.Findings); n > 0 {
			msg += fmt.Sprintf(", %d for information above", n)
		}
		ios.Infof("%s", msg)
	}
}

// agentMemoryOf is the agent's own memory, read from the config folder
// memctl setup writes to.
func agentMemoryOf(t setup.Target, memctlSetUp bool, getenv func(string) string) doctor.AgentMemoryState {
	var s agentmemory.State
	switch t.Agent {
	case setup.ClaudeCode:
		s = agentmemory.Claude(t.ClaudeDir, getenv)
	default:
		s = agentmemory.CodexMemories(t.CodexHome)
	}
	return doctor.AgentMemoryState{State: s, MemctlSetUp: memctlSetUp}
}

// doctorTargets resolves every agent's config the way memctl setup does.
func doctorTargets(f *Factory) ([]setup.Target, error) {
	var out []setup.Target
	for _, agent := range []string{setup.ClaudeCode, setup.Codex} {
		so := &SetupOptions{IO: f.IO, Config: f.Config, Now: f.Now, Getenv: f.Getenv, UserHome: f.UserHome, Home: f.Home,
			HookArgs: func() ([]string, error) { return hookArgs(f) }, Agent: agent}
		t, err := setupTarget(so)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// providerState says whether the configured provider and consolidator
// can work, as the pipeline resolves them for a run but without calling
// them (check): an API key variable unset, a program not found, an agent
// CLI missing or logged out (clis says which), a model missing.
func providerState(cfg *config.Config, check pipeline.ModelCheck, clis []agentcli.Status) doctor.ProviderState {
	kind := check.Choice.Kind
	ps := doctor.ProviderState{Configured: cfg.Provider.Kind, Resolved: string(kind)}
	if kind == model.KindHeuristic && check.Auto {
		ps.Note = "provider.kind is auto and no API key is set: extraction and consolidation use the offline heuristic (" + check.Choice.Reason + ")"
		ps.NoteFix = "export OPENAI_API_KEY=… (or ANTHROPIC_API_KEY=…), or set provider.kind = \"heuristic\" to say so"
	}
	if isAgentKind(kind) {
		for _, st := range clis {
			if st.Agent == agentcli.Agent(kind) && !st.Usable() {
				ps.Problem = fmt.Sprintf("provider.kind is %s, but %s", kind, st.Describe())
				ps.Fix = st.Agent.LoginHint()
				if st.Path == "" {
					ps.Fix = fmt.Sprintf("install %s, or set provider.command to the path of %s", st.Agent.Name(), st.Agent.Program())
				}
				return ps
			}
		}
	}
	if check.Err == nil {
		return ps
	}
	ps.Problem = check.Err.Error()
	var cerr *config.Error
	errors.As(check.Err, &cerr)
	switch {
	case cerr != nil && cerr.Key == "provider.command" && len(cfg.Provider.Command) == 0:
		ps.Fix = "set provider.command to the argv of the program that answers"
	case cerr != nil && cerr.Key == "provider.command":
		ps.Fix = "install it, or set provider.command to a program that exists"
	case cerr != nil && cerr.Key == "consolidation.agent_command" && len(cfg.Consolidation.AgentCommand) == 0:
		ps.Fix = "set consolidation.agent_command (docs/config.md has recipes)"
	case cerr != nil && cerr.Key == "consolidation.agent_command":
		ps.Fix = "install the agent, or set consolidation.mode = \"heuristic\""
	case cerr != nil && strings.HasPrefix(cerr.Key, "memories."):
		ps.Fix = "set " + cerr.Key + " to a model the provider serves"
	default:
		ps.Fix = "export the key named in the message, or change provider.kind (memctl config show lists the settings)"
	}
	return ps
}
