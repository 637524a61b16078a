package regret

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/memctl/memctl/internal/redact"
	"github.com/memctl/memctl/internal/regret/synth"
	"github.com/memctl/memctl/internal/sessions"
)

// The regret benchmark (docs/quality.md, "Does memory prevent repeated
// mistakes?"): generated multi-session projects with planted lessons and
// returns, scored against what Run finds, and the repository's real
// sessions, timed.
//
//	go test ./internal/regret -run 'Synthetic|Real' -v
//	go test ./internal/regret -run '^$' -bench RealSessions -benchtime 3x

// scratchRoots are the folders the tests made outside t.TempDir, removed
// when the package's tests end.
var (
	scratchMu    sync.Mutex
	scratchRoots []string
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range scratchRoots {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// scratch is an empty folder for a replay, in memory when the system has
// one: a replay writes many small files, each synced to disk.
func scratch(tb testing.TB) string {
	tb.Helper()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "memctl-regret-test-"); err == nil {
			scratchMu.Lock()
			scratchRoots = append(scratchRoots, d)
			scratchMu.Unlock()
			return d
		}
	}
	d, err := os.MkdirTemp("", "memctl-regret-test-")
	if err != nil {
		tb.Fatal(err)
	}
	scratchMu.Lock()
	scratchRoots = append(scratchRoots, d)
	scratchMu.Unlock()
	return d
}

// synthetic is the generated corpus and its report, made once for all the
// tests that read them.
var synthetic = sync.OnceValues(func() (*synthResult, error) {
	root, err := os.MkdirTemp("", "memctl-regret-synth-")
	if err != nil {
		return nil, err
	}
	scratchMu.Lock()
	scratchRoots = append(scratchRoots, root)
	scratchMu.Unlock()
	corpus, err := synth.Write(filepath.Join(root, "sessions"))
	if err != nil {
		return nil, err
	}
	work := filepath.Join(root, "replay")
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "memctl-regret-synth-"); err == nil {
			scratchMu.Lock()
			scratchRoots = append(scratchRoots, d)
			scratchMu.Unlock()
			work = d
		}
	}
	if err := os.MkdirAll(work, 0o700); err != nil {
		return nil, err
	}
	rep, err := Run(context.Background(), Options{Home: userHome(root), Sources: synthSources(filepath.Join(root, "sessions")), Scratch: work,
		Redact: redact.Default().String})
	return &synthResult{corpus: corpus, report: rep}, err
})

// userHome is the home a replay starts from: the default config, its
// folder at dir/home (which holds no session).
func userHome(dir string) *pipeline.Home {
	return pipeline.New(config.Default(), pipeline.Env{Dir: filepath.Join(dir, "home")})
}

type synthResult struct {
	corpus *synth.Corpus
	report *Report
}

func synthSources(root string) []sessions.Source {
	return []sessions.Source{
		{Kind: sessions.KindCodex, Path: filepath.Join(root, "codex", "sessions")},
		{Kind: sessions.KindClaudeCode, Path: filepath.Join(root, "claude", "projects")},
	}
}

