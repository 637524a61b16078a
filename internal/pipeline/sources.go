package pipeline

import (
	"path/filepath"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/sessions"
)

// Sources returns the transcript sources the stages read: the config's
// [[sources]] (an entry without a path is that agent's default folder),
// or, with none, the agents' default folders that exist on this machine.
func (h *Home) Sources() []sessions.Source {
	if h.sources != nil {
		return append([]sessions.Source{}, h.sources...)
	}
	cfg, userHome := h.cfg, h.env.UserHome
	if len(cfg.Sources) == 0 {
		return sessions.DefaultSources(h.env.Getenv, userHome)
	}
	out := make([]sessions.Source, 0, len(cfg.Sources))
	for _, s := range cfg.Sources {
		kind := sessions.Kind(s.Kind)
		if s.Path == "" {
			if d, ok := sessions.DefaultSource(kind, h.env.Getenv, userHome); ok {
				out = append(out, d)
				continue
			}
		}
		p := config.ExpandHome(s.Path, userHome)
		if abs, err := filepath.Abs(p); err == nil && p != "" {
			p = abs
		}
		out = append(out, sessions.Source{Kind: kind, Path: p})
	}
	return out
}

// UnreadDefaults returns the agents' default folders that exist on this
// machine but are not read, because the config's [[sources]] replace them.
func (h *Home) UnreadDefaults() []sessions.Source {
	if len(h.cfg.Sources) == 0 || h.sources != nil {
		return nil
	}
	active := map[string]bool{}
	for _, s := range h.Sources() {
		active[filepath.Clean(s.Path)] = true
	}
	var out []sessions.Source
	for _, d := range sessions.DefaultSources(h.env.Getenv, h.env.UserHome) {
		if !active[filepath.Clean(d.Path)] {
			out = append(out, d)
		}
	}
	return out
}

// MissingDefaults returns the agents' default folders that do not exist on
// this machine, when the config has no [[sources]] (so memctl looks for
// them); nil otherwise.
func (h *Home) MissingDefaults() []sessions.Source {
	if len(h.cfg.Sources) > 0 || h.sources != nil {
		return nil
	}
	present := map[sessions.Kind]bool{}
	for _, s := range sessions.DefaultSources(h.env.Getenv, h.env.UserHome) {
		present[s.Kind] = true
	}
	var out []sessions.Source
	for _, k := range []sessions.Kind{sessions.KindClaudeCode, sessions.KindCodex} {
		if d, ok := sessions.DefaultSource(k, h.env.Getenv, h.env.UserHome); ok && !present[k] {
			out = append(out, d)
		}
	}
	return out
}

// Redactor builds the redaction of a config (config.Config.Redactor).
func Redactor(cfg *config.Config) (func(string) string, error) { return cfg.Redactor() }
