package heuristic

import (
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Shell command lines, read as a person would: which program, which
// subcommand, whether it only looks around, whether it verifies work,
// which files it changes or restores. Nothing here knows any agent.

// commandCore drops what does not say what a command does: a leading
// "cd dir &&", environment assignments, sudo, time, timeout N.
func commandCore(cmd string) []string {
	return coreWords(strings.Fields(dropCd(cmd)))
}

// dropCd drops a leading "cd dir &&".
func dropCd(cmd string) string {
	if i := strings.LastIndex(cmd, "&& "); i >= 0 && strings.HasPrefix(strings.TrimSpace(cmd), "cd ") {
		cmd = cmd[i+3:]
	}
	return cmd
}

// coreWords drops the environment assignments and wrappers (sudo, time,
// timeout N) that open a command's words.
func coreWords(f []string) []string {
	for len(f) > 0 {
		switch {
		case strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-"):
			f = f[1:]
		case f[0] == "sudo" || f[0] == "time" || f[0] == "env" || f[0] == "nice" || f[0] == "command":
			f = f[1:]
		case f[0] == "timeout" && len(f) > 1:
			f = f[2:]
		default:
			return f
		}
	}
	return f
}

// pipeRE splits a command line at its pipes ("|", not "||").
var pipeRE = lazyRE(`\s\|\s`)

// withoutFilters drops what only shapes a command's output: trailing
// pipes into programs that only read (tail, head, grep …) and stream
// redirections ("2>&1", ">/dev/null").
func withoutFilters(cmd string) string {
	parts := pipeRE().Split(cmd, -1)
	for len(parts) > 1 && readOnly()[firstWord(parts[len(parts)-1])] {
		parts = parts[:len(parts)-1]
	}
	var kept []string
	for _, w := range strings.Fields(strings.Join(parts, " | ")) {
		if w != "2>&1" && w != ">/dev/null" && w != "2>/dev/null" {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}

// envPrefix returns the variable assignments that open a command line,
// which are part of the environment it ran in.
func envPrefix(cmd string) []string {
	var out []string
	for _, w := range strings.Fields(cmd) {
		if w == "sudo" || w == "env" {
			continue
		}
		if !strings.Contains(w, "=") || strings.HasPrefix(w, "-") {
			break
		}
		out = append(out, w)
	}
	return out
}

var multiplexers = wordSet(`go npm yarn pnpm bun npx cargo make git docker uv poetry dotnet mvn gradle ./gradlew
kubectl terraform pip bundle mix swift deno just task nx gh helm systemctl`)

// commandFamily names what a command does, e.g. "go test" or "pytest", so
// that "go test ./..." and "go test ./internal/x -run Foo" count as retries of
// one another.
func commandFamily(cmd string) string {
	f := commandCore(cmd)
	if len(f) == 0 {
		return cmd
	}
	name := path.Base(f[0])
	if (name == "python" || name == "python3") && len(f) > 2 && f[1] == "-m" {
		return name + " -m " + f[2]
	}
	if multiplexers()[f[0]] && len(f) > 1 {
		args := f[1:]
		// git -C dir push: the subcommand follows the global options.
		for name == "git" && len(args) > 2 && (args[0] == "-C" || args[0] == "-c") {
			args = args[2:]
		}
		sub := args[0]
		if sub == "run" && len(args) > 1 && (name == "npm" || name == "yarn" || name == "pnpm" || name == "bun" || name == "uv" || name == "poetry") {
			return name + " run " + args[1]
		}
		if !strings.HasPrefix(sub, "-") {
			return name + " " + sub
		}
	}
	return name
}

func firstWord(cmd string) string {
	f := commandCore(cmd)
	if len(f) == 0 {
		return ""
	}
	return path.Base(f[0])
}

var readOnly = wordSet(`ls cat sed rg grep find head tail pwd wc tree echo which file stat less nl fd du df
printenv type jq awk sort uniq diff whoami date uname realpath readlink basename dirname ps pgrep top
lsof netstat ss id env hostname uptime free history man help yq bat exa eza column cut tr xxd od
hexdump strings`)

// basicCmds are shell utilities too common to tell one task from another.
var basicCmds = wordSet(`rm mv cp mkdir touch chmod chown cd sed ln rmdir kill pkill sleep true false export
source set unset`)

var readOnlyGit = wordSet(`status diff log show branch blame rev-parse ls-files remote describe shortlog
reflog grep config fetch`)

// isExploration reports commands that only look around. Their exit status
// says little (rg exits 1 on no match) so they never count as failures.
func isExploration(cmd string) bool {
	f := commandCore(cmd)
	if len(f) == 0 {
		return false
	}
	name := path.Base(f[0])
	if name == "sed" && slices.ContainsFunc(f, func(a string) bool { return strings.HasPrefix(a, "-i") }) {
		return false
	}
	if writesFile(cmd) {
		return false // cat > f <<EOF, echo x >> f, … | tee f
	}
	if name == "git" {
		return gitReadOnly(gitArgs(f))
	}
	return readOnly()[name]
}

// gitListFlags make git branch list branches whatever else it names.
var gitListFlags = wordSet(`-l --list -a --all -r --remotes -v -vv --verbose --contains --no-contains --merged
--no-merged --points-at --show-current --format --sort --column`)

// gitReadOnly reports a git command that only looks: status, log, diff,
// show … always; branch, config and remote only in their listing and
// reading forms, since "git branch -D x", "git config user.name x" and
// "git remote add …" change the repository, and a look around's failure
// is never reported.
func gitReadOnly(args []string) bool {
	if len(args) == 0 || !readOnlyGit()[args[0]] {
		return false
	}
	var flags, operands []string
	for _, a := range args[1:] {
		if strings.ContainsAny(a, "|;&<>") {
			break
		}
		if strings.HasPrefix(a, "-") {
			flags = append(flags, a)
		} else {
			operands = append(operands, a)
		}
	}
	switch args[0] {
	case "branch":
		for _, a := range flags {
			if gitListFlags()[strings.SplitN(a, "=", 2)[0]] {
				return true
			}
		}
		// Without a listing flag, a named branch is one to create, and
		// -d, -m, -c, -u … delete, move, copy or set it.
		return len(operands) == 0 && len(flags) == 0
	case "config":
		if slices.ContainsFunc(flags, func(a string) bool {
			return strings.HasPrefix(a, "--get") || a == "--list" || a == "-l"
		}) {
			return true
		}
		if len(operands) > 0 && (operands[0] == "get" || operands[0] == "list") {
			return true
		}
		// "git config key" reads, "git config key value" (or --unset,
		// --add, "config set") writes; --file/--type values are counted
		// as operands here, which errs toward a change.
		return len(operands) == 1 && !slices.ContainsFunc(flags, func(a string) bool {
			return a == "--unset" || a == "--unset-all" || a == "--add" || a == "--replace-all" ||
				a == "--remove-section" || a == "--rename-section" || a == "-e" || a == "--edit"
		}) && operands[0] != "set" && operands[0] != "unset"
	case "remote":
		return len(operands) == 0 || operands[0] == "show" || operands[0] == "get-url"
	}
	return true
}

var checkWords = wordSet(`test tests pytest jest vitest mocha build compile vet lint check typecheck tsc mypy
ruff eslint clippy ctest rspec phpunit make tox nox golangci staticcheck pyright verify validate
configtest prettier gofmt flake8 pylint shellcheck rubocop biome e2e playwright cypress credo dialyzer`)

// verifyFlags turn a command into a dry run that checks a configuration
// ("nginx -t", "logrotate -d", "terraform validate", "--dry-run").
var verifyFlags = map[string][]string{
	"nginx": {"-t", "-T"}, "logrotate": {"-d", "--debug"}, "visudo": {"-c"}, "sshd": {"-t"},
	"apachectl": {"-t", "configtest"}, "haproxy": {"-c"}, "named-checkconf": nil, "promtool": {"check"},
	"systemd-analyze": {"verify"}, "caddy": {"validate"},
}

// notChecks are programs whose runs never verify work, whatever their
// arguments say (a "git commit" whose message says "fix tests").
var notChecks = wordSet(`git gh rm mv cp mkdir touch chmod chown ln ls cat echo grep rg find kill pkill sleep
curl wget ssh scp rsync open code vim nano less tail head ps docker-compose-logs`)

// isCheck reports commands whose success says the work is right: tests,
// builds, linters, type checkers, and configuration dry runs.
func isCheck(cmd string) bool {
	f := commandCore(cmd)
	if len(f) == 0 {
		return false
	}
	name := path.Base(f[0])
	if notChecks()[name] || rewritesFiles(name, f[1:]) {
		return false
	}
	if flags, ok := verifyFlags[name]; ok {
		if flags == nil {
			return true
		}
		for _, a := range f[1:] {
			if slices.Contains(flags, a) {
				return true
			}
		}
	}
	for _, a := range f[1:] {
		if a == "--dry-run" || a == "--check" {
			return true
		}
	}
	if name == "make" {
		// make is a multiplexer like npm run: "make test" checks, "make
		// clean" or "make deploy" does not, and a pass of either must not
		// become "the last check passed". A bare make builds.
		targets := makeTargets(f[1:])
		return len(targets) == 0 || slices.ContainsFunc(targets, isCheckTarget)
	}
	if runsCheckTarget(name, f[1:]) {
		return true
	}
	if name == "pre-commit" && len(f) > 1 && f[1] == "run" {
		return true // runs the repository's configured hooks: linters, formatters in check mode
	}
	words := checkWords()
	return slices.ContainsFunc(checkParts(cmd), func(p string) bool { return words[p] })
}

// checkTargets are package scripts and runner targets that name the
// project's own "everything CI checks" entry point without a check word:
// npm run ci, make qa, just precommit. None is a check word of its own:
// "npm ci" installs packages.
var checkTargets = wordSet(`ci qa precommit pre-commit`)

// runsCheckTarget reports a package script or runner target from
// checkTargets.
func runsCheckTarget(name string, args []string) bool {
	switch name {
	case "npm", "pnpm", "yarn", "bun":
		return len(args) >= 2 && args[0] == "run" && checkTargets()[args[1]]
	case "just", "task", "mage":
		return slices.ContainsFunc(args, func(a string) bool { return checkTargets()[a] })
	}
	return false
}

// isCheckTarget reports a make target that verifies: one of checkTargets,
// "all" (the default build), or one whose parts hold a check word
// ("test-unit", "lint", "check"). "make" itself is not such a part.
func isCheckTarget(target string) bool {
	if target == "all" || checkTargets()[target] {
		return true
	}
	words := checkWords()
	return slices.ContainsFunc(alnumRuns(target), func(p string) bool { return p != "make" && words[p] })
}

// makeOptsWithValue are make options whose value is the next word.
var makeOptsWithValue = wordSet(`-C -f -I -o -W --file --directory --include-dir --old-file --what-if`)

// makeTargets returns the targets a make command line names, skipping its
// options and variable assignments, up to the end of the first command.
func makeTargets(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.ContainsAny(a, "|;&<>"):
			return out
		case makeOptsWithValue()[a]:
			i++
		case a == "-j" && i+1 < len(args) && isNumber(args[i+1]):
			i++
		case strings.HasPrefix(a, "-") || strings.Contains(a, "="):
		default:
			out = append(out, a)
		}
	}
	return out
}

// rewritesFiles reports a formatter run that rewrites files in place
// (prettier --write, gofmt -w, ruff format): it exits 0 whenever
// the code parses, so its pass verifies nothing. Their check modes
// (prettier --check, gofmt -l, ruff format --check) stay checks.
func rewritesFiles(name string, args []string) bool {
	has := func(flags ...string) bool {
		return slices.ContainsFunc(args, func(a string) bool { return slices.Contains(flags, a) })
	}
	switch name {
	case "prettier", "gofmt", "goimports", "gofumpt":
		return has("--write", "-w")
	case "biome":
		return has("--write", "--apply", "--fix")
	case "ruff":
		return len(args) > 0 && args[0] == "format" && !has("--check", "--diff")
	}
	return false
}

// purposeWords sort check commands by what they verify, so that two
// different commands for the same job count as alternatives: "golangci-lint
// run", "go vet" and "make lint" are all lint.
var purposeWords = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"test": "test", "tests": "test", "pytest": "test", "jest": "test", "vitest": "test", "mocha": "test",
		"rspec": "test", "phpunit": "test", "ctest": "test", "tox": "test", "nox": "test", "unittest": "test",
		"e2e": "test", "playwright": "test", "cypress": "test",
		"lint": "lint", "vet": "lint", "eslint": "lint", "ruff": "lint", "clippy": "lint", "golangci": "lint",
		"staticcheck": "lint", "flake8": "lint", "pylint": "lint", "shellcheck": "lint", "rubocop": "lint",
		"biome": "lint", "prettier": "lint", "gofmt": "lint", "credo": "lint", "dialyzer": "type-check",
		"tsc": "type-check", "mypy": "type-check", "pyright": "type-check", "typecheck": "type-check",
		"build": "build", "compile": "build",
	}
})