func syntheticReport(t *testing.T) *synthResult {
	t.Helper()
	res, err := synthetic()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// returnOf is the return Run found for a plant: in the plant's return
// session, of a topic whose lesson is the plant's lesson session.
func returnOf(rep *Report, p synth.Plant) *Return {
	for i, r := range rep.Returns {
		if r.Session == p.Return && r.Lesson.Session == p.Lesson {
			return &rep.Returns[i]
		}
	}
	return nil
}

// TestSyntheticRepeats scores the detection of repeats: at least 90% of
// the planted repeats found, at most 10% of the repeats found not planted.
func TestSyntheticRepeats(t *testing.T) {
	res := syntheticReport(t)
	planted, found, falseRepeats := 0, 0, 0
	for _, p := range res.corpus.Plants {
		if !p.Repeated {
			continue
		}
		planted++
		if r := returnOf(res.report, p); r != nil && r.Repeated {
			found++
		} else {
			t.Logf("planted repeat not found: %s (%s)", p.Project, p.Topic)
		}
	}
	detected := 0
	for _, r := range res.report.Returns {
		if !r.Repeated {
			continue
		}
		detected++
		ok := false
		for _, p := range res.corpus.Plants {
			ok = ok || p.Repeated && p.Return == r.Session && p.Lesson == r.Lesson.Session
		}
		if !ok {
			falseRepeats++
			t.Errorf("repeat found where none was planted: %s session %s (lesson %q)", r.Project, r.Session, r.Lesson.Quote)
		}
	}
	recall := float64(found) / float64(planted)
	falseRate := 0.0
	if detected > 0 {
		falseRate = float64(falseRepeats) / float64(detected)
	}
	t.Logf("%d sessions, %d planted repeats: %d found (%.0f%%); %d repeats found, %d not planted (%.0f%%)",
		res.corpus.Sessions, planted, found, 100*recall, detected, falseRepeats, 100*falseRate)
	if planted < 10 {
		t.Fatalf("only %d planted repeats: the corpus lost its scenarios", planted)
	}
	if recall < 0.9 {
		t.Errorf("found %d of %d planted repeats (%.0f%%), want at least 90%%", found, planted, 100*recall)
	}
	if falseRate > 0.1 {
		t.Errorf("%d of %d repeats found were not planted (%.0f%%), want at most 10%%", falseRepeats, detected, 100*falseRate)
	}
}

// TestSyntheticClasses checks every planted return's class, one subtest per
// class: each class has at least one plant.
func TestSyntheticClasses(t *testing.T) {
	res := syntheticReport(t)
	for _, class := range Classes {
		t.Run(string(class), func(t *testing.T) {
			n := 0
			for _, p := range res.corpus.Plants {
				if p.Class != string(class) {
					continue
				}
				n++
				r := returnOf(res.report, p)
				switch {
				case r == nil:
					t.Errorf("%s: the return of %q was not found (%s)", p.Project, p.Topic, p.Why)
				case r.Class != class:
					t.Errorf("%s: %q classified %s (extracted %v, injected %v, found by search %v), planted as %s: %s",
						p.Project, p.Topic, r.Class, r.Extracted, r.Injected, r.FoundBySearch, class, p.Why)
				}
			}
			if n == 0 {
				t.Fatalf("no plant of class %s", class)
			}
		})
	}
	// A lesson whose topic never comes back has no return.
	for _, r := range res.report.Returns {
		if r.Project == "infra-notes" {
			t.Errorf("a return in infra-notes, where no later session touches the lesson: %+v", r)
		}
	}
}

// TestSyntheticReport checks the figures around the classes: prevented
// lessons are reported, the answers that cited their lesson count for
// precision, every session has its tokens, the timeline adds up and the
// dominant miss is the planted one.
func TestSyntheticReport(t *testing.T) {
	res := syntheticReport(t)
	rep := res.report
	all := rep.Overall
	want := map[string]int{}
	for _, p := range res.corpus.Plants {
		want[p.Class]++
	}
	if all.Classes.Prevented != want["prevented"] {
		t.Errorf("prevented: %d, planted %d", all.Classes.Prevented, want["prevented"])
	}
	if all.Sessions != res.corpus.Sessions {
		t.Errorf("sessions: %d, wrote %d", all.Sessions, res.corpus.Sessions)
	}
	if all.Memory.CitedEntries < 2 || all.Memory.Precision == nil || *all.Memory.Precision <= 0 {
		t.Errorf("the two answers citing their lesson count for nothing: %+v", all.Memory)
	}
	// A project's first sessions, before any memory of it was
	// consolidated, are given the personal rules at most (here nothing).
	if all.Memory.TokensPerSession <= 0 || all.Memory.SessionsInjected < all.Sessions-2*len(rep.Projects) {
		t.Errorf("tokens injected: %+v", all.Memory)
	}
	if rep.DominantMiss != ClassComplianceMiss {
		t.Errorf("dominant miss %q, want compliance_miss (8 planted)", rep.DominantMiss)
	}
	sessions, repeats := 0, 0
	for _, b := range rep.Timeline {
		sessions += b.Sessions
		repeats += b.Repeats
	}
	if sessions != all.Sessions || repeats != all.Repeats {
		t.Errorf("timeline counts %d sessions and %d repeats, the totals %d and %d", sessions, repeats, all.Sessions, all.Repeats)
	}
	var rows []string
	for _, p := range rep.Projects {
		rows = append(rows, fmt.Sprintf("%-13s %2d sessions %d returns %d repeats  %v", p.Name, p.Sessions, p.Returns, p.Repeats, p.Classes))
	}
	t.Logf("\n%s\nall: %d returns, %d repeats, classes %+v, precision %s, junk %s, %.0f tokens/session",
		strings.Join(rows, "\n"), all.Returns, all.Repeats, all.Classes, fmtRatio(all.Memory.Precision), fmtRatio(all.Memory.JunkRate), all.Memory.TokensPerSession)
}

func fmtRatio(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100**p)
}

