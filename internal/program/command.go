package program

import (
	"path"
	"slices"
	"strings"
	"unicode"
)

// Command lines, read as a person would: which program, which subcommand,
// whether it only looks around, whether it verifies work and what for.

// Core drops what does not say what a command does: a leading
// "cd dir &&", environment assignments, sudo, time, timeout N.
func Core(cmd string) []string {
	return CoreWords(strings.Fields(DropCd(cmd)))
}

// DropCd drops a leading "cd dir &&".
func DropCd(cmd string) string {
	if i := strings.LastIndex(cmd, "&& "); i >= 0 && strings.HasPrefix(strings.TrimSpace(cmd), "cd ") {
		cmd = cmd[i+3:]
	}
	return cmd
}

// CoreWords drops the environment assignments and wrappers (sudo, time,
// timeout N) that open a command's words.
func CoreWords(f []string) []string {
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

// WithoutFilters drops what only shapes a command's output: trailing
// pipes into programs that only read (tail, head, grep …) and stream
// redirections ("2>&1", ">/dev/null").
func WithoutFilters(cmd string) string {
	parts := pipeRE().Split(cmd, -1)
	for len(parts) > 1 && readers()[Name(parts[len(parts)-1])] {
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

// EnvPrefix returns the variable assignments that open a command line,
// which are part of the environment it ran in.
func EnvPrefix(cmd string) []string {
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

// Family names what a command does, e.g. "go test" or "pytest", so
// that "go test ./..." and "go test ./internal/x -run Foo" count as retries of
// one another.
func Family(cmd string) string {
	f := Core(cmd)
	if len(f) == 0 {
		return cmd
	}
	name := path.Base(f[0])
	if (name == "python" || name == "python3") && len(f) > 2 && f[1] == "-m" {
		return name + " -m " + f[2]
	}
	if runners()[f[0]] && len(f) > 1 {
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

func Name(cmd string) string {
	f := Core(cmd)
	if len(f) == 0 {
		return ""
	}
	return path.Base(f[0])
}

var readOnlyGit = wordSet(`status diff log show branch blame rev-parse ls-files remote describe shortlog
reflog grep config fetch`)

// ReadOnly reports commands that only look around, by their program and
// subcommand; Explores also rules out those that write a file through a
// redirection. Their exit status says little (rg exits 1 on no match) so
// they never count as failures.
func ReadOnly(cmd string) bool {
	parts := chainRE().Split(strings.TrimSpace(structure(cmd)), -1)
	looks := false
	for _, p := range parts {
		f := CoreWords(strings.Fields(p))
		switch {
		case len(f) == 0:
			return false
		case f[0] == "cd" || f[0] == "pushd" || f[0] == "popd" || f[0] == "true" || f[0] == ":":
			continue // moving around, or "|| true", changes nothing
		case !readOnlyStages(p):
			return false
		}
		looks = true
	}
	return looks
}

// structure is a command line with what the shell does not read as
// structure blanked: quoted text ('s|a|b|', "a; b") and an escaped
// semicolon (find … -exec cat {} \;).
func structure(cmd string) string { return blankQuotes(strings.ReplaceAll(cmd, `\;`, "  "), true) }

// readOnlyStages reports a pipeline whose first program only looks and
// whose later stages only read what it prints ("rg x | head", not
// "Get-ChildItem | Remove-Item" or "ls | xargs rm").
func readOnlyStages(p string) bool {
	stages := pipeRE().Split(p, -1)
	if !readOnlyProgram(CoreWords(strings.Fields(stages[0]))) {
		return false
	}
	for _, st := range stages[1:] {
		f := CoreWords(strings.Fields(st))
		for len(f) > 0 && (f[0] == "xargs" || strings.HasPrefix(f[0], "-")) {
			f = f[1:] // xargs and its options: what counts is what it runs
		}
		if len(f) == 0 || !isReader(path.Base(f[0])) {
			return false
		}
	}
	return true
}

// readOnlyProgram reports a command's words that only look around.
func readOnlyProgram(f []string) bool {
	if len(f) == 0 {
		return false
	}
	name := path.Base(f[0])
	if name == "sed" && slices.ContainsFunc(f, func(a string) bool { return strings.HasPrefix(a, "-i") }) {
		return false
	}
	if name == "git" {
		return gitReadOnly(GitArgs(f))
	}
	return isReader(name)
}

// isReader reports a program of the read class; PowerShell's cmdlets are
// in the table in lower case, as PowerShell ignores case.
func isReader(name string) bool { return readers()[name] || readers()[strings.ToLower(name)] }

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

// IsCheck reports commands whose success says the work is right: tests,
// builds, linters, type checkers, and configuration dry runs.
func IsCheck(cmd string) bool {
	f := Core(cmd)
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

// Purpose names what a check command verifies (test, lint,
// type-check, build), "check" when its words say nothing more. The most
// specific purpose wins: "make lint" is lint, a bare "make" is build,
// "make check" is check.
func Purpose(cmd string) string {
	words := purposeWords()
	found := map[string]bool{}
	for _, part := range checkParts(cmd) {
		if p := words[part]; p != "" {
			found[p] = true
		}
	}
	for _, p := range Purposes {
		if found[p] {
			return p
		}
	}
	if f := Core(cmd); len(f) > 0 && path.Base(f[0]) == "make" {
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
	for i, w := range Core(cmd) {
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

// Targeted reports a check run narrowed to some tests or files, which must
// not be passed off as the project's command: a name filter flag, or an
// argument naming a file ("src/a.test.ts", "tests/test_x.py").
func Targeted(cmd string) bool {
	flags := targetedFlags()
	for i, w := range Core(cmd) {
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

// GitArgs returns a git command's words after "git" and its -C/-c global
// options, nil when the words are not a git command.
func GitArgs(f []string) []string {
	if len(f) == 0 || path.Base(f[0]) != "git" {
		return nil
	}
	args := f[1:]
	for len(args) > 2 && (args[0] == "-C" || args[0] == "-c") {
		args = args[2:]
	}
	return args
}

// IsRunner reports a program that runs subcommands or scripts ("go",
// "npm", "mix"): its bare name says little of what ran.
func IsRunner(name string) bool { return runners()[name] }

// queryVerbs are the subcommands that ask a tool about state and change
// nothing: "gh pr view", "bd show", "kubectl describe", "git stash list".
// ("get" is not one: "go get" changes go.mod.)
var queryVerbs = wordSet(`view list ls show status ready info describe checks search whoami version help
--help -h --version`)

// chainRE splits a command line at "&&", "||" and ";".
var chainRE = lazyRE(`\s*(&&|\|\||;)\s*`)

// Queries reports a command line each part of which only asks: a
// read-only program, or a tool asked for a listing or a state by one of
// its first words. Its success tells a later reader nothing.
func Queries(cmd string) bool {
	return eachPart(cmd, func(p string) bool { return ReadOnly(p) || asksState(Core(p)) })
}

// Routine reports a command line whose clean run tells a later reader
// nothing: each part only asks (Queries), checks (IsCheck, reported as a
// check of its own) or formats the code (Formats).
func Routine(cmd string) bool {
	return eachPart(cmd, func(p string) bool { return Queries(p) || IsCheck(p) || Formats(p) })
}

// eachPart reports whether ok holds for every part of a "&&", "||" or ";"
// chain.
func eachPart(cmd string, ok func(string) bool) bool {
	parts := chainRE().Split(strings.TrimSpace(cmd), -1)
	for _, p := range parts {
		if p == "" || !ok(p) {
			return false
		}
	}
	return len(parts) > 0
}

// formatWords name a formatting subcommand or task: "cargo fmt", "mix
// format", "npm run format", "mise run fmt".
var formatWords = wordSet(`fmt format`)

// Formats reports a command that rewrites the code's layout: a formatter
// writing files, or a runner's fmt or format task.
func Formats(cmd string) bool {
	f := Core(cmd)
	if len(f) == 0 {
		return false
	}
	if rewritesFiles(path.Base(f[0]), f[1:]) {
		return true
	}
	for i := 1; i < len(f) && i < 4; i++ {
		if formatWords()[f[i]] {
			return true
		}
	}
	return false
}

// asksState reports a tool's query subcommand among its first three
// words, or a "gh api" call that only reads.
func asksState(f []string) bool {
	for i := 1; i < len(f) && i < 4; i++ {
		a := f[i]
		if strings.ContainsAny(a, "|;&<>") {
			break
		}
		if queryVerbs()[a] {
			return true
		}
		if a == "api" && path.Base(f[0]) == "gh" {
			return apiReads(f[i+1:])
		}
	}
	return false
}

// apiReads reports a "gh api" call that reads: GET is its default, and a
// field makes it a POST, which reads only as a GraphQL query (not a
// mutation).
func apiReads(args []string) bool {
	for i, a := range args {
		switch {
		case a == "-X" || a == "--method" || a == "--input" || strings.HasPrefix(a, "--method="):
			return false
		case a == "-f" || a == "-F" || a == "--field" || a == "--raw-field":
			if i+1 >= len(args) || !strings.HasPrefix(args[i+1], "query=") {
				return false
			}
		case a == "mutation" || strings.Contains(a, "mutation"):
			return false
		}
	}
	return true
}

// tallyRE is a test runner's count line: "2 passed in 0.81s", "31 tests,
// 0 failures", "Tests: 48 passed, 48 total". The count stands alone, so
// npm's "> pkg@0.0.27 test" banner is none.
var tallyRE = lazyRE(`(?i)(^|[\s(:,])\d+ (passed|tests?|examples?|specs?)([,;(\s][^\n]{0,60}|$)`)

// PassTally returns the last count line of a passing check's output, at
// most 80 bytes: how much it verified, which "passed" alone does not say.
func PassTally(out string) string {
	m := tallyRE().FindAllString(out, -1)
	if len(m) == 0 {
		return ""
	}
	t := strings.TrimSpace(m[len(m)-1])
	if len(t) > 80 {
		t = strings.ToValidUTF8(t[:80], "") + "…"
	}
	return t
}

// Commit is one commit git reported making.
type Commit struct{ SHA, Subject string }

// commitLineRE is the line git commit, cherry-pick and revert print for
// each commit they make: "[main 1a2b3c4] subject", "[main (root-commit)
// 1a2b3c4] subject", "[detached HEAD 1a2b3c4] subject".
var commitLineRE = lazyRE(`(?m)^\[[^\]\n]*?([0-9a-f]{7,40})\] (.+)$`)

// CommitsReported returns the commits a git command's output reports
// making, at most max.
func CommitsReported(out string, max int) []Commit {
	var cs []Commit
	for _, m := range commitLineRE().FindAllStringSubmatch(out, max) {
		cs = append(cs, Commit{SHA: m[1], Subject: strings.TrimSpace(m[2])})
	}
	return cs
}

// gitChangeSubs are the git subcommands that change the checkout or its
// history when they succeed. Most print no commit line of their own: a
// fast-forward merge, a rebase, git am, git apply, git commit -q.
var gitChangeSubs = wordSet(`commit cherry-pick revert merge rebase am apply pull`)

// gitNoChangeRE is what git prints when such a command had nothing to do.
var gitNoChangeRE = lazyRE(`(?im)already up[ -]to[ -]date|^Current branch \S+ is up to date|^nothing to commit|^no changes added to commit`)

// gitNoChangeFlags make those subcommands look, undo or stop instead of
// changing anything (git apply --check, git rebase --abort).
var gitNoChangeFlags = wordSet(`--abort --quit --dry-run --show-current-patch --check --stat --numstat --summary`)

// ChangesThroughGit reports a command line, already known to have
// succeeded, that changed the repository through git: a session whose
// only change was "git apply fix.patch" or "git merge feature" did
// change the repository, though no tool edited a file. Each command of a
// chain counts ("git add -A && git commit -qm …").
func ChangesThroughGit(cmd, out string) bool {
	if gitNoChangeRE().MatchString(out) {
		return false
	}
	for _, part := range splitChain(cmd) {
		args := GitArgs(Core(part))
		if len(args) == 0 || !gitChangeSubs()[args[0]] {
			continue
		}
		if args[0] == "apply" && slices.Contains(args, "--apply") {
			return true // --apply overrides --check and --stat
		}
		if !slices.ContainsFunc(args[1:], func(a string) bool { return gitNoChangeFlags()[a] }) {
			return true
		}
	}
	return false
}
