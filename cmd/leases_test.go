package cmd

import (
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// finding is one doctor finding, as doctor --json prints it.
type finding struct {
	Check     string   `json:"check"`
	Severity  string   `json:"severity"`
	Subject   string   `json:"subject"`
	Message   string   `json:"message"`
	Fix       string   `json:"fix"`
	ThreadIDs []string `json:"thread_ids"`
}

// doctorFindings runs doctor --json and returns the findings of one check
// and the exit code.
func doctorFindings(t *testing.T, env []string, check string) ([]finding, int) {
	t.Helper()
	out, err := cliProcess(env, "doctor", "--json").Output()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("doctor: %v", err)
		}
		code = ee.ExitCode()
	}
	var rep struct {
		Findings []finding `json:"findings"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	var fs []finding
	for _, f := range rep.Findings {
		if f.Check == check {
			fs = append(fs, f)
		}
	}
	return fs, code
}

// killRun kills a started memctl (SIGKILL) and waits for it: what a crash,
// the OOM killer or a full disk that ends the process leaves behind.
func killRun(t *testing.T, s *started) {
	t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.done
}

// After a disk-full extract the jobs stayed `running` for an
// hour, the next run said "claimed by another process", and doctor called
// the home healthy. A claim whose process is gone is reported by doctor
// and taken back by the next run at once.
func TestClaimsOfAKilledExtractAreTakenBackAtOnce(t *testing.T) {
	h := newParallelHome(t, 5, "heuristic")
	a := startRun(t, h.env, "extract", "--json")
	h.waitFor(t, "started.*", a.done, "the extraction started")
	killRun(t, a)

	fs, code := doctorFindings(t, h.env, "leases")
	if code != ExitUnhealthy || len(fs) != 1 || fs[0].Severity != "warning" || len(fs[0].ThreadIDs) != 5 ||
		!strings.Contains(fs[0].Message, "has exited") || !strings.HasPrefix(fs[0].Fix, "memctl run") {
		t.Errorf("doctor after the kill: exit %d, leases findings %+v; want exit 5 and one warning for the 5 claims", code, fs)
	}

	h.open(t, "go")
	b := startRun(t, h.env, "extract", "--json")
	select {
	case err := <-b.done:
		if err != nil {
			t.Fatalf("extract after the kill: %v\n%s", err, b.stderr.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("extract after the kill did not finish")
	}
	var res struct {
		Claimed    int            `json:"claimed"`
		Succeeded  int            `json:"succeeded"`
		NotClaimed map[string]int `json:"not_claimed"`
	}
	if err := json.Unmarshal(b.stdout.Bytes(), &res); err != nil {
		t.Fatalf("%v\n%s", err, b.stdout.String())
	}
	if res.Claimed != 5 || res.Succeeded != 5 {
		t.Errorf("extract after the kill: claimed %d, succeeded %d, not claimed %v; want 5 and 5", res.Claimed, res.Succeeded, res.NotClaimed)
	}
	if fs, _ := doctorFindings(t, h.env, "leases"); len(fs) != 0 {
		t.Errorf("doctor after the recovery still reports leases: %+v", fs)
	}
}

// Once the consolidation lock stayed held after its process
// exited, so even `consolidate --force` was skipped.
func TestLockOfAKilledConsolidationIsTakenBackAtOnce(t *testing.T) {
	h := newParallelHome(t, 3, "agent")
	h.open(t, "go")
	if b, err := cliProcess(h.env, "extract").CombinedOutput(); err != nil {
		t.Fatalf("extract: %v\n%s", err, b)
	}
	a := startRun(t, h.env, "consolidate", "--json")
	h.waitFor(t, "agent-started.*", a.done, "the consolidation agent started")
	killRun(t, a)
	// The agent runs in a process group of its own and dies with memctl
	// where the kernel offers that (Linux); elsewhere, let it finish.
	t.Cleanup(func() { h.open(t, "agent-go") })

	fs, code := doctorFindings(t, h.env, "leases")
	if code != ExitUnhealthy || len(fs) != 1 || fs[0].Subject != "consolidation lock" || fs[0].Severity != "warning" {
		t.Errorf("doctor after the kill: exit %d, leases findings %+v; want exit 5 and the consolidation lock", code, fs)
	}
	out, err := cliProcess(h.env, "consolidate", "--force", "--mode", "heuristic", "--json").Output()
	if err != nil {
		t.Fatalf("consolidate --force after the kill: %v\n%s", err, stderrOf(err))
	}
	var res struct {
		Status   string `json:"status"`
		Selected int    `json:"selected"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.HasPrefix(res.Status, "succeeded") || res.Selected != 3 {
		t.Errorf("consolidate --force after the kill: %s with %d selected, want succeeded with 3", res.Status, res.Selected)
	}
	checkFolderHolds(t, h.home, h.ids)
}
