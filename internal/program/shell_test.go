package program

import (
	"fmt"
	"slices"
	"testing"
)

// What a command line is, as the extractor asks it: its family, whether
// it only looks around (a write through a redirection does not), and
// whether it checks the work.
func TestCommandClassification(t *testing.T) {
	tests := []struct {
		cmd            string
		family         string
		explore, check bool
	}{
		{"go test ./internal/x -run Foo", "go test", false, true},
		{"cd /w && GOFLAGS=-mod=mod go test ./...", "go test", false, true},
		{"npm run build", "npm run build", false, true},
		{"mise run fmt && mise run lint 2>&1", "mise run lint", false, true}, // not mise run fmt's work
		{"docker ps", "docker ps", true, false},
		{"python -m pytest -q", "pytest", false, true},
		{"rg -n test src", "rg", true, false},
		{"sed -i 's/a/b/' main.go", "sed", false, false},
		{"git status --short", "git status", true, false},
		{"git -C repo push", "git push", false, false},
		{"git commit -m 'fix tests'", "git commit", false, false},
		{"ps aux | grep node", "ps", true, false},
		{"sudo logrotate -d /etc/logrotate.d/nginx", "logrotate", false, true},
		{"nginx -t", "nginx", false, true},
		{"make", "make", false, true},
		// A runner target or package script is a check when its name
		// says it verifies; cleaning, deploying or rewriting files is not.
		// git branch, config and remote look around only in their
		// listing and reading forms.
		{"git branch -a", "git branch", true, false},
		{"git branch --show-current", "git branch", true, false},
		{"git branch -D stale", "git branch", false, false},
		{"git branch feature-x", "git branch", false, false},
		{"git config --get user.email", "git config", true, false},
		{"git config user.name", "git config", true, false},
		{"git config user.name Dev", "git config", false, false},
		{"git remote -v", "git remote", true, false},
		{"git remote add upstream git@example.com:a/b.git", "git remote", false, false},
		{"make check", "make check", false, true},
		{"make -j4 test-unit", "make", false, true},
		{"make clean", "make clean", false, false},
		{"make deploy ENV=staging", "make deploy", false, false},
		{"npm run check", "npm run check", false, true},
		{"npm run ci", "npm run ci", false, true},
		{"npm ci", "npm ci", false, false},
		{"pnpm run lint", "pnpm run lint", false, true},
		{"yarn typecheck", "yarn typecheck", false, true},
		{"just test", "just test", false, true},
		{"just qa", "just qa", false, true},
		{"just deploy", "just deploy", false, false},
		{"npm run precommit", "npm run precommit", false, true},
		{"pre-commit run --all-files", "pre-commit", false, true},
		{"prettier --write src", "prettier", false, false},
		{"prettier --check src", "prettier", false, true},
		{"gofmt -w main.go", "gofmt", false, false},
		{"ruff format .", "ruff", false, false},
		{"ruff format --check .", "ruff", false, true},
		// Output sent to a file is a change, not a look around.
		{"cat > /tmp/t.js << 'EOF'\nconsole.log(a => a > 1)\nEOF\nnode /tmp/t.js", "cat", false, false},
		{"echo done >> notes.txt", "echo", false, false},
		{"ls src | tee listing.txt", "ls", false, false},
		{"grep -rn foo src 2>/dev/null", "grep", true, false},
		{"ps aux 2>&1 | grep node", "ps", true, false},
		{"grep -n 'a > b' main.go", "grep", true, false},
		// A reader with an option that writes, or what it runs, changes state.
		{"sed -Ei 's/a/b/' main.go", "sed", false, false},
		{"sed --in-place 's/a/b/' main.go", "sed", false, false},
		{"echo ok | sudo tee /etc/motd", "echo", false, false},
		{"sort -o names.txt names.txt", "sort", false, false},
		{"find . -name '*.orig' -delete", "find", false, false},
		{"find . -name '*.go' -exec sed -i 's/a/b/' {} +", "find", false, false},
		{"find . -name '*.go' -exec grep -l TODO {} +", "find", true, false},
		{"awk -i inplace '{print}' notes.txt", "awk", false, false},
		{"yq -i '.a = 1' ci.yaml", "yq", false, false},
		{"sed -n '1,20p' main.go | tee /dev/stderr", "sed", true, false},
	}
	tests = append(tests, []struct {
		cmd            string
		family         string
		explore, check bool
	}{
		// The work of a chain is its last command that does more than
		// look: its exit status is the line's.
		{"npm install && npm test", "npm test", false, true},
		{"go build -o /tmp/x ./cmd && /tmp/x serve", "x", false, false},
		{"git add -A && git commit -m 'wip'", "git commit", false, false},
		{"uv run pytest -q", "pytest", false, true},
		{"cd /w", "cd", true, false},
		// A launcher runs another program it may first fetch: no read, whatever that program is asked.
		{"npx create-thing --version", "create-thing", false, false},
		{"mise x -- ls", "mise x", false, false},
		{"pnpm dlx some-cli list", "some-cli", false, false},
		{"grep -n exec Makefile", "grep", true, false},
	}...)
	for _, tt := range tests {
		if got := Family(tt.cmd); got != tt.family {
			t.Errorf("Family(%q) = %q, want %q", tt.cmd, got, tt.family)
		}
		explore := Explores(tt.cmd)
		if explore != tt.explore {
			t.Errorf("Explores(%q) = %v", tt.cmd, explore)
		}
		if got := !explore && IsCheck(tt.cmd); got != tt.check {
			t.Errorf("IsCheck(%q) = %v", tt.cmd, got)
		}
	}
}

