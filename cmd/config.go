package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/spf13/cobra"
)

func newConfigCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "config <command>",
		Short: "Create, show and locate the config file",
		Long: `Manage memctl's TOML config. Every key has a default, so an empty or missing
file is a valid config. Values come from, in order of precedence: a command-line
flag, a MEMCTL_<SECTION>_<KEY> environment variable, the file, the default.`,
		Example: `  $ memctl config init
  $ memctl config show
  $ memctl config path`,
	}
	c.AddCommand(
		newConfigInitCmd(f, nil),
		newConfigShowCmd(f, nil),
		newConfigPathCmd(f, nil),
	)
	return c
}

// ConfigPathFunc resolves the config file: its path, and whether it was
// named explicitly (--config, $MEMCTL_CONFIG) rather than defaulted.
type ConfigPathFunc func() (path string, explicit bool, err error)

// ConfigInitOptions is what `memctl config init` needs.
type ConfigInitOptions struct {
	IO         *IOStreams
	ConfigPath ConfigPathFunc

	JSON  bool
	Force bool
}

// pathJSON is the --json document of config init and note add.
type pathJSON struct {
	Path string `json:"path"`
}

func newConfigInitCmd(f *Factory, runF func(context.Context, *ConfigInitOptions) error) *cobra.Command {
	opts := &ConfigInitOptions{IO: f.IO, ConfigPath: f.ConfigPath}
	c := &cobra.Command{
		Use:   "init",
		Short: "Write a commented config file with every default",
		Args:  cobra.NoArgs,
		Example: `  $ memctl config init
  $ memctl config init --force   # overwrite an existing file`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			return runOrHook(c.Context(), opts, runF, runConfigInit)
		},
	}
	c.Flags().BoolVar(&opts.Force, "force", false, "overwrite an existing config file")
	return c
}

func runConfigInit(_ context.Context, opts *ConfigInitOptions) error {
	path, _, err := opts.ConfigPath()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if opts.Force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	fh, err := os.OpenFile(path, flags, 0o600)
	if errors.Is(err, os.ErrExist) {
		return withHint(fmt.Errorf("%s already exists", path), "use --force to overwrite it")
	}
	if err != nil {
		return err
	}
	if _, err := fh.WriteString(config.DefaultFile()); err != nil {
		fh.Close()
		return err
	}
	if err := fh.Close(); err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(opts.IO.Out, pathJSON{Path: path})
	}
	opts.IO.Infof("wrote %s", path)
	return nil
}

// ConfigShowOptions is what `memctl config show` needs.
type ConfigShowOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	ConfigPath ConfigPathFunc
	// Sources and UnreadDefaults resolve the transcript sources (the
	// effective value of "sources"); nil: the sources as configured.
	Sources        func(cfg *config.Config) []sessions.Source
	UnreadDefaults func(cfg *config.Config) []sessions.Source

	JSON bool
}

// configShowJSON is the --json document of config show.
type configShowJSON struct {
	Path       string            `json:"path"`
	FileLoaded bool              `json:"file_loaded"`
	Values     map[string]any    `json:"values"`
	Origins    map[string]string `json:"origins"`
	Entries    []config.Entry    `json:"entries"`
}

func newConfigShowCmd(f *Factory, runF func(context.Context, *ConfigShowOptions) error) *cobra.Command {
	opts := &ConfigShowOptions{IO: f.IO, Config: f.Config, ConfigPath: f.ConfigPath, Sources: f.Sources, UnreadDefaults: f.UnreadDefaults}
	return &cobra.Command{
		Use:   "show",
		Short: "Print the effective config and where each value came from",
		Args:  cobra.NoArgs,
		Example: `  $ memctl config show
  $ MEMCTL_MEMORIES_VERSION=v2 memctl config show --json`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			return runOrHook(c.Context(), opts, runF, runConfigShow)
		},
	}
}

func runConfigShow(_ context.Context, opts *ConfigShowOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	path, _, _ := opts.ConfigPath()
	entries := cfg.Entries()
	if opts.Sources != nil {
		// The sources scan reads: the [[sources]] with their paths
		// resolved, or the default folders found on this machine.
		for i, e := range entries {
			if e.Key == "sources" {
				entries[i].Value = effectiveSources(opts.Sources(cfg))
			}
		}
	}
	if opts.JSON {
		doc := configShowJSON{Path: path, FileLoaded: cfg.Path != "", Values: map[string]any{}, Origins: map[string]string{}, Entries: entries}
		for _, e := range entries {
			doc.Values[e.Key] = e.Value
			doc.Origins[e.Key] = string(e.Origin)
		}
		return printJSON(opts.IO.Out, doc)
	}
	t := newTable(opts.IO, "KEY", "VALUE", "FROM")
	t.flex = 1 // a long value (sources, a command line) gives way, not its origin
	for _, e := range entries {
		from := string(e.Origin)
		if e.ClampedFrom != nil {
			from += fmt.Sprintf(", clamped from %d", *e.ClampedFrom)
		}
		t.add(e.Key, formatValue(e.Value), from)
	}
	if err := t.print(); err != nil {
		return err
	}
	hintUnreadDefaults(opts.IO, unreadDefaults(opts.UnreadDefaults, cfg), cfg)
	return nil
}

// effectiveSources is the "sources" value of config show.
func effectiveSources(srcs []sessions.Source) []map[string]string {
	out := make([]map[string]string, 0, len(srcs))
	for _, s := range srcs {
		out = append(out, map[string]string{"kind": string(s.Kind), "path": s.Path})
	}
	return out
}

func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case []string:
		q := make([]string, len(x))
		for i, s := range x {
			q[i] = fmt.Sprintf("%q", s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	case []map[string]string:
		var parts []string
		for _, m := range x {
			if _, source := m["kind"]; source {
				parts = append(parts, m["kind"]+":"+m["path"])
				continue
			}
			// A [[projects]] entry: what it sets is the point of it.
			p := m["path"] + ":"
			if m["key"] != "" {
				p += " key=" + m["key"]
			}
			if m["name"] != "" {
				p += fmt.Sprintf(" name=%q", m["name"])
			}
			parts = append(parts, p)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// ConfigPathOptions is what `memctl config path` needs.
type ConfigPathOptions struct {
	IO         *IOStreams
	ConfigPath ConfigPathFunc

	JSON bool
}

// configPathJSON is the --json document of config path.
type configPathJSON struct {
	Path     string `json:"path"`
	Exists   bool   `json:"exists"`
	Explicit bool   `json:"explicit"`
}

func newConfigPathCmd(f *Factory, runF func(context.Context, *ConfigPathOptions) error) *cobra.Command {
	opts := &ConfigPathOptions{IO: f.IO, ConfigPath: f.ConfigPath}
	return &cobra.Command{
		Use:     "path",
		Short:   "Print the path of the config file memctl reads",
		Args:    cobra.NoArgs,
		Example: `  $ memctl config path`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			return runOrHook(c.Context(), opts, runF, runConfigPath)
		},
	}
}

func runConfigPath(_ context.Context, opts *ConfigPathOptions) error {
	path, explicit, err := opts.ConfigPath()
	if err != nil {
		return err
	}
	_, statErr := os.Stat(path)
	if opts.JSON {
		return printJSON(opts.IO.Out, configPathJSON{Path: path, Exists: statErr == nil, Explicit: explicit})
	}
	_, err = fmt.Fprintln(opts.IO.Out, path)
	return err
}
