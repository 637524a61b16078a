package heuristic_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/redact"
	"github.com/memctl/memctl/internal/sessions"
)

// The evaluation set (testdata/eval, see its README) says, per session,
// what a person would write down and what a memory must never say. This
// test runs the extractor exactly as "memctl extract --provider heuristic"
// does (session reader, normalised events, default redaction, the
// extractor, redaction of its answer) and scores it. docs/quality.md shows
// the table this prints:
//
//	go test ./internal/extract/heuristic -run TestEvaluation -v

// The bars on the whole set: a false statement always fails the test,
// recall must stay at 90% or more and noise (as noiseLines defines it) at
// 20% or less; docs/quality.md has the figures. The strict noise
// figure, against the fact patterns alone, is reported beside it.
const (
	minRecall = 0.90
	maxNoise  = 0.20
	// maxUntrue is how many of the statements judged untrue after the run
	// (the "untrue" lists) the memory may still make: the ones left are
	// the agent's or a sub-agent's own words, quoted and labelled as
	// theirs, which the session never took back in a way a rule can read.
	maxUntrue = 5
)

// structuralLineRE are bullet lines that carry the memory's frame, not a
// statement: an empty section, the tool tally, the list of files read.
var structuralLineRE = regexp.MustCompile(`^(- none\.?|- Tools used: .*|- Files read: .*)$`)

// noiseLines counts the statement lines of a raw memory (its bullet lines,
// "- …" or "1. …", without the structural ones above) and, of those, the
// noise: lines that match none of the given patterns. Noise is a line
// that conveys no annotated fact nor a true, useful
// statement, so it is measured against the fact patterns and the judged
// ones together; measured against the fact patterns alone it is the
// strict figure, which counts every true but unannotated line too.
func noiseLines(raw string, known []*regexp.Regexp) (lines, noise int) {
	for l := range strings.Lines(raw) {
		if statementLine(strings.TrimSpace(l)) {
			lines++
		}
	}
	return lines, len(noiseOf(raw, known))
}

// statementLine reports a bullet line that is no structural one.
func statementLine(l string) bool {
	return bulletRE.MatchString(l) && !structuralLineRE.MatchString(l)
}

// noiseOf returns the statement lines of raw that match no pattern.
func noiseOf(raw string, known []*regexp.Regexp) []string {
	var out []string
	for l := range strings.Lines(raw) {
		l = strings.TrimSpace(l)
		if !statementLine(l) {
			continue
		}
		if !slices.ContainsFunc(known, func(re *regexp.Regexp) bool { return re.MatchString(l) }) {
			out = append(out, l)
		}
	}
	return out
}

var bulletRE = regexp.MustCompile(`^(- |\d+\. )`)

// pattern is one annotation: a Go regular expression and the transcript
// line that proves it.
type pattern struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Pattern string `json:"pattern"`
	Why     string `json:"why"`
}

type evalFile struct {
	Session   string    `json:"session"`
	Source    string    `json:"source"`
	SubAgents []string  `json:"sub_agents"`
	Notes     string    `json:"notes"`
	Facts     []pattern `json:"facts"`
	False     []pattern `json:"false"`
	// Useful holds statements judged after the extractor ran: each is true
	// (its why quotes the transcript line that proves it) and useful to the
	// next agent, though the blind annotation did not write it down. They
	// only keep a line from counting as noise; they never count as recall.
	Useful []pattern `json:"useful"`
	// Untrue holds statements the judges found false in the memory after
	// the run, which the blind annotation had not foreseen. The test
	// counts those the memory still makes; see maxUntrue.
	Untrue []pattern `json:"untrue"`
}

// compiled returns the patterns compiled as the README says: Go RE2,
// case-insensitive.
func compiled(t *testing.T, file, list string, ps []pattern) []*regexp.Regexp {
	t.Helper()
	out := make([]*regexp.Regexp, len(ps))
	for i, p := range ps {
		re, err := regexp.Compile("(?i)" + p.Pattern)
		if err != nil {
			t.Fatalf("%s: %s %s: %v", file, list, p.ID, err)
		}
		out[i] = re
	}
	return out
}

// repoRoot finds the module root, which the annotations' paths are
// relative to.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// memoryOf extracts one session as the pipeline does and returns the text
// the annotations are matched against: raw memory, newline, summary.
func memoryOf(t *testing.T, kind sessions.Kind, path string) string {
	t.Helper()
	return memoryOfVersion(t, kind, path, extract.V1)
}

func memoryOfVersion(t *testing.T, kind sessions.Kind, path, version string) string {
	t.Helper()
	raw, summary := memoryParts(t, kind, path, version)
	return raw + "\n" + summary
}