// purposeOrder fixes the order of knowledge lines about working checks.
var purposeOrder = []string{"test", "lint", "type-check", "build", "check"}

// checkPurpose names what a check command verifies (test, lint,
// type-check, build), "check" when its words say nothing more. The most
// specific purpose wins: "make lint" is lint, a bare "make" is build,
// "make check" is check.
func checkPurpose(cmd string) string {
	words := purposeWords()
	found := map[string]bool{}
	for _, part := range checkParts(cmd) {
		if p := words[part]; p != "" {
			found[p] = true
		}
	}
	for _, p := range purposeOrder {
		if found[p] {
			return p
		}
	}
	if f := commandCore(cmd); len(f) > 0 && path.Base(f[0]) == "make" {
		// A bare make, or make all, builds the default target.
		if ts := makeTargets(f[1:]); len(ts) == 0 || (len(ts) == 1 && ts[0] == "all") {
			return "build"
		}
	}
	return "check"
}

// checkParts splits the first words of a command (before any pipe or
// chain) into lowercase alphanumeric parts: "golangci-lint run" gives
// golangci, lint, run.
func checkParts(cmd string) []string {
	var out []string
	for i, w := range commandCore(cmd) {
		if i > 3 || strings.ContainsAny(w, "|;&") {
			break
		}
		out = append(out, alnumRuns(path.Base(w))...)
	}
	return out
}

