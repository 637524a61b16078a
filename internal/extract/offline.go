package extract

import (
	"fmt"
	"strings"

	"github.com/memctl/memctl/internal/extract/heuristic"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/sessions"
)

// Offline is what "extract --provider heuristic" does with one thread: the
// session reader's normalised events are redacted, so that no secret of
// the transcript can reach the memory, fed to the offline extractor, and
// its answer is redacted again as every model answer is. redact nil means
// none. The version is a plain string because the heuristic extractor's
// tests call it with one; an unknown version yields an empty output.
func Offline(version string, f sessions.File, meta sessions.Meta, redact func(string) string) (Output, error) {
	return offline(memversion.Version(version), f, meta, redact, nil)
}

// offline is Offline with observe (nil: none) shown every redacted event,
// so one pass over the transcript also yields its provenance.
func offline(version memversion.Version, f sessions.File, meta sessions.Meta, redact func(string) string, observe func(sessions.Event)) (Output, error) {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	x := heuristic.New(string(version), meta)
	_, err := sessions.Events(f, func(e sessions.Event) error {
		e.Text = redact(e.Text)
		e.Command = redact(e.Command)
		e.Input = redact(e.Input)
		e.Output = redact(e.Output)
		e.FilePath = redact(e.FilePath)
		e.Old = redact(e.Old)
		e.New = redact(e.New)
		x.Add(e)
		if observe != nil {
			observe(e)
		}
		return nil
	})
	if err != nil {
		return Output{}, fmt.Errorf("read %s: %w", f.Path, err)
	}
	out := offlineOutput(version, x.Result())
	out.RawMemory = redact(out.RawMemory)
	out.RolloutSummary = redact(out.RolloutSummary)
	if out.RolloutSlug != nil {
		s := redact(*out.RolloutSlug)
		out.RolloutSlug = &s
	}
	return out, nil
}

// offlineOutput converts the extractor's result, holding it to the same
// size caps a model's answer meets.
func offlineOutput(version memversion.Version, r heuristic.Result) Output {
	if r.Empty() || checkVersion(version) != nil {
		return Output{}
	}
	slug := r.Slug
	out := Output{RolloutSummary: wholeLines(r.RolloutSummary, heuristicSummaryCap), RolloutSlug: &slug}
	if version == memversion.V1 {
		out.RawMemory = wholeLines(r.RawMemory, heuristicRawCap)
	}
	return out
}

// wholeLines holds text to n bytes by dropping whole lines from its end,
// each an item of the memory: a cap never cuts an item, a sentence or a
// character. What is not valid UTF-8 (a transcript cut mid-character) goes.
func wholeLines(text string, n int) string {
	text = strings.ReplaceAll(strings.ToValidUTF8(text, ""), "\uFFFD", "")
	for len(text) > n {
		text = text[:strings.LastIndexByte(strings.TrimRight(text, "\n"), '\n')+1]
	}
	return text
}

// Hard caps after the extractor's own budgets: the raw memory stays under
// 8 KB and the summary under the v2 9,000-byte limit.
const (
	heuristicRawCap     = 7900
	heuristicSummaryCap = MaxSummaryBytesV2
)
