package summary

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/inject"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/termtext"
)

// memctl-summary (cmd/memctl-summary) is `memctl summary` for the agents'
// hooks, in a program that links only the read path: it starts in a
// fraction of memctl's time, which every session pays before its first
// turn (docs/benchmarks.md). Its flags are summary's and memctl's global
// ones, `memctl-summary ARGS` meaning `memctl summary ARGS`.
//
// It prints a summary only when it is sure to print exactly what memctl
// would, and nothing on stderr. Everything else it hands on to `memctl
// summary` with the same arguments and stdin, so memctl says it, once, in
// its own words and with its exit code: a flag or form it does not take
// (--help, --raw=false, -qv), a malformed MEMCTL_NOW, --quiet with
// --verbose, a named home that does not exist, any config error, a value
// the config clamps, a MEMCTL_ variable memctl does not read (memctl may
// warn of it), an error of the summary, and a summary memctl would
// explain on stderr (Silent). Handing on costs a second start, never a
// different answer.

// System is what memctl-summary takes from its process.
type System struct {
	Stdin                          io.Reader
	Stdout, Stderr                 io.Writer
	StdinTTY, StdoutTTY, StderrTTY bool
	Getenv                         func(string) string
	Environ                        func() []string
	UserHome                       func() (string, error)
	Getwd                          func() (string, error)
	// HandOver runs `memctl summary args…` with stdin and the process's
	// stdout and stderr, and returns its exit code.
	HandOver func(args []string, stdin io.Reader) int
}

// Main runs memctl-summary with args (the program name left out) and
// returns its exit code.
func Main(ctx context.Context, args []string, sys System) int {
	fl, ok := parseFlags(args)
	if !ok || !plainCall(fl, sys) {
		return sys.HandOver(args, sys.Stdin)
	}
	env := config.Env{HomeFlag: fl.home, ConfigFlag: fl.config, MemoryVersion: fl.memoryVersion, Getenv: sys.Getenv, UserHome: sys.UserHome}
	home, err := env.Home()
	if err != nil || fl.agent == "" && namedHomeMissing(env, home) {
		return sys.HandOver(args, sys.Stdin)
	}
	cfg, _, err := env.Load()
	if err != nil || len(cfg.Clamps()) > 0 {
		return sys.HandOver(args, sys.Stdin)
	}
	res := inject.SummaryResult{}
	if cfg.Memories.UseMemories {
		root := memdir.Root(home, cfg.Memories.Version)
		req := Request{Config: cfg, Root: root, MaxTokens: fl.maxTokens, Raw: fl.raw, Agent: fl.agent, AllProjects: fl.allProjects}
		stdin := sys.Stdin
		if !fl.allProjects {
			req.Project, stdin = Project(fl.project, fl.agent, sys.Stdin, sys.StdinTTY, sys.Getwd)
		}
		if res, err = Build(ctx, req); err != nil || !Silent(res, fl.agent, fl.allProjects) {
			return sys.HandOver(args, stdin)
		}
	}
	if err := write(sys, fl.json, res); err != nil {
		// Too late to hand on: part of the summary may be out. memctl
		// reports a failed write so (cmd/errors.go, report).
		msg := err.Error()
		if fl.json {
			b, _ := json.Marshal(struct {
				Error string `json:"error"`
				Code  int    `json:"code"`
			}{msg, 1})
			fmt.Fprintln(sys.Stderr, string(termtext.JSON(b)))
		} else {
			fmt.Fprintf(sys.Stderr, "memctl: error: %s\n", termtext.Escape(msg, sys.StderrTTY))
		}
		return 1
	}
	return 0
}

