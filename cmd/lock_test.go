package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// slowAgent is a consolidation agent that takes a while and then writes
// valid artifacts into its working directory (the memory folder).
const slowAgent = `#!/bin/sh
cat >/dev/null
sleep 3
printf '# Task Group: parser\n\nscope: parser fixes\n' > MEMORY.md.tmp && mv MEMORY.md.tmp MEMORY.md
printf 'v1\n\n## User Profile\n\nWorks on a parser.\n\n## User preferences\n\n- none\n\n## General Tips\n\n- run go test\n\n## What'"'"'s in Memory\n\n- parser\n' > memory_summary.md.tmp && mv memory_summary.md.tmp memory_summary.md
`

// TestConsolidateLockAcrossProcesses starts two consolidations at once on
// one home: exactly one runs the agent, the other reports skipped_running.
func TestConsolidateLockAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	src := filepath.Join(dir, "transcripts")
	writeJSONLThreads(t, src, 3, time.Now().Add(-24*time.Hour))
	agent := filepath.Join(dir, "agent.sh")
	os.WriteFile(agent, []byte(slowAgent), 0o700)
	cfgPath := filepath.Join(dir, "config.toml")
	os.WriteFile(cfgPath, []byte(fmt.Sprintf(`[provider]
kind = "heuristic"
[consolidation]
mode = "agent"
agent_command = [%q]
[[sources]]
kind = "jsonl"
path = %q
`, agent, src)), 0o600)
	env := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath}
	if b, err := memctlProcess(env, "extract", "--max", "10").CombinedOutput(); err != nil {
		t.Fatalf("extract: %v\n%s", err, b)
	}

	statuses := make([]string, 2)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := memctlProcess(env, "consolidate", "--json")
			var out, errb bytes.Buffer
			c.Stdout, c.Stderr = &out, &errb
			if err := c.Run(); err != nil {
				t.Errorf("consolidate %d: %v\n%s", i, err, errb.String())
				return
			}
			var res struct{ Status string }
			json.Unmarshal(out.Bytes(), &res)
			statuses[i] = res.Status
		}()
	}
	wg.Wait()
	got := map[string]int{}
	for _, s := range statuses {
		got[s]++
	}
	if got["succeeded"] != 1 || got["skipped_running"] != 1 {
		t.Fatalf("statuses = %v, want one succeeded and one skipped_running", statuses)
	}
	b, err := os.ReadFile(filepath.Join(home, "memories", "memory_summary.md"))
	if err != nil || !bytes.HasPrefix(b, []byte("v1\n")) {
		t.Errorf("summary after the run: %q %v", b, err)
	}
}
