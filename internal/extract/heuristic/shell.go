package heuristic

import (
	"github.com/memctl/memctl/internal/program"
	"path"
	"slices"
	"strings"
)

// Shell command lines, read as a person would: which program, which
// subcommand, whether it only looks around, whether it verifies work,
// which files it changes or restores. Nothing here knows any agent.

// pipesOutput reports a command whose exit status is that of a later stage
// of a pipeline ("go test ./... | tail -20"): a zero status says nothing
// about the first stage.
func pipesOutput(cmd string) bool {
	for i := 0; i < len(cmd); i++ {
		if cmd[i] == '|' {
			if i+1 < len(cmd) && cmd[i+1] == '|' {
				i++
				continue
			}
			return !strings.Contains(cmd, "pipefail")
		}
	}
	return false
}

type pathOp struct{ path, op string }

// filesFromShell recognises the simplest file-changing shell commands
// (rm, touch, sed -i, git rm) when they name plain paths.
func filesFromShell(cmd string) []pathOp {
	if m := heredocWriteRE().FindStringSubmatch(program.DropCd(cmd)); m != nil {
		op := "write"
		if m[1] == ">>" {
			op = "update"
		}
		return []pathOp{{strings.Trim(m[2], `'"`), op}}
	}
	// Quoted text is an argument, not shell syntax: the $ in
	// sed -i 's/\$1 - \$2/…/' calc.sh expands nothing.
	if strings.ContainsAny(blankQuoted(cmd), "|;&><*?$`\n") {
		return nil
	}
	f := program.CoreWords(shellWords(program.DropCd(cmd)))
	if len(f) < 2 {
		return nil
	}
	op := ""
	switch f[0] {
	case "sed":
		if slices.ContainsFunc(f, func(a string) bool { return strings.HasPrefix(a, "-i") }) {
			if last := f[len(f)-1]; !strings.HasPrefix(last, "-") && len(f) > 2 {
				return []pathOp{{strings.Trim(last, `'"`), "update"}}
			}
		}
		return nil
	case "rm":
		op = "delete"
	case "touch":
		op = "add"
	case "git":
		if f[1] == "rm" {
			op, f = "delete", f[1:]
		}
	}
	if op == "" {
		return nil
	}
	var out []pathOp
	for _, a := range f[1:] {
		if strings.HasPrefix(a, "-") || len(out) == 10 {
			continue
		}
		out = append(out, pathOp{strings.Trim(a, `'"`), op})
	}
	return out
}

// restored is what a command undoes: the files it restores from git, or
// all uncommitted changes (git stash, git reset --hard, git checkout .).
type restored struct {
	all   bool
	files []string
	// unstash is a git stash pop/apply: it brings stashed changes back.
	unstash bool
}

// revertsFiles reads a command that throws edits away.
func revertsFiles(cmd string) restored {
	var r restored
	for _, part := range splitChain(cmd) {
		f := program.Core(part)
		if len(f) < 2 || f[0] != "git" {
			continue
		}
		args := f[1:]
		for len(args) > 2 && (args[0] == "-C" || args[0] == "-c") {
			args = args[2:]
		}
		if len(args) == 0 {
			continue
		}
		switch args[0] {
		case "stash":
			if len(args) > 1 && (args[1] == "pop" || args[1] == "apply") {
				r.unstash = true
			} else if len(args) == 1 || args[1] == "push" || args[1] == "save" || strings.HasPrefix(args[1], "-") {
				r.all = true
			}
		case "reset":
			if slices.Contains(args, "--hard") {
				r.all = true
			}
		case "checkout", "restore":
			if args[0] == "restore" && slices.Contains(args, "--staged") && !slices.Contains(args, "--worktree") {
				continue // only unstages: the edit stays in the file
			}
			var paths []string
			for _, a := range args[1:] {
				if !strings.HasPrefix(a, "-") {
					paths = append(paths, strings.Trim(a, `'"`))
				}
			}
			if len(paths) == 1 && (paths[0] == "." || paths[0] == ":/") {
				r.all = true
			} else {
				// "git checkout x" restores x only when x is a path, not a
				// branch: the caller keeps only files the task changed.
				r.files = append(r.files, paths...)
			}
		}
	}
	return r
}

// splitChain splits "a && b; c" into its commands.
func splitChain(cmd string) []string {
	return strings.FieldsFunc(cmd, func(r rune) bool { return r == ';' || r == '&' || r == '\n' })
}

// argDiff describes how a passing command differs from a failing one of
// the same family: the words it added and the words it dropped.
func argDiff(failed, passed string) (added, dropped []string) {
	a, b := strings.Fields(failed), strings.Fields(passed)
	inA := map[string]int{}
	for _, w := range a {
		inA[w]++
	}
	inB := map[string]int{}
	for _, w := range b {
		inB[w]++
	}
	for _, w := range b {
		if inA[w] == 0 {
			added = append(added, w)
		} else {
			inA[w]--
		}
	}
	for _, w := range a {
		if inB[w] == 0 {
			dropped = append(dropped, w)
		} else {
			inB[w]--
		}
	}
	return added, dropped
}

