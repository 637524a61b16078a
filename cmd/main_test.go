package cmd

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMemctlNow: MEMCTL_NOW pins every clock read of the process, and a
// malformed value is refused before any command runs (exit 2, the variable
// named), except under a hook, which is never told to block (exit 1).
func TestMemctlNow(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	madeHome(t, home)
	wallClock := func() time.Time { t.Fatal("the wall clock was read though MEMCTL_NOW is set"); return time.Time{} }

	t.Run("pins the clock", func(t *testing.T) {
		now, err := pinnedClock(func(string) string { return "2026-06-10T12:00:00Z" }, wallClock)
		if err != nil || !now().Equal(time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)) {
			t.Fatalf("pinnedClock = %v, %v", now(), err)
		}
	})
	tests := []struct {
		name     string
		args     []string
		value    string
		wantCode int
		wantErr  string
	}{
		{"malformed", []string{"status"}, "yesterday", ExitUsage,
			"memctl: error: MEMCTL_NOW=\"yesterday\" is not valid: want an RFC 3339 time such as 2026-06-10T12:00:00Z\n"},
		{"date without time", []string{"summary"}, "2026-06-10", ExitUsage, `MEMCTL_NOW="2026-06-10" is not valid`},
		{"json", []string{"status", "--json"}, "soon", ExitUsage,
			`{"error":"MEMCTL_NOW=\"soon\" is not valid: want an RFC 3339 time such as 2026-06-10T12:00:00Z","code":2}` + "\n"},
		{"a hook is never told to block", []string{"cite", "--hook", "claude"}, "soon", ExitError, `MEMCTL_NOW="soon" is not valid`},
		{"valid", []string{"status"}, "2026-06-10T12:00:00Z", ExitOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"MEMCTL_HOME": home, "MEMCTL_NOW": tt.value}
			ios := newTestIO(false)
			code := run(tt.args, ios.IOStreams, wallClock, func(k string) string { return env[k] })
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.wantCode, ios.errOut)
			}
			if tt.wantErr == "" {
				return
			}
			if ios.out.Len() != 0 {
				t.Errorf("stdout is not empty: %q", ios.out)
			}
			if strings.HasSuffix(tt.wantErr, "\n") && ios.errOut.String() != tt.wantErr {
				t.Errorf("stderr = %q, want %q", ios.errOut, tt.wantErr)
			} else if !strings.Contains(ios.errOut.String(), tt.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", ios.errOut, tt.wantErr)
			}
		})
	}
}
