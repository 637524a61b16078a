package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/memctl/memctl/pkg/config"
	"github.com/memctl/memctl/pkg/redact"
	"github.com/memctl/memctl/pkg/scan"
	"github.com/memctl/memctl/pkg/sessions"
	"github.com/memctl/memctl/pkg/store"
)

// Sources returns the configured [[sources]], or the agents' default
// folders that exist on this machine.
func (f *Factory) Sources(cfg *config.Config) []sessions.Source {
	userHome, _ := f.UserHome()
	if len(cfg.Sources) == 0 {
		return sessions.DefaultSources(f.Getenv, userHome)
	}
	out := make([]sessions.Source, 0, len(cfg.Sources))
	for _, s := range cfg.Sources {
		p := config.ExpandHome(s.Path, userHome)
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		out = append(out, sessions.Source{Kind: sessions.Kind(s.Kind), Path: p})
	}
	return out
}

// redactor builds the redaction function of the config.
func redactor(cfg *config.Config) (func(string) string, error) {
	r, err := redact.New(cfg.Redaction.ExtraPatterns)
	if err != nil {
		return nil, &config.Error{Key: "redaction.extra_patterns", Err: err}
	}
	return r.String, nil
}

// scanStore indexes every source into one version's store.
func scanStore(ctx context.Context, ios *IOStreams, now func() time.Time, srcs []sessions.Source, cfg *config.Config, st *store.Store) (scan.Result, error) {
	started := now()
	if len(srcs) == 0 {
		ios.Debugf("no transcript sources configured and none of ~/.codex/sessions, ~/.claude/projects exists")
	}
	red, err := redactor(cfg)
	if err != nil {
		return scan.Result{}, err
	}
	res, err := scan.Run(ctx, st, scan.Options{
		Sources: srcs,
		Redact:  red,
		Policy:  store.UpsertPolicy{GenerateMemories: cfg.Memories.GenerateMemories, DisableOnExternalContext: cfg.Memories.DisableOnExternalContext},
	})
	status := "ok"
	if err != nil {
		status = "failed"
	}
	recordStage(ctx, st, "scan", started, now(), status,
		fmt.Sprintf("scanned %d, added %d, updated %d, unchanged %d, problems %d", res.Scanned, res.Added, res.Updated, res.Unchanged, len(res.Errors)))
	return res, err
}
