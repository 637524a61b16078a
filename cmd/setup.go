package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/setup"
	"github.com/memctl/memctl/internal/summary"
	"github.com/spf13/cobra"
)

// SetupOptions is everything `memctl setup` needs: injected streams,
// config and clock first, then the flags.
type SetupOptions struct {
	IO       *IOStreams
	Config   func() (*config.Config, error)
	Now      func() time.Time
	Getenv   func(string) string
	UserHome func() (string, error)
	Home     func() (string, error)
	// HookArgs are the global flags the hooks must repeat (--home,
	// --config) when they are not the defaults.
	HookArgs func() ([]string, error)
	JSON     bool

	Agent  string // claude-code or codex; "" with --undo means every agent
	DryRun bool
	Undo   bool
	Memctl string // the memctl binary the hooks run
}

type setupResult struct {
	Agent  string             `json:"agent"`
	DryRun bool               `json:"dry_run,omitempty"`
	Files  []string           `json:"files"`
	Backup string             `json:"backup,omitempty"`
	Diff   string             `json:"diff,omitempty"`
	Undone []setup.UndoResult `json:"undone,omitempty"`
}

func newSetupCmd(f *Factory, runF func(context.Context, *SetupOptions) error) *cobra.Command {
	opts := &SetupOptions{
		IO: f.IO, Config: f.Config, Now: f.Now, Getenv: f.Getenv, UserHome: f.UserHome, Home: f.Home,
		HookArgs: func() ([]string, error) { return hookArgs(f) },
	}
	c := &cobra.Command{
		Use:   "setup claude-code|codex",
		Short: "Wire memctl into Claude Code or Codex: hooks, MCP server, permissions",
		Long: `Write memctl's integration into the agent's own config files, merging with what
is there. Running it again changes nothing; every file is backed up first (under
<home>/setup-backups/) and --undo puts it back.

claude-code  $CLAUDE_CONFIG_DIR (else ~/.claude)/settings.json: a SessionStart
             hook printing "memctl summary --agent claude-code", a Stop hook
             running "memctl cite --hook claude", and permissions to read the
             memory folders (Read(//<folder>/**)) and use memctl's MCP tools
             (mcp__memctl); and the memctl MCP server in the global
             .claude.json ($CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json)
codex        $CODEX_HOME (else ~/.codex)/config.toml: notify = memctl cite
             --hook codex, [mcp_servers.memctl], and a SessionStart hook
             printing "memctl summary --agent codex" with the trust entry
             Codex needs before it runs a user hook

The hooks run this memctl binary by its absolute path (--memctl overrides it)
with --home/--config when those are not the defaults. When memctl-summary is
installed beside memctl (go install . ./cmd/memctl-summary), the SessionStart
hook runs it in place of "memctl summary": it prints the same bytes and starts
in a fraction of the time. A binary of "go run" lives in a temporary folder
Go deletes, so setup refuses it and names the installed memctl to run instead
(a --dry-run only warns). A config that is a symbolic link (a dotfiles
repository) is edited where the link points; the link stays. --undo restores a file byte for byte when nobody changed it since,
and otherwise takes only memctl's entries out of it.`,
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: []string{setup.ClaudeCode, setup.Codex},
		Example: `  $ memctl setup claude-code --dry-run
  $ memctl setup codex
  $ memctl setup --undo codex
  $ memctl setup --undo            # every agent`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.JSON = f.JSON
			if len(args) == 1 {
				opts.Agent = args[0]
			}
			switch {
			case opts.Agent != "" && opts.Agent != setup.ClaudeCode && opts.Agent != setup.Codex:
				return FlagErrorf("unknown agent %q (want claude-code or codex)", opts.Agent)
			case opts.Agent == "" && !opts.Undo:
				return FlagErrorf("name the agent: memctl setup claude-code, or memctl setup codex")
			case opts.Undo && opts.DryRun:
				return FlagErrorf("--undo and --dry-run cannot be combined")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSetup(cmd.Context(), opts)
		},
	}
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the edits as a diff; write nothing")
	c.Flags().BoolVar(&opts.Undo, "undo", false, "revert the last setup of the agent (of every agent when none is named)")
	c.Flags().StringVar(&opts.Memctl, "memctl", "", "the memctl binary the hooks run (default: this one)")
	return c
}

