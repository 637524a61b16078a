package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// A redaction pattern that does not compile is a config error for every
// command, not only for the ones that redact: status and doctor said all
// was well while the SessionStart hook (summary) failed.
func TestABadExtraPatternFailsEveryCommand(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	writeFile(t, cfg, "[provider]\nkind = \"heuristic\"\n\n[redaction]\nextra_patterns = [\"ok-[0-9]+\", \"(unclosed\"]\n")
	madeHome(t, filepath.Join(dir, "home"))
	env := []string{"HOME=" + dir, "MEMCTL_HOME=" + filepath.Join(dir, "home"), "MEMCTL_CONFIG=" + cfg}
	for _, args := range [][]string{{"status"}, {"doctor"}, {"search", "x"}, {"summary"}, {"summary", "--agent", "claude-code"}, {"redact"}, {"run"}} {
		out, errOut, code := runCLI(t, env, "", args...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, cfg+":5: key \"redaction.extra_patterns\"") ||
			!strings.Contains(errOut, "extra_patterns[1]") || !strings.Contains(errOut, "`(unclosed`") {
			t.Errorf("memctl %s: exit %d\nstdout %q\n%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	// The same from the environment, where a pattern matching the empty
	// string would redact between every two characters.
	env = append(env[:2], "MEMCTL_CONFIG="+filepath.Join(dir, "none.toml"), "MEMCTL_REDACTION_EXTRA_PATTERNS=x*")
	writeFile(t, filepath.Join(dir, "none.toml"), "")
	if _, errOut, code := runCLI(t, env, "", "status"); code != ExitUsage || !strings.Contains(errOut, "from MEMCTL_REDACTION_EXTRA_PATTERNS") || !strings.Contains(errOut, "matches the empty string") {
		t.Errorf("status with a bad pattern in the environment: exit %d\n%s", code, errOut)
	}
}