// A restore from git throws away all uncommitted changes or the files it
// names; git stash pop brings stashed changes back; unstaging keeps the
// edit.
func TestRestores(t *testing.T) {
	tests := []struct{ cmd, want string }{
		{"git checkout -- a.go b.go", "files=[a.go b.go]"},
		{"git restore a.go", "files=[a.go]"},
		{"git stash", "all"},
		{"git reset --hard HEAD", "all"},
		{"git checkout .", "all"},
		{"git restore --staged a.go", "none"},
		{"git stash pop", "unstash"},
		{"git clean -fd", "untracked"},
		{"git stash push -u", "all untracked"},
		{"git clean -f tmp_test.go", "files=[tmp_test.go]"},
		{"git clean -n", "none"},
		{"git clean -n tmp_test.go", "none"},
		{"git -C repo stash && go test ./...", "all"},
		{"go test ./...", "none"},
	}
	for _, tt := range tests {
		r := Restores(tt.cmd)
		got := "none"
		if r.Branch {
			t.Errorf("Restores(%q) moves the branch", tt.cmd)
		}
		switch {
		case r.All && r.Untracked:
			got = "all untracked"
		case r.Untracked:
			got = "untracked"
		case r.All:
			got = "all"
		case r.Unstash:
			got = "unstash"
		case len(r.Files) > 0:
			got = fmt.Sprintf("files=%v", r.Files)
		}
		if got != tt.want {
			t.Errorf("Restores(%q) = %s, want %s", tt.cmd, got, tt.want)
		}
	}
}

// A line that may move the checkout to another branch says so; a restore
// of files, a stash or a reset does not.
func TestRestoresBranch(t *testing.T) {
	for cmd, want := range map[string]bool{
		"git checkout -b feature/x": true, "git switch main": true, "git -C repo checkout release": true, "gh pr checkout 42": true,
		"git checkout -- a.go": false, "git checkout .": false, "git stash": false, "git status": false, "go test ./...": false,
	} {
		if got := Restores(cmd).Branch; got != want {
			t.Errorf("Restores(%q).Branch = %v, want %v", cmd, got, want)
		}
	}
}

