package program

import (
	"path"
	"slices"
	"strings"
)

// What a shell command line does to files: which it writes, deletes,
// restores from git or only prints, and whether its exit status is its
// own. Only the simplest forms are read; anything the shell could expand
// to other paths is left unread rather than guessed.

// HidesExitStatus reports a pipeline whose exit status is that of a later
// stage ("go test ./... | tail -20"): a zero status then says nothing
// about the first stage, unless the line sets pipefail.
func HidesExitStatus(cmd string) bool {
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

// FileChange is one file a command line changes and how: "write",
// "update", "delete" or "add".
type FileChange struct{ Path, Op string }

// FilesChanged reads the simplest file-changing command lines (rm, touch,
// sed -i, git rm, cat > f << EOF) when they name plain paths. A change
// made by a shell command reaches no edit tool, so this is the only way
// the files it touched are known.
func FilesChanged(cmd string) []FileChange {
	if m := heredocWriteRE().FindStringSubmatch(DropCd(cmd)); m != nil {
		op := "write"
		if m[1] == ">>" {
			op = "update"
		}
		return []FileChange{{strings.Trim(m[2], `'"`), op}}
	}
	// Quoted text is an argument, not shell syntax: the $ in
	// sed -i 's/\$1 - \$2/…/' calc.sh expands nothing.
	if strings.ContainsAny(blankQuoted(cmd), "|;&><*?$`\n") {
		return nil
	}
	f := CoreWords(shellWords(DropCd(cmd)))
	if len(f) < 2 {
		return nil
	}
	op := ""
	switch f[0] {
	case "sed":
		return sedInPlace(f)
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
	var out []FileChange
	for _, a := range f[1:] {
		if strings.HasPrefix(a, "-") || len(out) == 10 {
			continue
		}
		out = append(out, FileChange{strings.Trim(a, `'"`), op})
	}
	return out
}

// sedInPlace names the file a "sed -i" edits: its last operand.
func sedInPlace(f []string) []FileChange {
	if slices.ContainsFunc(f, func(a string) bool { return strings.HasPrefix(a, "-i") }) {
		if last := f[len(f)-1]; !strings.HasPrefix(last, "-") && len(f) > 2 {
			return []FileChange{{strings.Trim(last, `'"`), "update"}}
		}
	}
	return nil
}

// heredocWriteRE is "cat > f << 'EOF'" (or >>) opening a command: the text
// that follows goes into f.
var heredocWriteRE = lazyRE(`^\s*cat\s*(>>?)\s*('[^'\s]+'|"[^"\s$` + "`" + `]+"|[^\s;&|<>$` + "`" + `*?]+)\s*<<-?\s*['"]?\w+['"]?\s*\n`)

// Restore is what a command line throws away: all uncommitted changes
// (git stash, git reset --hard, git checkout .), or the files it restores
// from git; or, for git stash pop and apply, the stashed changes it
// brings back.
type Restore struct {
	All     bool
	Files   []string
	Unstash bool
}

// Empty reports a command that restores nothing.
func (r Restore) Empty() bool { return !r.All && !r.Unstash && len(r.Files) == 0 }

// Restores reads the git commands of a line that throw edits away or
// bring stashed ones back. "git checkout x" restores x only when x is a
// path, not a branch: the caller keeps only files it knows were changed.
func Restores(cmd string) Restore {
	var r Restore
	for _, part := range splitChain(cmd) {
		f := Core(part)
		if len(f) < 2 || f[0] != "git" {
			continue
		}
		args := GitArgs(f)
		if len(args) == 0 {
			continue
		}
		switch args[0] {
		case "stash":
			if len(args) > 1 && (args[1] == "pop" || args[1] == "apply") {
				r.Unstash = true
			} else if len(args) == 1 || args[1] == "push" || args[1] == "save" || strings.HasPrefix(args[1], "-") {
				r.All = true
			}
		case "reset":
			if slices.Contains(args, "--hard") {
				r.All = true
			}
		case "checkout", "restore":
			if args[0] == "restore" && slices.Contains(args, "--staged") && !slices.Contains(args, "--worktree") {
				continue // only unstages: the edit stays in the file
			}
			paths := Operands(args[1:])
			if len(paths) == 1 && (paths[0] == "." || paths[0] == ":/") {
				r.All = true
			} else {
				r.Files = append(r.Files, paths...)
			}
		}
	}
	return r
}

// Operands returns the words that are not options, without their quotes.
func Operands(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			out = append(out, strings.Trim(a, `'"`))
		}
	}
	return out
}

// splitChain splits "a && b; c" into its commands.
func splitChain(cmd string) []string {
	return strings.FieldsFunc(cmd, func(r rune) bool { return r == ';' || r == '&' || r == '\n' })
}

// fileReaders print the files their arguments name.
var fileReaders = wordSet(`cat sed head tail nl less bat more`)

