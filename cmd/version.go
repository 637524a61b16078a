package cmd

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/memctl/memctl/pkg/store"
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

func newVersionCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the memctl version",
		Args:  cobra.NoArgs,
		Example: `  $ memctl version
  $ memctl version --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.JSON {
				return printJSON(f.IO.Out, map[string]any{
					"version": version(), "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH,
					"schema_version": store.SchemaVersion(),
				})
			}
			_, err := fmt.Fprintf(f.IO.Out, "memctl %s (%s %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
