package consolidate

import "testing"

func TestStackOfFileAndCommand(t *testing.T) {
	files := map[string]string{
		"lib/spotter/tracing.ex": "Elixir",
		"mix.exs":                "Elixir",
		"cmd/root.go":            "Go",
		"go.mod":                 "Go",
		"src/app.tsx":            "TypeScript",
		"package.json":           "JavaScript",
		"crates/core/Cargo.toml": "Rust",
		"deploy/Dockerfile":      "Docker",
		"infra/main.tf":          "Terraform",
		"README.md":              "",
		"notes":                  "",
		".env":                   "",
	}
	for file, want := range files {
		if got := stackOfFile(file); got != want {
			t.Errorf("stackOfFile(%q) = %q, want %q", file, got, want)
		}
	}
	commands := map[string]string{
		"mix test 2>&1 | tail -15":   "Elixir",
		"cd api && go test ./...":    "Go",
		"FOO=1 cargo clippy":         "Rust",
		"uv run pytest -q":           "uv",
		"docker compose up -d":       "Docker",
		"psql -h localhost -p 5433":  "PostgreSQL",
		"git commit -m 'use python'": "",
		"rg -n OpenAI src":           "",
		"":                           "",
	}
	for cmd, want := range commands {
		if got := stackOfCommand(cmd); got != want {
			t.Errorf("stackOfCommand(%q) = %q, want %q", cmd, got, want)
		}
	}
}
