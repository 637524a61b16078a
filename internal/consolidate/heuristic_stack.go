package consolidate

import (
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/memctl/memctl/internal/memmodel"
)

// codeSpanRe finds the backticked spans of a memory: the commands it ran
// and the files it names, which is where a stack shows.
var codeSpanRe = lazyre.New("`([^`\n]+)`")

// stackSeen counts, per memory, the languages and tools its commands ran
// and its files show (the stack table below) and returns the most
// frequent first. Words of the conversation do not count: a question
// about AWS, or "OpenAI" in an error text, is no stack.
func stackSeen(mems []memmodel.Memory) []string {
	count := map[string]int{}
	for _, m := range mems {
		seen := map[string]bool{}
		for _, sm := range codeSpanRe().FindAllStringSubmatch(m.Sel.RawMemory+"\n"+m.Sel.RolloutSummary, -1) {
			span := sm[1]
			if name := stackOfCommand(span); name != "" {
				seen[name] = true
			}
			for _, f := range strings.Fields(span) {
				if name := stackOfFile(fileOfWord(f)); name != "" {
					seen[name] = true
				}
			}
		}
		for name := range seen {
			count[name]++
		}
	}
	names := make([]string, 0, len(count))
	for n := range count {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if count[names[i]] != count[names[j]] {
			return count[names[i]] > count[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > 12 {
		names = names[:12]
	}
	return names
}

// fileOfWord cuts a word of a command or an error line to the path it
// holds: quotes and punctuation around it and a ":line:column" after it.
func fileOfWord(w string) string {
	w = strings.Trim(w, "\"'()[]{},;")
	if i := strings.IndexByte(w, ':'); i > 0 {
		w = w[:i]
	}
	return w
}

// A project's stack shows in what the agent ran and the files it touched,
// never in the words of a conversation: "AWS" said once, or "OpenAI" in a
// question, is no stack. Each row names a language or a tool and the file
// extensions, manifests and programs that show it is in use.
var stacks = []struct {
	name       string
	extensions string
	manifests  string
	programs   string
}{
	{"Go", ".go", "go.mod go.sum", "go gofmt golangci-lint staticcheck"},
	{"Elixir", ".ex .exs .heex", "mix.exs mix.lock", "mix iex elixir"},
	{"TypeScript", ".ts .tsx .mts .cts", "tsconfig.json", "tsc"},
	{"JavaScript", ".js .jsx .mjs .cjs", "package.json package-lock.json", "node npm npx"},
	{"pnpm", "", "pnpm-lock.yaml pnpm-workspace.yaml", "pnpm"},
	{"Yarn", "", "yarn.lock", "yarn"},
	{"Bun", "", "bun.lockb", "bun"},
	{"Python", ".py", "pyproject.toml requirements.txt setup.py Pipfile", "python python3 pip pip3 pytest ruff mypy"},
	{"uv", "", "uv.lock", "uv uvx"},
	{"Rust", ".rs", "Cargo.toml Cargo.lock", "cargo rustc rustup"},
	{"Ruby", ".rb", "Gemfile Gemfile.lock Rakefile", "ruby bundle rspec rake rails"},
	{"Java", ".java", "pom.xml build.gradle", "mvn gradle ./gradlew java javac"},
	{"Kotlin", ".kt .kts", "build.gradle.kts", "kotlinc"},
	{"C#", ".cs .csproj", "", "dotnet"},
	{"Swift", ".swift", "Package.swift", "swift swiftc"},
	{"PHP", ".php", "composer.json", "php composer phpunit"},
	{"C/C++", ".c .h .cc .cpp .hpp", "CMakeLists.txt", "gcc g++ clang cmake"},
	{"Shell", ".sh .bash", "", "bash sh zsh shellcheck"},
	{"PowerShell", ".ps1", "", "pwsh powershell"},
	{"Docker", "", "Dockerfile docker-compose.yml docker-compose.yaml compose.yml compose.yaml", "docker docker-compose podman"},
	{"Kubernetes", "", "", "kubectl helm kustomize"},
	{"Terraform", ".tf", "", "terraform tofu"},
	{"PostgreSQL", "", "", "psql pg_dump pg_restore"},
	{"SQLite", ".sqlite .db", "", "sqlite3"},
	{"make", "", "Makefile", "make"},
	{"Nix", ".nix", "flake.nix", "nix"},
}

// stackBy is the table turned into lookups, built on first use: each
// extension, manifest and program to the row that names it (the first row
// wins, as the table's order says).
var stackBy = sync.OnceValue(func() (by struct{ ext, manifest, program map[string]string }) {
	by.ext, by.manifest, by.program = map[string]string{}, map[string]string{}, map[string]string{}
	add := func(m map[string]string, words, name string) {
		for _, w := range strings.Fields(words) {
			if _, ok := m[w]; !ok {
				m[w] = name
			}
		}
	}
	for _, s := range stacks {
		add(by.ext, s.extensions, s.name)
		add(by.manifest, s.manifests, s.name)
		add(by.program, s.programs, s.name)
	}
	return by
})

// stackOfFile names the language or tool a file path shows by its
// extension or as a manifest; "" when it shows none.
func stackOfFile(file string) string {
	base := path.Base(file)
	if name := stackBy().manifest[base]; name != "" {
		return name
	}
	if ext := path.Ext(base); ext != "" {
		return stackBy().ext[ext]
	}
	return ""
}

// stackOfCommand names the language or tool of the program a command
// line runs: the first word after variable assignments and sudo of the
// last command of its chain that names one; "" when none does.
func stackOfCommand(cmd string) string {
	parts := strings.Split(cmd, "&&")
	for i := len(parts) - 1; i >= 0; i-- {
		for _, w := range strings.Fields(parts[i]) {
			if w != "sudo" && w != "env" && !strings.Contains(w, "=") {
				if name := stackBy().program[path.Base(w)]; name != "" {
					return name
				}
				break
			}
		}
	}
	return ""
}
