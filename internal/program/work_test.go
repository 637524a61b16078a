package program

import (
	"slices"
	"testing"
)

// TestWorkIsNoPrefix: the work of a line is a command that ran, not a variable set before it, and on a line that
// only looks it is the last command, whose status the line returns.
func TestWorkIsNoPrefix(t *testing.T) {
	for cmd, want := range map[string]string{
		`$env:Path += ";C:\tools\bin"; Write-Output "== a =="; tool a --help | Select-Object -First 20; tool b list`: "tool b list",
		`$env:Path += ";C:\tools\bin"; tool auth --help`:                                                             "tool auth --help",
		`export PATH="$HOME/bin:$PATH"; echo "== a =="; tool a --help | head -20; tool b list`:                       "tool b list",
		`export PATH="$HOME/bin:$PATH"; tool auth --help`:                                                            "tool auth --help",
		`cd /srv/app && git status`:            "git status",
		`cd /srv/app && make build; echo done`: "make build",
		`ls -la`:                               "ls -la",
	} {
		if got := Work(cmd); got != want {
			t.Errorf("Work(%q) = %q, want %q", cmd, got, want)
		}
	}
	if Family(`export PATH="$HOME/bin:$PATH"; tool auth --help`) == Family(`export PATH="$HOME/bin:$PATH"; tool b list`) &&
		slices.Equal(targets(`export PATH="$HOME/bin:$PATH"; tool auth --help`), targets(`export PATH="$HOME/bin:$PATH"; tool b list`)) {
		t.Error("two lines that share only a prefix are one work")
	}
}
