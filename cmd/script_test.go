package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"memctl": func() { os.Exit(Main()) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script. Set
// MEMCTL_UPDATE=1 to rewrite their expected output.
func TestScripts(t *testing.T) {
	fixtures, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("MEMCTL_UPDATE") != "",
		Setup: func(env *testscript.Env) error {
			work := env.WorkDir
			env.Setenv("HOME", filepath.Join(work, "userhome"))
			env.Setenv("MEMCTL_HOME", filepath.Join(work, "home"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(work, "userhome", ".config"))
			env.Setenv("NO_COLOR", "1")
			env.Setenv("CODEX_HOME", filepath.Join(work, "userhome", ".codex"))
			env.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(work, "userhome", ".claude"))
			env.Setenv("OPENAI_API_KEY", "")
			env.Setenv("ANTHROPIC_API_KEY", "")
			env.Setenv("FIXTURES", fixtures)
			return os.MkdirAll(filepath.Join(work, "userhome"), 0o700)
		},
	})
}
