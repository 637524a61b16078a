package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/owner"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/store"
)

// landError says what to do next when an approve or a rollback is refused.
func landError(version memversion.Version, err error) error {
	var forgotten *consolidate.ForgottenError
	wrapped := fmt.Errorf("%s: %w", version, err)
	switch {
	case errors.As(err, &forgotten):
		return withHint(wrapped, "pass --force to restore it anyway (the next consolidation takes those memories out again), or pick another generation")
	case errors.Is(err, consolidate.ErrBusy):
		return withHint(wrapped, "`memctl status` shows which process holds the consolidation lock and until when")
	case errors.Is(err, consolidate.ErrPendingReview):
		return withHint(wrapped, "`memctl review` shows it; `memctl approve` or `memctl reject` settles it")
	case errors.Is(err, store.ErrNotFound):
		return withHint(wrapped, "`memctl history` lists the kept generations")
	case errors.Is(err, consolidate.ErrPurged):
		return withHint(wrapped, "`memctl history` marks the purged generations; pick one that is not")
	}
	return wrapped
}

// landedJSON is one version's approve or rollback in --json documents.
type landedJSON struct {
	Version memversion.Version `json:"version"`
	consolidate.LandResult
}

// reportLanding prints what an approve or rollback changed (stdout: the
// status lines) and refreshes the search index over the new folder.
func reportLanding(ctx context.Context, ios *IOStreams, st *store.Store, root string, res consolidate.LandResult, jsonOut bool) {
	if res.Recovered != nil {
		ios.Warnf("finished the %s of generation %d that was interrupted at %s", res.Recovered.Action,
			res.Recovered.GenerationID, rfc3339(res.Recovered.StartedAt))
	}
	if err := pipeline.IndexFolder(context.WithoutCancel(ctx), st, root); err != nil {
		ios.Warnf("search index: %v", err)
	}
	if jsonOut {
		return
	}
	for _, l := range res.Changes {
		fmt.Fprintln(ios.Out, l)
	}
}

// workerID names this process in the jobs table.
func workerID() string { return owner.ID() }
