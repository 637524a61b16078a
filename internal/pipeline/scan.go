package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/scan"
	"github.com/memctl/memctl/internal/store"
)

// scanStore indexes the transcripts of every source into a version's
// threads table (what `memctl scan` does, and what extract does first)
// and records the stage run: ok, partial when a source could not be read
// (the others were scanned), failed or interrupted.
func (h *Home) scanStore(ctx context.Context, st *store.Store, redact func(string) string) (scan.Result, error) {
	started := h.Now()
	cfg := h.cfg
	_, done := h.env.Reporter.Progress("scanning transcripts", "")
	res, err := scan.Run(ctx, st, scan.Options{
		Sources:  h.Sources(),
		Redact:   redact,
		Projects: cfg.ProjectOverrides(),
		Policy:   store.UpsertPolicy{GenerateMemories: cfg.Memories.GenerateMemories, DisableOnExternalContext: cfg.Memories.DisableOnExternalContext},
	})
	done()
	status, detail := scanOutcome(res, err)
	recordStage(context.WithoutCancel(ctx), st, "scan", started, h.Now(), status, detail)
	return res, err
}

// ScanStore indexes the sources into an open store of this home (eval's
// replay, which keeps its store open).
func (h *Home) ScanStore(ctx context.Context, st *store.Store) (scan.Result, error) {
	plan, err := h.Plan(0)
	if err != nil {
		return scan.Result{}, err
	}
	return h.scanStore(ctx, st, plan.Redact)
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

// Scan scans into every version's store, the first first, and returns
// the first version's result: every version reads the same sources, so
// that one result says what was found. The first error stops the loop.
func (h *Home) Scan(ctx context.Context) (scan.Result, error) {
	plan, err := h.Plan(0)
	if err != nil {
		return scan.Result{}, err
	}
	var first scan.Result
	for i, v := range h.Versions() {
		res, err := h.scanVersion(ctx, v, plan.Redact)
		if err != nil {
			return res, err
		}
		if i == 0 {
			first = res
		}
	}
	return first, nil
}

func (h *Home) scanVersion(ctx context.Context, version memversion.Version, redact func(string) string) (scan.Result, error) {
	st, err := h.OpenStore(ctx, version)
	if err != nil {
		return scan.Result{}, err
	}
	defer st.Close()
	return h.scanStore(ctx, st, redact)
}
