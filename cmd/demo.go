package cmd

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/memctl/memctl/examples"
	"github.com/memctl/memctl/pkg/config"
	"github.com/memctl/memctl/pkg/inject"
	"github.com/spf13/cobra"
)

func newDemoCmd(f *Factory) *cobra.Command {
	var dir string
	var full bool
	c := &cobra.Command{
		Use:   "demo",
		Short: "Try memctl on bundled example sessions in a throwaway home",
		Long: `Write the example Codex, Claude Code and JSONL sessions bundled with memctl into
a new temporary folder, run the whole pipeline on them with the offline
heuristic extractor and consolidator (no network, no API key), and print the
memory summary an agent would get. Your own ~/.memctl, ~/.codex and ~/.claude
are not touched. The folder is kept so you can look around; its path is printed.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl demo
  $ memctl demo --full          # the summary wrapped in the agent instructions
  $ memctl demo --dir /tmp/try  # use this folder (must be empty or missing)`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if dir == "" {
				if dir, err = os.MkdirTemp("", "memctl-demo-"); err != nil {
					return err
				}
			} else if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				return FlagErrorf("--dir %s is not empty", dir)
			}
			dir, _ = filepath.Abs(dir)
			sessions := filepath.Join(dir, "sessions")
			if err := writeExamples(sessions); err != nil {
				return err
			}
			home := filepath.Join(dir, "home")
			cfgText := fmt.Sprintf(`# memctl demo config: the bundled sessions, the offline provider.
[memories]
max_unused_days = 365
[provider]
kind = "heuristic"
[consolidation]
mode = "heuristic"
[[sources]]
kind = "codex"
path = %q
[[sources]]
kind = "claude-code"
path = %q
[[sources]]
kind = "jsonl"
path = %q
`, filepath.Join(sessions, "codex", "sessions"), filepath.Join(sessions, "claude", "projects"), filepath.Join(sessions, "jsonl"))
			if err := os.MkdirAll(home, 0o700); err != nil {
				return err
			}
			cfgPath := filepath.Join(home, "config.toml")
			if err := os.WriteFile(cfgPath, []byte(cfgText), 0o600); err != nil {
				return err
			}
			f.HomeFlag, f.ConfigFlag, f.MemoryVersion, f.cfg = home, cfgPath, "", nil
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			f.infof("memctl demo: sessions in %s, home in %s", sessions, home)
			eo := &extractOptions{all: true, max: 100, skipGuard: true}
			if _, err := runPipeline(cmd.Context(), f, cfg, cfg.Memories.Version, eo, &consolidateOptions{}); err != nil {
				return err
			}
			return printDemoSummary(f, cfg, home, full)
		},
	}
	c.Flags().StringVar(&dir, "dir", "", "work in this `DIR` instead of a new temporary folder")
	c.Flags().BoolVar(&full, "full", false, "print the summary inside the read-path instructions, as `memctl summary` does")
	return c
}

func writeExamples(dst string) error {
	return fs.WalkDir(examples.Sessions, "sessions", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("sessions", filepath.FromSlash(p))
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		b, err := examples.Sessions.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o600)
	})
}

func printDemoSummary(f *Factory, cfg *config.Config, home string, full bool) error {
	root := memoryRoot(home, cfg.Memories.Version)
	res, err := inject.Summary(root, cfg.Memories.Version, inject.DefaultSummaryTokens, !full, cfg.Templates.Dir)
	if err != nil {
		return err
	}
	if !res.Injected {
		return fmt.Errorf("the demo produced no summary in %s", root)
	}
	if f.JSON {
		return printJSON(f.IO.Out, map[string]any{"home": home, "memory_root": root, "summary": res})
	}
	fmt.Fprintln(f.IO.Out, res.Text)
	f.infof("\nThe memory folder is %s. Look around:", root)
	f.infof("  memctl --home %s threads list", home)
	f.infof("  memctl --home %s search go test", home)
	f.infof("  memctl --home %s summary", home)
	return nil
}
