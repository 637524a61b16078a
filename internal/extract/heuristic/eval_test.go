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

// The bars of the development part (testdata/eval/SPLIT.md): a false
// statement always fails the test, recall must stay at 90% or more and
// noise (as noiseLines defines it) at 20% or less; docs/quality.md has the
// figures. The strict noise figure, against the fact patterns alone, is
// reported beside it.
const (
	minRecall = 0.90
	maxNoise  = 0.20
	// maxUntrue is how many of the statements judged untrue after the run
	// (the "untrue" lists) the memory may still make: the ones left are
	// the agent's or a sub-agent's own words, quoted and labelled as
	// theirs, which the session never took back in a way a rule can read.
	maxUntrue = 5
)

// The bars of the test part: recall of each session's own
// memory at least 80% and of the memory folder at least 60% (both over
// the part's facts), at most one false or misleading statement per five
// sessions (blind false statements plus judged untrue ones), every
// explicit rule or preference of the user kept verbatim, noise at most 25%.
// They are printed on every run and fail the test only when
// testPartBarsEnforced is true (or MEMCTL_EVAL_TEST_BARS=1 for one run):
// the coordinator turns the constant on once the extractor meets them.
const (
	testPartBarsEnforced   = false
	testMinRecall          = 0.80
	testMinFolderRecall    = 0.60
	testFalsePerSessionMax = 1.0 / 5
	testMaxNoise           = 0.25
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
	Session string `json:"session"`
	Source  string `json:"source"`
	// Part is "dev" (rules may be written against the session's
	// repository) or "test" (held out: no rule writer opens it); the
	// split is by repository, see testdata/eval/SPLIT.md.
	Part       string    `json:"part"`
	Repository string    `json:"repository"`
	SubAgents  []string  `json:"sub_agents"`
	Notes      string    `json:"notes"`
	Facts      []pattern `json:"facts"`
	False      []pattern `json:"false"`
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
	name, part       string
	sessions         int // in a part's total: how many sessions it adds up
	facts, kept      int
	rules, rulesKept int // facts of kind rule or preference: the user's words
	falseMade        []string
	missed           []string
	falsePatterns    int
	lines, noise     int
	strictNoise      int // against the fact patterns alone
	untrue           []string
	untrueJudged     int
	// The folder recall (eval_folder_test.go): the facts kept by the memory
	// folder built from the session's repository, which holds a memory of
	// the session when hasMemory; folderRun is false when it was not built.
	folderRun       bool
	folderKept      int
	folderRulesKept int
	hasMemory       bool
	missedInDir     []string
}

// evalCase is one annotation file, decoded.
type evalCase struct {
	file string
	ev   evalFile
}

func loadEvalCases(t *testing.T) []evalCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "eval", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no evaluation files: %v", err)
	}
	sort.Strings(files)
	cases := make([]evalCase, 0, len(files))
	for _, f := range files {
		cases = append(cases, evalCase{file: f, ev: readEvalFile(t, f)})
	}
	return cases
}

func TestEvaluation(t *testing.T) {
	root := repoRoot(t)
	cases := loadEvalCases(t)
	show := evalOutput()
	scores := make([]evalScore, len(cases))
	for i, c := range cases {
		scores[i] = scoreSession(t, root, c, show)
	}
	folderRecall(t, root, cases, scores)
	dev, test := partTotal(scores, "dev"), partTotal(scores, "test")
	t.Log(evalReport(scores, dev, test, show))
	checkDevBars(t, dev)
	if enforce := testPartBarsEnforced || os.Getenv("MEMCTL_EVAL_TEST_BARS") == "1"; enforce {
		for _, miss := range testBarsMissed(test) {
			t.Error("test part: " + miss)
		}
	}
}