// alnumRuns splits a program, script or target name into its lower-case
// runs of letters and digits: "golangci-lint" is golangci and lint.
func alnumRuns(name string) []string {
	return strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r))
	})
}

// targetedFlags select part of a test suite by name.
var targetedFlags = wordSet(`-run -k -t --grep -g --testNamePattern -m --filter --test -p`)

// targeted reports a check run narrowed to some tests or files, which must
// not be passed off as the project's command: a name filter flag, or an
// argument naming a file ("src/a.test.ts", "tests/test_x.py").
func targeted(cmd string) bool {
	flags := targetedFlags()
	for i, w := range commandCore(cmd) {
		if i == 0 || strings.ContainsAny(w, "|;&") {
			continue
		}
		if flags[w] {
			return true
		}
		base := path.Base(strings.Trim(w, `'"`))
		if !strings.HasPrefix(w, "-") && strings.Contains(base, ".") && !strings.HasPrefix(base, ".") {
			return true
		}
	}
	return false
}

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
	if m := heredocWriteRE().FindStringSubmatch(dropCd(cmd)); m != nil {
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
	f := coreWords(shellWords(dropCd(cmd)))
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
		f := commandCore(part)
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
	tool := firstWord(cmd)
	if multiplexers()[tool] || tool == "python" || tool == "python3" || len(tool) < 3 {
		return commandFamily(cmd)
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
	f := commandCore(cmd)
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
