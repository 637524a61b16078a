package program

import (
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/memctl/memctl/internal/lazyre"
)

// Command lines: a chain of commands ("&&", "||", ";", line breaks), each a pipeline of stages. The work of a
// line is its last command that does more than look or print; its exit status is the last stage's.

// parts splits a line into the commands of its chain, stages a command into its pipes' stages; quoted
// text and an escaped semicolon (find … -exec … \;) are no structure, nor is a heredoc's text.
func parts(cmd string) []string {
	if strings.Contains(cmd, "<<") {
		cmd, _, _ = strings.Cut(cmd, "\n")
	}
	return split(cmd, false)
}

func stages(part string) []string { return split(part, true) }

func split(s string, pipes bool) []string {
	blank := blankQuotes(strings.ReplaceAll(s, `\;`, "  "), true)
	out, start := []string(nil), 0
	for i := 0; i < len(blank); i++ {
		c, double := blank[i], i+1 < len(blank) && blank[i+1] == blank[i]
		switch {
		case pipes && c == '|' && !double && (i == 0 || blank[i-1] != '|'):
		case !pipes && (c == ';' || c == '\n'):
		case !pipes && (c == '&' || c == '|') && double:
			out, start, i = append(out, strings.TrimSpace(s[start:i])), i+2, i+1
			continue
		default:
			continue
		}
		out, start = append(out, strings.TrimSpace(s[start:i])), i+1
	}
	out = append(out, strings.TrimSpace(s[start:]))
	return slices.DeleteFunc(out, func(p string) bool { return p == "" && !pipes })
}

// Work is what a line does: its last command that does more than look, else its last not a fallback after "||".
func Work(cmd string) string {
	ps, look := parts(cmd), ""
	for i := len(ps) - 1; i >= 0; i-- {
		if !looksOnly(ps[i]) {
			return ps[i]
		}
		if b, _, _ := strings.Cut(cmd, ps[i]); look == "" && !strings.HasSuffix(strings.TrimSpace(b), "||") {
			look = ps[i] // "ls d || echo none": the echo ran only if the ls failed
		}
	}
	return look
}

// looksOnly reports a command whose first stage only looks, prints or sets the shell up (cd, export, "$x = …").
func looksOnly(part string) bool {
	f := append(coreWords(strings.Fields(stages(part)[0])), "")
	return f[0] == "" || slices.Contains([]string{"cd", "pushd", "popd", "export"}, f[0]) ||
		strings.HasPrefix(f[0], "$") && strings.HasSuffix(f[1], "=") || readOnlyProgram(f[:len(f)-1]) // "$x += 1"
}

// HidesExitStatus reports a line whose success is not its work's: its work was sent to the background ("srv &"),
// or its last command or, without pipefail, its last stage only reads or prints. A failure is always the line's:
// the caller asks only of a success.
func HidesExitStatus(cmd string) bool {
	ps := append([]string{""}, parts(cmd)...) // a line of no command ends in an empty one
	last, st := ps[len(ps)-1], stages(ps[len(ps)-1])
	return looksOnly(last) && Work(cmd) != last || strings.HasSuffix(Work(cmd), "&") ||
		len(st) > 1 && !strings.Contains(cmd, "pipefail") && isReader(name(st[len(st)-1])) && !looksOnly(st[0])
}

// EndsInSearch reports a line ending in a search (grep and its kin): exit 1 with no output found nothing.
func EndsInSearch(cmd string) bool {
	ps := append([]string{""}, parts(cmd)...)
	st := stages(ps[len(ps)-1])
	return searchers()[strings.ToLower(name(st[len(st)-1]))]
}

// coreWords drops what does not say what a command does: env assignments, sudo, timeout N, npx, uv run, python -m.
func coreWords(f []string) []string {
	for len(f) > 0 {
		switch w := f[0]; {
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "-"), w == "env" || wrappers()[w]:
			f = f[1:]
		case w == "timeout" && len(f) > 1,
			len(f) > 2 && (wrapperSubs()[w+":"+f[1]] || (w == "python" || w == "python3") && f[1] == "-m"):
			f = f[2:]
		default:
			return f
		}
	}
	return f
}

// Core is the words of a line's work without what coreWords drops.
func Core(cmd string) []string { return coreWords(strings.Fields(Work(cmd))) }

func name(part string) string {
	if f := coreWords(strings.Fields(part)); len(f) > 0 {
		return path.Base(f[0])
	}
	return ""
}

// Name is the program a line's work runs.
func Name(cmd string) string { return name(Work(cmd)) }