// checkDevBars fails the test when the development part misses one of its
// bars; a false statement made fails it in scoreSession already.
func checkDevBars(t *testing.T, dev evalScore) {
	t.Helper()
	if recall := ratio(dev.kept, dev.facts); recall < minRecall {
		t.Errorf("development part: recall %.1f%% is below the %.0f%% bar", 100*recall, 100*minRecall)
	}
	if len(dev.untrue) > maxUntrue {
		t.Errorf("development part: the memory makes %d of the statements judged untrue; the ceiling is %d", len(dev.untrue), maxUntrue)
	}
	if dev.lines > 0 && ratio(dev.noise, dev.lines) > maxNoise {
		t.Errorf("development part: noise %s is above the %.0f%% bar", share(dev.noise, dev.lines), 100*maxNoise)
	}
}

// testBarsMissed says which of the test part's bars it misses, in
// figures only: no session, fact or memory text.
func testBarsMissed(test evalScore) []string {
	var out []string
	if recall := ratio(test.kept, test.facts); recall < testMinRecall {
		out = append(out, fmt.Sprintf("recall %.1f%% is below the %.0f%% bar", 100*recall, 100*testMinRecall))
	}
	if recall := ratio(test.folderKept, test.facts); !test.folderRun || recall < testMinFolderRecall {
		out = append(out, fmt.Sprintf("folder recall %.1f%% is below the %.0f%% bar", 100*recall, 100*testMinFolderRecall))
	}
	if wrong := len(test.falseMade) + len(test.untrue); float64(wrong) > testFalsePerSessionMax*float64(test.sessions) {
		out = append(out, fmt.Sprintf("%d false or misleading statements in %d sessions; the ceiling is one per five sessions", wrong, test.sessions))
	}
	if test.rulesKept < test.rules {
		out = append(out, fmt.Sprintf("%d of %d user rules kept verbatim; every one must be", test.rulesKept, test.rules))
	}
	if test.lines > 0 && ratio(test.noise, test.lines) > testMaxNoise {
		out = append(out, fmt.Sprintf("noise %s is above the %.0f%% bar", share(test.noise, test.lines), 100*testMaxNoise))
	}
	return out
}

// partTotal adds up the scores of one part.
func partTotal(scores []evalScore, part string) evalScore {
	all := evalScore{name: part, part: part, folderRun: true, hasMemory: true}
	for _, sc := range scores {
		if sc.part != part {
			continue
		}
		all.sessions++
		all.facts += sc.facts
		all.kept += sc.kept
		all.rules += sc.rules
		all.rulesKept += sc.rulesKept
		all.falsePatterns += sc.falsePatterns
		all.falseMade = append(all.falseMade, sc.falseMade...)
		all.lines += sc.lines
		all.noise += sc.noise
		all.strictNoise += sc.strictNoise
		all.untrue = append(all.untrue, sc.untrue...)
		all.untrueJudged += sc.untrueJudged
		all.folderKept += sc.folderKept
		all.folderRulesKept += sc.folderRulesKept
		all.folderRun = all.folderRun && sc.folderRun
	}
	return all
}

// TestEvaluationSplit holds the split of the evaluation set in place: every
// session names its part and its repository, and no repository has
// sessions in both parts (SPLIT.md says why).
func TestEvaluationSplit(t *testing.T) {
	partOf := map[string]string{} // repository → part
	for _, c := range loadEvalCases(t) {
		if c.ev.Part != "dev" && c.ev.Part != "test" {
			t.Errorf("%s: part %q, want \"dev\" or \"test\"", c.file, c.ev.Part)
		}
		if c.ev.Repository == "" {
			t.Errorf("%s: no repository", c.file)
		}
		if p, ok := partOf[c.ev.Repository]; ok && p != c.ev.Part {
			t.Errorf("%s: repository %s has sessions in both parts", c.file, c.ev.Repository)
		}
		partOf[c.ev.Repository] = c.ev.Part
	}
}

// readEvalFile decodes one annotation file, refusing unknown keys.
func readEvalFile(t *testing.T, file string) evalFile {
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
	return ev
}

