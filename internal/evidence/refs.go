// Package evidence records what a memory rests on and checks, cheaply,
// whether it still holds: the files a memory names (with the line ranges
// it cites) and the project commands it relies on (make targets, package
// scripts, just recipes), as they were when the memory was extracted.
//
// A check is a stat, and a hash only when the stat changed: no model, no
// process, no network. A file that is gone, or rewritten past a threshold
// (most of its lines replaced), or whose cited lines are no longer there,
// and a command whose target left the project's scripts, make the memory
// stale. Evidence is recorded only for what existed at extraction, so a
// name the memory invented never turns into a false alarm later.
//
// `memctl summary` runs these checks on every agent turn: this package
// stays free of databases and SDKs, and Checker bounds the time one call
// spends.
package evidence

import (
	"slices"
	"strconv"
	"strings"

	"github.com/memctl/memctl/internal/lazyre"
)

// Kinds of evidence.
const (
	KindFile    = "file"    // a file of the project
	KindCommand = "command" // a target of the project's scripts
)

// Caps on what one memory records: enough to tell whether it still holds,
// small enough that the index stays compact with thousands of memories.
const (
	MaxFilesPerMemory    = 12
	MaxCommandsPerMemory = 6
	// maxRangeLines bounds a cited line range that is remembered; a wider
	// range says little more than "the file".
	maxRangeLines = 200
)

// Ref is a file or command a memory names, as it names it.
type Ref struct {
	Kind string
	// Path is the file as written (relative to the memory's folder or
	// absolute); for a command, the script file it runs from.
	Path string
	// LineStart and LineEnd are the cited lines (1-based, inclusive);
	// 0 when the memory cites the whole file.
	LineStart, LineEnd int
	// Runner and Target name a command: make lint, npm run build.
	Runner, Target string
}

// Text is how the memory names the ref, for messages.
func (r Ref) Text() string {
	if r.Kind == KindCommand {
		switch r.Runner {
		case RunnerNPM:
			return "npm run " + r.Target
		case RunnerPNPM:
			return "pnpm run " + r.Target
		case RunnerYarn:
			return "yarn run " + r.Target
		}
		return r.Runner + " " + r.Target
	}
	switch {
	case r.LineStart > 0 && r.LineEnd > r.LineStart:
		return r.Path + ":" + strconv.Itoa(r.LineStart) + "-" + strconv.Itoa(r.LineEnd)
	case r.LineStart > 0:
		return r.Path + ":" + strconv.Itoa(r.LineStart)
	}
	return r.Path
}

// Runners whose targets are checked against the project's script files.
const (
	RunnerMake = "make"
	RunnerNPM  = "npm"
	RunnerPNPM = "pnpm"
	RunnerYarn = "yarn"
	RunnerJust = "just"
)

var (
	// pathRe finds path-looking tokens: a name with an extension or a
	// slash, optionally followed by a line or a range (":12", ":12-18",
	// "#L12-L18"). URLs are removed before it runs.
	pathRe = lazyre.New(`(?:^|[\s` + "`" + `'"(\[<,;])((?:~?/|\./|\.\./)?\.?[A-Za-z0-9_@+\-][A-Za-z0-9_@+.\-]*(?:/[A-Za-z0-9_@+.\-]+)*)(?::(\d{1,7})(?:-(\d{1,7}))?|#L(\d{1,7})(?:-L?(\d{1,7}))?)?`)
	urlRe  = lazyre.New(`[A-Za-z][A-Za-z0-9+.\-]*://\S+`)
	// linesRe finds "lines 12-18" / "line 40" right after a path.
	linesRe = lazyre.New(`^\s*(?:\(|,)?\s*lines?\s+(\d{1,7})(?:\s*(?:-|–|to)\s*(\d{1,7}))?`)
	// commandRe finds the script runners memctl can check.
	commandRe = lazyre.New(`(?:^|[\s` + "`" + `'"(;&|])(make|npm|pnpm|yarn|just)\s+((?:-[A-Za-z-]+(?:=\S+)?\s+)*)(run(?:-script)?\s+)?([A-Za-z0-9_][A-Za-z0-9_:.\-]*)`)
)

// Refs lists the files and commands text names, in order of first
// mention, without duplicates, at most MaxFilesPerMemory files and
// MaxCommandsPerMemory commands. It only finds candidates: Capture keeps
// those that exist.
func Refs(text string) []Ref {
	var out []Ref
	seen := map[string]bool{}
	files, cmds := 0, 0
	for _, line := range strings.Split(text, "\n") {
		for _, r := range commandRefs(line) {
			if cmds >= MaxCommandsPerMemory {
				break
			}
			if k := r.Kind + "\x00" + r.Runner + "\x00" + r.Target; !seen[k] {
				seen[k] = true
				out = append(out, r)
				cmds++
			}
		}
		for _, r := range fileRefs(line) {
			if files >= MaxFilesPerMemory {
				break
			}
			k := r.Kind + "\x00" + r.Text()
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, r)
			files++
		}
	}
	return out
}

