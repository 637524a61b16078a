package cmd

import (
	"fmt"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/scan"
	"github.com/memctl/memctl/internal/sessions"
)

// Sources and UnreadDefaults list the transcript sources of the config as
// this process's pipeline.Home reads them, for the commands that only
// show them.
func (f *Factory) Sources(cfg *config.Config) []sessions.Source { return f.sourceHome(cfg).Sources() }

func (f *Factory) UnreadDefaults(cfg *config.Config) []sessions.Source {
	return f.sourceHome(cfg).UnreadDefaults()
}

// unreadDefaults calls an optional UnreadDefaults loader.
func unreadDefaults(f func(*config.Config) []sessions.Source, cfg *config.Config) []sessions.Source {
	if f == nil {
		return nil
	}
	return f(cfg)
}

// sourceHome is a Home of cfg for its sources alone, which need no home
// folder.
func (f *Factory) sourceHome(cfg *config.Config) *pipeline.Home {
	env, _ := f.pipelineEnv(nil)
	return pipeline.New(cfg, env)
}

// agentName is how a message names the agent of a source kind.
func agentName(k sessions.Kind) string {
	switch k {
	case sessions.KindClaudeCode:
		return "Claude Code"
	case sessions.KindCodex:
		return "Codex"
	}
	return string(k)
}

// hintNothingFound says, when a scan found no transcript at all, where
// memctl looked and which of the agents' default folders do not exist,
// so that a run over an empty home does not report success without a word
// about why nothing was found.
func hintNothingFound(ios *IOStreams, res scan.Result, missing []sessions.Source, cfg *config.Config) {
	if res.Scanned > 0 || res.Err() != nil {
		return
	}
	var looked, absent []string
	for _, s := range res.Sources {
		looked = append(looked, s.Path)
	}
	for _, d := range missing {
		absent = append(absent, fmt.Sprintf("%s (%s)", d.Path, agentName(d.Kind)))
	}
	switch {
	case len(looked) == 0 && len(absent) > 0:
		ios.Infof("memctl: no transcripts found: %s %s", english.List(absent), english.Noun(len(absent), "does not exist", "do not exist"))
	case len(absent) > 0:
		ios.Infof("memctl: no transcripts found: %s %s none, and %s %s", english.List(looked), english.Noun(len(looked), "holds", "hold"),
			english.List(absent), english.Noun(len(absent), "does not exist", "do not exist"))
	case len(looked) > 0:
		ios.Infof("memctl: no transcripts found in %s", english.List(looked))
	default:
		ios.Infof("memctl: no transcripts found: no [[sources]] in the config")
	}
	where := "a config file (`memctl config init` writes one)"
	if cfg.Path != "" {
		where = cfg.Path
	}
	if len(cfg.Sources) == 0 {
		ios.Infof("memctl: hint: memctl reads the folders where Claude Code and Codex keep their sessions; use one of them first, or list where your transcripts are in [[sources]] of %s (docs/config.md#sources)", where)
	}
}

// sourcesError is the error of a scan that could not read a source
// (exit 1), with a hint that says what to change; nil when every source
// was read.
func sourcesError(res scan.Result, cfg *config.Config) error {
	err := res.Err()
	if err == nil {
		return nil
	}
	if len(cfg.Sources) == 0 {
		where := "a config file (`memctl config init` writes one; see docs/config.md)"
		if cfg.Path != "" {
			where = cfg.Path + " (see docs/config.md)"
		}
		return withHint(err, "memctl reads the agents' default folders when they exist; fix the folder, or list the sources to read in [[sources]] of "+where)
	}
	where := cfg.Path
	if where == "" {
		where = "the config" // [[sources]] came from somewhere other than a file (tests)
	}
	return withHint(err, "fix the path of that [[sources]] entry in "+where+", or remove the entry")
}

// reportScan prints on stderr what a scan found wrong in the transcripts,
// a warning each (an unreadable source is the command's error, see
// sourcesError).
func reportScan(ios *IOStreams, res scan.Result) {
	bad := map[string]bool{}
	for _, s := range res.Sources {
		if s.Error != "" {
			bad[s.Path] = true
		}
	}
	for _, e := range res.Errors {
		if bad[e.Path] && e.Line == 0 {
			continue
		}
		loc := e.Path
		if e.Line > 0 {
			loc = fmt.Sprintf("%s:%d", e.Path, e.Line)
		}
		ios.Warnf("%s: %s", loc, e.Error)
	}
}

// hintUnreadDefaults says which default folders [[sources]] leaves
// unread, and how to read them too.
func hintUnreadDefaults(ios *IOStreams, unread []sessions.Source, cfg *config.Config) {
	where := "the config"
	if cfg.Path != "" {
		where = cfg.Path
	}
	for _, d := range unread {
		ios.Infof("memctl: hint: %s is not read: [[sources]] in %s replaces the default folders (an entry with kind = %q and no path reads it too)",
			d.Path, where, d.Kind)
	}
}

// redactor builds the redaction function of the config
// (pipeline.Redactor, the stages' own).
func redactor(cfg *config.Config) (func(string) string, error) { return pipeline.Redactor(cfg) }

// debugNoSources says, with --debug, why a scan read nothing.
func debugNoSources(ios *IOStreams, srcs []sessions.Source) {
	if len(srcs) == 0 {
		ios.Debugf("no transcript sources configured and none of ~/.codex/sessions, ~/.claude/projects exists")
	}
}
