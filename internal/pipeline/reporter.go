package pipeline

import (
	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/prune"
	"github.com/memctl/memctl/internal/scan"
)

// Reporter is how a Home tells a person what its stages do while they
// run, and asks the one question a stage may ask. cmd implements it (the
// terminal, --json, --quiet); the Home never calls up into a command to
// get work done, it only reports and asks through this interface.
type Reporter interface {
	Infof(format string, args ...any)
	Warnf(format string, args ...any)
	Debugf(format string, args ...any)
	// Progress shows a stage from its start: what it does, and what it
	// counts (unit, "" for nothing). It returns the function that sets
	// how far the stage is and the one that ends the display.
	Progress(label, unit string) (set func(done, total int), done func())
	// Confirm asks a person a yes-or-no question ("first run: …. Extract
	// them all now?"); false when nobody can be asked.
	Confirm(question string) bool

	// Pruned is told how a version's prune in `memctl run` ended (an
	// error there is reported, not returned: the run goes on).
	Pruned(version memversion.Version, res prune.Result, err error)
	// Guarded is told that the rate-limit guard stopped a version's
	// extraction (and, in a run, its consolidation).
	Guarded(version memversion.Version, g extract.GuardResult, inRun bool)
	// Extracted is told a version's Phase 1 (and the scan before it) in a
	// run, before Phase 2 starts; first marks the first version.
	Extracted(version memversion.Version, ex extract.RunResult, scanned scan.Result, first bool)
	// Consolidated is told a version's Phase 2 once it ended without an
	// error.
	Consolidated(version memversion.Version, rep ConsolidateReport, dryRun bool)
}

// Quiet is the Reporter that shows nothing and answers no. Embed it to
// implement only the events a command shows.
type Quiet struct{}

var _ Reporter = Quiet{}

func (Quiet) Infof(string, ...any)  {}
func (Quiet) Warnf(string, ...any)  {}
func (Quiet) Debugf(string, ...any) {}
func (Quiet) Progress(string, string) (func(int, int), func()) {
	return func(int, int) {}, func() {}
}
func (Quiet) Confirm(string) bool                                                { return false }
func (Quiet) Pruned(memversion.Version, prune.Result, error)                     {}
func (Quiet) Guarded(memversion.Version, extract.GuardResult, bool)              {}
func (Quiet) Extracted(memversion.Version, extract.RunResult, scan.Result, bool) {}
func (Quiet) Consolidated(memversion.Version, ConsolidateReport, bool)           {}