// FilesRead names up to four files a simple reading command prints ("cat
// a.go", "sed -n '1,80p' main.go", "nl -ba x.ts"): what an agent read
// through the shell instead of a read tool.
func FilesRead(cmd string) []string {
	if strings.ContainsAny(cmd, "|;&><*?$`") {
		return nil
	}
	f := Core(cmd)
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

// WritesFile reports a command line whose first line sends output to a
// file: a redirection (> f, >> f, but not 2>&1 or > /dev/null) or tee with
// a file. The lines after the first are a heredoc's text, not syntax.
func WritesFile(cmd string) bool {
	line, _, _ := strings.Cut(cmd, "\n")
	line = blankQuoted(line)
	return redirectsToFile(line) || teesToFile(line)
}

// redirectsToFile reports a "> f" or ">> f" whose target is a file.
func redirectsToFile(line string) bool {
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
	return false
}

// teesToFile reports a pipeline stage "tee f" with a file argument.
func teesToFile(line string) bool {
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

// Explores reports a command that only looks around: a reader the table
// knows, or a read-only git command, unless it writes a file through a
// redirection (cat > f <<EOF, echo x >> f, … | tee f).
func Explores(cmd string) bool { return !WritesFile(cmd) && ReadOnly(cmd) }

// blankQuoted replaces the text between single quotes, and between double
// quotes when it expands nothing, with spaces, so that what is left is the
// command's own syntax.
func blankQuoted(cmd string) string { return blankQuotes(cmd, false) }

// blankQuotes blanks quoted text; with all, also double-quoted text that
// expands a variable or a command ("$x", "`y`"), whose words are no
// structure of the line either.
func blankQuotes(cmd string, all bool) string {
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
		if !all && q == '"' && strings.ContainsAny(cmd[i+1:end], "$`\\") {
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

// ArgDiff returns how one command line differs from another of the same
// family, word by word: the words the second added and those it dropped,
// each counted as often as it occurs. A retry that passed after adding
// "--set-upstream origin x" is told apart from one that ran other paths.
func ArgDiff(failed, passed string) (added, dropped []string) {
	a, b := strings.Fields(failed), strings.Fields(passed)
	return missingFrom(b, a), missingFrom(a, b)
}

// missingFrom returns the words of have, in order, that want lacks, each
// occurrence counted once.
func missingFrom(have, want []string) []string {
	left := map[string]int{}
	for _, w := range want {
		left[w]++
	}
	var out []string
	for _, w := range have {
		if left[w] == 0 {
			out = append(out, w)
		} else {
			left[w]--
		}
	}
	return out
}

// SpokenName is the name a person would give a command when writing
// about it: its program ("golangci-lint"), or its family when the program
// runs others and its bare name says nothing ("npm run lint", not "npm").
func SpokenName(cmd string) string {
	tool := Name(cmd)
	if IsRunner(tool) || tool == "python" || tool == "python3" || len(tool) < 3 {
		return Family(cmd)
	}
	return tool
}

// targetFiles maps a task runner to the files that define its targets.
var targetFiles = map[string][]string{
	"make": {"Makefile", "makefile", "GNUmakefile"}, "just": {"justfile", "Justfile", ".justfile"},
	"task": {"Taskfile.yml", "Taskfile.yaml"}, "npm": {"package.json"}, "yarn": {"package.json"},
	"pnpm": {"package.json"}, "bun": {"package.json"},
}

// TargetFiles names the files that define a task runner's targets
// (Makefile for make, package.json for npm), nil for other programs: a
// target run beside a plain command runs that command only when one of
// them was edited to say so.
func TargetFiles(runner string) []string { return targetFiles[runner] }

// Dir is the folder a command line works in before anything else: where
// it moves to ("cd /tmp/try && git init …", "pushd build; make") or the
// folder git is pointed at ("git -C /tmp/x commit"); "" when none.
func Dir(cmd string) string {
	w := shellWords(cmd)
	if len(w) < 2 {
		return ""
	}
	switch {
	case w[0] == "cd" || w[0] == "pushd":
		return strings.TrimRight(w[1], ";")
	case path.Base(w[0]) == "git" && w[1] == "-C" && len(w) > 2:
		return w[2]
	}
	return ""
}

// WorktreeAdded is the folder a `git worktree add` makes, "" for any other
// command: work done there is the project's, wherever the folder is.
func WorktreeAdded(cmd string) string {
	for _, part := range splitChain(cmd) {
		args := GitArgs(shellWords(strings.TrimSpace(part)))
		if len(args) < 3 || args[0] != "worktree" || args[1] != "add" {
			continue
		}
		for i := 2; i < len(args); i++ {
			switch a := args[i]; {
			case a == "-b" || a == "-B" || a == "--reason":
				i++ // its value
			case !strings.HasPrefix(a, "-"):
				return a
			}
		}
	}
	return ""
}

// LookedIn returns what a look around (a search, a listing) looks in: its
// operands, the pattern of a search aside; nil for any other command.
// `rg x node_modules/a` looks in another place than `rg x node_modules/b`,
// and `rg x srv` than `rg x server`, so one cannot stand in for the
// other.
func LookedIn(cmd string) []string {
	if !ReadOnly(cmd) {
		return nil
	}
	w := CoreWords(shellWords(WithoutFilters(DropCd(cmd))))
	if len(w) == 0 {
		return nil
	}
	patternFirst := searchers()[strings.ToLower(path.Base(w[0]))]
	var out []string
	for i := 1; i < len(w); i++ {
		switch a := w[i]; {
		case a == "-e" || a == "--regexp" || a == "-f" || a == "--file":
			patternFirst = false // the pattern comes with its option
			i++
		case strings.HasPrefix(a, "-") || isNumber(a):
		case patternFirst:
			patternFirst = false
		default:
			out = append(out, a)
		}
	}
	return out
}

// searchers are the programs whose first operand is a pattern.
var searchers = wordSet(`rg grep egrep fgrep ag ack sls select-string`)