// write prints the summary as memctl does: the text and a line break
// (nothing when nothing is injected), or the result as JSON.
func write(sys System, asJSON bool, res inject.SummaryResult) error {
	if asJSON {
		b, err := termtext.MarshalJSON(res)
		if err != nil {
			return err
		}
		_, err = sys.Stdout.Write(b)
		return err
	}
	if !res.Injected {
		return nil
	}
	// Two writes, not one of the text joined to its line break: the
	// summary is some 14 KB, and the join would copy it.
	if _, err := io.WriteString(sys.Stdout, termtext.Escape(res.Text, sys.StdoutTTY)); err != nil {
		return err
	}
	_, err := io.WriteString(sys.Stdout, "\n")
	return err
}

// flags are the values memctl-summary takes: summary's flags and the
// global ones.
type flags struct {
	home, config, memoryVersion string
	json, quiet, verbose        bool
	raw, allProjects            bool
	agent, project              string
	projectGiven                bool
	maxTokens                   int
}

// parseFlags reads args as memctl's flag parser reads summary's: --name
// value and --name=value for a value, --name for a switch, -q and -v, the
// last of a repeated flag winning. ok is false for anything else, and for
// a value memctl would refuse (which memctl then says).
func parseFlags(args []string) (fl flags, ok bool) {
	fl.maxTokens = inject.DefaultSummaryTokens
	switches := map[string]*bool{
		"json": &fl.json, "no-color": new(bool), "quiet": &fl.quiet, "verbose": &fl.verbose,
		"raw": &fl.raw, "all-projects": &fl.allProjects,
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch a {
		case "-q":
			fl.quiet = true
			continue
		case "-v":
			fl.verbose = true
			continue
		}
		if !strings.HasPrefix(a, "--") || a == "--" {
			return fl, false
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		if p, isSwitch := switches[name]; isSwitch {
			if hasValue {
				return fl, false // --raw=false and the like: memctl reads them
			}
			*p = true
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				return fl, false // memctl: the flag needs an argument
			}
			i++
			value = args[i]
		}
		switch name {
		case "home":
			fl.home = value
		case "config":
			fl.config = value
		case "memory-version":
			if !slices.Contains(memversion.Names(), value) {
				return fl, false
			}
			fl.memoryVersion = value
		case "agent":
			if value != inject.AgentClaudeCode && value != inject.AgentCodex {
				return fl, false
			}
			fl.agent = value
		case "project":
			fl.project, fl.projectGiven = value, true
		case "max-tokens":
			n, err := strconv.ParseInt(value, 0, 64)
			if err != nil || n < 0 {
				return fl, false
			}
			fl.maxTokens = int(n)
		default:
			return fl, false
		}
	}
	return fl, !(fl.allProjects && fl.projectGiven)
}

// plainCall reports a call memctl runs without a word on stderr before
// the summary: MEMCTL_NOW, if set, is a valid time; --quiet and --verbose
// are not both given; every MEMCTL_ variable is one memctl reads.
func plainCall(fl flags, sys System) bool {
	if now := sys.Getenv("MEMCTL_NOW"); now != "" {
		if _, err := time.Parse(time.RFC3339, now); err != nil {
			return false
		}
	}
	if fl.quiet && fl.verbose {
		return false
	}
	var keys []string
	for _, kv := range sys.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "MEMCTL_") || slices.Contains(config.ProgramVars, name) {
			continue
		}
		if keys == nil {
			// Named only when a key's variable may be set: MEMCTL_HOME
			// alone, the common case, costs no list of every key.
			keys = config.EnvNames()
		}
		if !slices.Contains(keys, name) {
			return false
		}
	}
	return true
}

// namedHomeMissing reports a home named by --home or $MEMCTL_HOME that
// does not exist, which memctl refuses unless summary runs as a hook.
func namedHomeMissing(env config.Env, home string) bool {
	if env.HomeFlag == "" && env.Getenv("MEMCTL_HOME") == "" {
		return false
	}
	_, err := os.Stat(home)
	return errors.Is(err, fs.ErrNotExist)
}

// replay is stdin as memctl must see it after Project read the hook
// payload: what arrived in time, or nothing.
func replay(payload []byte) io.Reader { return bytes.NewReader(payload) }