// realSources are the repository's licensed real sessions and the bundled
// examples.
func realSources(tb testing.TB) []sessions.Source {
	tb.Helper()
	abs := func(p string) string {
		a, err := filepath.Abs(filepath.Join("..", "..", p))
		if err != nil {
			tb.Fatal(err)
		}
		return a
	}
	real, ex := "internal/sessions/testdata/real", "examples/sessions"
	return []sessions.Source{
		{Kind: sessions.KindCodex, Path: abs(real + "/codex/sessions")},
		{Kind: sessions.KindClaudeCode, Path: abs(real + "/claude/projects")},
		{Kind: sessions.KindCodex, Path: abs(real + "/eval/codex/sessions")},
		{Kind: sessions.KindClaudeCode, Path: abs(real + "/eval/claude/projects")},
		{Kind: sessions.KindCodex, Path: abs(ex + "/codex/sessions")},
		{Kind: sessions.KindClaudeCode, Path: abs(ex + "/claude/projects")},
		{Kind: sessions.KindJSONL, Path: abs(ex + "/jsonl")},
	}
}

// TestRealSessions runs the eval on the repository's real sessions: every
// session is read, the invoicer's "always go test -race" comes back in
// the next session, which runs go test -race as the memory it was given
// says, and nothing quoted carries a secret.
func TestRealSessions(t *testing.T) {
	rep, err := Run(context.Background(), Options{Home: userHome(t.TempDir()), Sources: realSources(t), Scratch: scratch(t),
		Redact: redact.Default().String})
	if err != nil {
		t.Fatal(err)
	}
	// The set only grows: 23 sessions when this test was written.
	if rep.Overall.Sessions < 23 {
		t.Errorf("%d sessions read, want at least 23", rep.Overall.Sessions)
	}
	found := false
	for _, r := range rep.Returns {
		if r.Project == "example-org/invoicer" && strings.Contains(r.Lesson.Quote, "go test -race") {
			found = true
			if r.Class != ClassPrevented || !r.Injected {
				t.Errorf("the invoicer's go test -race lesson: %+v", r)
			}
		}
	}
	if !found {
		t.Errorf("the invoicer's go test -race lesson did not come back: %+v", rep.Returns)
	}
	b, _ := json.Marshal(rep)
	if strings.Contains(string(b), "sk_live_") {
		t.Error("the report quotes the Stripe key of the example session")
	}
	t.Logf("%d sessions, %d lessons, %d returns, %d repeats, %.0f tokens injected per session, replayed in %s",
		rep.Overall.Sessions, rep.Overall.Lessons, rep.Overall.Returns, rep.Overall.Repeats, rep.Overall.Memory.TokensPerSession, rep.Elapsed)
}

// BenchmarkRealSessions times the eval of the repository's real sessions
// (docs/quality.md, docs/benchmarks.md: under 10 s).
func BenchmarkRealSessions(b *testing.B) {
	srcs := realSources(b)
	for b.Loop() {
		b.StopTimer()
		dir := scratch(b)
		b.StartTimer()
		if _, err := Run(context.Background(), Options{Home: userHome(dir), Sources: srcs, Scratch: dir, Redact: redact.Default().String}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(dir)
		b.StartTimer()
	}
}
