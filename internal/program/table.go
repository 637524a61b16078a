package program

import (
	"slices"
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/lazyre"
)

// The table: the words that say what a program does (PowerShell's cmdlets in lower case). Adding a toolchain
// is adding words; table_test.go holds one case per kind.

var (
	// readers only look (files, processes, the system); shell words closing a block or leaving run nothing.
	readers = lazyre.Words(`ls cat sed rg grep egrep fgrep find head tail pwd wc tree echo printf which whereis file
		stat less nl fd du df printenv type jq awk sort uniq diff cmp whoami date uname realpath readlink basename
		dirname ps pgrep top lsof netstat ss id env hostname uptime free history man help yq bat exa eza column cut tr
		xxd od hexdump strings more tee true : test [ [[ sleep get-content get-childitem get-command get-item
		get-itemproperty get-location get-process select-string test-path resolve-path measure-object format-list
		format-table out-string write-output write-host select-object gc gci gcm sls dir fi done esac exit return for`)
	// runners run subcommands or scripts: their family names the subcommand.
	runners = lazyre.Words(`go npm yarn pnpm bun mise cargo make git docker uv poetry dotnet mvn gradle ./gradlew
		kubectl terraform pip bundle mix swift deno just task nx gh helm systemctl rails rake`)
	// wrappers run the program named after them: "npx jest" is jest's run, "if make; then …" make's.
	wrappers = lazyre.Words(`npx pnpx bunx uvx sudo time nice command exec if then else elif do while until`)
	// launchers run another program, which they may fetch first: first, or after a runner ("pnpm dlx", "mise x").
	launchers = lazyre.Words(`npx pnpx bunx uvx pipx x exec dlx`)
	// wrapperSubs are runner subcommands that run the program after them.
	wrapperSubs = lazyre.Words(`uv:run poetry:run pdm:run pipenv:run rye:run hatch:run bundle:exec pnpm:exec pnpm:dlx
		npm:exec conda:run`)
	// neverChecks verify nothing whatever their arguments say.
	neverChecks = lazyre.Words(`git gh curl wget ssh scp rsync rm mv cp mkdir touch chmod chown cd ln kill pkill export
		source set unset open code vim nano ls cat echo grep rg find less tail head ps`)
	// queryVerbs ask a tool about state: "gh pr view", "kubectl describe".
	queryVerbs = lazyre.Words(`view list ls show status ready info describe checks search whoami version help ps logs
		inspect images --help -h --version`)
	// checkTargets name a project's "everything CI checks" entry point.
	checkTargets = lazyre.Words(`ci qa precommit pre-commit`)
	// valueFlags are runner options taking a value before the subcommand: git -C dir, pnpm --filter pkg.
	valueFlags = lazyre.Words(`-C -c --filter -F --prefix --dir --cwd --workspace -w --project -p --manifest-path`)
	// gitWriteFlags make git branch, remote and config write.
	gitWriteFlags = lazyre.Words(`-d -D -m -M -c -C --delete --move --copy --set-upstream-to -u --unset --unset-all
		--add --replace-all --remove-section --rename-section -e --edit`)
	// nameFilters narrow a test run to the tests their value names.
	nameFilters = lazyre.Words(`-run -k -t -m --grep -g --testNamePattern --filter --only`)
	// interpreters run the script their first operand names.
	interpreters = lazyre.Words(`sh bash zsh python python3 node ruby perl php tsx ts-node`)
	// readOnlyGit only look (branch, config, remote: see gitReadOnly).
	readOnlyGit = lazyre.Words(`status diff log show branch blame rev-parse ls-files remote describe shortlog reflog
		grep config fetch`)
	// purposeWords name what a check verifies, most specific first.
	purposeWords = []struct{ purpose, words string }{
		{"test", `test tests pytest jest vitest mocha rspec phpunit ctest tox nox unittest e2e playwright cypress`},
		{"lint", `lint vet eslint ruff clippy golangci staticcheck flake8 pylint shellcheck rubocop biome prettier gofmt
			credo`},
		{"type-check", `tsc mypy pyright typecheck dialyzer`},
		{"build", `build compile`}, {"check", `check verify validate configtest`},
	}
	// purposeOf maps each check word to its purpose.
	purposeOf = sync.OnceValue(func() map[string]string {
		m := map[string]string{}
		for i := len(purposeWords) - 1; i >= 0; i-- {
			for _, w := range strings.Fields(purposeWords[i].words) {
				m[w] = purposeWords[i].purpose
			}
		}
		return m
	})
	// verifyFlags make a command a configuration dry run; nil: always one.
	verifyFlags = map[string][]string{
		"nginx": {"-t", "-T"}, "logrotate": {"-d", "--debug"}, "visudo": {"-c"}, "sshd": {"-t"},
		"apachectl": {"-t", "configtest"}, "haproxy": {"-c"}, "named-checkconf": nil, "promtool": {"check"},
		"systemd-analyze": {"verify"}, "caddy": {"validate"},
	}
	// writeFlags make a program write files: a formatter rather than check, a reader in place (sed -i alone or in
	// a cluster, sort -o, find -delete; tee: any operand).
	writeFlags = map[string][]string{
		"prettier": {"--write", "-w"}, "gofmt": {"-w"}, "goimports": {"-w"}, "gofumpt": {"-w"},
		"biome": {"--write", "--apply", "--fix"}, "sed": {"-i", "--in-place"}, "awk": {"inplace"}, "gawk": {"inplace"},
		"yq": {"-i", "--inplace"}, "sort": {"-o", "--output"}, "find": {"-delete", "-fprint", "-fls"}, "tee": {""},
	}
)

func writes(prog string, args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool {
		return slices.ContainsFunc(writeFlags[prog], func(o string) bool {
			operand := !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "/dev/") // tee's: a file it writes
			return strings.HasPrefix(a, o) && (o != "" || operand) ||
				len(o) == 2 && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, rune(o[1]))
		})
	})
}

func isNumber(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