func runSetup(ctx context.Context, opts *SetupOptions) error {
	home, err := opts.Home()
	if err != nil {
		return err
	}
	backups := filepath.Join(home, "setup-backups")
	if opts.Undo {
		agents := []string{opts.Agent}
		if opts.Agent == "" {
			agents = []string{setup.ClaudeCode, setup.Codex}
		}
		var all []setupResult
		for _, a := range agents {
			res, err := setup.Undo(a, backups)
			if err != nil {
				return err
			}
			r := setupResult{Agent: a, Files: []string{}, Undone: res}
			for _, u := range res {
				r.Files = append(r.Files, u.Path)
				if !opts.JSON {
					fmt.Fprintf(opts.IO.ErrOut, "memctl: %s %s\n", u.Action, u.Path)
				}
			}
			if len(res) == 0 && !opts.JSON {
				fmt.Fprintf(opts.IO.ErrOut, "memctl: no setup of %s to undo\n", a)
			}
			all = append(all, r)
		}
		if opts.JSON {
			return printJSON(opts.IO.Out, all)
		}
		return nil
	}
	t, err := setupTarget(opts)
	if err != nil {
		return err
	}
	files, err := setup.Plan(t)
	if err != nil {
		return err
	}
	res := setupResult{Agent: opts.Agent, DryRun: opts.DryRun, Files: []string{}}
	for _, fl := range files {
		res.Files = append(res.Files, fl.Path)
	}
	if opts.DryRun {
		res.Diff = setup.Diff(files)
		if opts.JSON {
			return printJSON(opts.IO.Out, res)
		}
		fmt.Fprint(opts.IO.Out, res.Diff)
		if len(files) == 0 {
			fmt.Fprintf(opts.IO.ErrOut, "memctl: %s is already set up; nothing would change\n", opts.Agent)
		}
		return nil
	}
	if res.Backup, err = setup.Apply(files, opts.Agent, backups, opts.Now()); err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, res)
	}
	if len(files) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "memctl: %s is already set up; nothing changed\n", opts.Agent)
		return nil
	}
	for _, p := range res.Files {
		fmt.Fprintf(opts.IO.ErrOut, "memctl: wrote %s\n", p)
	}
	fmt.Fprintf(opts.IO.ErrOut, "memctl: the previous files are in %s (memctl setup --undo %s puts them back)\n", res.Backup, opts.Agent)
	return nil
}

// setupTarget resolves where the agent keeps its config and how its hooks
// reach memctl.
func setupTarget(opts *SetupOptions) (setup.Target, error) {
	cfg, err := opts.Config()
	if err != nil {
		return setup.Target{}, err
	}
	home, err := opts.Home()
	if err != nil {
		return setup.Target{}, err
	}
	userHome, err := opts.UserHome()
	if err != nil {
		return setup.Target{}, fmt.Errorf("cannot find the home directory: %w", err)
	}
	exe := opts.Memctl
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return setup.Target{}, fmt.Errorf("cannot find this binary (pass --memctl PATH): %w", err)
		}
		if goRunBinary(exe) {
			if err := refuseGoRun(opts, exe, userHome); err != nil {
				return setup.Target{}, err
			}
		}
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return setup.Target{}, err
	}
	extra, err := opts.HookArgs()
	if err != nil {
		return setup.Target{}, err
	}
	t := setup.Target{Agent: opts.Agent, Memctl: append([]string{exe}, extra...)}
	if lean := summary.ProgramBeside(exe); lean != "" {
		t.Summary = append([]string{lean}, extra...)
	}
	for _, v := range cfg.Versions() {
		t.MemoryRoots = append(t.MemoryRoots, memoryRoot(home, v))
	}
	if d := opts.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		d, _ = filepath.Abs(d)
		t.ClaudeDir, t.ClaudeJSON = d, filepath.Join(d, ".claude.json")
	} else {
		t.ClaudeDir, t.ClaudeJSON = filepath.Join(userHome, ".claude"), filepath.Join(userHome, ".claude.json")
	}
	if d := opts.Getenv("CODEX_HOME"); d != "" {
		t.CodexHome, _ = filepath.Abs(d)
	} else {
		t.CodexHome = filepath.Join(userHome, ".codex")
	}
	return t, nil
}