func commandRefs(line string) []Ref {
	var out []Ref
	for _, m := range commandRe().FindAllStringSubmatch(line, -1) {
		runner, flags, run, target := m[1], m[2], m[3], m[4]
		if strings.Contains(flags, "-C") || strings.Contains(flags, "--prefix") || strings.Contains(flags, "--dir") ||
			strings.Contains(flags, "--cwd") || strings.Contains(flags, "-f") || strings.Contains(flags, "--file") {
			continue // runs scripts of another folder or file
		}
		switch runner {
		case RunnerMake:
			if strings.ContainsAny(target, "=") {
				continue
			}
		case RunnerNPM, RunnerPNPM, RunnerYarn:
			if run == "" {
				if !isScriptAlias(target) {
					continue // "npm install" and friends are npm's, not the project's
				}
				if target == "t" {
					target = "test"
				}
			} else if isPackageManagerCommand(target) && !isScriptAlias(target) {
				// "npm run install" is legal but a script named like a
				// builtin is rare; a prose "run install" is likelier.
				continue
			}
		}
		out = append(out, Ref{Kind: KindCommand, Runner: runner, Target: target})
	}
	return out
}

func fileRefs(line string) []Ref {
	line = urlRe().ReplaceAllStringFunc(line, func(s string) string { return strings.Repeat(" ", len(s)) })
	var out []Ref
	for _, idx := range pathRe().FindAllStringSubmatchIndex(line, -1) {
		p := line[idx[2]:idx[3]]
		p = strings.TrimRight(p, ".-")
		if !plausiblePath(p) {
			continue
		}
		r := Ref{Kind: KindFile, Path: p}
		a, b := group(line, idx, 2), group(line, idx, 3)
		if a == "" {
			a, b = group(line, idx, 4), group(line, idx, 5)
		}
		if a == "" {
			// "prune.go lines 12-18", "prune.go (line 40)"
			if m := linesRe().FindStringSubmatch(line[idx[1]:]); m != nil {
				a, b = m[1], m[2]
			}
		}
		r.LineStart, r.LineEnd = lineRange(a, b)
		out = append(out, r)
	}
	return out
}

// group returns capture group g of a match ("" when it did not take
// part): 2 and 3 are ":a-b", 4 and 5 are "#La-Lb".
func group(s string, idx []int, g int) string {
	if idx[2*g] < 0 {
		return ""
	}
	return s[idx[2*g]:idx[2*g+1]]
}

func lineRange(a, b string) (int, int) {
	start, _ := strconv.Atoi(a)
	if start <= 0 {
		return 0, 0
	}
	end, _ := strconv.Atoi(b)
	if end < start {
		end = start
	}
	if end-start+1 > maxRangeLines {
		return 0, 0
	}
	return start, end
}

// plausiblePath keeps tokens that could name a file: a slash or a file
// extension, not a version number, not only dots.
func plausiblePath(p string) bool {
	if len(p) < 3 || len(p) > 300 || strings.Trim(p, "./~") == "" {
		return false
	}
	base := p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		base = p[i+1:]
	}
	if base == "" {
		return false // a folder ("./internal/retain/..." once trimmed)
	}
	if strings.Contains(p, "/") {
		return true
	}
	if base[0] == '.' {
		return len(base) > 2 // a dotfile: .env, .gitignore
	}
	dot := strings.LastIndexByte(base, '.')
	if dot <= 0 || dot == len(base)-1 {
		// No extension: only well-known extensionless project files.
		return knownExtensionless[base]
	}
	ext := base[dot+1:]
	if ext[0] >= '0' && ext[0] <= '9' {
		return false // 1.2.3, v0.4.1
	}
	return true
}

var knownExtensionless = map[string]bool{
	"Makefile": true, "makefile": true, "GNUmakefile": true, "Dockerfile": true, "Justfile": true,
	"justfile": true, "Procfile": true, "Gemfile": true, "Rakefile": true, "Vagrantfile": true,
	"Containerfile": true, "Jenkinsfile": true, "LICENSE": true, "CODEOWNERS": true,
}

// packageManagerCommands are npm, pnpm and yarn subcommands that are not
// package scripts.
const packageManagerCommands = `install i ci add remove rm uninstall update up upgrade init create exec x dlx
publish pack link unlink audit outdated version view info why ls list config cache login logout whoami help
prune dedupe rebuild fund doctor set get workspace workspaces import store patch node env bin root search
owner access token profile team explain query pkg shrinkwrap star stars unpublish deprecate dist-tag edit
explore hook org ping prefix repo docs bugs completion diff sbom run`

// isPackageManagerCommand reports an npm, pnpm or yarn subcommand that is
// not a package script (install, ci, exec …), script aliases aside.
func isPackageManagerCommand(word string) bool {
	return slices.Contains(strings.Fields(packageManagerCommands), word)
}

// isScriptAlias reports a package script npm runs without "run": test,
// start, stop, restart.
func isScriptAlias(word string) bool {
	return slices.Contains([]string{"test", "t", "start", "stop", "restart"}, word)
}
