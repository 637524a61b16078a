package program

import (
	"path"
	"strings"
)

// The languages a project is written in show in what the agent ran and
// the files it touched, never in the words of a conversation ("AWS" said
// once is no stack). Each row: a language and its file extensions,
// manifests and programs.
var languages = []struct {
	name       string
	extensions string
	manifests  string
	programs   string
}{
	{"Go", ".go", "go.mod go.sum", "go gofmt golangci-lint staticcheck"},
	{"Elixir", ".ex .exs .heex", "mix.exs mix.lock", "mix iex elixir"},
	{"TypeScript", ".ts .tsx .mts .cts", "tsconfig.json", "tsc"},
	{"JavaScript", ".js .jsx .mjs .cjs", "package.json", "node npm npx pnpm yarn bun"},
	{"Python", ".py", "pyproject.toml requirements.txt setup.py Pipfile", "python python3 pip pytest uv poetry ruff mypy"},
	{"Rust", ".rs", "Cargo.toml Cargo.lock", "cargo rustc rustup"},
	{"Ruby", ".rb", "Gemfile", "ruby bundle rspec rake"},
	{"Java", ".java", "pom.xml build.gradle", "mvn gradle ./gradlew"},
	{"C#", ".cs", "", "dotnet"},
	{"Swift", ".swift", "Package.swift", "swift"},
	{"PHP", ".php", "composer.json", "php composer phpunit"},
}

// LanguageOfFile names the language a file belongs to by its extension or
// as a manifest; "" when it says none.
func LanguageOfFile(file string) string {
	base := path.Base(file)
	ext := path.Ext(base)
	for _, l := range languages {
		if (ext != "" && containsWord(l.extensions, ext)) || containsWord(l.manifests, base) {
			return l.name
		}
	}
	return ""
}

// LanguageOfCommand names the language of the program a command line
// runs; "" when it says none.
func LanguageOfCommand(cmd string) string {
	name := Name(cmd)
	for _, l := range languages {
		if name != "" && containsWord(l.programs, name) {
			return l.name
		}
	}
	return ""
}

func containsWord(list, w string) bool {
	for _, x := range strings.Fields(list) {
		if x == w {
			return true
		}
	}
	return false
}
