package cmd

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/examples"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/inject"
	"github.com/memctl/memctl/internal/pipeline"
	"github.com/spf13/cobra"
)

// DemoOptions is what `memctl demo` needs: injected streams, clock and
// environment first, then the flag values. The demo builds its own home
// and config, so it takes no config or store loader.
type DemoOptions struct {
	IO       *IOStreams
	Now      func() time.Time
	Getenv   func(string) string
	UserHome func() (string, error)

	JSON bool
	Dir  string
	Full bool
	// Keep keeps the temporary folder; one named by --dir is always kept.
	Keep bool
}

// demoJSON is the --json document of demo.
type demoJSON struct {
	Home       string               `json:"home"`
	MemoryRoot string               `json:"memory_root"`
	Summary    inject.SummaryResult `json:"summary"`
}

func newDemoCmd(f *Factory, runF func(context.Context, *DemoOptions) error) *cobra.Command {
	opts := &DemoOptions{IO: f.IO, Now: f.Now, Getenv: f.Getenv, UserHome: f.UserHome}
	c := &cobra.Command{
		Use:   "demo",
		Short: "Try memctl on bundled example sessions in a throwaway home",
		Long: `Write the example Codex, Claude Code and JSONL sessions bundled with memctl into
a new temporary folder, run the whole pipeline on them with the offline
heuristic extractor and consolidator (no network, no API key), and print the
memory summary an agent would get. Your own ~/.memctl, ~/.codex and ~/.claude
are not touched. The temporary folder is removed when the demo ends; --keep
keeps it (and prints how to look around), and a folder named by --dir is
always kept.`,
		Args: cobra.NoArgs,
		Example: `  $ memctl demo
  $ memctl demo --full          # the summary wrapped in the agent instructions
  $ memctl demo --keep          # keep the folder to look around
  $ memctl demo --dir /tmp/try  # use this folder (must be empty or missing)`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			return runOrHook(c.Context(), opts, runF, runDemo)
		},
	}
	c.Flags().StringVar(&opts.Dir, "dir", "", "work in this `DIR` instead of a new temporary folder")
	c.Flags().BoolVar(&opts.Full, "full", false, "print the summary inside the read-path instructions, as `memctl summary` does")
	c.Flags().BoolVar(&opts.Keep, "keep", false, "keep the temporary folder to look around (a --dir folder is always kept)")
	return c
}

func runDemo(ctx context.Context, opts *DemoOptions) error {
	dir := opts.Dir
	var err error
	if dir == "" {
		if dir, err = os.MkdirTemp("", "memctl-demo-"); err != nil {
			return err
		}
		if !opts.Keep {
			// A throwaway home: nothing of it outlives the demo, even when
			// the demo fails or is interrupted.
			defer os.RemoveAll(dir)
		} else {
			opts.Dir = dir
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
	// The demo's own world: its home and config, whatever --home,
	// --config and --memory-version said.
	df := &Factory{IO: opts.IO, Now: opts.Now, Getenv: opts.Getenv, UserHome: opts.UserHome, HomeFlag: home, ConfigFlag: cfgPath}
	cfg, err := df.Config()
	if err != nil {
		return err
	}
	opts.IO.Infof("memctl demo: sessions in %s, home in %s", sessions, home)
	rep := newStageReporter(opts.IO, opts.JSON)
	// The demo reads its own copies on purpose: the user's agent folders
	// it leaves alone are not worth a hint.
	rep.hintDefaults = false
	pipe, err := df.Pipeline(cfg, rep)
	if err != nil {
		return err
	}
	rep.home, rep.run = pipe, true
	if _, err := pipe.Run(ctx, pipeline.RunRequest{Extract: pipeline.ExtractRequest{All: true, Max: 100},
		Consolidate: pipeline.ConsolidateRequest{Describe: !opts.JSON}}); err != nil {
		return err
	}
	return printDemoSummary(opts, cfg, home)
}

func ptrTo[T any](v T) *T { return &v }

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

func printDemoSummary(opts *DemoOptions, cfg *config.Config, home string) error {
	root := memoryRoot(home, cfg.Memories.Version)
	res, err := inject.Summary(root, cfg.Memories.Version, inject.DefaultSummaryTokens, !opts.Full, cfg.Templates.Dir)
	if err != nil {
		return err
	}
	if !res.Injected {
		return fmt.Errorf("the demo produced no summary in %s", root)
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, demoJSON{Home: home, MemoryRoot: root, Summary: res})
	}
	text := res.Text
	// The summary file opens with its format's version, a bare "v1" line
	// that means nothing to someone trying memctl: on a terminal, say what
	// the text is instead. Piped, it stays the file as an agent gets it.
	if rest, ok := strings.CutPrefix(text, cfg.Memories.Version.String()+"\n"); ok && opts.IO.StdoutTTY {
		text = opts.IO.Bold("memory_summary.md") + fmt.Sprintf(" (memory version %s): what an agent is given before its first turn\n", cfg.Memories.Version) + rest
	}
	fmt.Fprintln(opts.IO.Out, text)
	if opts.Dir == "" {
		opts.IO.Infof("\nThe demo's folder is removed; `memctl demo --keep` keeps it to look around.")
		return nil
	}
	opts.IO.Infof("\nThe memory folder is %s. Look around:", root)
	opts.IO.Infof("  memctl --home %s threads list", home)
	opts.IO.Infof("  memctl --home %s search go test", home)
	opts.IO.Infof("  memctl --home %s summary", home)
	return nil
}
