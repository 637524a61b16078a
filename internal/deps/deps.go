// Package deps pins the project's third-party modules while the packages
// that use them are being written, so that go mod tidy keeps them.
// Delete an import here once a real package imports the module.
package deps

import (
	_ "github.com/anthropics/anthropic-sdk-go"
	_ "github.com/fatih/color"
	_ "github.com/google/uuid"
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/pelletier/go-toml/v2"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/pflag"
	_ "golang.org/x/term"
	_ "modernc.org/sqlite"
)
