package config

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/memctl/memctl/internal/redact"
)

// Env is what a memctl program takes from its global flags and its
// environment to find its home and its effective config. memctl and
// memctl-summary both read the config through it, so the two agree on
// every precedence: a flag, then the environment, then the default.
type Env struct {
	HomeFlag      string // --home
	ConfigFlag    string // --config
	MemoryVersion string // --memory-version
	Getenv        func(string) string
	UserHome      func() (string, error)
}

// Home resolves the memctl home: --home, then $MEMCTL_HOME, then ~/.memctl.
func (e Env) Home() (string, error) {
	if e.HomeFlag != "" {
		return filepath.Abs(e.HomeFlag)
	}
	if h := e.Getenv("MEMCTL_HOME"); h != "" {
		return filepath.Abs(h)
	}
	uh, err := e.UserHome()
	if err != nil {
		return "", fmt.Errorf("cannot find the home directory (set --home or MEMCTL_HOME): %w", err)
	}
	return filepath.Join(uh, ".memctl"), nil
}

// Path resolves the config file: --config, then $MEMCTL_CONFIG (both
// explicit: a missing file is an error), then <home>/config.toml.
func (e Env) Path() (path string, explicit bool, err error) {
	if e.ConfigFlag != "" {
		p, err := filepath.Abs(e.ConfigFlag)
		return p, true, err
	}
	if p := e.Getenv("MEMCTL_CONFIG"); p != "" {
		p, err := filepath.Abs(p)
		return p, true, err
	}
	home, err := e.Home()
	if err != nil {
		return "", false, err
	}
	return filepath.Join(home, "config.toml"), false, nil
}

// Load reads the effective config: the file, then the environment, then
// --memory-version, with the projects' and templates' paths made
// absolute. path is the file it read (or would have read).
func (e Env) Load() (cfg *Config, path string, err error) {
	path, explicit, err := e.Path()
	if err != nil {
		return nil, "", err
	}
	if cfg, err = Load(path, explicit); err != nil {
		return nil, path, err
	}
	if err := cfg.ApplyEnv(e.Getenv); err != nil {
		return nil, path, err
	}
	if e.MemoryVersion != "" {
		if err := cfg.Set("memories.version", e.MemoryVersion, FromFlag); err != nil {
			return nil, path, &FlagError{Flag: "--memory-version", Err: errors.Unwrap(err)}
		}
	}
	userHome, _ := e.UserHome()
	cfg.ExpandProjectPaths(userHome)
	if err := cfg.ResolveTemplatesDir(userHome); err != nil {
		return nil, path, err
	}
	return cfg, path, nil
}

// Redactor builds the redaction of the config: the built-in rules and
// redaction.extra_patterns. A pattern that does not compile is an *Error
// naming the key.
func (c *Config) Redactor() (func(string) string, error) {
	r, err := redact.New(c.Redaction.ExtraPatterns)
	if err != nil {
		return nil, &Error{Key: "redaction.extra_patterns", Err: err}
	}
	return r.String, nil
}

// FlagError is a flag's value the config refused (--memory-version v3).
type FlagError struct {
	Flag string
	Err  error
}

func (e *FlagError) Error() string { return e.Flag + ": " + e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// ProgramVars are the MEMCTL_ variables memctl reads that are not config
// keys (MEMCTL_<SECTION>_<KEY>, EnvNames).
var ProgramVars = []string{"MEMCTL_HOME", "MEMCTL_CONFIG", "MEMCTL_NOW"}
