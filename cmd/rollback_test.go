package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/consolidate"
)

func TestNewRollbackCmd(t *testing.T) {
	for _, tt := range []struct {
		name    string
		argv    string
		want    RollbackOptions
		wantErr string
	}{
		{name: "id", argv: "3", want: RollbackOptions{ID: 3}},
		{name: "force and json", argv: "3 --force --json", want: RollbackOptions{ID: 3, Force: true, JSON: true}},
		{name: "not a number", argv: "three", wantErr: `generation id "three": want a positive number, as ` + "`memctl history`" + ` lists them`},
		{name: "no id", argv: "", wantErr: "memctl rollback needs N"},
		{name: "two ids", argv: "1 2", wantErr: `memctl rollback takes one argument (N), got 2: "1" "2"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			var got *RollbackOptions
			err := execCmd(t, f, newRollbackCmd(f, func(_ context.Context, o *RollbackOptions) error { got = o; return nil }), nil,
				strings.Fields(tt.argv)...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

func TestRunRollback(t *testing.T) {
	changes := "M MEMORY.md\nM memory_summary.md\nM projects/thread-a-987e139c/summary.md\nM raw_memories.md\nM rollout_summaries/2026-06-08T12-00-00-Jb1I.md\n"
	for _, tt := range []struct {
		name       string
		tty        bool
		opts       RollbackOptions
		forget     string
		wantOut    string
		wantErrOut string
		wantErr    string
		wantHint   string
	}{
		{name: "piped", opts: RollbackOptions{ID: 1}, wantOut: changes,
			wantErrOut: "v1: restored generation 1 as generation 3 (5 files changed)\n"},
		{name: "terminal", tty: true, opts: RollbackOptions{ID: 1}, wantOut: changes,
			wantErrOut: "v1: restored generation 1 as generation 3 (5 files changed)\n"},
		{name: "json", opts: RollbackOptions{ID: 1, JSON: true},
			wantOut: `{"version":"v1","action":"rollback","generation":3,"restored_from":1,"changes":["M MEMORY.md","M memory_summary.md",` +
				`"M projects/thread-a-987e139c/summary.md","M raw_memories.md","M rollout_summaries/2026-06-08T12-00-00-Jb1I.md"]}`},
		{name: "unknown generation", opts: RollbackOptions{ID: 7}, wantErr: "v1: no generation 7 is kept",
			wantHint: "`memctl history` lists the kept generations"},
		// Forgetting a memory purges every generation built from it.
		{name: "built from a forgotten memory", opts: RollbackOptions{ID: 1}, forget: "thread-b",
			wantErr:  "v1: generation 1 cannot be restored: its files were purged when a memory it was built from was forgotten",
			wantHint: "`memctl history` marks the purged generations"},
		{name: "forced past a forgotten memory", opts: RollbackOptions{ID: 1, Force: true}, forget: "thread-b",
			wantErr:  "v1: generation 1 cannot be restored: its files were purged",
			wantHint: "`memctl history` marks the purged generations"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := generationsFactory(t, ios, false)
			root, _ := f.MemoryRoot("v1")
			if tt.forget != "" {
				st, _ := f.OpenStore(context.Background(), "v1")
				if err := st.ForgetMemory(context.Background(), tt.forget); err != nil {
					t.Fatal(err)
				}
				st.Close()
			}
			before, _ := os.ReadFile(filepath.Join(root, "MEMORY.md"))
			opts := tt.opts
			opts.IO, opts.Config, opts.OpenStore, opts.Now, opts.MemoryRoot = ios.IOStreams, f.Config, f.OpenStore, f.Now, f.MemoryRoot
			err := runRollback(context.Background(), &opts)
			wantError(t, err, tt.wantErr)
			if err != nil {
				var h *hintError
				if !errors.As(err, &h) || !strings.Contains(h.hint, tt.wantHint) {
					t.Errorf("hint %v, want %q", err, tt.wantHint)
				}
				after, _ := os.ReadFile(filepath.Join(root, "MEMORY.md"))
				if string(after) != string(before) {
					t.Error("a refused rollback changed the folder")
				}
				return
			}
			ios.wantOutput(t, opts.JSON, tt.wantOut, tt.wantErrOut)
			if !strings.Contains(string(mustRead(t, filepath.Join(root, "MEMORY.md"))), "summary of thread-a") {
				t.Error("generation 1's MEMORY.md is not back")
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A consolidation that holds the lock makes a rollback fail with a hint,
// and change nothing.
func TestRunRollbackWhileAConsolidationRuns(t *testing.T) {
	ios := newTestIO(false)
	f := generationsFactory(t, ios, false)
	st, _ := f.OpenStore(context.Background(), "v1")
	if c, err := st.ClaimGlobal(context.Background(), "another", true); err != nil || c.Status != "claimed" {
		t.Fatal(c, err)
	}
	st.Close()
	opts := &RollbackOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot, ID: 1}
	err := runRollback(context.Background(), opts)
	if !errors.Is(err, consolidate.ErrBusy) || exitCode(err) != ExitError {
		t.Fatalf("err %v (exit %d), want ErrBusy, exit 1", err, exitCode(err))
	}
	var h *hintError
	if !errors.As(err, &h) || !strings.Contains(h.hint, "memctl status") {
		t.Errorf("no hint: %v", err)
	}
}

// A rollback killed after it began writing the folder is finished by the
// next rollback, once the dead process's lease has expired, and said so.
func TestRunRollbackFinishesAnInterruptedOne(t *testing.T) {
	ios := newTestIO(false)
	f := generationsFactory(t, ios, false)
	ctx := context.Background()
	st, _ := f.OpenStore(ctx, "v1")
	c, err := st.ClaimGlobal(ctx, "dead", true)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := st.BeginLanding(ctx, c.Token, "rollback", 1); !ok || err != nil {
		t.Fatal(ok, err)
	}
	st.Close()
	// The dead process held a one-hour lease; two hours later:
	later := testNow.Add(2 * time.Hour)
	f.Now = func() time.Time { return later }
	opts := &RollbackOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot, ID: 2, JSON: true}
	if err := runRollback(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if got := ios.errOut.String(); got != "memctl: warning: finished the rollback of generation 1 that was interrupted at 2026-06-10T12:00:00Z\n" {
		t.Errorf("stderr %q", got)
	}
	out := compactJSON(t, ios.out.String())
	if !strings.Contains(out, `"generation":4,"restored_from":2`) || !strings.Contains(out, `"recovered":{"action":"rollback","generation_id":1,"started_at":"2026-06-10T12:00:00Z"}`) {
		t.Errorf("json %s", out)
	}
	st, _ = f.OpenStore(ctx, "v1")
	defer st.Close()
	gens, _ := st.Generations(ctx, 0)
	if len(gens) != 4 || gens[1].Kind != "rollback" || gens[1].RestoredFrom != 1 || gens[0].RestoredFrom != 2 {
		t.Errorf("history %+v", gens)
	}
}
