package regret

import (
	"path"
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/memctl/memctl/internal/program"
)

// A shell command line is compared by two things: its key, the program
// and the sub-command that say what kind of thing was run ("npm install",
// "uv run pytest", "make deploy"), and its normal form, the whole command
// from that program on with the spacing folded, which says exactly what
// was run. The key ignores environment assignments, sudo and a leading
// cd; the normal form keeps the assignments, since adding one is a fix.

// shellCommand is a command line read for comparison.
type shellCommand struct {
	key  string // "npm install"; "" when nothing but plumbing ran
	norm string // "AWS_PROFILE=prod make deploy"
	args []string
}

// wrappers run the program named after them.
var wrappers = lazyre.Words(`sudo time env nohup exec command builtin nice ionice timeout stdbuf xargs`)

// plumbing is what a command line does around its real work.
var plumbing = lazyre.Words(`cd pushd popd echo printf export set unset source . true false sleep clear mkdir touch wait`)

// subcommanded programs are named with their first word that is no flag.
var subcommanded = lazyre.Words(`git go npm pnpm yarn bun deno cargo rustup docker podman kubectl helm terraform tofu
make just task rake rails bundle gem pip pip3 poetry pdm uv hatch conda mvn gradle gradlew dotnet gh glab aws gcloud az
systemctl brew apt apt-get dnf yum flyctl heroku vercel netlify firebase supabase prisma alembic django-admin
composer php artisan mix elixir swift xcodebuild flutter dart nx turbo lerna ansible vagrant`)

// runners run the program after them: "uv run pytest", "npx jest".
var runners = map[string]string{"npx": "", "pnpx": "", "bunx": "", "uvx": "", "pipx": "run"}

// doubleRunners name a sub-command that runs the program after it.
var doubleRunners = map[string]string{"uv": "run", "poetry": "run", "pdm": "run", "hatch": "run", "bundle": "exec",
	"pnpm": "exec", "yarn": "exec", "npm": "exec", "conda": "run", "pipenv": "run", "rye": "run", "go": "run"}

// cleanup are programs that tidy up before the real command ("rm
// package-lock.json && pnpm install"): a later segment names the command.
var cleanup = lazyre.Words(`rm rmdir mv cp chmod chown ln kill pkill`)

// readCommand reads a command line: the first segment that does real
// work, else a cleanup segment, else nothing.
func readCommand(line string) shellCommand {
	var fallback shellCommand
	for _, seg := range splitSegments(line) {
		f := strings.Fields(seg)
		i := 0
		for i < len(f) && (isAssignment(f[i]) || wrappers()[path.Base(f[i])] || strings.HasPrefix(f[i], "-") && i > 0) {
			i++
		}
		if i >= len(f) {
			continue
		}
		prog := path.Base(strings.Trim(f[i], `"'`))
		if plumbing()[prog] || prog == "" {
			continue
		}
		sc := shellCommand{key: commandKey(f[i:]), norm: strings.Join(f, " "), args: f}
		if cleanup()[prog] {
			if fallback.key == "" {
				fallback = sc
			}
			continue
		}
		return sc
	}
	return fallback
}

// isCleanup reports a command that only tidies up.
func (c shellCommand) isCleanup() bool {
	prog, _, _ := strings.Cut(c.key, " ")
	return cleanup()[prog] || c.key == "git checkout" || c.key == "git restore" || c.key == "git clean"
}

// commandKey names the program of fields and its sub-command.
func commandKey(f []string) string {
	prog := path.Base(strings.Trim(f[0], `"'`))
	rest := program.Operands(f[1:])
	switch {
	case prog == "python" || prog == "python3" || prog == "py":
		for i := 1; i+1 < len(f); i++ {
			if f[i] == "-m" {
				return "python -m " + f[i+1]
			}
		}
		if len(rest) > 0 {
			return prog + " " + path.Base(rest[0])
		}
		return prog
	case hasKey(runners, prog):
		if sub := runners[prog]; sub != "" && len(rest) > 0 && rest[0] == sub {
			rest = rest[1:]
		}
		if len(rest) > 0 {
			return prog + " " + path.Base(rest[0])
		}
		return prog
	case doubleRunners[prog] != "" && len(rest) > 1 && rest[0] == doubleRunners[prog]:
		return prog + " " + rest[0] + " " + path.Base(rest[1])
	case (prog == "npm" || prog == "pnpm" || prog == "yarn" || prog == "bun") && len(rest) > 1 && rest[0] == "run":
		return prog + " run " + rest[1]
	case prog == "docker" && len(rest) > 1 && rest[0] == "compose":
		return "docker compose " + rest[1]
	case subcommanded()[prog] && len(rest) > 0:
		return prog + " " + rest[0]
	}
	return prog
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

func isAssignment(w string) bool {
	i := strings.IndexByte(w, '=')
	if i <= 0 {
		return false
	}
	for _, r := range w[:i] {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// splitSegments cuts a command line at &&, ||, ;, | and newlines outside
// quotes.
func splitSegments(line string) []string {
	var out []string
	var b strings.Builder
	var quote byte
	flush := func() {
		if s := strings.TrimSpace(b.String()); s != "" {
			out = append(out, s)
		}
		b.Reset()
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
			b.WriteByte(c)
		case c == '\'' || c == '"':
			quote = c
			b.WriteByte(c)
		case c == ';' || c == '\n' || c == '|' || c == '&' && i+1 < len(line) && line[i+1] == '&':
			flush()
			if (c == '|' || c == '&') && i+1 < len(line) && line[i+1] == c {
				i++
			}
		default:
			b.WriteByte(c)
		}
	}
	flush()
	return out
}

// lookingAround are commands whose failure teaches nothing about the
// project: a search that found nothing, a file that is not there, a
// process that was not running.
var lookingAround = lazyre.Words(`ls cat head tail less more grep egrep fgrep rg ag ack find fd which whereis type test [ [[
wc stat file diff cmp tree du df pwd sed awk jq yq sort uniq cut tr ps pgrep pkill kill lsof env printenv id whoami
uname date hostname realpath readlink basename dirname true false sleep open xdg-open`)

// lookingAroundGit are the git sub-commands that only look.
var lookingAroundGit = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, sub := range strings.Fields("status diff log show branch rev-parse remote config ls-files blame grep describe fetch stash") {
		m["git "+sub] = true
	}
	return m
})

// looksAround reports a command whose failure is no mistake to learn from.
func (c shellCommand) looksAround() bool {
	if c.key == "" {
		return true
	}
	prog, _, _ := strings.Cut(c.key, " ")
	return lookingAround()[prog] || lookingAroundGit()[c.key]
}