// ruleKind reports the kinds of fact that are the user's own standing
// words: the test part's "rule", the development part's "preference".
func ruleKind(kind string) bool { return kind == "rule" || kind == "preference" }

// scoreSession extracts the session an evaluation file annotates, as the
// pipeline does, and scores its memory against the file's patterns. A
// false statement fails the test in the development part; in the test
// part it is counted, and its text is printed only when show says so.
func scoreSession(t *testing.T, root string, c evalCase, show evalShow) evalScore {
	t.Helper()
	ev, file := c.ev, c.file
	raw, summary := memoryParts(t, sessions.Kind(ev.Source), filepath.Join(root, filepath.FromSlash(ev.Session)), extract.V1)
	text := raw + "\n" + summary
	sc := evalScore{name: strings.TrimSuffix(filepath.Base(file), ".json"), part: ev.Part,
		facts: len(ev.Facts), falsePatterns: len(ev.False), untrueJudged: len(ev.Untrue)}
	detail := show.detail(ev.Part)
	facts := compiled(t, file, "fact", ev.Facts)
	for i, re := range facts {
		kept := re.MatchString(text)
		if ruleKind(ev.Facts[i].Kind) {
			sc.rules++
			if kept {
				sc.rulesKept++
			}
		}
		if kept {
			sc.kept++
		} else {
			sc.missed = append(sc.missed, ev.Facts[i].ID)
		}
	}
	for i, re := range compiled(t, file, "false", ev.False) {
		m := re.FindString(text)
		if m == "" {
			continue
		}
		f := ev.False[i]
		sc.falseMade = append(sc.falseMade, f.ID)
		switch {
		case ev.Part == "dev":
			t.Errorf("%s: false statement %s (%s): the memory says %q", sc.name, f.ID, f.Why, m)
		case detail:
			t.Logf("test part, %s: false statement %s (%s): the memory says %q", sc.name, f.ID, f.Why, m)
		}
	}
	for i, re := range compiled(t, file, "untrue", ev.Untrue) {
		if re.MatchString(text) {
			sc.untrue = append(sc.untrue, ev.Untrue[i].ID)
		}
	}
	known := append(slices.Clone(facts), compiled(t, file, "useful", ev.Useful)...)
	if show.dump && show.memories(ev.Part) {
		t.Logf("=== %s ===\n%s", sc.name, text)
	}
	if show.noise && show.memories(ev.Part) {
		for _, l := range noiseOf(raw, known) {
			t.Logf("noise in %s: %s", sc.name, l)
		}
	}
	sc.lines, sc.noise = noiseLines(raw, known)
	_, sc.strictNoise = noiseLines(raw, facts)
	return sc
}

// evalShow is what the test prints beyond the parts' totals, from the
// environment: MEMCTL_EVAL_PART names the part whose sessions are listed
// (dev, the default; test; all), MEMCTL_EVAL_DUMP and MEMCTL_EVAL_NOISE
// add each listed session's memory and noise lines. A rule writer never
// sees a test-part session (testdata/eval/SPLIT.md): its rows, missed facts
// and memories are printed only when MEMCTL_EVAL_PART=test is set, and its
// memories never with MEMCTL_EVAL_PART=all.
type evalShow struct {
	part        string
	dump, noise bool
}

func evalOutput() evalShow {
	part := os.Getenv("MEMCTL_EVAL_PART")
	switch part {
	case "dev", "test", "all":
	default:
		part = "dev"
	}
	return evalShow{part: part, dump: os.Getenv("MEMCTL_EVAL_DUMP") != "", noise: os.Getenv("MEMCTL_EVAL_NOISE") != ""}
}

// detail reports whether a session of part is listed row by row.
func (s evalShow) detail(part string) bool { return s.part == "all" || s.part == part }

// memories reports whether a session of part may have its memory printed.
func (s evalShow) memories(part string) bool {
	if part == "test" {
		return s.part == "test"
	}
	return s.detail(part)
}