// goRunBinary reports whether exe is a temporary build of `go run`:
// <tmp>/go-build<N>/b<N>/exe/<name>. Go deletes that folder when the
// command ends, and the build cache may be cleaned at any time, so a hook
// naming it would break.
func goRunBinary(exe string) bool {
	dir := filepath.Dir(exe)
	if filepath.Base(dir) != "exe" {
		return false
	}
	return strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(dir))), "go-build")
}

// refuseGoRun refuses to write hooks that run a `go run` binary, naming
// the installed memctl to use instead (or how to install one). A dry run
// writes nothing, so it only warns.
func refuseGoRun(opts *SetupOptions, exe, userHome string) error {
	installed := installedMemctl(opts.Getenv, userHome)
	var hint string
	if installed != "" {
		hint = fmt.Sprintf("run the installed binary instead: %s setup %s (or pass --memctl %s)", shellQuote(installed), opts.Agent, shellQuote(installed))
	} else {
		hint = fmt.Sprintf("install memctl first with `go install . ./cmd/memctl-summary` (it lands in $(go env GOPATH)/bin, ~/go/bin by default), then run memctl setup %s from there, or pass --memctl PATH", opts.Agent)
	}
	if opts.DryRun {
		opts.IO.Warnf("this memctl is a temporary build of `go run` (%s); hooks naming it would break when Go removes it", exe)
		opts.IO.Infof("memctl: hint: %s", hint)
		return nil
	}
	return withHint(fmt.Errorf("this memctl is a temporary build of `go run` (%s), which Go deletes; hooks naming it would stop working, so nothing was written", exe), hint)
}

// installedMemctl finds an installed memctl: on PATH, else where `go
// install` puts it ($GOBIN, $GOPATH/bin, ~/go/bin). "" when there is none.
func installedMemctl(getenv func(string) string, userHome string) string {
	candidates := []string{}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir != "" {
			candidates = append(candidates, filepath.Join(dir, "memctl"))
		}
	}
	if d := getenv("GOBIN"); d != "" {
		candidates = append(candidates, filepath.Join(d, "memctl"))
	}
	for _, d := range filepath.SplitList(getenv("GOPATH")) {
		if d != "" {
			candidates = append(candidates, filepath.Join(d, "bin", "memctl"))
		}
	}
	if userHome != "" {
		candidates = append(candidates, filepath.Join(userHome, "go", "bin", "memctl"))
	}
	for _, c := range candidates {
		if !filepath.IsAbs(c) || goRunBinary(c) {
			continue
		}
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return c
		}
	}
	return ""
}

// shellQuote quotes a path for a command line the user copies.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hookArgs are the global flags a hook must pass so it reaches this home
// and config even where the agent's environment lacks MEMCTL_HOME.
func hookArgs(f *Factory) ([]string, error) {
	var out []string
	if f.HomeFlag != "" || f.Getenv("MEMCTL_HOME") != "" {
		h, err := f.Home()
		if err != nil {
			return nil, err
		}
		out = append(out, "--home", h)
	}
	if p, explicit, err := f.ConfigPath(); err != nil {
		return nil, err
	} else if explicit {
		out = append(out, "--config", p)
	}
	return out, nil
}
