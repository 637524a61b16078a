package heuristic_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

// minRecall is the bar of issue 11: the share of annotated facts kept.
const minRecall = 0.90

type evalFile struct {
	Session   string   `json:"session"`
	Source    string   `json:"source"`
	SubAgents []string `json:"sub_agents"`
	Notes     string   `json:"notes"`
	Facts     []struct {
		ID      string `json:"id"`
		Kind    string `json:"kind"`
		Pattern string `json:"pattern"`
		Why     string `json:"why"`
	} `json:"facts"`
	False []struct {
		ID      string `json:"id"`
		Pattern string `json:"pattern"`
		Why     string `json:"why"`
	} `json:"false"`
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
	return out.RawMemory + "\n" + out.RolloutSummary
}

type evalScore struct {
	name          string
	facts, kept   int
	falseMade     []string
	missed        []string
	falsePatterns int
}

func TestEvaluation(t *testing.T) {
	root := repoRoot(t)
	files, err := filepath.Glob(filepath.Join("testdata", "eval", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no evaluation files: %v", err)
	}
	sort.Strings(files)
	var scores []evalScore
	total, kept, falseTotal, falseMade := 0, 0, 0, 0
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var ev evalFile
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		kind := sessions.Kind(ev.Source)
		switch kind {
		case sessions.KindCodex, sessions.KindClaudeCode, sessions.KindJSONL:
		default:
			t.Fatalf("%s: unknown source %q", p, ev.Source)
		}
		text := memoryOf(t, kind, filepath.Join(root, filepath.FromSlash(ev.Session)))
		sc := evalScore{name: strings.TrimSuffix(filepath.Base(p), ".json"), facts: len(ev.Facts), falsePatterns: len(ev.False)}
		for _, f := range ev.Facts {
			re, err := regexp.Compile("(?i)" + f.Pattern)
			if err != nil {
				t.Fatalf("%s: fact %s: %v", p, f.ID, err)
			}
			if re.MatchString(text) {
				sc.kept++
			} else {
				sc.missed = append(sc.missed, f.ID)
			}
		}
		for _, f := range ev.False {
			re, err := regexp.Compile("(?i)" + f.Pattern)
			if err != nil {
				t.Fatalf("%s: false %s: %v", p, f.ID, err)
			}
			if m := re.FindString(text); m != "" {
				sc.falseMade = append(sc.falseMade, f.ID)
				t.Errorf("%s: false statement %s (%s): the memory says %q", sc.name, f.ID, f.Why, m)
			}
		}
		if os.Getenv("MEMCTL_EVAL_DUMP") != "" {
			t.Logf("=== %s ===\n%s", sc.name, text)
		}
		total += sc.facts
		kept += sc.kept
		falseTotal += sc.falsePatterns
		falseMade += len(sc.falseMade)
		scores = append(scores, sc)
	}
	var b strings.Builder
	b.WriteString("\n| session | facts kept | recall | false statements made |\n|---|---|---|---|\n")
	for _, sc := range scores {
		recall := "–"
		if sc.facts > 0 {
			recall = fmt.Sprintf("%.0f%%", 100*float64(sc.kept)/float64(sc.facts))
		}
		fmt.Fprintf(&b, "| %s | %d/%d | %s | %d/%d |\n", sc.name, sc.kept, sc.facts, recall, len(sc.falseMade), sc.falsePatterns)
	}
	overall := float64(kept) / float64(total)
	fmt.Fprintf(&b, "| **all** | %d/%d | %.1f%% | %d/%d |\n", kept, total, 100*overall, falseMade, falseTotal)
	for _, sc := range scores {
		if len(sc.missed) > 0 {
			fmt.Fprintf(&b, "missed in %s: %s\n", sc.name, strings.Join(sc.missed, ", "))
		}
	}
	t.Log(b.String())
	if overall < minRecall {
		t.Errorf("recall %.1f%% is below the %.0f%% bar", 100*overall, 100*minRecall)
	}
}
