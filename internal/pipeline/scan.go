package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/scan"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
)

// ScanStage indexes the transcripts of every source into a version's
// threads table: what `memctl scan` does, and what extract does first.
type ScanStage struct {
	Sources  []sessions.Source
	Config   *config.Config
	Redact   func(string) string
	Now      func() time.Time
	Progress Progress
}

// Scan indexes s's sources into st and records the stage run: ok,
// partial when a source could not be read (the others were scanned),
// failed or interrupted.
func Scan(ctx context.Context, st *store.Store, s ScanStage) (scan.Result, error) {
	started := s.Now()
	cfg := s.Config
	_, done := s.Progress.start("scanning transcripts", "")
	res, err := scan.Run(ctx, st, scan.Options{
		Sources:  s.Sources,
		Redact:   s.Redact,
		Projects: cfg.ProjectOverrides(),
		Policy:   store.UpsertPolicy{GenerateMemories: cfg.Memories.GenerateMemories, DisableOnExternalContext: cfg.Memories.DisableOnExternalContext},
	})
	done()
	status, detail := scanOutcome(res, err)
	recordStage(context.WithoutCancel(ctx), st, "scan", started, s.Now(), status, detail)
	return res, err
}

// scanOutcome is the stage record of a scan: its status and what it
// counted, with every source it could not read.
func scanOutcome(res scan.Result, err error) (status, detail string) {
	status = "ok"
	detail = fmt.Sprintf("scanned %d, added %d, updated %d, unchanged %d, problems %d", res.Scanned, res.Added, res.Updated, res.Unchanged, len(res.Errors))
	switch {
	case errors.Is(err, context.Canceled):
		status = "interrupted"
	case err != nil:
		status = "failed"
	case res.Err() != nil:
		status = "partial"
		for _, src := range res.Sources {
			if src.Error != "" {
				detail += fmt.Sprintf("; cannot read %s: %s", src.Path, src.Error)
			}
		}
	}
	return status, detail
}

// ScanVersions scans into every version's store, the first first, and
// returns the first version's result: every version reads the same
// sources, so that one result says what was found. The first error
// stops the loop.
func ScanVersions(ctx context.Context, open OpenStore, versions []memversion.Version, s ScanStage) (scan.Result, error) {
	var first scan.Result
	for i, v := range versions {
		res, err := scanVersion(ctx, open, v, s)
		if err != nil {
			return res, err
		}
		if i == 0 {
			first = res
		}
	}
	return first, nil
}

func scanVersion(ctx context.Context, open OpenStore, version memversion.Version, s ScanStage) (scan.Result, error) {
	st, err := open(ctx, version)
	if err != nil {
		return scan.Result{}, err
	}
	defer st.Close()
	return Scan(ctx, st, s)
}
