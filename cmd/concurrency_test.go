package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeJSONLThreads writes n small transcripts in memctl's JSONL format,
// idle since updated.
func writeJSONLThreads(t *testing.T, dir string, n int, updated time.Time) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		ts := updated.Add(time.Duration(i) * time.Second).UTC().Format(time.RFC3339)
		lines := []string{
			fmt.Sprintf(`{"type":"session","id":%q,"cwd":"/src/project-%d","source":"cli","timestamp":%q}`, id, i%3, ts),
			fmt.Sprintf(`{"type":"message","role":"user","text":"fix the flaky test number %d in the parser","timestamp":%q}`, i, ts),
			fmt.Sprintf(`{"type":"tool_call","id":"c1","name":"shell","command":"go test ./parser","timestamp":%q}`, ts),
			fmt.Sprintf(`{"type":"tool_result","id":"c1","output":"ok parser 0.1s","exit_code":0,"timestamp":%q}`, ts),
			fmt.Sprintf(`{"type":"message","role":"assistant","text":"The parser test %d passes now.","final":true,"timestamp":%q}`, i, ts),
		}
		p := filepath.Join(dir, id+".jsonl")
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// memctlProcess runs this test binary as memctl.
func memctlProcess(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	// GORACE atexit_sleep_ms=0: under -race every process would otherwise
	// sleep a second at exit.
	cmd.Env = append(append(os.Environ(), "MEMCTL_TEST_AS_CLI=1", "NO_COLOR=1", "GORACE=atexit_sleep_ms=0"), env...)
	return cmd
}

// slowProviderScript answers every extraction after a short pause, so the
// four processes really overlap.
const slowProviderScript = `#!/bin/sh
cat >/dev/null
sleep 0.05
printf '{"raw_memory":"---\\ndescription: parser fix\\n---\\n### Task 1\\ntask: fix the parser test","rollout_summary":"# Parser test fixed","rollout_slug":"parser-fix"}'
`

func TestFourExtractProcessesExtractEachThreadOnce(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	src := filepath.Join(dir, "transcripts")
	writeJSONLThreads(t, src, 24, time.Now().Add(-24*time.Hour))
	provider := filepath.Join(dir, "provider.sh")
	if err := os.WriteFile(provider, []byte(slowProviderScript), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("[provider]\nkind = \"command\"\ncommand = [%q]\n[memories]\nmax_rollouts_per_startup = 24\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", provider, src)
	cfgPath := filepath.Join(dir, "config.toml")
	os.WriteFile(cfgPath, []byte(cfg), 0o600)
	env := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath}

	type out struct {
		stdout, stderr bytes.Buffer
		err            error
	}
	outs := make([]*out, 4)
	var wg sync.WaitGroup
	for i := range outs {
		outs[i] = &out{}
		c := memctlProcess(env, "extract", "--json", "--concurrency", "4")
		c.Stdout, c.Stderr = &outs[i].stdout, &outs[i].stderr
		wg.Add(1)
		go func(o *out) {
			defer wg.Done()
			o.err = c.Run()
		}(outs[i])
	}
	wg.Wait()
	seen := map[string]int{}
	for i, o := range outs {
		if o.err != nil {
			t.Fatalf("process %d: %v\n%s", i, o.err, o.stderr.String())
		}
		if strings.Contains(strings.ToLower(o.stderr.String()), "locked") || strings.Contains(strings.ToLower(o.stderr.String()), "busy") {
			t.Errorf("process %d reported lock contention:\n%s", i, o.stderr.String())
		}
		var res struct {
			Failed int `json:"failed"`
			Jobs   []struct {
				ThreadID string `json:"thread_id"`
				Status   string `json:"status"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal(o.stdout.Bytes(), &res); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, o.stdout.String())
		}
		if res.Failed != 0 {
			t.Errorf("process %d: %d failed jobs", i, res.Failed)
		}
		for _, j := range res.Jobs {
			seen[j.ThreadID]++
		}
	}
	if len(seen) != 24 {
		t.Errorf("%d distinct threads extracted, want 24", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("thread %s extracted %d times", id, n)
		}
	}
	// And nothing is left: a fifth run claims nothing.
	c := memctlProcess(env, "extract", "--json")
	b, err := c.Output()
	if err != nil || !strings.Contains(string(b), `"claimed": 0`) {
		t.Errorf("a later run claimed work: %v\n%s", err, b)
	}
}

func TestConcurrentCitesCountEveryUse(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	src := filepath.Join(dir, "transcripts")
	writeJSONLThreads(t, src, 1, time.Now().Add(-24*time.Hour))
	cfgPath := filepath.Join(dir, "config.toml")
	os.WriteFile(cfgPath, []byte(fmt.Sprintf("[provider]\nkind = \"heuristic\"\n[[sources]]\nkind = \"jsonl\"\npath = %q\n", src)), 0o600)
	env := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath}
	if b, err := memctlProcess(env, "extract").CombinedOutput(); err != nil {
		t.Fatalf("extract: %v\n%s", err, b)
	}
	const id = "00000000-0000-4000-8000-000000000000"
	reply := "Answer.\n<oai-mem-citation>\n<rollout_ids>\n" + id + "\n</rollout_ids>\n</oai-mem-citation>\n"
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for p := 0; p < 4; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				c := memctlProcess(env, "cite")
				c.Stdin = strings.NewReader(reply)
				if b, err := c.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("cite: %v\n%s", err, b)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	b, err := memctlProcess(env, "threads", "show", id, "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var show struct {
		Memory struct {
			UsageCount int `json:"usage_count"`
		} `json:"memory"`
	}
	json.Unmarshal(b, &show)
	if show.Memory.UsageCount != 200 {
		t.Errorf("usage_count = %d after 4×50 cites, want 200", show.Memory.UsageCount)
	}
}