// Only plain paths are read: anything the shell could expand is left
// alone rather than guessed.
func TestFilesChanged(t *testing.T) {
	tests := []struct{ cmd, want string }{
		{`sed -i 's/expr \$1 - \$2/expr \$1 + \$2/' 'calc.sh'`, "[{calc.sh update}]"},
		{`rm 'my notes.txt'`, "[{my notes.txt delete}]"},
		{`sed -i "s/a/$B/" f.txt`, `[{ sed -i "s/a/$B/" f.txt}]`}, // a double-quoted $ may expand to anything
		{`rm "$F"`, "[]"},
		{`rm *.tmp`, "[]"},
		{"cat > types/todo.ts << 'EOF'\nexport type A = 1 > 0\nEOF", "[{types/todo.ts write}]"},
		{"cat >> notes.md <<EOF\nmore\nEOF", "[{notes.md update}]"},
		{"sed -i 's/a/b/' x.go\nrm y.go", "[{x.go update} {y.go delete}]"}, // each command of the line
		{"rm scratch.py && git status --short", "[{scratch.py delete}]"},
		{"cd /tmp && rm -rf try && cd web && rm a.js", "[{/tmp/try delete} {/tmp/web/a.js delete}]"},
		// A move's sources are moved, never deleted; the last operand is a new name only when it can be one.
		{"mkdir -p docs && mv draft.md docs/design.md", "[{draft.md moved to docs/design.md} {docs/design.md add}]"},
		{"git mv a.go b.go c/", "[{a.go moved to c/} {b.go moved to c/}]"}, // moved into a folder
		{"mv build.sh bin", "[{build.sh moved to bin}]"},                   // a folder or a new name: not guessed
		{"git mv -f old pkg/", "[{old moved to pkg/}]"},
		// An in-place edit over files the shell expands or a pipe supplies changed files the line does not name:
		// Path "" and the line; one that names its file plainly is that file.
		{"sed -i 's/a/b/' $(git ls-files '*.go')", "[{ sed -i 's/a/b/' $(git ls-files '*.go')}]"},
		{"git ls-files | xargs sed -i.bak -e 's/a/b/'", "[{ git ls-files | xargs sed -i.bak -e 's/a/b/'}]"},
		// A pipe after the editor takes its output: the files it names are its own, no unnamed change.
		{"perl -pi -e 's/a/b/' docs/guide.md | head -3", "[{docs/guide.md update}]"},
		// Errors sent to /dev/null or into the output write no file and hide none the line names.
		{"perl -pi -e 's/a/b/' docs/guide.md 2>/dev/null", "[{docs/guide.md update}]"},
		{"rm -f build/out.bin 2>&1", "[{build/out.bin delete}]"},
		{"find . -name '*.md' -exec sed --in-place 's/a/b/' {} +", "[{ find . -name '*.md' -exec sed --in-place 's/a/b/' {} +}]"},
		{"perl -pi -e 's/a/b/' *.txt && echo done", "[{ perl -pi -e 's/a/b/' *.txt && echo done}]"},
		{"perl -pi -e 's/a/b/' lib/x.pm", "[{lib/x.pm update}]"},
		{"sed -n 's/-i/x/p' *.go; grep -ri todo . | sed 's/a/b/'; perl -ne 'print' *.pl", "[]"}, // no in-place flag
		{"git rm --cached secrets.env", "[]"},
		{"rm -f a.go b.go", "[{a.go delete} {b.go delete}]"},
		{"git rm old.go", "[{old.go delete}]"},
		{"touch new.txt", "[{new.txt add}]"},
		{"sed -n '1,5p' a.go", "[]"},
		{"if (( n >= 3 )); then echo big > size.txt; fi", "[{size.txt write}]"}, // >= compares
		// Output redirected or teed to a path writes it, in every command outside a heredoc's text.
		{"cat <<'EOF' > src/app.py\nprint(1 > 0)\nEOF", "[{src/app.py write}]"},
		{"mkdir -p conf && cat > conf/a.yml <<EOF\nx: 1\nEOF\ncd web\ncat <<-EOF >> b.txt\ny\nEOF", "[{conf/a.yml write} {web/b.txt update}]"},
		{`printf '%s\n' a > list.txt; echo b >> list.txt`, "[{list.txt write} {list.txt update}]"},
		{"git log --oneline 2>&1 | tee log.txt", "[{log.txt write}]"},
		{"go build ./... 2>&1 | tee build.log; npm test > test.log", "[]"}, // a check's output is its log
		{"echo ok | tee -a notes.md >/dev/null", "[{notes.md update}]"},
		{"python3 gen.py > /tmp/t.json 2>&1", "[{/tmp/t.json write}]"}, // the caller knows a scratch file
		{`echo "a > b"; grep '>' x.html; go vet 2> errs.txt >&2 2>>e.log`, "[]"},
		{`cd "$(mktemp -d)" && echo x > a.txt`, "[]"}, // under a folder the shell makes: not known
		// An escaped quote neither opens nor closes quoted text.
		{`bd new --body="needs \"~> 1.7\" first"; echo \" > a.txt; echo \"`, "[{a.txt write}]"},
		{`echo x > "$OUT"; echo y > out/*.txt; a=$(( 1 << 2 ))`, "[]"},
		{"python3 - <<'PY'\nopen('x', 'w')\nPY\necho done > done.txt", "[{done.txt write}]"},
		{"cat > a.sh <<'EOF'\ncat > b.txt <<'INNER'\nINNER\necho > c\nEOF", "[{a.sh write}]"},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(FilesChanged(tt.cmd)); got != tt.want {
			t.Errorf("FilesChanged(%q) = %s, want %s", tt.cmd, got, tt.want)
		}
	}
}