// wrapperFiles maps a task runner to the files that define its targets. A
// runner target that passed next to a plain command counts as running that
// command ("`go vet ./...` through `make lint`") only when the task edited
// the runner's file, i.e. the agent wired the two together.
var wrapperFiles = map[string][]string{
	"make": {"Makefile", "makefile", "GNUmakefile"}, "just": {"justfile", "Justfile", ".justfile"},
	"task": {"Taskfile.yml", "Taskfile.yaml"}, "npm": {"package.json"}, "yarn": {"package.json"},
	"pnpm": {"package.json"}, "bun": {"package.json"},
}

// toolNeedle is the text a final answer would use to name a failing
// command: its program ("golangci-lint"), or its family when the program is
// a multiplexer whose bare name says nothing ("npm run lint", not "npm").
func toolNeedle(cmd string) string {
	tool := program.Name(cmd)
	if program.IsRunner(tool) || tool == "python" || tool == "python3" || len(tool) < 3 {
		return program.Family(cmd)
	}
	return tool
}

// fileReaders print files named by their arguments.
var fileReaders = wordSet(`cat sed head tail nl less bat more`)

// readsFromShell names the files a simple reading command prints ("cat
// a.go", "sed -n '1,80p' main.go", "nl -ba x.ts").
func readsFromShell(cmd string) []string {
	if strings.ContainsAny(cmd, "|;&><*?$`") {
		return nil
	}
	f := program.Core(cmd)
	if len(f) < 2 || !fileReaders()[path.Base(f[0])] {
		return nil
	}
	var out []string
	script := path.Base(f[0]) == "sed"
	for _, a := range f[1:] {
		switch {
		case strings.HasPrefix(a, "-"):
			continue
		case script:
			script = false // sed's first operand is its script
			continue
		}
		a = strings.Trim(a, `'"`)
		if (strings.Contains(a, ".") || strings.Contains(a, "/")) && !isNumber(strings.ReplaceAll(a, ",", "")) && len(out) < 4 {
			out = append(out, a)
		}
	}
	return out
}

// blankQuoted replaces the text between single quotes, and between double
// quotes when it expands nothing, with spaces, so that what is left is the
// command's own syntax.
func blankQuoted(cmd string) string {
	b := []byte(cmd)
	for i := 0; i < len(b); i++ {
		q := b[i]
		if q != '\'' && q != '"' {
			continue
		}
		j := strings.IndexByte(cmd[i+1:], q)
		if j < 0 {
			break
		}
		end := i + 1 + j
		if q == '"' && strings.ContainsAny(cmd[i+1:end], "$`\\") {
			i = end
			continue
		}
		for k := i + 1; k < end; k++ {
			b[k] = ' '
		}
		i = end
	}
	return string(b)
}

// shellWords splits a simple command line into words as the shell does for
// quotes: 'a b' and "a b" are one word, without their quotes.
func shellWords(cmd string) []string {
	var out []string
	var w strings.Builder
	in, open := byte(0), false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case in != 0 && c == in:
			in = 0
		case in != 0:
			w.WriteByte(c)
		case c == '\'' || c == '"':
			in, open = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if open || w.Len() > 0 {
				out = append(out, w.String())
			}
			w.Reset()
			open = false
		default:
			w.WriteByte(c)
			open = true
		}
	}
	if open || w.Len() > 0 {
		out = append(out, w.String())
	}
	return out
}

// writesFile reports a command line whose first line sends output to a
// file: a redirection (> f, >> f, but not 2>&1 or > /dev/null) or tee with
// a file. The lines after the first are a heredoc's text, not syntax.
func writesFile(cmd string) bool {
	line, _, _ := strings.Cut(cmd, "\n")
	line = blankQuoted(line)
	for i := 0; i < len(line); i++ {
		if line[i] != '>' || (i > 0 && (line[i-1] == '=' || line[i-1] == '-')) {
			continue
		}
		j := i + 1
		for j < len(line) && (line[j] == '>' || line[j] == '|' || line[j] == ' ') {
			j++
		}
		k := j
		for k < len(line) && !strings.ContainsRune(" ;&|<>)", rune(line[k])) {
			k++
		}
		if target := line[j:k]; target != "" && !strings.HasPrefix(line[j:], "&") && !strings.HasPrefix(target, "/dev/") {
			return true
		}
		i = k - 1
	}
	for _, part := range strings.Split(line, "|") {
		f := strings.Fields(part)
		if len(f) < 2 || path.Base(f[0]) != "tee" {
			continue
		}
		for _, a := range f[1:] {
			if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "/dev/") {
				return true
			}
		}
	}
	return false
}

// heredocWriteRE is "cat > f << 'EOF'" (or >>) opening a command: the text
// that follows goes into f.
var heredocWriteRE = lazyRE(`^\s*cat\s*(>>?)\s*('[^'\s]+'|"[^"\s$` + "`" + `]+"|[^\s;&|<>$` + "`" + `*?]+)\s*<<-?\s*['"]?\w+['"]?\s*\n`)

// isExploration reports commands that only look around: a reader the
// program table knows, or a read-only git command, unless it writes a file
// through a redirection (cat > f <<EOF, echo x >> f, … | tee f).
func isExploration(cmd string) bool { return !writesFile(cmd) && program.ReadOnly(cmd) }
