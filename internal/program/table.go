package program

import (
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/lazyre"
)

// The table: each program, subcommand and script word with its class.
// PowerShell's cmdlets are written in lower case: PowerShell ignores case.
// Adding a language's toolchain is adding rows below; table_test.go holds
// one case per row kind.

// Class is what running a program does to a project.
type Class string

// The classes. A check's class is its purpose: what its pass verifies.
const (
	ClassRead      Class = "read"       // only looks: ls, cat, rg, git status
	ClassWrite     Class = "write"      // changes files or processes, verifies nothing: rm, mv, chmod
	ClassVCS       Class = "vcs"        // version control and forges: git, gh
	ClassNet       Class = "net"        // talks to other machines: curl, ssh
	ClassRunner    Class = "runner"     // runs subcommands or scripts: go, npm, mix, make
	ClassTest      Class = "test"       // a test runner
	ClassLint      Class = "lint"       // a linter or a formatter in check mode
	ClassTypeCheck Class = "type-check" // a type checker
	ClassBuild     Class = "build"      // a compiler or build step
	ClassCheck     Class = "check"      // verifies, says nothing more specific
)

// rows is the table: each class with the program names, subcommands,
// script and target words that belong to it. A word of a check class
// makes a command a check wherever it appears among the command's first
// words ("pytest", "go test", "npm run lint", "golangci-lint run").
var rows = []struct {
	class Class
	words string
}{
	{ClassRead, `ls cat sed rg grep find head tail pwd wc tree echo which file stat less nl fd du df printenv type jq
		awk sort uniq diff whoami date uname realpath readlink basename dirname ps pgrep top lsof netstat ss id env
		hostname uptime free history man help yq bat exa eza column cut tr xxd od hexdump strings more tee
		get-content get-childitem get-command get-item get-itemproperty get-location get-process select-string
		test-path resolve-path measure-object format-list format-table out-string gc gci gcm sls dir`},
	{ClassWrite, `rm mv cp mkdir touch chmod chown cd ln rmdir kill pkill sleep true false export source set unset
		open code vim nano docker-compose-logs`},
	{ClassVCS, `git gh`},
	{ClassNet, `curl wget ssh scp rsync`},
	{ClassRunner, `go npm yarn pnpm bun npx cargo make git docker uv poetry dotnet mvn gradle ./gradlew kubectl
		terraform pip bundle mix swift deno just task nx gh helm systemctl`},
	{ClassTest, `test tests pytest jest vitest mocha rspec phpunit ctest tox nox unittest e2e playwright cypress`},
	{ClassLint, `lint vet eslint ruff clippy golangci staticcheck flake8 pylint shellcheck rubocop biome prettier
		gofmt credo`},
	{ClassTypeCheck, `tsc mypy pyright typecheck dialyzer`},
	{ClassBuild, `build compile`},
	{ClassCheck, `check verify validate configtest make`},
}

// checkTargets are package scripts and runner targets that name the
// project's own "everything CI checks" entry point without a check word:
// npm run ci, make qa, just precommit. None is a check word of its own:
// "npm ci" installs packages.
var checkTargets = wordSet(`ci qa precommit pre-commit`)

// verifyFlags turn a command into a dry run that checks a configuration
// ("nginx -t", "logrotate -d", "caddy validate"); nil: always a check.
var verifyFlags = map[string][]string{
	"nginx": {"-t", "-T"}, "logrotate": {"-d", "--debug"}, "visudo": {"-c"}, "sshd": {"-t"},
	"apachectl": {"-t", "configtest"}, "haproxy": {"-c"}, "named-checkconf": nil, "promtool": {"check"},
	"systemd-analyze": {"verify"}, "caddy": {"validate"},
}

