package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/agentcli"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/store"
)

// Factory holds the global flags and lazy loaders every command shares.
// Nothing here reads the config or opens a database until a command asks,
// so `memctl --help`, `memctl version` and doc generation never do.
type Factory struct {
	IO       *IOStreams
	Now      func() time.Time
	Getenv   func(string) string
	UserHome func() (string, error)
	// Environ lists the environment, to find misspelt MEMCTL_ variables;
	// nil skips that check.
	Environ func() []string

	// Global flags.
	HomeFlag      string
	ConfigFlag    string
	MemoryVersion string
	JSON          bool
	NoColor       bool

	// clockErr is a malformed MEMCTL_NOW, refused before a command runs.
	clockErr error

	cfg *config.Config
	// agents caches what each agent CLI said about itself (agentStatus).
	agents map[agentcli.Agent]agentcli.Status
}

// configEnv is what the global flags and the environment say about the
// home and the config (internal/config reads them the same way for
// memctl-summary).
func (f *Factory) configEnv() config.Env {
	return config.Env{HomeFlag: f.HomeFlag, ConfigFlag: f.ConfigFlag, MemoryVersion: f.MemoryVersion, Getenv: f.Getenv, UserHome: f.UserHome}
}

// Home resolves the memctl home: --home, then $MEMCTL_HOME, then ~/.memctl.
func (f *Factory) Home() (string, error) { return f.configEnv().Home() }

// ConfigPath resolves the config file: --config, then $MEMCTL_CONFIG
// (both explicit: a missing file is an error), then <home>/config.toml.
func (f *Factory) ConfigPath() (string, bool, error) { return f.configEnv().Path() }

// Config loads the effective config once: file, then environment, then
// the global --memory-version flag. Commands apply their own flags with
// cfg.Set(key, value, config.FromFlag).
func (f *Factory) Config() (*config.Config, error) {
	if f.cfg != nil {
		return f.cfg, nil
	}
	cfg, path, err := f.configEnv().Load()
	var flagErr *config.FlagError
	if errors.As(err, &flagErr) {
		return nil, &FlagError{Err: flagErr}
	}
	if err != nil {
		return nil, err
	}
	f.cfg = cfg
	f.warnConfig(cfg, path)
	return cfg, nil
}

// warnConfig says, once, what the config took that the user may not have
// meant: values clamped into their range, and MEMCTL_ variables memctl
// does not read (a typo is otherwise silently ignored).
func (f *Factory) warnConfig(cfg *config.Config, path string) {
	for _, c := range cfg.Clamps() {
		from := string(c.Origin)
		switch c.Origin {
		case config.FromFile:
			from = path
		case config.FromEnv:
			from = config.EnvName(c.Key)
		}
		f.IO.Warnf("%s = %d (%s) is out of range [%d, %d]; using %d", c.Key, c.Given, from, c.Lo, c.Hi, c.Used)
	}
	if f.Environ == nil {
		return
	}
	for _, kv := range f.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if hint, unknown := unknownEnv(name); unknown {
			f.IO.Warnf("%s is not a variable memctl reads%s", name, hint)
		}
	}
}

// unknownEnv reports whether name looks meant for memctl but is not a
// variable it reads: MEMCTL_ and a config section (MEMCTL_MEMORIES_…), or
// a near miss of a known name. Other MEMCTL_ names (the test suites'
// switches) are left alone. hint names the likely intended variable.
func unknownEnv(name string) (hint string, unknown bool) {
	if !strings.HasPrefix(name, "MEMCTL_") {
		return "", false
	}
	known := append(config.EnvNames(), config.ProgramVars...)
	best, bestDist := "", 4
	for _, k := range known {
		if k == name {
			return "", false
		}
		if d := levenshtein(name, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	section, _, _ := strings.Cut(strings.TrimPrefix(name, "MEMCTL_"), "_")
	inSection := slices.Contains(config.Sections(), strings.ToLower(section))
	if !inSection && bestDist > 2 {
		return "", false
	}
	if best != "" {
		return "; did you mean " + best + "?", true
	}
	return " (see memctl help environment)", true
}

// Pipeline builds this command's pipeline.Home from the effective config
// (the command's flags already applied to it), reporting to rep. A
// command builds it once and asks it everything its stages need.
func (f *Factory) Pipeline(cfg *config.Config, rep pipeline.Reporter) (*pipeline.Home, error) {
	env, err := f.pipelineEnv(rep)
	if err != nil {
		return nil, err
	}
	return pipeline.New(cfg, env), nil
}

// pipelineEnv is what a Home takes from this process: the home folder, the
// environment, the clock, the store loader and the streams.
func (f *Factory) pipelineEnv(rep pipeline.Reporter) (pipeline.Env, error) {
	home, err := f.Home()
	if err != nil {
		return pipeline.Env{}, err
	}
	userHome, _ := f.UserHome()
	return pipeline.Env{Dir: home, UserHome: userHome, Getenv: f.Getenv, Environ: f.Environ, Now: f.Now, OpenStore: f.OpenStore,
		Reporter: rep, Stderr: f.IO.ErrOut, AgentStatus: f.agentStatus}, nil
}

// MemoryRoot is the memory folder of a version.
func (f *Factory) MemoryRoot(version memversion.Version) (string, error) {
	home, err := f.Home()
	if err != nil {
		return "", err
	}
	return memoryRoot(home, version), nil
}

func memoryRoot(home string, version memversion.Version) string { return memdir.Root(home, version) }

// OpenStore opens the database of a version, creating the home 0700.
func (f *Factory) OpenStore(ctx context.Context, version memversion.Version) (*store.Store, error) {
	home, err := f.Home()
	if err != nil {
		return nil, err
	}
	if err := ensureHome(home); err != nil {
		return nil, err
	}
	path := filepath.Join(home, store.FileName(version))
	// A home that cannot be written (a read-only folder, a full disk) is
	// still read: the commands that only read work, a write says why not.
	st, err := store.Open(ctx, path, store.WithClock(f.Now), store.ReadOnlyFallback())
	switch {
	case err == nil && st.ReadOnly() != nil:
		f.IO.Debugf("the database %s is open read-only: %v", path, st.ReadOnly())
	case errors.Is(err, store.ErrTooNew):
		return nil, withHint(err, "a newer memctl wrote this database: run that version, or build the newer one (README, Install); memctl version shows this one")
	}
	return st, err
}

func ensureHome(home string) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("create home %s: %w", home, err)
	}
	return nil
}
