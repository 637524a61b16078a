package consolidate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memmodel"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/origin"
	"github.com/memctl/memctl/internal/rawmemory"
)

// rfc3339Offset renders times as chrono's to_rfc3339 does for UTC
// (+00:00, not Z), the form Codex writes into the input files.
const rfc3339Offset = "2006-01-02T15:04:05-07:00"

// extensionResourceRetention is how long timestamped extension resources
// are kept (Codex section 10).
const extensionResourceRetention = 7 * 24 * time.Hour

// inputPlan is what the input sync would do, computed without touching the
// disk so that --dry-run can show it.
type inputPlan struct {
	writes  map[string][]byte // slash path relative to root → content
	removes []string          // slash paths relative to root
}

func formatRFC3339(unix int64) string {
	return time.Unix(unix, 0).UTC().Format(rfc3339Offset)
}

// retained returns the first min(len, maxN) rows in ascending thread-id
// order; maxN <= 0 keeps them all.
func retained(selected []Selected, maxN int) []Selected {
	rows := append([]Selected(nil), selected...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].ThreadID < rows[j].ThreadID })
	if maxN > 0 && len(rows) > maxN {
		rows = rows[:maxN]
	}
	return rows
}

// staleLine is the header line that tells a consolidator (and a reader)
// what changed under a memory since it was written.
func staleLine(st memmodel.Stale) string {
	if st.Gone {
		return "stale_evidence: everything this memory rests on is gone (" + st.Note() + "); drop it from memory_summary.md\n"
	}
	return "stale_evidence: " + st.Note() + "; verify before relying on it\n"
}

// sessionBranch is the branch a memory is said to be about: the one its
// session started on, unless the offline extractor left the branch out of
// the rollout summary's context ("branch `x`") because a command may have
// moved the checkout: then the start state does not describe the session.
func sessionBranch(s Selected) string {
	if sum := rawmemory.Parse(s.RolloutSummary); s.GitBranch == "" || sum.Offline() && !strings.Contains(sum.Context, "branch `"+s.GitBranch+"`") {
		return ""
	}
	return s.GitBranch
}

// rolloutSummaryFile renders rollout_summaries/<stem>.md.
func rolloutSummaryFile(s Selected, stale map[string]memmodel.Stale) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "thread_id: %s\n", s.ThreadID)
	fmt.Fprintf(&b, "updated_at: %s\n", formatRFC3339(s.SourceUpdatedAt))
	fmt.Fprintf(&b, "rollout_path: %s\n", s.RolloutPath)
	fmt.Fprintf(&b, "cwd: %s\n", s.Cwd)
	if s.ProjectKey != "" {
		fmt.Fprintf(&b, "project: %s (%s)\n", s.ProjectName, s.ProjectKey)
	}
	writeOrigin(&b, s)
	if br := sessionBranch(s); br != "" {
		fmt.Fprintf(&b, "git_branch: %s\n", br)
	}
	writeControlMarks(&b, s)
	if st, ok := stale[s.ThreadID]; ok {
		b.WriteString(staleLine(st))
	}
	b.WriteString("\n")
	b.WriteString(s.RolloutSummary)
	b.WriteString("\n")
	return b.Bytes()
}

// writeOrigin names, in an input file's header, where a memory that did
// not come from a session here came from ("origin: sync laptop-3f2a",
// "origin: import bundle:team.jsonl", "origin: user"), so a consolidator
// and a reader can weigh it. A session's memory gets no line: its files
// are what Codex writes.
func writeOrigin(b *bytes.Buffer, s Selected) {
	if s.From.Kind != "" && s.From.Kind != origin.Session {
		fmt.Fprintf(b, "origin: %s\n", s.From)
	}
}

// writeControlMarks adds the user's controls to an input file's header:
// "user_asserted: true" when the user wrote the text (memories edit), so
// a consolidator keeps it as the user's statement, and "pinned: true".
// Unmarked memories get no lines, so their files are what Codex writes.
func writeControlMarks(b *bytes.Buffer, s Selected) {
	if s.UserAsserted {
		b.WriteString("user_asserted: true\n")
	}
	if s.Pinned {
		b.WriteString("pinned: true\n")
	}
}

// rawMemoriesFile renders raw_memories.md (v1 only).
func rawMemoriesFile(rows []Selected, stale map[string]memmodel.Stale) []byte {
	var b bytes.Buffer
	b.WriteString("# Raw Memories\n\n")
	if len(rows) == 0 {
		b.WriteString("No raw memories yet.\n")
		return b.Bytes()
	}
	b.WriteString("Stage-1 raw memories merged into one file, one section per thread in stable ascending thread-id order.\n\n")
	for _, s := range rows {
		fmt.Fprintf(&b, "## Thread `%s`\n", s.ThreadID)
		fmt.Fprintf(&b, "updated_at: %s\n", formatRFC3339(s.SourceUpdatedAt))
		fmt.Fprintf(&b, "cwd: %s\n", s.Cwd)
		if s.ProjectKey != "" {
			fmt.Fprintf(&b, "project: %s (%s)\n", s.ProjectName, s.ProjectKey)
		}
		fmt.Fprintf(&b, "rollout_path: %s\n", s.RolloutPath)
		writeOrigin(&b, s)
		fmt.Fprintf(&b, "rollout_summary_file: %s.md\n", memdir.RolloutSummaryStem(s.ThreadID, s.SourceUpdatedAt, s.RolloutSlug))
		writeControlMarks(&b, s)
		if st, ok := stale[s.ThreadID]; ok {
			b.WriteString(staleLine(st))
		}
		b.WriteString("\n")
		b.WriteString(strings.TrimSpace(s.RawMemory))
		b.WriteString("\n\n")
	}
	return b.Bytes()
}

