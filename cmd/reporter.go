package cmd

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/prune"
	"github.com/memctl/memctl/internal/scan"
)

// stageReporter renders what the pipeline's stages do, as they do it, on
// this process's streams: messages and progress on stderr (no progress
// under --json), a stage's events the way the command that runs it shows
// them. It is the pipeline.Reporter of the stage commands.
type stageReporter struct {
	*IOStreams
	json bool
	// run shows each version's prune and extraction as it ends, as
	// `memctl run` does; extract shows its merged result itself.
	run bool
	// hintDefaults adds, after the first version's extraction, the hints
	// about the agents' default folders (the demo reads its own copies).
	hintDefaults bool
	// home is the Home this reporter serves: the hints name its sources.
	home *pipeline.Home
}

var _ pipeline.Reporter = &stageReporter{}

func newStageReporter(ios *IOStreams, json bool) *stageReporter {
	return &stageReporter{IOStreams: ios, json: json, hintDefaults: true}
}

// Progress shows a stage's progress line while it runs (stderr on a
// terminal, not with --json or --quiet).
func (r *stageReporter) Progress(label, unit string) (func(done, total int), func()) {
	p := startProgress(r.IOStreams, r.json, label, unit)
	return p.set, p.finish
}

// Confirm asks on the terminal; without one (or with --json) the answer
// is no.
func (r *stageReporter) Confirm(question string) bool {
	if !r.CanPrompt() || r.json {
		return false
	}
	fmt.Fprintf(r.ErrOut, "memctl: %s [y/N] ", question)
	answer, _ := bufio.NewReader(r.In).ReadString('\n')
	answer = strings.TrimSpace(answer)
	return strings.EqualFold(answer, "y") || strings.EqualFold(answer, "yes")
}

// Pruned says what a version's prune did in a run; an error is a
// warning, as Codex logs prune errors and goes on.
func (r *stageReporter) Pruned(version memversion.Version, res prune.Result, err error) {
	switch {
	case err != nil:
		r.Warnf("%s: prune: %v", version, err)
	case res.Pruned > 0:
		verb := "pruned"
		if res.DryRun {
			verb = "would prune"
		}
		r.Infof("%s: %s %s", version, verb, english.Count(res.Pruned, "raw memory", "raw memories"))
	}
}

func (r *stageReporter) Guarded(version memversion.Version, g extract.GuardResult, inRun bool) {
	if inRun {
		r.Warnf("%s: rate-limit guard: %s; skipping extraction and consolidation", version, g.Reason)
		return
	}
	r.Warnf("extract skipped: %s", g.Reason)
}

// Extracted renders a version's extraction in a run; the first version
// also shows the scan's problems and the hints about the sources.
func (r *stageReporter) Extracted(_ memversion.Version, ex extract.RunResult, scanned scan.Result, first bool) {
	if !r.run || r.json {
		return
	}
	if first {
		reportScan(r.IOStreams, scanned)
	}
	printExtract(r.IOStreams, ex)
	if first {
		r.hintSources(scanned)
	}
}

// hintSources says which default folders [[sources]] leaves unread, and
// where memctl looked when a scan found nothing.
func (r *stageReporter) hintSources(scanned scan.Result) {
	if !r.hintDefaults || r.home == nil {
		return
	}
	cfg := r.home.Config()
	hintUnreadDefaults(r.IOStreams, r.home.UnreadDefaults(), cfg)
	hintNothingFound(r.IOStreams, scanned, r.home.MissingDefaults(), cfg)
}

// Consolidated renders a version's consolidation: a dry run's plan, or
// what the run did.
func (r *stageReporter) Consolidated(version memversion.Version, rep pipeline.ConsolidateReport, dryRun bool) {
	if dryRun {
		if !r.json {
			printPlan(r.IOStreams, version, rep.Result)
		}
		return
	}
	if rep.IndexErr != nil {
		r.Warnf("search index: %v", rep.IndexErr)
	}
	if rep.Summary != "" {
		r.Infof("%s", rep.Summary)
	}
}
