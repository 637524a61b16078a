package cmd

import (
	"context"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/store"
)

// runOrHook runs a command's run function, or the hook a test passed to
// the command's constructor in its place (the test then sees the options
// the flags and arguments produced, and nothing runs).
func runOrHook[O any](ctx context.Context, opts O, hook, run func(context.Context, O) error) error {
	if hook != nil {
		return hook(ctx, opts)
	}
	return run(ctx, opts)
}

// configAndStore loads the configuration and opens the store of the
// memory version it selects; the caller closes the store.
func configAndStore(ctx context.Context, loadConfig func() (*config.Config, error), openStore func(context.Context, memversion.Version) (*store.Store, error)) (*config.Config, *store.Store, error) {
	cfg, err := loadConfig()
	if err != nil {
		return nil, nil, err
	}
	st, err := openStore(ctx, cfg.Memories.Version)
	if err != nil {
		return nil, nil, err
	}
	return cfg, st, nil
}

// configAndRoot loads the configuration and locates the memory folder of
// the version it selects.
func configAndRoot(loadConfig func() (*config.Config, error), memoryRoot func(memversion.Version) (string, error)) (*config.Config, string, error) {
	cfg, err := loadConfig()
	if err != nil {
		return nil, "", err
	}
	root, err := memoryRoot(cfg.Memories.Version)
	if err != nil {
		return nil, "", err
	}
	return cfg, root, nil
}

// openVersion opens one memory version's store and locates its folder;
// the caller closes the store.
func openVersion(ctx context.Context, v memversion.Version, openStore func(context.Context, memversion.Version) (*store.Store, error), memoryRoot func(memversion.Version) (string, error)) (*store.Store, string, error) {
	st, err := openStore(ctx, v)
	if err != nil {
		return nil, "", err
	}
	root, err := memoryRoot(v)
	if err != nil {
		st.Close()
		return nil, "", err
	}
	return st, root, nil
}

// configAndQuietHome loads the configuration and builds the pipeline Home
// of a command that reads its state and runs no stage (nothing to report).
func configAndQuietHome(loadConfig func() (*config.Config, error), buildHome func(*config.Config, pipeline.Reporter) (*pipeline.Home, error)) (*config.Config, *pipeline.Home, error) {
	cfg, err := loadConfig()
	if err != nil {
		return nil, nil, err
	}
	home, err := buildHome(cfg, pipeline.Quiet{})
	if err != nil {
		return nil, nil, err
	}
	return cfg, home, nil
}

// sessionReadingHome builds the pipeline Home of a command that reads the
// agents' session files, reporting on ios through a stageReporter whose
// hints name that Home's sources; under --debug it says when none of the
// source folders exists.
func sessionReadingHome(ios *IOStreams, json bool, cfg *config.Config, buildHome func(*config.Config, pipeline.Reporter) (*pipeline.Home, error)) (*pipeline.Home, *stageReporter, error) {
	rep := newStageReporter(ios, json)
	home, err := buildHome(cfg, rep)
	if err != nil {
		return nil, nil, err
	}
	rep.home = home
	debugNoSources(ios, home.Sources())
	return home, rep, nil
}

// optionalRoot locates the memory folder of version, "" when the command
// was given no way to (a test's options leave MemoryRoot nil).
func optionalRoot(memoryRoot func(memversion.Version) (string, error), version memversion.Version) (string, error) {
	if memoryRoot == nil {
		return "", nil
	}
	return memoryRoot(version)
}