// memoryParts extracts one session and returns its raw memory and its
// rollout summary.
func memoryParts(t *testing.T, kind sessions.Kind, path, version string) (string, string) {
	t.Helper()
	f := sessions.File{Kind: kind, Path: path}
	if st, err := os.Stat(path); err == nil {
		f.Size, f.ModTime = st.Size(), st.ModTime()
	}
	meta, _, err := sessions.ReadMeta(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out, err := extract.Offline(version, f, meta, redact.Default().String)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out.RawMemory, out.RolloutSummary
}

type evalScore struct {
	name          string
	facts, kept   int
	falseMade     []string
	missed        []string
	falsePatterns int
	lines, noise  int
	strictNoise   int // against the fact patterns alone
	untrue        []string
	untrueJudged  int
}

func TestEvaluation(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "eval", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no evaluation files: %v", err)
	}
	sort.Strings(files)
	var scores []evalScore
	for _, p := range files {
		scores = append(scores, scoreSession(t, repoRoot(t), p))
	}
	var all evalScore
	for _, sc := range scores {
		all.facts += sc.facts
		all.kept += sc.kept
		all.falsePatterns += sc.falsePatterns
		all.falseMade = append(all.falseMade, sc.falseMade...)
		all.lines += sc.lines
		all.noise += sc.noise
		all.strictNoise += sc.strictNoise
		all.untrue = append(all.untrue, sc.untrue...)
		all.untrueJudged += sc.untrueJudged
	}
	t.Log(evalReport(scores, all))
	if recall := float64(all.kept) / float64(all.facts); recall < minRecall {
		t.Errorf("recall %.1f%% is below the %.0f%% bar", 100*recall, 100*minRecall)
	}
	if len(all.untrue) > maxUntrue {
		t.Errorf("the memory makes %d of the statements judged untrue; the ceiling is %d", len(all.untrue), maxUntrue)
	}
	if all.lines > 0 && float64(all.noise)/float64(all.lines) > maxNoise {
		t.Errorf("noise %s is above the %.0f%% bar", share(all.noise, all.lines), 100*maxNoise)
	}
}

// scoreSession extracts the session an evaluation file annotates, as the
// pipeline does, and scores its memory against the file's patterns.
func scoreSession(t *testing.T, root, file string) evalScore {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var ev evalFile
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	kind := sessions.Kind(ev.Source)
	switch kind {
	case sessions.KindCodex, sessions.KindClaudeCode, sessions.KindJSONL:
	default:
		t.Fatalf("%s: unknown source %q", file, ev.Source)
	}
	raw, summary := memoryParts(t, kind, filepath.Join(root, filepath.FromSlash(ev.Session)), extract.V1)
	text := raw + "\n" + summary
	sc := evalScore{name: strings.TrimSuffix(filepath.Base(file), ".json"), facts: len(ev.Facts),
		falsePatterns: len(ev.False), untrueJudged: len(ev.Untrue)}
	facts := compiled(t, file, "fact", ev.Facts)
	for i, re := range facts {
		if re.MatchString(text) {
			sc.kept++
		} else {
			sc.missed = append(sc.missed, ev.Facts[i].ID)
		}
	}
	for i, re := range compiled(t, file, "false", ev.False) {
		if m := re.FindString(text); m != "" {
			f := ev.False[i]
			sc.falseMade = append(sc.falseMade, f.ID)
			t.Errorf("%s: false statement %s (%s): the memory says %q", sc.name, f.ID, f.Why, m)
		}
	}
	for i, re := range compiled(t, file, "untrue", ev.Untrue) {
		if re.MatchString(text) {
			sc.untrue = append(sc.untrue, ev.Untrue[i].ID)
		}
	}
	known := append(slices.Clone(facts), compiled(t, file, "useful", ev.Useful)...)
	if os.Getenv("MEMCTL_EVAL_DUMP") != "" {
		t.Logf("=== %s ===\n%s", sc.name, text)
	}
	if os.Getenv("MEMCTL_EVAL_NOISE") != "" {
		for _, l := range noiseOf(raw, known) {
			t.Logf("noise in %s: %s", sc.name, l)
		}
	}
	sc.lines, sc.noise = noiseLines(raw, known)
	_, sc.strictNoise = noiseLines(raw, facts)
	return sc
}

// evalReport is the table docs/quality.md shows, the facts missed and the
// judged untrue statements still made.
func evalReport(scores []evalScore, all evalScore) string {
	var b strings.Builder
	b.WriteString("\n| session | facts kept | recall | false statements made | noise lines | strict noise |\n|---|---|---|---|---|---|\n")
	for _, sc := range scores {
		recall := "–"
		if sc.facts > 0 {
			recall = fmt.Sprintf("%.0f%%", 100*float64(sc.kept)/float64(sc.facts))
		}
		fmt.Fprintf(&b, "| %s | %d/%d | %s | %d/%d | %s | %s |\n", sc.name, sc.kept, sc.facts, recall,
			len(sc.falseMade), sc.falsePatterns, share(sc.noise, sc.lines), share(sc.strictNoise, sc.lines))
	}
	fmt.Fprintf(&b, "| **all** | %d/%d | %.1f%% | %d/%d | %s | %s |\n", all.kept, all.facts,
		100*float64(all.kept)/float64(all.facts), len(all.falseMade), all.falsePatterns,
		share(all.noise, all.lines), share(all.strictNoise, all.lines))
	for _, sc := range scores {
		if len(sc.missed) > 0 {
			fmt.Fprintf(&b, "missed in %s: %s\n", sc.name, strings.Join(sc.missed, ", "))
		}
	}
	fmt.Fprintf(&b, "judged untrue after the run: %d of %d still said\n", len(all.untrue), all.untrueJudged)
	for _, sc := range scores {
		if len(sc.untrue) > 0 {
			fmt.Fprintf(&b, "still untrue in %s: %s\n", sc.name, strings.Join(sc.untrue, ", "))
		}
	}
	return b.String()
}

// share prints n of total as "n/total (p%)", "–" for an empty total.
func share(n, total int) string {
	if total == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d (%.0f%%)", n, total, 100*float64(n)/float64(total))
}
