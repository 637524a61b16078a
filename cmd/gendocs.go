package cmd

import (
	"os"
	"time"

	"github.com/spf13/cobra"
)

// NewRootForDocs builds the command tree without running anything, for
// internal/gendocs and its staleness test.
func NewRootForDocs() *cobra.Command {
	return newRootCmd(&Factory{IO: &IOStreams{}, Getenv: func(string) string { return "" }, Now: time.Now, UserHome: os.UserHomeDir})
}