// Family names what a command does ("go test", "npm run lint"): "go test ./..." and "go test ./x" are one work.
func Family(cmd string) string {
	f := Core(cmd)
	if len(f) == 0 {
		return strings.TrimSpace(cmd)
	}
	prog := path.Base(f[0])
	if !runners()[f[0]] || len(f) < 2 {
		return prog
	}
	args := f[1:]
	for len(args) > 2 && valueFlags()[args[0]] {
		args = args[2:] // git -C dir push, pnpm --filter api build: the subcommand follows
	}
	switch {
	case args[0] == "run" && len(args) > 1 && slices.Contains([]string{"npm", "yarn", "pnpm", "bun", "mise"}, prog):
		return prog + " run " + args[1]
	case !strings.HasPrefix(args[0], "-"):
		return prog + " " + args[0]
	}
	return prog
}

// readOnly reports a line each command of which only looks around, in every stage ("ls | xargs rm" does not), and
// runs no launcher: what a launcher runs it may first fetch.
func readOnly(cmd string) bool {
	ps := parts(cmd)
	for _, p := range ps {
		f, w := coreWords(strings.Fields(p)), append(strings.Fields(p), "", "")
		switch {
		case len(f) == 0 || launchers()[w[0]] || runners()[w[0]] && launchers()[w[1]]: // npx x, mise x -- x
			return false
		case f[0] == "cd" || f[0] == "pushd" || f[0] == "popd" || f[0] == "true" || f[0] == ":":
			continue // moving around, or "|| true", changes nothing
		}
		for i, st := range stages(p) {
			g := coreWords(strings.Fields(st))
			for i > 0 && len(g) > 0 && (g[0] == "xargs" || strings.HasPrefix(g[0], "-")) {
				g = g[1:] // what counts is what xargs runs
			}
			if len(g) == 0 || !readOnlyProgram(g) || i > 0 && !isReader(path.Base(g[0])) {
				return false
			}
		}
	}
	return len(ps) > 0 // a line of no command does not look around
}

// Explores reports a line that only looks around, its first line writing no file (a redirection, tee, sed -i …).
func Explores(cmd string) bool { return readOnly(cmd) && written(strings.Split(cmd, "\n")[0]) == nil }

// readOnlyProgram reports a reader, a read-only git command, or a tool asked for a state ("gh pr view").
func readOnlyProgram(f []string) bool {
	prog := path.Base(f[0])
	i := slices.IndexFunc(f, func(a string) bool { return a == "-exec" || a == "-execdir" || a == "-ok" })
	if prog == "find" && i > 0 && i+1 < len(f) {
		return readOnlyProgram(f[i+1:]) // find runs what follows -exec on what it finds
	}
	switch {
	case writes(prog, f[1:]):
		return false
	case prog == "git":
		args := gitArgs(f)
		return gitReadOnly(args) || len(args) > 1 && queryVerbs()[args[1]] // git stash list, git worktree list
	case isReader(prog):
		return true
	}
	for i := 1; i < len(f) && i < 4 && !strings.ContainsAny(f[i], "|;&<>"); i++ {
		if queryVerbs()[f[i]] {
			return true
		}
	}
	return false
}

func isReader(prog string) bool { return readers()[strings.ToLower(prog)] }

// gitArgs returns a git command's words after "git" and -C/-c options.
func gitArgs(f []string) []string {
	if len(f) == 0 || path.Base(f[0]) != "git" {
		return nil
	}
	args := f[1:]
	for len(args) > 2 && (args[0] == "-C" || args[0] == "-c") {
		args = args[2:]
	}
	return args
}

// gitReadOnly reports git that only looks: status, log …; branch, remote (no operand), config (one); no write flag.
func gitReadOnly(args []string) bool {
	if len(args) == 0 || !readOnlyGit()[args[0]] {
		return false
	}
	operands, writes := 0, false
	for _, a := range args[1:] {
		switch {
		case !strings.HasPrefix(a, "-"):
			operands++
		case gitWriteFlags()[strings.SplitN(a, "=", 2)[0]]:
			writes = true
		}
	}
	limit, listing := map[string]int{"branch": 0, "remote": 0, "config": 1}[args[0]]
	return !listing || !writes && operands <= limit
}

