// Package agentcli knows the agent CLIs memctl can send its model calls
// through, with the login the user already has: Claude Code (`claude`)
// and Codex (`codex`). It finds them, asks them whether they are logged
// in without spending anything, writes the exact command lines that put
// one structured request to them with nothing of the user's own setup
// (tools, MCP servers, hooks, instruction files, auto memory, saved
// sessions), and makes the scratch folder each request runs in.
//
// The flags were checked against the versions the real-agent suite pins
// (Claude Code 2.1.328, Codex 0.169.0; e2e/realagents); docs/providers.md
// prints the command lines this package builds.
package agentcli

import (
	"os"
	"path/filepath"
	"strings"
)

// Agent is an agent CLI, named as provider.kind names it.
type Agent string

// The agent CLIs.
const (
	ClaudeCode Agent = "claude-code"
	Codex      Agent = "codex"
)

// Agents lists the agent CLIs in the order memctl offers them.
func Agents() []Agent { return []Agent{ClaudeCode, Codex} }

// Name is the product's name, for messages.
func (a Agent) Name() string {
	if a == Codex {
		return "Codex"
	}
	return "Claude Code"
}

// Program is the executable's name, looked up on PATH.
func (a Agent) Program() string {
	if a == Codex {
		return "codex"
	}
	return "claude"
}

// LoginHint says how the user logs the CLI in.
func (a Agent) LoginHint() string {
	if a == Codex {
		return "run `codex login`"
	}
	return "run `claude auth login` (or `claude`, then /login)"
}

// Env is the part of the process environment agentcli reads and passes
// on to the CLIs it runs.
type Env struct {
	Getenv func(string) string
	// Environ is the environment the CLIs inherit; nil means this
	// process's own.
	Environ func() []string
	// LookPath finds a program on PATH; nil means exec.LookPath.
	LookPath func(string) (string, error)
}

func (e Env) getenv(name string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(name)
}

// ChildEnv is the environment a CLI runs in: this one with set applied
// (each name replaced or added, so a variable is never there twice) and
// without memctl's own variables, so nothing the CLI starts reaches
// memctl's home or config through them.
func (e Env) ChildEnv(set map[string]string) []string {
	base := os.Environ()
	if e.Environ != nil {
		base = e.Environ()
	}
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, replaced := set[name]; !replaced && !strings.HasPrefix(name, "MEMCTL_") {
			out = append(out, kv)
		}
	}
	for name, v := range set {
		out = append(out, name+"="+v)
	}
	return out
}

// scratchPrefix starts the name of every scratch folder; os.MkdirTemp
// appends digits.
const scratchPrefix = "memctl-agent-"

// IsScratch reports whether dir is a scratch folder of memctl's own
// calls, or inside one. The scan never indexes a session that ran there:
// the CLIs are told to save none, and should one save it anyway, memory
// must not feed on its own extractions.
func IsScratch(dir string) bool {
	if dir == "" {
		return false
	}
	for _, part := range strings.Split(filepath.ToSlash(filepath.Clean(dir)), "/") {
		digits, ok := strings.CutPrefix(part, scratchPrefix)
		if ok && digits != "" && strings.Trim(digits, "0123456789") == "" {
			return true
		}
	}
	return false
}

// Scratch is the empty folder one request runs in, removed afterwards:
// no project of the user's is around it, so no instruction file of
// theirs is found, and anything the CLI leaves there goes with it.
type Scratch struct {
	Dir string
	// CodexHome is the CODEX_HOME of a Codex request ("" for Claude Code):
	// a folder of its own holding only a link to the user's login
	// (auth.json), so that neither their config.toml (MCP servers, hooks,
	// notify) nor their global AGENTS.md is read, and the session, logs
	// and state Codex writes stay out of their Codex home.
	CodexHome string
}

// NewScratch makes a scratch folder under base ("" for the system's
// temporary folder) for a request to agent.
func NewScratch(base string, agent Agent, env Env) (*Scratch, error) {
	dir, err := os.MkdirTemp(base, scratchPrefix+"*")
	if err != nil {
		return nil, err
	}
	s := &Scratch{Dir: dir}
	if agent == Codex {
		s.CodexHome = filepath.Join(dir, "codex-home")
		if err := os.Mkdir(s.CodexHome, 0o700); err != nil {
			s.Close()
			return nil, err
		}
		// Codex resolves the link and writes a refreshed login back to
		// the user's own file (renamed into place beside it), under its
		// own lock there: tested against Codex 0.169.
		if auth := filepath.Join(CodexHome(env), "auth.json"); fileExists(auth) {
			if err := os.Symlink(auth, filepath.Join(s.CodexHome, "auth.json")); err != nil {
				s.Close()
				return nil, err
			}
		}
	}
	return s, nil
}

// Close removes the scratch folder.
func (s *Scratch) Close() error { return os.RemoveAll(s.Dir) }

// CodexHome is the user's Codex home: $CODEX_HOME, else ~/.codex.
func CodexHome(env Env) string {
	if h := env.getenv("CODEX_HOME"); h != "" {
		return h
	}
	return filepath.Join(env.getenv("HOME"), ".codex")
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
