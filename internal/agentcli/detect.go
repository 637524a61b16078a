package agentcli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// detectTimeout bounds each of the two quick questions Detect asks.
const detectTimeout = 15 * time.Second

// Status is what Detect found of an agent CLI. Finding it out spends
// nothing: no model is called, and no secret is kept or shown.
type Status struct {
	Agent Agent `json:"agent"`
	// Path is the program found; "" when it is not installed.
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	// LoggedIn: the CLI says it holds a login it can use.
	LoggedIn bool `json:"logged_in"`
	// Login says which kind of login ("claude.ai subscription (max)",
	// "ChatGPT", "API key"); never the account or the key.
	Login string `json:"login,omitempty"`
	// Problem says why the CLI could not be asked ("" when it was).
	Problem string `json:"problem,omitempty"`
}

// Usable reports whether memctl can send its requests through the CLI.
func (s Status) Usable() bool { return s.Path != "" && s.LoggedIn }

// Describe says what was found, in a phrase: "Claude Code 2.1.328,
// logged in with a claude.ai subscription (max)".
func (s Status) Describe() string {
	name := s.Agent.Name()
	if s.Version != "" {
		name += " " + s.Version
	}
	switch {
	case s.Path == "":
		return s.Agent.Name() + " is not installed (no " + s.Agent.Program() + " on PATH)"
	case s.Problem != "":
		return name + " (" + s.Problem + ")"
	case !s.LoggedIn:
		return name + ", not logged in"
	case s.Login != "":
		return name + ", logged in with " + s.Login
	}
	return name + ", logged in"
}

// Detect finds agent's CLI (program is its argv, nil for the default
// name on PATH), its version, and whether it is logged in. It asks the
// CLI itself (`claude auth status`, `codex login status`), which reads
// the login where the CLI keeps it (a file, the macOS keychain) and
// calls nothing on the network: checked with the pinned versions.
func Detect(ctx context.Context, agent Agent, program []string, env Env) Status {
	st := Status{Agent: agent}
	if len(program) == 0 || program[0] == "" {
		program = []string{agent.Program()}
	}
	path, err := Find(program[0], env)
	if err != nil {
		return st
	}
	st.Path = path
	argv := append([]string{path}, program[1:]...)
	out, _, _ := ask(ctx, env, agent, argv, "--version")
	st.Version = versionRE().FindString(out)
	if agent == Codex {
		st.LoggedIn, st.Login, st.Problem = codexLogin(ctx, env, argv)
	} else {
		st.LoggedIn, st.Login, st.Problem = claudeLogin(ctx, env, argv)
	}
	return st
}

// Find resolves a program as exec does, a path as it is and a bare name
// on PATH, but with env's PATH: the environment memctl was given, which
// a test replaces.
func Find(program string, env Env) (string, error) {
	switch {
	case env.LookPath != nil:
		return env.LookPath(program)
	case env.Getenv == nil:
		return exec.LookPath(program)
	case strings.Contains(program, "/"):
		if executable(program) {
			return program, nil
		}
		return "", fmt.Errorf("%s: not an executable file", program)
	}
	for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
		if dir == "" {
			continue // an empty entry means ".", which exec.LookPath also refuses
		}
		if p := filepath.Join(dir, program); executable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH", program)
}

func executable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

var versionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+-]*`) })

// ask runs the CLI with args, bounded in time, in the environment a
// request would get, and returns its stdout, stderr and exit code (-1
// when it did not run to an exit).
func ask(ctx context.Context, env Env, agent Agent, argv []string, args ...string) (string, string, int) {
	ctx, cancel := context.WithTimeout(ctx, detectTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:len(argv):len(argv)], args...)...)
	set := map[string]string{}
	if agent == ClaudeCode {
		set["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
	}
	cmd.Env = env.ChildEnv(set)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	code := 0
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		code = -1
	}
	return out.String(), errOut.String(), code
}

// claudeAuth is the part of `claude auth status --json` memctl reads.
type claudeAuth struct {
	LoggedIn         bool   `json:"loggedIn"`
	AuthMethod       string `json:"authMethod"`
	SubscriptionType string `json:"subscriptionType"`
	APIKeySource     string `json:"apiKeySource"`
}

func claudeLogin(ctx context.Context, env Env, argv []string) (bool, string, string) {
	out, _, code := ask(ctx, env, ClaudeCode, argv, "auth", "status", "--json")
	var a claudeAuth
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		if code == -1 {
			return false, "", "`claude auth status` did not answer"
		}
		return false, "", "cannot read what `claude auth status` says"
	}
	if !a.LoggedIn {
		return false, "", ""
	}
	switch a.AuthMethod {
	case "claude.ai":
		if a.SubscriptionType != "" {
			return true, fmt.Sprintf("a claude.ai subscription (%s)", a.SubscriptionType), ""
		}
		return true, "a claude.ai subscription", ""
	case "api_key":
		if a.APIKeySource != "" {
			return true, "an API key (" + a.APIKeySource + ")", ""
		}
		return true, "an API key", ""
	case "", "none":
		return true, "", ""
	}
	return true, a.AuthMethod, ""
}

// codexLoginRE reads `codex login status`: "Logged in using ChatGPT",
// "API key configured - sk-…". Only words are kept: the masked key (or
// anything else after them) is never repeated.
var codexLoginRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:Logged in using ([A-Za-z][A-Za-z ]*[A-Za-z])|(API key) configured\b)`)
})

func codexLogin(ctx context.Context, env Env, argv []string) (bool, string, string) {
	out, errOut, code := ask(ctx, env, Codex, argv, "login", "status")
	switch code {
	case 0:
	case 1:
		return false, "", ""
	case -1:
		return false, "", "`codex login status` did not answer"
	default:
		return false, "", fmt.Sprintf("`codex login status` exited %d", code)
	}
	m := codexLoginRE().FindStringSubmatch(out + "\n" + errOut)
	switch {
	case m == nil:
		return true, "", ""
	case m[2] != "":
		return true, "an API key", ""
	}
	return true, strings.TrimSpace(m[1]), ""
}
