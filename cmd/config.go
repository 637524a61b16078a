package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/pkg/config"
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
	c.AddCommand(newConfigInitCmd(f), newConfigShowCmd(f), newConfigPathCmd(f))
	return c
}

func newConfigInitCmd(f *Factory) *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:   "init",
		Short: "Write a commented config file with every default",
		Args:  cobra.NoArgs,
		Example: `  $ memctl config init
  $ memctl config init --force   # overwrite an existing file`,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, _, err := f.ConfigPath()
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return err
			}
			flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
			if force {
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
			if f.JSON {
				return printJSON(f.IO.Out, map[string]string{"path": path})
			}
			f.infof("wrote %s", path)
			return nil
		},
	}
	c.Flags().BoolVar(&force, "force", false, "overwrite an existing config file")
	return c
}

func newConfigShowCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "show",
		Short: "Print the effective config and where each value came from",
		Args:  cobra.NoArgs,
		Example: `  $ memctl config show
  $ MEMCTL_MEMORIES_VERSION=v2 memctl config show --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			path, _, _ := f.ConfigPath()
			entries := cfg.Entries()
			if f.JSON {
				values := map[string]any{}
				origins := map[string]string{}
				for _, e := range entries {
					values[e.Key] = e.Value
					origins[e.Key] = string(e.Origin)
				}
				return printJSON(f.IO.Out, map[string]any{"path": path, "file_loaded": cfg.Path != "", "values": values, "origins": origins, "entries": entries})
			}
			t := newTable(f.IO, "KEY", "VALUE", "FROM")
			for _, e := range entries {
				t.add(e.Key, fmt.Sprint(formatValue(e.Value)), string(e.Origin))
			}
			return t.print()
		},
	}
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
			parts = append(parts, m["kind"]+":"+m["path"])
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

func newConfigPathCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "path",
		Short:   "Print the path of the config file memctl reads",
		Args:    cobra.NoArgs,
		Example: `  $ memctl config path`,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, explicit, err := f.ConfigPath()
			if err != nil {
				return err
			}
			_, statErr := os.Stat(path)
			if f.JSON {
				return printJSON(f.IO.Out, map[string]any{"path": path, "exists": statErr == nil, "explicit": explicit})
			}
			_, err = fmt.Fprintln(f.IO.Out, path)
			return err
		},
	}
}