func TestFilesRead(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"cat a.go", []string{"a.go"}},
		{"sed -n '1,80p' main.go", []string{"main.go"}},
		{"nl -ba src/x.ts", []string{"src/x.ts"}},
		{"head -n 20 README", nil}, // no dot nor slash: not known to be a file
		{"cat a.go | grep x", nil},
		{"rg foo src/a.go", nil}, // rg prints matches, not the file
	}
	for _, tt := range tests {
		if got := FilesRead(tt.cmd); !slices.Equal(got, tt.want) {
			t.Errorf("FilesRead(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

func TestEndsInSearch(t *testing.T) {
	for cmd, want := range map[string]bool{
		"go test ./... 2>&1 | grep FAIL": true,
		"cd web && rg -n TODO src":       true,
		"go test ./... | tail -5":        false,
		"grep -q x f && make":            false,
		"go test ./...":                  false,
	} {
		if got := EndsInSearch(cmd); got != want {
			t.Errorf("EndsInSearch(%q) = %v", cmd, got)
		}
	}
}

func TestHidesExitStatus(t *testing.T) {
	tests := []struct {
		cmd  string
		want bool
	}{
		{"go test ./... | tail -20", true},
		{"set -o pipefail; go test ./... | tail -20", false},
		{"go test ./... || echo failed", true}, // the status is echo's when the tests fail
		{"make test; echo \"exit: $?\"", true},
		{"go test ./... || true", true},
		{"cd web && npm test", false},
		{"echo y | npx create-next-app app", false}, // the last stage is the work
		{"go test ./...", false},
		{"if go test ./...; then echo ok; else echo FAIL; fi", true}, // the if's status is 0 whatever the tests did
		{"for d in a b; do make -C $d test; done", true},             // the loop's is its last round's
		{"npm test; exit 0", true},
		{"if [ -d web ]; then cd web; fi; npm test", false},
		{"npm run dev > /tmp/dev.log 2>&1 &", true}, // started in the background: 0 is the shell's
		{"python3 srv.py & sleep 2; curl -fsS localhost:8000", false},
	}
	for _, tt := range tests {
		if got := HidesExitStatus(tt.cmd); got != tt.want {
			t.Errorf("HidesExitStatus(%q) = %v", tt.cmd, got)
		}
	}
}

func TestDirAndLookedIn(t *testing.T) {
	dirs := map[string]string{
		"cd /tmp/try && git init && git commit -m init": "/tmp/try",
		"cd 'my dir' && ls":                             "my dir",
		"cd /tmp; git init":                             "/tmp",
		"pushd build && make":                           "build",
		"git -C /tmp/x commit -m init":                  "/tmp/x",
		"go test ./...":                                 "",
		"cd":                                            "",
	}
	for cmd, want := range dirs {
		if got := Dir(cmd); got != want {
			t.Errorf("Dir(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// A command only looks when every part of its chain and every stage of
// its pipes only looks; quoted text and an escaped semicolon are no
// structure.
func TestReadOnlyWholeLine(t *testing.T) {
	tests := map[string]bool{
		"rg -n foo src | head -20":                                  true,
		"grep -q x file || true":                                    true,
		"cd /tmp && ls -la":                                         true,
		`find . -name '*.go' -exec cat {} \; | wc -l`:               true,
		`tree types/ 2>/dev/null || find types/ | sed 's|types/||'`: true,
		"Get-ChildItem -Recurse -Filter *.log | Remove-Item":        false,
		"Get-Content a.txt | Set-Content b.txt":                     false,
		`echo "" | npx create-next-app@latest app`:                  false,
		"ls | xargs rm":                                             false,
		"ls && rm -rf build":                                        false,
		"find . -name '*.tmp' | xargs grep -l TODO":                 true,
	}
	for cmd, want := range tests {
		if got := readOnly(cmd); got != want {
			t.Errorf("readOnly(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestWorktreeAdded(t *testing.T) {
	tests := map[string]string{
		"git worktree add /tmp/app-hotfix -b hotfix":         "/tmp/app-hotfix",
		"git worktree add -b hotfix ../app-hotfix main":      "../app-hotfix",
		"cd repo && git -C . worktree add /tmp/wt":           "/tmp/wt",
		"git worktree list":                                  "",
		"git commit -m 'git worktree add /tmp/x is in text'": "",
	}
	for cmd, want := range tests {
		if got := WorktreeAdded(cmd); got != want {
			t.Errorf("WorktreeAdded(%q) = %q, want %q", cmd, got, want)
		}
	}
}