// IsCheck reports a line whose work's success says the work is right: tests, builds, linters, type checkers,
// dry runs, and targets named for them ("make test", "npm run ci"; not "make deploy" nor "gofmt -w").
func IsCheck(cmd string) bool {
	f := Core(cmd)
	if len(f) == 0 {
		return false
	}
	prog, args := path.Base(f[0]), f[1:]
	has := func(ws ...string) bool {
		return slices.ContainsFunc(args, func(a string) bool { return slices.Contains(ws, a) })
	}
	flags, verifies := verifyFlags[prog]
	switch {
	case neverChecks()[prog] || writes(prog, args),
		prog == "ruff" && len(args) > 0 && args[0] == "format" && !has("--check", "--diff"): // a formatter rewrites
		return false
	case verifies && (flags == nil || has(flags...)) || has("--dry-run", "--check"):
		return true
	case prog == "make": // a target named for a check ("test-unit", "ci")
		targets := makeTargets(args)
		return len(targets) == 0 || slices.ContainsFunc(targets, func(t string) bool {
			return t == "all" || checkTargets()[t] || slices.ContainsFunc(alnumRuns(t), isPurpose)
		})
	case prog == "pre-commit":
		return len(args) > 0 && args[0] == "run"
	case (len(args) > 1 && args[0] == "run" || prog == "just" || prog == "task" || prog == "mage") &&
		slices.ContainsFunc(args, func(a string) bool { return checkTargets()[a] }):
		return true
	}
	return slices.ContainsFunc(checkParts(f), isPurpose)
}

func isPurpose(word string) bool { return purposeOf()[word] != "" }

func makeTargets(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case strings.ContainsAny(a, "|;&<>"):
			return out
		case slices.Contains([]string{"-C", "-f", "--file", "--directory"}, a),
			a == "-j" && i+1 < len(args) && isNumber(args[i+1]):
			i++
		case !strings.HasPrefix(a, "-") && !strings.Contains(a, "="):
			out = append(out, a)
		}
	}
	return out
}

// Purpose names what a check verifies (purposeWords); a bare make builds.
func Purpose(cmd string) string {
	f := Core(cmd)
	for _, pw := range purposeWords {
		if slices.ContainsFunc(checkParts(f), func(w string) bool { return purposeOf()[w] == pw.purpose }) {
			return pw.purpose
		}
	}
	if len(f) > 0 && path.Base(f[0]) == "make" {
		if ts := makeTargets(f[1:]); len(ts) == 0 || len(ts) == 1 && ts[0] == "all" {
			return "build"
		}
	}
	return "check"
}

// checkParts splits a command's first words, not code given inline (-c, -e), into lower-case letter and digit runs.
func checkParts(f []string) []string {
	var out []string
	for i, w := range f {
		if i > 3 || strings.ContainsAny(w, "|;&") || w == "-c" || w == "-e" {
			break
		}
		out = append(out, alnumRuns(path.Base(w))...)
	}
	return out
}

func alnumRuns(name string) []string {
	return strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// RunsFile is the file a line's work runs: an interpreter's script ("bash x.sh") or its program as a path ("./x").
func RunsFile(cmd string) string {
	f := append(Core(cmd), "", "")
	if interpreters()[path.Base(f[0])] && !strings.HasPrefix(f[1], "-") {
		return f[1]
	}
	return map[bool]string{true: f[0]}[strings.Contains(f[0], "/")]
}

// WithoutFilters drops what only shapes a command's output: trailing pipes into readers, "2>&1", ">/dev/null".
func WithoutFilters(cmd string) string {
	st := stages(cmd)
	for len(st) > 1 && isReader(name(st[len(st)-1])) {
		st = st[:len(st)-1]
	}
	return strings.Join(slices.DeleteFunc(strings.Fields(strings.Join(st, " | ")), func(w string) bool {
		return w == "2>&1" || w == ">/dev/null" || w == "2>/dev/null"
	}), " ")
}

// Dir is the folder a line first works in: "cd /tmp/try && …", "git -C /tmp/x commit"; "" when none.
func Dir(cmd string) string {
	w := shellWords(cmd)
	switch {
	case len(w) > 1 && (w[0] == "cd" || w[0] == "pushd"):
		return strings.TrimRight(w[1], ";")
	case len(w) > 2 && path.Base(w[0]) == "git" && w[1] == "-C":
		return w[2]
	}
	return ""
}

// WorktreeAdded is the folder a `git worktree add` makes, else "".
func WorktreeAdded(cmd string) string {
	for _, part := range parts(cmd) {
		args := gitArgs(shellWords(part))
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

// searchers are the programs whose first operand is a pattern.
var searchers = lazyre.Words(`rg grep egrep fgrep ag ack sls select-string`)
