package heuristic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	// The folder recall runs the memctl binary, built from source by the
	// test; importing the command layer makes go test's cached result
	// depend on everything that binary links, so a change there reruns it.
	_ "github.com/memctl/memctl/cmd"
)

// The folder recall: what a user gets is not one session's raw memory but
// the memory folder memctl builds from all the sessions of a project. For
// each repository of the evaluation set the test builds the memctl binary
// once, copies the repository's session files (with their sub-agent files)
// into a scratch source in the agents' own layout and runs
//
//	memctl run --provider heuristic --mode heuristic --all
//
// into a scratch home, the same code path as a user's first run. Each fact
// of each session is then matched against the files an agent reads from
// the folder (folderFiles): MEMORY.md, memory_summary.md and every
// Markdown file under projects/.

// folderFiles lists, in a fixed order, the files of a memory folder an agent
// reads: the two top files and the project layer.
func folderFiles(memDir string) ([]string, error) {
	files := []string{filepath.Join(memDir, "MEMORY.md"), filepath.Join(memDir, "memory_summary.md")}
	var projects []string
	err := filepath.WalkDir(filepath.Join(memDir, "projects"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			projects = append(projects, p)
		}
		return nil
	})
	sort.Strings(projects)
	return append(files, projects...), err
}

// folderText reads the folder files into one text; a file the
// consolidator did not write is skipped.
func folderText(memDir string) (string, error) {
	files, err := folderFiles(memDir)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		b.Write(data)
		b.WriteString("\n")
	}
	return b.String(), nil
}