// planInputs computes the input sync of Codex 7.3 and the extension
// resource retention of section 10 against the files now under root.
func planInputs(root string, version memversion.Version, selected []Selected, maxN int, now time.Time, stale map[string]memmodel.Stale) (inputPlan, error) {
	plan := inputPlan{writes: map[string][]byte{}}
	rows := retained(selected, maxN)
	keep := map[string]bool{}
	for _, s := range rows {
		stem := memdir.RolloutSummaryStem(s.ThreadID, s.SourceUpdatedAt, s.RolloutSlug)
		keep[stem] = true
		plan.writes[path.Join(memdir.RolloutSummariesDir, stem+".md")] = rolloutSummaryFile(s, stale)
	}
	entries, err := os.ReadDir(filepath.Join(root, memdir.RolloutSummariesDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return plan, err
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".md") || e.IsDir() {
			continue
		}
		if !keep[strings.TrimSuffix(name, ".md")] {
			plan.removes = append(plan.removes, path.Join(memdir.RolloutSummariesDir, name))
		}
	}
	if version != memversion.V2 {
		plan.writes[memdir.RawMemoriesFile] = rawMemoriesFile(rows, stale)
	}
	old, err := staleExtensionResources(root, now)
	if err != nil {
		return plan, err
	}
	plan.removes = append(plan.removes, old...)
	sort.Strings(plan.removes)
	return plan, nil
}

// parseResourceTime reads the UTC timestamp that prefixes a resource name
// (first 19 characters, %Y-%m-%dT%H-%M-%S).
func parseResourceTime(name string) (time.Time, bool) {
	if len(name) < 19 {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation(memdir.TimeLayout, name[:19], time.UTC)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// staleExtensionResources lists resources/*.md files of every extension
// that has an instructions.md whose timestamped names are at least 7 days
// old (the exact cutoff counts as old). Notes and unparsable names are kept.
func staleExtensionResources(root string, now time.Time) ([]string, error) {
	extRoot := filepath.Join(root, memdir.ExtensionsDir)
	exts, err := os.ReadDir(extRoot)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	cutoff := now.Add(-extensionResourceRetention).Unix()
	var out []string
	for _, ext := range exts {
		if !ext.IsDir() {
			continue
		}
		fi, err := os.Lstat(filepath.Join(extRoot, ext.Name(), memdir.ExtensionInstructionsFile))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		resDir := filepath.Join(extRoot, ext.Name(), memdir.ExtensionResourcesDir)
		if fi, err := os.Lstat(resDir); err != nil || !fi.IsDir() {
			continue
		}
		res, err := os.ReadDir(resDir)
		if err != nil {
			return nil, err
		}
		for _, r := range res {
			if !r.Type().IsRegular() || !strings.HasSuffix(r.Name(), ".md") {
				continue
			}
			ts, ok := parseResourceTime(r.Name())
			if ok && ts.Unix() <= cutoff {
				out = append(out, path.Join(memdir.ExtensionsDir, ext.Name(), memdir.ExtensionResourcesDir, r.Name()))
			}
		}
	}
	return out, nil
}

// syncInputs writes the generated Phase 2 inputs under root (which
// PrepareLayout has made safe): one rollout_summaries/<stem>.md per
// retained selection row (the first min(len, maxN) by thread id; maxN <= 0
// keeps all), removing every other *.md there (other files stay), and, for
// v1, raw_memories.md, the run's stale memories marked in both. It also
// deletes extension resources older than 7 days. Files whose content is
// unchanged are not rewritten.
func syncInputs(root string, version memversion.Version, selected []Selected, maxN int, now time.Time, stale map[string]memmodel.Stale) error {
	plan, err := planInputs(root, version, selected, maxN, now, stale)
	if err != nil {
		return fmt.Errorf("plan inputs: %w", err)
	}
	// The rollout summaries first, raw_memories.md that names them after,
	// the ones no longer selected last (crash order, order.go).
	paths := make([]string, 0, len(plan.writes))
	for p := range plan.writes {
		paths = append(paths, p)
	}
	sortForWrite(paths)
	for _, rel := range paths {
		if dir := path.Dir(rel); dir != "." {
			if err := memdir.EnsureDir(root, dir); err != nil {
				return err
			}
		}
		full := filepath.Join(root, filepath.FromSlash(rel))
		if old, err := os.ReadFile(full); err == nil && bytes.Equal(old, plan.writes[rel]) {
			if fi, err := os.Lstat(full); err == nil && fi.Mode().IsRegular() {
				continue
			}
		}
		if err := putFile(full, plan.writes[rel], 0o600); err != nil {
			return err
		}
	}
	var errs []error
	for _, rel := range plan.removes {
		if err := dropFile(filepath.Join(root, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