// evalReport is the table docs/quality.md shows: each part's totals, the
// listed part's sessions, the facts they missed and the judged untrue
// statements still said.
func evalReport(scores []evalScore, dev, test evalScore, show evalShow) string {
	var b strings.Builder
	b.WriteString("\n| part | sessions | facts kept | recall | folder recall | rules kept verbatim (memory, folder) | false statements made | judged untrue still said | noise lines (as judged) | strict noise |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range []evalScore{dev, test} {
		fmt.Fprintf(&b, "| %s | %d | %d/%d | %s | %s | %d/%d, %d/%d | %d/%d | %d/%d | %s | %s |\n", p.part, p.sessions, p.kept, p.facts,
			pct(p.kept, p.facts), folderCell(p), p.rulesKept, p.rules, p.folderRulesKept, p.rules, len(p.falseMade), p.falsePatterns,
			len(p.untrue), p.untrueJudged, share(p.noise, p.lines), share(p.strictNoise, p.lines))
	}
	fmt.Fprintf(&b, "test part bars (issue 33, enforced: %v): recall ≥ %.0f%%, folder recall ≥ %.0f%%, ≤ 1 false or misleading statement per 5 sessions, every rule kept verbatim, noise ≤ %.0f%%\n",
		testPartBarsEnforced, 100*testMinRecall, 100*testMinFolderRecall, 100*testMaxNoise)
	for _, miss := range testBarsMissed(test) {
		fmt.Fprintf(&b, "test part misses: %s\n", miss)
	}
	fmt.Fprintf(&b, "sessions listed: %s part (MEMCTL_EVAL_PART=dev|test|all)\n", show.part)
	b.WriteString("\n| session | facts kept | recall | folder recall | rules kept | false statements made | noise lines | strict noise |\n|---|---|---|---|---|---|---|---|\n")
	for _, sc := range scores {
		if !show.detail(sc.part) {
			continue
		}
		fmt.Fprintf(&b, "| %s | %d/%d | %s | %s | %d/%d | %d/%d | %s | %s |\n", sc.name, sc.kept, sc.facts, pct(sc.kept, sc.facts),
			folderCell(sc), sc.rulesKept, sc.rules, len(sc.falseMade), sc.falsePatterns, share(sc.noise, sc.lines), share(sc.strictNoise, sc.lines))
	}
	for _, sc := range scores {
		if show.detail(sc.part) && len(sc.missed) > 0 {
			fmt.Fprintf(&b, "missed in %s: %s\n", sc.name, strings.Join(sc.missed, ", "))
		}
	}
	for _, sc := range scores {
		if show.detail(sc.part) && len(sc.missedInDir) > 0 {
			fmt.Fprintf(&b, "missed in the folder of %s: %s\n", sc.name, strings.Join(sc.missedInDir, ", "))
		}
	}
	for _, sc := range scores {
		if show.detail(sc.part) && len(sc.untrue) > 0 {
			fmt.Fprintf(&b, "still untrue in %s: %s\n", sc.name, strings.Join(sc.untrue, ", "))
		}
	}
	return b.String()
}

// folderCell prints a score's folder recall, "–" when the folder was not
// built, and marks a session the pipeline made no memory of.
func folderCell(sc evalScore) string {
	if !sc.folderRun {
		return "–"
	}
	cell := pct(sc.folderKept, sc.facts)
	if !sc.hasMemory {
		cell += " (no memory)"
	}
	return cell
}

// pct prints n of total as a percentage, "–" for an empty total.
func pct(n, total int) string {
	if total == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*ratio(n, total))
}

func ratio(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return float64(n) / float64(total)
}

// share prints n of total as "n/total (p%)", "–" for an empty total.
func share(n, total int) string {
	if total == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d (%.0f%%)", n, total, 100*float64(n)/float64(total))
}
