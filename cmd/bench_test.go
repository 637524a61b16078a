package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/inject"
	"github.com/memctl/memctl/internal/redact"
)

// benchSummary is a v1 memory_summary.md of about 10 KB: the shape
// consolidation writes, with many project sections in the index.
func benchSummary() string {
	var b strings.Builder
	b.WriteString("v1\n\n## User Profile\n\nThe user works on Go services and their CI: SQLite stores, Docker images, GitHub Actions.\n\n")
	b.WriteString("## User preferences\n\n- no cgo, ever: use modernc.org/sqlite\n- keep CI changes minimal and explain each line\n- fix root causes instead of adding retries\n\n")
	b.WriteString("## General Tips\n\n- busy_timeout must go in the DSN because database/sql pools connections\n- copy go.mod and go.sum before the sources so dependency layers stay cached\n\n")
	b.WriteString("## What's in Memory\n")
	for i := 1; b.Len() < 10_000; i++ {
		fmt.Fprintf(&b, "\n### /home/dev/src/service-%d\n\n#### 2026-07-%02d\n\n- build-cache-%d: docker, buildkit, go modules, cache mounts\n"+
			"  - desc: cut the image build from 4 minutes to 50 seconds with cache mounts and a go.mod-first copy\n"+
			"  - learnings: dependency layers survive code edits when go.mod is copied first\n", i, i%28+1, i)
	}
	return b.String()
}

// BenchmarkSummaryInProcess runs `memctl summary` inside the test process
// on a home with a 10 KB summary: the command's own work (config, read,
// cut, redact, print) without process start and package init, which
// hyperfine measures in scripts/bench.sh. The sub-benchmarks split it.
func BenchmarkSummaryInProcess(b *testing.B) {
	home := b.TempDir()
	root := filepath.Join(home, "memories")
	if err := os.MkdirAll(root, 0o700); err != nil {
		b.Fatal(err)
	}
	text := benchSummary()
	if err := os.WriteFile(filepath.Join(root, "memory_summary.md"), []byte(text), 0o600); err != nil {
		b.Fatal(err)
	}
	env := map[string]string{"MEMCTL_HOME": home}
	getenv := func(k string) string { return env[k] }

	b.Run("command", func(b *testing.B) {
		var out strings.Builder
		for b.Loop() {
			out.Reset()
			ios := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: io.Discard}
			if code := run([]string{"summary"}, ios, time.Now, getenv); code != 0 {
				b.Fatalf("exit %d", code)
			}
		}
		if out.Len() < len(text)/2 {
			b.Fatalf("summary printed %d bytes", out.Len())
		}
	})
	b.Run("inject", func(b *testing.B) {
		for b.Loop() {
			res, err := inject.Summary(root, "v1", inject.DefaultSummaryTokens, false, "")
			if err != nil || !res.Injected {
				b.Fatal(res, err)
			}
		}
	})
	b.Run("redact", func(b *testing.B) {
		res, err := inject.Summary(root, "v1", inject.DefaultSummaryTokens, false, "")
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(res.Text)))
		for b.Loop() {
			r, err := redact.New(nil)
			if err != nil {
				b.Fatal(err)
			}
			_ = r.String(res.Text)
		}
	})
}

// BenchmarkThreadsInputLarge runs `memctl threads input` in process on the
// home named by MEMCTL_BENCH_INPUT_HOME (scripts/bench.sh builds one around
// a 150 MB Codex rollout; the thread is MEMCTL_BENCH_INPUT_THREAD), so the
// CLI path can be profiled with -cpuprofile. Without them it is skipped.
func BenchmarkThreadsInputLarge(b *testing.B) {
	home, thread := os.Getenv("MEMCTL_BENCH_INPUT_HOME"), os.Getenv("MEMCTL_BENCH_INPUT_THREAD")
	if home == "" || thread == "" {
		b.Skip("set MEMCTL_BENCH_INPUT_HOME and MEMCTL_BENCH_INPUT_THREAD (see scripts/bench.sh)")
	}
	getenv := func(k string) string {
		if k == "MEMCTL_HOME" {
			return home
		}
		return ""
	}
	for b.Loop() {
		ios := &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
		if code := run([]string{"threads", "input", thread}, ios, time.Now, getenv); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkSummaryTeamLayer runs `memctl summary` in process in a git
// repository, without a team folder and with 20 team files of about 600
// bytes, all checked again (redaction, quarantine) on every call as the
// read path does (docs/team.md).
func BenchmarkSummaryTeamLayer(b *testing.B) {
	dir := b.TempDir()
	home, repo := filepath.Join(dir, "home"), filepath.Join(dir, "repo")
	root := filepath.Join(home, "memories")
	if err := os.MkdirAll(root, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "memory_summary.md"), []byte(benchSummary()), 0o600); err != nil {
		b.Fatal(err)
	}
	// A repository as memctl finds one: a .git folder with a config.
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), []byte("[remote \"origin\"]\n\turl = git@github.com:acme/app.git\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	env := map[string]string{"MEMCTL_HOME": home}
	getenv := func(k string) string { return env[k] }
	summary := func(b *testing.B, want string) {
		var out strings.Builder
		for b.Loop() {
			out.Reset()
			ios := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: io.Discard}
			if code := run([]string{"summary", "--project", repo}, ios, time.Now, getenv); code != 0 {
				b.Fatalf("exit %d", code)
			}
		}
		if !strings.Contains(out.String(), want) {
			b.Fatalf("summary lacks %q", want)
		}
	}
	b.Run("no-team-folder", func(b *testing.B) { summary(b, "service-1") })
	team := filepath.Join(repo, ".memctl")
	if err := os.MkdirAll(team, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		body := fmt.Sprintf("---\nmemctl_team: 1\nid: 0199a1b2-%04d\nauthor: Ada <ada@example.com>\nsource_session: 0199a1b2-%04d (codex, 2026-06-01)\n"+
			"project: git:github.com/acme/app\ndate: 2026-06-02\n---\n\n# Lesson %d\n\n%s\n", i, i, i,
			strings.Repeat("Run make itest before merging; the fixtures are rebuilt by make fixtures after a schema change. ", 4))
		if err := os.WriteFile(filepath.Join(team, fmt.Sprintf("lesson-%02d.md", i)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("20-team-files", func(b *testing.B) { summary(b, "## Team memory") })
}
