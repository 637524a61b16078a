package cmd

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/memctl/memctl/internal/store"
	"github.com/spf13/cobra"
)

// Version is set by release builds: -ldflags "-X github.com/memctl/memctl/cmd.Version=1.2.3".
var Version string

// version returns the release version, else the module version from the
// build info (go install …@v1.2.3), else "dev".
func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// VersionOptions is what `memctl version` needs. It reads no config and
// opens no database.
type VersionOptions struct {
	IO *IOStreams

	JSON bool
}

// versionJSON is the --json document of version.
type versionJSON struct {
	Version       string `json:"version"`
	Go            string `json:"go"`
	OS            string `json:"os"`
	Arch          string `json:"arch"`
	SchemaVersion int    `json:"schema_version"`
}

func newVersionCmd(f *Factory, runF func(context.Context, *VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IO}
	return &cobra.Command{
		Use:   "version",
		Short: "Print the memctl version",
		Args:  cobra.NoArgs,
		Example: `  $ memctl version
  $ memctl version --json`,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.JSON = f.JSON
			return runOrHook(c.Context(), opts, runF, runVersion)
		},
	}
}

func runVersion(_ context.Context, opts *VersionOptions) error {
	if opts.JSON {
		return printJSON(opts.IO.Out, versionJSON{Version: version(), Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH,
			SchemaVersion: store.SchemaVersion()})
	}
	_, err := fmt.Fprintln(opts.IO.Out, versionLine())
	return err
}

// versionLine is what `memctl version` and `memctl --version` print.
func versionLine() string {
	return fmt.Sprintf("memctl %s (%s %s/%s)", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
