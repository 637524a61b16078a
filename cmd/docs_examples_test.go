package cmd

// Tests that run what the hand-written docs tell a user to run, taken
// from the pages themselves, so a page cannot drift from the code.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/store"
)

// docBlock returns the fenced code block that follows the line marker in a
// page of docs/.
func docBlock(t *testing.T, page, marker string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", page))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, marker+"\n")
	if i < 0 {
		t.Fatalf("docs/%s has no %q", page, marker)
	}
	rest := text[i+len(marker)+1:]
	m := regexp.MustCompile("(?s)^```[a-z]*\n(.*?)\n```\n").FindStringSubmatch(rest)
	if m == nil {
		t.Fatalf("docs/%s: no code block right after %q", page, marker)
	}
	return m[1] + "\n"
}

// provider.kind = "command" had no documented protocol in the
// repository. docs/providers.md documents it with an example program and
// config; this runs them as written (the page's /home/you is a temporary
// folder) and checks each promise the page makes about the request.
func TestCommandProviderAsDocumented(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "bin", "memctl-provider")
	writeFile(t, script, docBlock(t, "providers.md", "<!-- example: provider script -->"))
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "transcripts")
	writeJSONLThreads(t, src, 2, time.Now().Add(-24*time.Hour))
	cfg := strings.ReplaceAll(docBlock(t, "providers.md", "<!-- example: provider config -->"), "/home/you", dir) +
		fmt.Sprintf("\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", src)
	cfgPath := filepath.Join(dir, "config.toml")
	writeFile(t, cfgPath, cfg)
	requests := filepath.Join(dir, "requests")
	home := filepath.Join(dir, "home")
	env := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath, "MEMCTL_EXAMPLE_REQUESTS=" + requests}

	out, err := memctlProcess(env, "extract", "--all").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "extracted 2 threads: 2 with a memory, 0 with nothing worth keeping, 0 failed") {
		t.Fatalf("extract with the documented provider: %v\n%s", err, out)
	}
	out, err = memctlProcess(env, "consolidate").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "v1: consolidation succeeded (2 raw memories)") {
		t.Fatalf("consolidate with the documented config: %v\n%s", err, out)
	}

	st, err := store.Open(context.Background(), filepath.Join(home, "memories_1.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	o, err := st.Output(context.Background(), "00000000-0000-4000-8000-000000000000")
	if err != nil || !strings.Contains(o.RawMemory, "task: show the command provider protocol") || o.RolloutSlug == nil || *o.RolloutSlug != "command-provider" {
		t.Fatalf("stored output %+v, %v: not the example's answer", o, err)
	}

	// The request, as the page describes it: one compact line, these
	// fields in this order, the schema as an object.
	files, _ := filepath.Glob(filepath.Join(requests, "request-*.json"))
	if len(files) != 2 {
		t.Fatalf("%d requests kept, want 2", len(files))
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(strings.TrimSpace(string(b)), "\n") != 0 {
		t.Error("the request is not on one line")
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("request is not an object: %v", err)
	}
	var keys []string
	var req struct {
		Kind            string         `json:"kind"`
		ReasoningEffort string         `json:"reasoning_effort"`
		System          string         `json:"system"`
		Input           string         `json:"input"`
		Schema          map[string]any `json:"schema"`
	}
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(keys, ","); got != "kind,model,reasoning_effort,system,input,schema" {
		t.Errorf("request fields %s", got)
	}
	if err := json.Unmarshal(b, &req); err != nil {
		t.Fatal(err)
	}
	if req.Kind != "extract" || req.ReasoningEffort != "low" || req.System == "" || !strings.Contains(req.Input, "fix the flaky test number") ||
		req.Schema["type"] != "object" {
		t.Errorf("request: kind %q, reasoning_effort %q, system %d bytes, schema %v", req.Kind, req.ReasoningEffort, len(req.System), req.Schema)
	}
}

// The cron, systemd and launchd recipes disagreed on where the
// binary is, and cron's PATH (/usr/bin:/bin) would not find one in
// ~/go/bin. Each recipe's command is run here as its scheduler would run
// it: no environment but what the scheduler sets, on a fresh home whose
// memctl is at the path `go install .` uses (the README's install story).
func TestSchedulingRecipes(t *testing.T) {
	home := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// ~/go/bin/memctl: this test binary, acting as memctl.
	bin := filepath.Join(home, "go", "bin", "memctl")
	writeFile(t, bin, fmt.Sprintf("#!/bin/sh\nMEMCTL_TEST_AS_CLI=1 exec %q \"$@\"\n", self))
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// Only what a scheduler provides; the recipes' own words do the rest.
	schedEnv := func(path string) []string {
		return []string{"HOME=" + home, "LOGNAME=memctl-test", "SHELL=/bin/sh", "PATH=" + path, "NO_COLOR=1", "GORACE=atexit_sleep_ms=0"}
	}
	run := func(name string, env []string, argv ...string) string {
		t.Helper()
		c := exec.Command(argv[0], argv[1:]...)
		c.Env, c.Dir = env, home
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		return string(out)
	}
	// The README's first step creates ~/.memctl, where the cron log goes.
	run("config init", schedEnv("/usr/bin:/bin"), bin, "config", "init")

	page := filepath.Join("..", "docs", "scheduling.md")
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)

	t.Run("cron", func(t *testing.T) {
		block := regexp.MustCompile("(?s)```cron\n(.*?)```").FindStringSubmatch(text)
		if block == nil {
			t.Fatal("no cron block")
		}
		var line string
		for _, l := range strings.Split(block[1], "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				line = l
			}
		}
		command := regexp.MustCompile(`^(\S+\s+){5}`).ReplaceAllString(line, "")
		out := run("the cron line", schedEnv("/usr/bin:/bin"), "/bin/sh", "-c", command)
		if out != "" {
			t.Errorf("the cron line printed %q (cron would mail it)", out)
		}
		if _, err := os.Stat(filepath.Join(home, ".memctl", "run.log")); err != nil {
			t.Errorf("no log: %v", err)
		}
		// The trap the page warns about: a bare `memctl` is not on cron's PATH.
		if _, err := exec.LookPath("/usr/bin/memctl"); err != nil {
			c := exec.Command("/bin/sh", "-c", "memctl run --quiet")
			c.Env = schedEnv("/usr/bin:/bin")
			if err := c.Run(); err == nil {
				t.Error("a bare memctl ran under cron's PATH; the test does not reproduce cron")
			}
		}
	})

	t.Run("systemd", func(t *testing.T) {
		m := regexp.MustCompile(`(?m)^ExecStart=(.*)$`).FindStringSubmatch(text)
		if m == nil {
			t.Fatal("no ExecStart")
		}
		argv := strings.Fields(strings.ReplaceAll(m[1], "%h", home))
		if argv[0] != bin {
			t.Errorf("ExecStart runs %s, want %s (where go install puts it)", argv[0], bin)
		}
		// systemd's user manager has a PATH of its own, without ~/go/bin.
		run("ExecStart", schedEnv("/usr/local/bin:/usr/bin:/bin"), argv...)
	})

	t.Run("launchd", func(t *testing.T) {
		block := regexp.MustCompile(`(?s)<key>ProgramArguments</key>\s*<array>(.*?)</array>`).FindStringSubmatch(text)
		if block == nil {
			t.Fatal("no ProgramArguments")
		}
		var argv []string
		for _, m := range regexp.MustCompile(`<string>(.*?)</string>`).FindAllStringSubmatch(block[1], -1) {
			argv = append(argv, strings.ReplaceAll(m[1], "/Users/you", home))
		}
		if argv[0] != bin {
			t.Errorf("ProgramArguments runs %s, want %s (where go install puts it)", argv[0], bin)
		}
		if !filepath.IsAbs(argv[0]) {
			t.Fatalf("launchd needs an absolute path, got %s", argv[0])
		}
		run("ProgramArguments", schedEnv("/usr/bin:/bin"), argv...)
	})
}