// packageManagerCommands are npm/pnpm/yarn subcommands that are not package scripts,
// except the script aliases test, start, stop and restart.
var packageManagerCommands = map[string]bool{
	"install": true, "i": true, "ci": true, "add": true, "remove": true, "rm": true, "uninstall": true,
	"update": true, "up": true, "upgrade": true, "init": true, "create": true, "exec": true, "x": true,
	"dlx": true, "publish": true, "pack": true, "link": true, "unlink": true, "audit": true, "outdated": true,
	"version": true, "view": true, "info": true, "why": true, "ls": true, "list": true, "config": true,
	"cache": true, "login": true, "logout": true, "whoami": true, "help": true, "prune": true, "dedupe": true,
	"rebuild": true, "fund": true, "doctor": true, "set": true, "get": true, "workspace": true, "workspaces": true,
	"import": true, "store": true, "patch": true, "node": true, "env": true, "bin": true, "root": true,
	"search": true, "owner": true, "access": true, "token": true, "profile": true, "team": true, "explain": true,
	"query": true, "pkg": true, "shrinkwrap": true, "star": true, "stars": true, "unpublish": true, "deprecate": true,
	"dist-tag": true, "edit": true, "explore": true, "hook": true, "org": true, "ping": true, "prefix": true,
	"repo": true, "docs": true, "bugs": true, "completion": true, "diff": true, "sbom": true, "run": true,
}

// scriptAliases run a package script of the same name without "run".
var scriptAliases = map[string]bool{"test": true, "t": true, "start": true, "stop": true, "restart": true}

// IsPackageManagerCommand reports an npm, pnpm or yarn subcommand that is
// not a package script (install, ci, exec …), script aliases aside.
func IsPackageManagerCommand(word string) bool { return packageManagerCommands[word] }

// IsScriptAlias reports a package script npm runs without "run": test,
// start, stop, restart.
func IsScriptAlias(word string) bool { return scriptAliases[word] }

// Purposes lists the check classes, most specific first: "make lint" is
// lint, "make check" is check.
var Purposes = []string{string(ClassTest), string(ClassLint), string(ClassTypeCheck), string(ClassBuild), string(ClassCheck)}

// classes maps each word of the table to its classes.
var classes = sync.OnceValue(func() map[string][]Class {
	m := map[string][]Class{}
	for _, r := range rows {
		for _, w := range strings.Fields(r.words) {
			m[w] = append(m[w], r.class)
		}
	}
	return m
})

// genericWords are table words that name a kind of run, not a program:
// "don't test" names no tool.
var genericWords = wordSet(`test tests lint vet build compile check verify validate typecheck e2e make type file
help set true false more strings date top free id env man history sort cut tr`)

// IsProgram reports a word the table knows as a program ("yarn",
// "pytest", "Get-Content"), not as a kind of run.
func IsProgram(word string) bool {
	w := strings.ToLower(word)
	return len(classes()[w]) > 0 && !genericWords()[w]
}

// Is reports whether the table puts word in class c.
func Is(word string, c Class) bool {
	for _, k := range classes()[word] {
		if k == c {
			return true
		}
	}
	return false
}

// IsBasic reports a shell utility too common to tell one task from
// another: a plain reader or writer of files.
func IsBasic(name string) bool { return Is(name, ClassWrite) || name == "sed" }

func readers() map[string]bool    { return classSet(ClassRead) }
func runners() map[string]bool    { return classSet(ClassRunner) }
func checkWords() map[string]bool { return checkSet() }

// notChecks are programs whose runs never verify work, whatever their
// arguments say (a "git commit" whose message says "fix tests").
func notChecks() map[string]bool { return neverChecks() }

var classSets sync.Map // Class → map[string]bool

func classSet(c Class) map[string]bool {
	if m, ok := classSets.Load(c); ok {
		return m.(map[string]bool)
	}
	m := map[string]bool{}
	for w, cs := range classes() {
		for _, k := range cs {
			if k == c {
				m[w] = true
			}
		}
	}
	classSets.Store(c, m)
	return m
}

var checkSet = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, p := range Purposes {
		for w := range classSet(Class(p)) {
			m[w] = true
		}
	}
	return m
})

var neverChecks = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, c := range []Class{ClassVCS, ClassNet, ClassWrite} {
		for w := range classSet(c) {
			m[w] = true
		}
	}
	for _, w := range strings.Fields(`ls cat echo grep rg find less tail head ps`) {
		m[w] = true
	}
	return m
})

// purposeWords maps each check word to its purpose; "make" and the
// words of ClassCheck say nothing more than "check".
var purposeWords = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, p := range Purposes[:len(Purposes)-1] {
		for w := range classSet(Class(p)) {
			m[w] = p
		}
	}
	return m
})

func wordSet(words string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(words) {
			m[w] = true
		}
		return m
	})
}

// lazyRE compiles an expression on first use (lazyre.New).
var lazyRE = lazyre.New

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
