package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// A home named on purpose (--home or $MEMCTL_HOME) that does not exist is
// most likely a typo: a command that would have created it, empty, and
// reported "no memory" would hide it. So such a home is refused, except
// by the commands that start a home (config init, setup, and the ones
// that take memory in: run, scan, extract, import, sync). Those create it,
// only inside a folder that exists, and say so on stderr: a cron line
// with a new home works the first time and leaves a note. The default
// home (~/.memctl) is created by any command, as always. Agent hooks
// (summary --agent, cite --hook) are never refused: a session must not
// fail over its memory.

// homeUse says what a command does with the home.
type homeUse int

const (
	homeUses    homeUse = iota // reads or writes it: a named home must exist
	homeCreates                // may start it
	homeNone                   // does not touch it
)

// homeUses maps command paths to what they do with the home; a command
// not listed uses it.
var homeUseOf = map[string]homeUse{
	"memctl config init": homeCreates,
	"memctl setup":       homeCreates,
	"memctl run":         homeCreates,
	"memctl scan":        homeCreates,
	"memctl extract":     homeCreates,
	"memctl import":      homeCreates,
	"memctl sync":        homeCreates,
	"memctl config path": homeNone,
	"memctl config show": homeNone,
	"memctl demo":        homeNone,
	"memctl redact":      homeNone,
	"memctl version":     homeNone,
	"memctl eval":        homeNone, // reads a database only when there is one; says so
	"memctl threads":     homeUses, // alone, it lists
}

func commandHomeUse(c *cobra.Command) homeUse {
	path := c.CommandPath()
	if u, ok := homeUseOf[path]; ok {
		return u
	}
	for _, prefix := range []string{"memctl help", "memctl completion", "memctl __", "memctl gen-docs"} {
		if strings.HasPrefix(path, prefix) {
			return homeNone
		}
	}
	if c.HasSubCommands() {
		return homeNone // a group: it says which subcommands it has
	}
	return homeUses
}

// isHook reports a command run as an agent's hook.
func isHook(c *cobra.Command) bool {
	for _, name := range []string{"agent", "hook"} {
		if fl := c.Flags().Lookup(name); fl != nil && fl.Changed {
			return true
		}
	}
	return false
}

// checkHome refuses or creates a named home that does not exist, as the
// command's use of it says.
func (f *Factory) checkHome(c *cobra.Command) error {
	source := "--home"
	if f.HomeFlag == "" {
		source = "MEMCTL_HOME"
		if f.Getenv("MEMCTL_HOME") == "" {
			return nil // the default home: created when needed
		}
	}
	use := commandHomeUse(c)
	if use == homeNone || isHook(c) {
		return nil
	}
	home, err := f.Home()
	if err != nil {
		return err
	}
	if _, err := os.Stat(home); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	parent := filepath.Dir(home)
	if use == homeCreates {
		if fi, err := os.Stat(parent); err == nil && fi.IsDir() {
			if err := os.Mkdir(home, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("create home %s: %w", home, err)
			}
			f.IO.Infof("memctl: created the home %s (%s): a new home, with no memory yet", home, source)
			return nil
		}
		return withHint(&FlagError{Err: fmt.Errorf("the home %s (%s) does not exist, nor does its folder %s", home, source, parent)},
			"check "+source+"; memctl starts a new home only inside a folder that exists")
	}
	return withHint(&FlagError{Err: fmt.Errorf("the home %s (%s) does not exist", home, source)},
		fmt.Sprintf("check %s; to start a new home there, run memctl config init or memctl run", source))
}