// folderRecall builds one memory folder per repository and records, in
// scores, how many facts of each session the folder keeps and whether the
// pipeline made a memory of the session.
func folderRecall(t *testing.T, root string, cases []evalCase, scores []evalScore) {
	t.Helper()
	start := time.Now()
	bin := buildMemctl(t, root)
	t.Logf("folder recall: memctl built in %v", time.Since(start).Round(100*time.Millisecond))
	byRepo := map[string][]int{}
	var repos []string
	for i, c := range cases {
		if _, ok := byRepo[c.ev.Repository]; !ok {
			repos = append(repos, c.ev.Repository)
		}
		byRepo[c.ev.Repository] = append(byRepo[c.ev.Repository], i)
	}
	type built struct {
		text   string
		memory map[string]bool // session file (absolute) → the pipeline made a memory
		err    error
	}
	results := make([]built, len(repos))
	var wg sync.WaitGroup
	work := make(chan int)
	for range 2 { // two folders at a time: the machines that run this have few cores
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				dir := t.TempDir()
				var res built
				res.text, res.memory, res.err = buildFolder(bin, root, dir, cases, byRepo[repos[r]])
				results[r] = res
			}
		}()
	}
	for r := range repos {
		work <- r
	}
	close(work)
	wg.Wait()
	t.Logf("folder recall: %d folders built in %v", len(repos), time.Since(start).Round(100*time.Millisecond))
	dumpDir := os.Getenv("MEMCTL_EVAL_FOLDER") // a development part's folders, written there to read
	for r, repo := range repos {
		res := results[r]
		if res.err != nil {
			t.Fatalf("memory folder of %s: %v", repo, res.err)
		}
		if dumpDir != "" && cases[byRepo[repo][0]].ev.Part == "dev" { // a repository is in one part
			name := strings.NewReplacer("/", "+", " ", "_").Replace(repo) + ".md"
			if err := os.WriteFile(filepath.Join(dumpDir, name), []byte(res.text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, i := range byRepo[repo] {
			c := cases[i]
			sc := &scores[i]
			sc.folderRun = true
			sc.hasMemory = res.memory[sessionPath(root, c.ev.Session)]
			for j, re := range compiled(t, c.file, "fact", c.ev.Facts) {
				if re.MatchString(res.text) {
					sc.folderKept++
					if ruleKind(c.ev.Facts[j].Kind) {
						sc.folderRulesKept++
					}
				} else {
					sc.missedInDir = append(sc.missedInDir, c.ev.Facts[j].ID)
				}
			}
		}
	}
}

// buildMemctl compiles the memctl binary into a scratch folder with the Go
// toolchain that runs the test, without a symbol table (linking is most of
// the time it takes; the test never debugs the binary).
func buildMemctl(t *testing.T, root string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the folder recall needs the go tool to build memctl: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "memctl")
	build := exec.Command(goTool, "build", "-ldflags=-s -w", "-o", bin, ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func sessionPath(root, rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }

// scratchKinds maps a session file to its source kind's root in the
// scratch source: the part of its path after the agent's folder is kept, so
// the readers see the layout the agent writes.
var scratchKinds = []struct {
	marker, kind, dir string
}{
	{"/codex/sessions/", "codex", "codex/sessions/"},
	{"/codex/archived_sessions/", "codex", "codex/archived_sessions/"},
	{"/claude/projects/", "claude-code", "claude/projects/"},
}

// scratchPath says where a session file (relative to the module root) goes
// in the scratch source, and the source kind that reads it.
func scratchPath(rel string) (dest, kind string) {
	for _, k := range scratchKinds {
		if i := strings.Index(rel, k.marker); i >= 0 {
			return k.dir + rel[i+len(k.marker):], k.kind
		}
	}
	return "jsonl/" + filepath.Base(rel), "jsonl"
}

// buildFolder copies the sessions of one repository into dir/src, runs the
// pipeline into dir/home and returns the folder text and which sessions
// became a memory.
func buildFolder(bin, root, dir string, cases []evalCase, idx []int) (string, map[string]bool, error) {
	src, home := filepath.Join(dir, "src"), filepath.Join(dir, "home")
	kinds := map[string]bool{}
	scratchOf := map[string]string{} // scratch file → session file
	for _, i := range idx {
		ev := cases[i].ev
		files := append([]string{ev.Session}, ev.SubAgents...)
		for n, rel := range files {
			dest, kind := scratchPath(rel)
			from := sessionPath(root, rel)
			to := filepath.Join(src, filepath.FromSlash(dest))
			if err := copyFile(from, to); err != nil {
				return "", nil, err
			}
			if n > 0 {
				continue
			}
			kinds[kind] = true
			scratchOf[to] = from
			if kind != "claude-code" {
				continue
			}
			// A Claude Code session's sub-agents live in a folder named
			// after it; discovery attaches them from there.
			if err := copyTree(strings.TrimSuffix(from, ".jsonl"), strings.TrimSuffix(to, ".jsonl")); err != nil {
				return "", nil, err
			}
		}
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return "", nil, err
	}
	cfg := filepath.Join(home, "config.toml")
	if err := os.WriteFile(cfg, []byte(scratchConfig(src, kinds)), 0o644); err != nil {
		return "", nil, err
	}
	if _, err := runMemctl(bin, dir, "--home", home, "--config", cfg, "run", "--all", "--max", "128",
		"--provider", "heuristic", "--mode", "heuristic", "--quiet"); err != nil {
		return "", nil, err
	}
	out, err := runMemctl(bin, dir, "--home", home, "--config", cfg, "threads", "list", "--json")
	if err != nil {
		return "", nil, err
	}
	var threads []struct {
		Path      string `json:"path"`
		HasMemory bool   `json:"has_memory"`
	}
	if err := json.Unmarshal(out, &threads); err != nil {
		return "", nil, fmt.Errorf("threads list --json: %w", err)
	}
	memory := map[string]bool{}
	for _, th := range threads {
		if from, ok := scratchOf[th.Path]; ok {
			memory[from] = th.HasMemory
		}
	}
	text, err := folderText(filepath.Join(home, "memories"))
	return text, memory, err
}

// scratchConfig names the scratch sources and lifts the limits that are
// for a daily run: every session is extracted, every raw memory selected.
func scratchConfig(src string, kinds map[string]bool) string {
	var b strings.Builder
	b.WriteString("[memories]\nmax_rollouts_per_startup = 128\nmax_unused_days = 365\nmax_raw_memories_for_consolidation = 4096\n")
	for _, k := range []struct{ kind, path string }{
		{"codex", "codex"}, {"claude-code", "claude/projects"}, {"jsonl", "jsonl"},
	} {
		if kinds[k.kind] {
			fmt.Fprintf(&b, "\n[[sources]]\nkind = %q\npath = %q\n", k.kind, filepath.Join(src, filepath.FromSlash(k.path)))
		}
	}
	return b.String()
}

// runMemctl runs the binary with an environment of its own: the scratch
// folder as the home, no provider keys, no MEMCTL_ settings from the
// caller's shell.
func runMemctl(bin, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "NO_COLOR=1", "TZ=UTC"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("memctl %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes(), nil
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

// copyTree copies a folder when it exists.
func copyTree(from, to string) error {
	if st, err := os.Stat(from); err != nil || !st.IsDir() {
		return nil
	}
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		return copyFile(p, filepath.Join(to, rel))
	})
}

// TestFolderFilesOrder pins the files the folder recall reads: the two top
// files, then the project layer's Markdown files in name order, and
// nothing else of the folder (raw memories and rollout summaries are the
// extractor's output, scored per session already).
func TestFolderFilesOrder(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"MEMORY.md", "memory_summary.md", "raw_memories.md", "rollout_summaries/a.md",
		"projects/b/summary.md", "projects/a.md", "projects/index.json"} {
		if err := copyFileFromText(filepath.Join(dir, f), f); err != nil {
			t.Fatal(err)
		}
	}
	got, err := folderFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, f := range got {
		r, _ := filepath.Rel(dir, f)
		rel = append(rel, filepath.ToSlash(r))
	}
	want := []string{"MEMORY.md", "memory_summary.md", "projects/a.md", "projects/b/summary.md"}
	if strings.Join(rel, " ") != strings.Join(want, " ") {
		t.Errorf("folder files %v, want %v", rel, want)
	}
	text, err := folderText(dir)
	if err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`raw_memories|rollout_summaries|index\.json`).MatchString(text) {
		t.Errorf("folder text reads files an agent is not given: %q", text)
	}
}

func copyFileFromText(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text+"\n"), 0o644)
}
