package pipeline

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/memctl/memctl/internal/agentcli"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/owner"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
)

// Env is what a Home takes from the world around the config: where the
// home is, the environment, the clock, and how to open a store and show
// progress. cmd fills it once per process; a test or eval's replay fills
// it with its own.
type Env struct {
	// Dir is the memctl home (absolute).
	Dir string
	// UserHome is the user's home folder, for "~" in paths and the
	// agents' default session folders; "" when unknown.
	UserHome string
	Getenv   func(string) string
	// Now is the clock of every stage (the stores share it).
	Now func() time.Time
	// OpenStore opens a version's database; nil opens
	// <Dir>/<store.FileName(version)> on the Home's clock.
	OpenStore OpenStore
	// Reporter shows what the stages do; nil shows nothing.
	Reporter Reporter
	// Stderr receives what a provider's program or an agent consolidator
	// prints; nil discards it.
	Stderr io.Writer
	// WorkerID names this process in the jobs table; "" is owner.ID().
	WorkerID string
	// Environ lists the environment, for the programs a provider runs
	// (an agent CLI); nil is none.
	Environ func() []string
	// AgentStatus says whether an agent CLI is there and logged in; nil
	// asks the CLI itself, once per Home. A process that asks in other
	// places too (doctor, the first run's offer) passes its own, which
	// asks once.
	AgentStatus func(agent agentcli.Agent, program []string) agentcli.Status
	// Provider, when set, answers both phases instead of the provider the
	// config names (a caller's own stand-in, as tests use).
	Provider *Provider
}

// Home is one memctl home as its stages see it, built once per process
// from the effective config (the command's flags already applied to it)
// and its Env. It resolves everything a stage needs (the plan: redactor,
// provider and consolidator; the sources; the eligibility window; the
// memory folders whose sessions are never extracted) and runs every stage,
// so `threads show`, `status`, `doctor` and `eval` ask the object that
// runs what they explain. It reports through its Reporter and never calls
// back into the command for work.
type Home struct {
	cfg *config.Config
	env Env
	// sources replaces the configured sources when set (eval's --source).
	sources []sessions.Source
	// excluded are more folders whose sessions are never extracted: the
	// memory folders of the home a scratch home replays.
	excluded []string
	// scratch: a replay's home, where a consolidation keeps no history and
	// checks no memory against today's disk.
	scratch bool

	plan      planCache
	announced bool           // "provider auto picked …" is said once
	backlog   *backlogAnswer // a first run's question is asked once
	// agents is what each agent CLI said of itself, when Env keeps no
	// answers.
	agents map[agentcli.Agent]agentcli.Status
}

// New builds the Home of cfg. cfg is the effective config: the caller has
// applied its flags (cfg.Set with config.FromFlag) before.
func New(cfg *config.Config, env Env) *Home {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Reporter == nil {
		env.Reporter = Quiet{}
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	if env.WorkerID == "" {
		env.WorkerID = owner.ID()
	}
	h := &Home{cfg: cfg, env: env}
	if h.env.OpenStore == nil {
		h.env.OpenStore = h.openStore
	}
	return h
}

// Config is the effective config the Home was built from.
func (h *Home) Config() *config.Config { return h.cfg }

// Dir is the memctl home folder.
func (h *Home) Dir() string { return h.env.Dir }

// Now reads the Home's clock.
func (h *Home) Now() time.Time { return h.env.Now() }

// Versions are the memory versions the config generates, in the order
// every stage runs them.
func (h *Home) Versions() []memversion.Version { return h.cfg.Versions() }

// MemoryRoot is the memory folder of a version.
func (h *Home) MemoryRoot(version memversion.Version) string { return memdir.Root(h.env.Dir, version) }

// MemoryRoots are the folders whose sessions are never extracted: every
// version's memory folder and the staging folder beside it (agent
// consolidations run there; review runs and dry runs consolidate in
// copies there), and, in a scratch home, those of the home it replays.
func (h *Home) MemoryRoots() []string {
	var out []string
	for _, v := range memversion.All() {
		r := h.MemoryRoot(v)
		out = append(out, r)
		if s := consolidate.StagingRoot(r); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, r := range h.excluded {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// OpenStore opens a version's database; the caller closes it.
func (h *Home) OpenStore(ctx context.Context, version memversion.Version) (*store.Store, error) {
	return h.env.OpenStore(ctx, version)
}

// openStore is OpenStore when Env gave none: the version's file in the
// home, on the Home's clock.
func (h *Home) openStore(ctx context.Context, version memversion.Version) (*store.Store, error) {
	if err := h.ensureDir(); err != nil {
		return nil, err
	}
	return store.Open(ctx, filepath.Join(h.env.Dir, store.FileName(version)), store.WithClock(h.env.Now))
}

// ensureDir creates the home (0700) before a stage writes into it.
func (h *Home) ensureDir() error {
	if err := os.MkdirAll(h.env.Dir, 0o700); err != nil {
		return fmt.Errorf("create home %s: %w", h.env.Dir, err)
	}
	return nil
}

// Scratch is a Home in the empty folder dir that replays this one's
// sessions the way `memctl run` would extract and consolidate them, with
// nothing spent and nothing of this home changed (eval's replay). It reads
// sources (nil: this Home's), runs on its own clock now, generates one
// version (this Home's), extracts with the offline extractor and
// consolidates with the offline consolidator, every thread's memory mode
// enabled, no review, and keeps no history. Sessions run in this home's
// memory folders are still never extracted.
func (h *Home) Scratch(dir string, sources []sessions.Source, now func() time.Time) *Home {
	cfg := *h.cfg
	cfg.Memories.DualWrite = false
	cfg.Memories.GenerateMemories = true
	cfg.Provider.Kind = "heuristic"
	cfg.Consolidation.Mode = config.ModeHeuristic
	cfg.Consolidation.Review = false
	if sources == nil {
		sources = h.Sources()
	}
	s := New(&cfg, Env{Dir: dir, UserHome: h.env.UserHome, Getenv: h.env.Getenv, Now: now, WorkerID: "memctl-eval"})
	s.sources = append([]sessions.Source{}, sources...)
	s.excluded = h.MemoryRoots()
	s.scratch = true
	return s
}