// The README offered only `go install …@latest` (the module is
// not published) and said nothing of the long first build. It installs
// from a clone with `go install . ./cmd/memctl-summary` (memctl and the
// summary program its hooks run; the release builds both), into the folder
// the scheduling recipes name (TestSchedulingRecipes runs them from there),
// with the measured first-build time.
func TestReadmeInstallStory(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	m := regexp.MustCompile("(?s)## Install\n.*?```sh\n(.*?)```").FindStringSubmatch(text)
	if m == nil {
		t.Fatal("README.md has no Install section with a sh block")
	}
	if lines := strings.Split(strings.TrimSpace(m[1]), "\n"); lines[len(lines)-1] != "go install . ./cmd/memctl-summary" || !strings.HasPrefix(lines[0], "git clone ") {
		t.Errorf("install block:\n%s\nwant a clone, then go install . ./cmd/memctl-summary (both programs: setup's hook runs memctl-summary)", m[1])
	}
	rel, err := os.ReadFile(filepath.Join("..", ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, main := range []string{"main: .\n", "main: ./cmd/memctl-summary\n"} {
		if !strings.Contains(string(rel), main) {
			t.Errorf(".goreleaser.yaml builds no %q: a release archive must hold both programs", strings.TrimSpace(main))
		}
	}
	if strings.Contains(text, "@latest") {
		t.Error("README.md still offers go install …@latest")
	}
	for _, want := range []string{"`~/go/bin`", "docs/scheduling.md", ".goreleaser.yaml", "checksums.txt"} {
		if !strings.Contains(text, want) {
			t.Errorf("README.md's install story does not mention %s", want)
		}
	}
	if regexp.MustCompile(`FIRST_BUILD_FIGURE`).MatchString(text) || !regexp.MustCompile(`about \d+ (min|s)`).MatchString(text) {
		t.Error("README.md does not give the measured first-build time")
	}
}

// The README is where a newcomer learns what memctl can do: it named
// neither setup nor doctor, memories, history, review or rollback, so a
// reader never learnt that the agents can be wired in or a consolidation
// undone. Every command in `memctl --help` is named there.
func TestReadmeNamesEveryCommand(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, c := range NewRootForDocs().Commands() {
		if c.Hidden || !c.IsAvailableCommand() || c.Name() == "help" {
			continue
		}
		if !regexp.MustCompile("`(memctl )?(help )?" + regexp.QuoteMeta(c.Name()) + "[ `]").MatchString(text) {
			t.Errorf("README.md does not name `%s` (%s)", c.Name(), c.Short)
		}
	}
}
