package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/evidence"
	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/store"
)

// Shape of the stale-check benchmark home: 10,000 raw memories over 40
// projects of 50 files each, every memory resting on two files and a make
// target, consolidated with the largest selection memctl allows (4,096),
// so the evidence index holds 4,096 memories and 12,288 pieces of evidence.
const (
	staleBenchMemories = 10000
	staleBenchProjects = 40
	staleBenchFiles    = 50
	staleBenchSelect   = 4096
)

// buildStaleHome fills dir with projects (git checkouts with source files
// and a Makefile), a home whose store holds staleBenchMemories raw
// memories with their evidence as extraction records it, and a memory
// folder consolidated by the real command; then a tenth of the files are
// edited, a thirtieth rewritten and a fiftieth deleted, so the checks have
// every kind of work to do. A finished home is reused (scripts/bench.sh
// keeps it in MEMCTL_BENCH_STALE_HOME).
func buildStaleHome(tb testing.TB, dir string) (home string, projects []string) {
	tb.Helper()
	home = filepath.Join(dir, "home")
	for p := 0; p < staleBenchProjects; p++ {
		projects = append(projects, filepath.Join(dir, "src", fmt.Sprintf("service-%02d", p)))
	}
	done := filepath.Join(dir, "ready")
	if _, err := os.Stat(done); err == nil {
		return home, projects
	}
	ctx := context.Background()
	for _, root := range projects {
		write := func(rel, s string) {
			p := filepath.Join(root, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				tb.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
		write(".git/HEAD", "ref: refs/heads/main\n")
		write(".git/refs/heads/main", "0123456789abcdef0123456789abcdef01234567\n")
		write("Makefile", "test:\n\tgo test ./...\nlint:\n\tgo vet ./...\nbuild:\n\tgo build ./...\n")
		for f := 0; f < staleBenchFiles; f++ {
			var b strings.Builder
			fmt.Fprintf(&b, "package svc\n\n// file %d of %s\n", f, filepath.Base(root))
			for l := 0; l < 200; l++ {
				fmt.Fprintf(&b, "func f%d_%d() int { return %d }\n", f, l, l*f)
			}
			write(fmt.Sprintf("internal/pkg%d/file%d.go", f%5, f), b.String())
		}
	}
	st, err := store.Open(ctx, filepath.Join(home, store.FileName("v1")))
	if err != nil {
		tb.Fatal(err)
	}
	base := time.Now().Add(-48 * time.Hour)
	targets := []string{"test", "lint", "build"}
	for i := 0; i < staleBenchMemories; i++ {
		root := projects[i%staleBenchProjects]
		f1, f2 := i%staleBenchFiles, (i*7+3)%staleBenchFiles
		a := fmt.Sprintf("internal/pkg%d/file%d.go", f1%5, f1)
		c := fmt.Sprintf("internal/pkg%d/file%d.go", f2%5, f2)
		target := targets[i%3]
		raw := fmt.Sprintf("---\ndescription: change %d in %s\ntask: change %d\ntask_group: svc\ntask_outcome: success\ncwd: %s\n"+
			"keywords: go, make\nwritten_by: memctl heuristic\n---\n\n### Task 1: change %d\ntask: change %d\ntask_group: svc\ntask_outcome: success\n\n"+
			"Preference signals:\n- none\n\nReusable knowledge:\n- Check: `make %s` passed after the changes to %s.\n- Finding: the agent said “the helper lives in %s:10-14”\n\n"+
			"Failures and how to do differently:\n- none\n\nReferences:\n- %s (update)\n",
			i, filepath.Base(root), i, root, i, i, target, a, c, a)
		id := fmt.Sprintf("0199b000-0000-7000-8000-%012d", i)
		at := base.Add(time.Duration(i) * time.Second)
		if _, err := st.UpsertThread(ctx, store.Thread{ID: id, SourceKind: "jsonl", Path: "/t/" + id + ".jsonl", Source: "cli",
			Interactive: true, Cwd: root, Preview: "change", CreatedAt: at, UpdatedAt: at}, store.UpsertPolicy{GenerateMemories: true}); err != nil {
			tb.Fatal(err)
		}
		_, tok, err := st.TryClaimStage1(ctx, id, "bench", at.Unix(), staleBenchMemories)
		if err != nil {
			tb.Fatal(err)
		}
		r := store.Stage1Result{RawMemory: raw, RolloutSummary: "# change " + fmt.Sprint(i), Commit: evidence.HeadCommit(root)}
		for _, it := range evidence.Capture(root, evidence.Refs(raw), evidence.CaptureOptions{}) {
			r.Evidence = append(r.Evidence, store.EvidenceItem{Kind: it.Kind, RefPath: it.Path, LineStart: it.LineStart, LineEnd: it.LineEnd,
				Runner: it.Runner, Target: it.Target, AbsPath: it.Abs, Size: it.Size, MtimeNs: it.ModTimeNs, Hash: it.Hash,
				Sketch: it.Sketch, RangeHash: it.RangeHash})
		}
		if ok, err := st.MarkStage1Done(ctx, id, tok, at.Unix(), r); err != nil || !ok {
			tb.Fatalf("store %s: %v %v", id, ok, err)
		}
	}
	st.Close()
	env := map[string]string{"MEMCTL_HOME": home, "MEMCTL_PROVIDER_KIND": "heuristic",
		"MEMCTL_MEMORIES_MAX_RAW_MEMORIES_FOR_CONSOLIDATION": fmt.Sprint(staleBenchSelect), "MEMCTL_MEMORIES_MAX_UNUSED_DAYS": "365"}
	ios := &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
	if code := run([]string{"consolidate"}, ios, time.Now, func(k string) string { return env[k] }); code != 0 {
		tb.Fatalf("consolidate: exit %d", code)
	}
	// The code moves on: edits, rewrites, deletions.
	later := time.Now().Add(time.Hour)
	for p, root := range projects {
		for f := 0; f < staleBenchFiles; f++ {
			path := filepath.Join(root, fmt.Sprintf("internal/pkg%d/file%d.go", f%5, f))
			switch n := p*staleBenchFiles + f; {
			case n%50 == 0:
				os.Remove(path)
			case n%30 == 0:
				os.WriteFile(path, []byte(strings.Repeat("// rewritten\nfunc g() {}\n", 150)), 0o644)
				os.Chtimes(path, later, later)
			case n%10 == 0:
				b, _ := os.ReadFile(path)
				os.WriteFile(path, append(b, "func added() {}\n"...), 0o644)
				os.Chtimes(path, later, later)
			}
		}
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		tb.Fatal(err)
	}
	return home, projects
}

// BenchmarkSummaryStale10k times `memctl summary` in process on that home,
// with the stale checks on and off: the global summary (--all-projects:
// every memory of the index is checked) and one project's (a hook run in a
// clone: only its memories are). It reports the evidence checked and left
// unchecked per call. With MEMCTL_BENCH_STALE_HOME set, the home is built
// (or reused) there for hyperfine (scripts/bench.sh).
func BenchmarkSummaryStale10k(b *testing.B) {
	dir := os.Getenv("MEMCTL_BENCH_STALE_HOME")
	if dir == "" {
		dir = b.TempDir()
	}
	home, projects := buildStaleHome(b, dir)
	root := memdir.Root(home, "v1")
	for _, tc := range []struct {
		name  string
		args  []string
		scope string
	}{
		{"all-projects", []string{"summary", "--all-projects"}, ""},
		{"project", []string{"summary", "--project", projects[0]}, scopeOfProject(b, root, projects[0])},
	} {
		for _, on := range []bool{false, true} {
			name := tc.name + "/checks-off"
			if on {
				name = tc.name + "/checks-on"
			}
			b.Run(name, func(b *testing.B) {
				env := map[string]string{"MEMCTL_HOME": home, "MEMCTL_HEALTH_STALE_CHECKS": fmt.Sprint(on)}
				getenv := func(k string) string { return env[k] }
				var out strings.Builder
				for b.Loop() {
					out.Reset()
					ios := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: io.Discard}
					if code := run(tc.args, ios, time.Now, getenv); code != 0 {
						b.Fatalf("exit %d", code)
					}
				}
				if on && !strings.Contains(out.String(), "## Stale memory") {
					b.Fatalf("no stale memory flagged:\n%s", out.String())
				}
				if on {
					c := &evidence.Checker{Deadline: time.Now().Add(evidence.DefaultBudget)}
					scan, err := evidence.CheckIndex(filepath.Join(root, memdir.EvidenceIndexFile), tc.scope, c)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(scan.Checked), "checked/op")
					b.ReportMetric(float64(scan.Unchecked), "unchecked/op")
					b.ReportMetric(float64(len(scan.Stale)), "stale/op")
				}
			})
		}
	}
}

// scopeOfProject is the key the index files a project's memories under.
func scopeOfProject(tb testing.TB, root, project string) string {
	recs, err := evidence.ReadIndex(filepath.Join(root, memdir.EvidenceIndexFile))
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range recs {
		if r.Cwd == project {
			return r.Scope
		}
	}
	tb.Fatalf("no memory of %s in the index", project)
	return ""
}
