// Package synth writes the generated multi-session projects of memctl's
// regret benchmark (`memctl eval`, docs/quality.md): coding sessions in
// which a lesson is taught (the user corrects the agent, or a failed
// command is fixed), and later sessions of the same project that repeat
// the mistake or meet the same need without it, each written in Claude
// Code's or Codex CLI's own format (internal/sessions/scripted). The text
// is memctl's own; every name, path and id is made up.
package synth

import (
	"fmt"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/sessions/scripted"
)

// The scripted session's parts, by their names here.
type (
	Agent   = scripted.Agent
	Step    = scripted.Step
	Turn    = scripted.Turn
	Session = scripted.Session
	Project = scripted.Project
)

// The formats.
const (
	Claude = scripted.Claude
	Codex  = scripted.Codex
)

// Plant is one return of a lesson the corpus was written to have: the
// truth the benchmark scores `memctl eval` against.
type Plant struct {
	Project string
	Topic   string
	// Lesson and Return are the session ids of the lesson and of the later
	// session where the topic comes back.
	Lesson, Return string
	// Repeated is set when the return repeats the mistake.
	Repeated bool
	// Class is the class memctl's offline memory should earn: prevented,
	// extraction_miss, ranking_miss, compliance_miss or unaided.
	Class string
	// Why says how the plant was made.
	Why string
}

// Corpus is what Write wrote.
type Corpus struct {
	Projects []*Project
	Plants   []Plant
	// Sessions counts the sessions written.
	Sessions int
}

// base is when the first generated session starts.
func base() time.Time { return time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC) }

// Write writes the corpus under root: Claude Code sessions in
// root/claude/projects, Codex sessions in root/codex/sessions (and
// root/codex/archived_sessions). The same call always writes the same
// bytes.
func Write(root string) (*Corpus, error) {
	c := &Corpus{}
	for i, sc := range scenarios() {
		p, plant, err := sc.build(i)
		if err != nil {
			return nil, err
		}
		for k, s := range p.Sessions {
			if _, err := scripted.WriteSession(root, p, s, k); err != nil {
				return nil, err
			}
			c.Sessions++
		}
		c.Projects = append(c.Projects, p)
		if plant != nil {
			plant.Project = p.Name
			plant.Lesson = p.Sessions[0].ID
			plant.Return = p.Sessions[len(p.Sessions)-1].ID
			c.Plants = append(c.Plants, *plant)
		}
	}
	return c, nil
}

// scenario is one project: a lesson, a neutral session, fillers, and the
// session where the topic comes back (or does not).
type scenario struct {
	name    string
	topic   *lesson
	agents  [3]Agent // lesson, neutral, return
	variant string   // "repeat", "prevent" or "none"
	class   string
	why     string
	// lessonExec / lessonArchived write the lesson where memctl never
	// extracts from.
	lessonExec, lessonArchived bool
	// fillers are sessions between the neutral one and the return, each
	// teaching the project something else: a preference and a passing
	// check, or with fillerFixes a preference and a fix.
	fillers     int
	fillerFixes bool
	// cite makes the return's answer cite the lesson's memory.
	cite bool
}

// lesson is one topic: how it is taught, repeated and respected.
type lesson struct {
	name    string
	teach   []Turn
	repeat  []Turn
	prevent []Turn
	neutral []Turn
}

func (sc scenario) build(i int) (*Project, *Plant, error) {
	p := &Project{Name: sc.name, Cwd: "/home/dev/src/" + sc.name}
	start := base().Add(time.Duration(i) * 37 * time.Minute)
	day := 24 * time.Hour
	add := func(a Agent, at time.Time, turns []Turn) *Session {
		s := &Session{Agent: a, Start: at, Turns: turns, ID: scripted.SessionID(fmt.Sprintf("%s/%d", p.Name, len(p.Sessions)), at)}
		p.Sessions = append(p.Sessions, s)
		return s
	}
	first := add(sc.agents[0], start, sc.topic.teach)
	first.Exec, first.Archived = sc.lessonExec, sc.lessonArchived
	add(sc.agents[1], start.Add(2*day), sc.topic.neutral)
	for k := 0; k < sc.fillers; k++ {
		add(sc.agents[k%2], start.Add(time.Duration(3+k)*day), filler(sc.name, k, sc.fillerFixes))
	}
	at := start.Add(time.Duration(4+sc.fillers) * day)
	var plant *Plant
	switch {
	case len(sc.topic.teach) == 0 || len(sc.topic.neutral) == 0 ||
		sc.variant == "repeat" && len(sc.topic.repeat) == 0 || sc.variant == "prevent" && len(sc.topic.prevent) == 0:
		return nil, nil, fmt.Errorf("synth: scenario %s: the lesson %q has no %s session", sc.name, sc.topic.name, sc.variant)
	}
	switch sc.variant {
	case "repeat":
		add(sc.agents[2], at, sc.topic.repeat)
		plant = &Plant{Topic: sc.topic.name, Repeated: true, Class: sc.class, Why: sc.why}
	case "prevent":
		turns := sc.topic.prevent
		if sc.cite {
			turns = withCitation(turns, p.Sessions[0].ID)
		}
		add(sc.agents[2], at, turns)
		plant = &Plant{Topic: sc.topic.name, Class: sc.class, Why: sc.why}
	default:
		add(sc.agents[2], at, unrelated(sc.name))
	}
	return p, plant, nil
}

// withCitation ends the last answer with a citation block naming the
// lesson's session, as an agent that used the memory writes it.
func withCitation(turns []Turn, lessonID string) []Turn {
	out := append([]Turn(nil), turns...)
	last := &out[len(out)-1]
	last.Final += "\n<oai-mem-citation>\n<citation_entries>\nMEMORY.md:1-4|note=[the lesson of the earlier session]\n</citation_entries>\n<rollout_ids>\n" +
		lessonID + "\n</rollout_ids>\n</oai-mem-citation>"
	return out
}

func scenarios() []scenario {
	return []scenario{
		// Corrections repeated although the memory given held them.
		{name: "webshop", topic: pnpmLesson("webshop"), agents: [3]Agent{Claude, Codex, Claude}, variant: "repeat", class: "compliance_miss",
			why: "“use pnpm, not npm” is injected as a preference; the agent runs npm again and is corrected"},
		{name: "recipes-api", topic: uvLesson("recipes-api"), agents: [3]Agent{Claude, Claude, Claude}, variant: "repeat", class: "compliance_miss",
			why: "“never bare pytest” is injected; bare pytest fails again and the user says so"},
		{name: "ledger", topic: raceLesson("ledger"), agents: [3]Agent{Codex, Codex, Codex}, variant: "repeat", class: "compliance_miss",
			why: "“always go test -race” is injected; the agent runs plain go test and nobody says a word"},
		{name: "billing", topic: migrateLesson("billing"), agents: [3]Agent{Claude, Codex, Claude}, variant: "repeat", class: "compliance_miss",
			why: "“don't run migrations yourself” is injected; the agent migrates again and is stopped"},
		{name: "queue-worker", topic: composeLesson("queue-worker"), agents: [3]Agent{Codex, Claude, Codex}, variant: "repeat", class: "compliance_miss",
			why: "“docker compose, not docker-compose” is injected; docker-compose fails again"},
		{name: "ui-kit", topic: publishLesson("ui-kit"), agents: [3]Agent{Codex, Codex, Claude}, variant: "repeat", class: "compliance_miss",
			why: "the Fix tip “npm publish failed (E402) and passed with --access public added” is injected; the same E402 again"},
		{name: "analytics", topic: psqlLesson("analytics"), agents: [3]Agent{Claude, Claude, Claude}, variant: "repeat", class: "compliance_miss",
			why: "the Fix tip for psql on port 5433 is injected; the connection is refused on 5432 again"},
		{name: "orders", topic: dbLesson("orders"), agents: [3]Agent{Codex, Claude, Codex}, variant: "repeat", class: "compliance_miss",
			why: "the Fix tip “go test failed, passed after docker compose up -d db ran” is injected; the tests are run before the database again"},
		// Lessons memctl never extracts.
		{name: "storage-rs", topic: cargoLesson("storage-rs"), agents: [3]Agent{Codex, Codex, Codex}, variant: "repeat", class: "extraction_miss",
			lessonExec: true, why: "the lesson is in a `codex exec` session, which is not extracted; the same cargo error comes back"},
		{name: "platform", topic: terraformLesson("platform"), agents: [3]Agent{Codex, Codex, Codex}, variant: "repeat", class: "extraction_miss",
			lessonArchived: true, why: "the lesson is in an archived Codex session, which is not extracted; terraform apply is run again"},
		// A lesson extracted and then crowded out of the summary.
		{name: "static-site", topic: deployLesson("static-site"), agents: [3]Agent{Claude, Codex, Claude}, variant: "repeat", class: "ranking_miss",
			fillers: 16, fillerFixes: true, why: "16 later sessions each add a preference and a fix of their own, pushing the deploy fix out of the summary; the return's first prompt shares no word with it"},
		// The same lesson followed by sessions that only passed routine
		// checks: fixes rank before checks, so it stays.
		{name: "docs-portal", topic: deployLesson("docs-portal"), agents: [3]Agent{Codex, Claude, Codex}, variant: "prevent", class: "prevented",
			fillers: 16, why: "16 later sessions each add a preference and a passing check; the deploy fix outranks the checks and stays in the summary"},
		// Lessons kept and respected.
		{name: "storefront", topic: pnpmLesson("storefront"), agents: [3]Agent{Codex, Claude, Codex}, variant: "prevent", class: "prevented", cite: true,
			why: "pnpm is used from the start; the answer cites the lesson"},
		{name: "payments", topic: raceLesson("payments"), agents: [3]Agent{Claude, Claude, Claude}, variant: "prevent", class: "prevented",
			why: "go test -race from the start; a different test fails under it and is fixed (not a repeat)"},
		{name: "icons", topic: publishLesson("icons"), agents: [3]Agent{Claude, Codex, Claude}, variant: "prevent", class: "prevented", cite: true,
			why: "--access public from the start; the publish then fails with E403 (version exists), another error"},
		{name: "widgets", topic: jestLesson("widgets"), agents: [3]Agent{Codex, Codex, Codex}, variant: "prevent", class: "prevented",
			why: "jest runs with the ESM config from the start"},
		{name: "notifier", topic: composeLesson("notifier"), agents: [3]Agent{Claude, Claude, Claude}, variant: "prevent", class: "prevented",
			why: "docker compose v2 from the start"},
		{name: "changelog", topic: emojiLesson("changelog"), agents: [3]Agent{Claude, Codex, Claude}, variant: "prevent", class: "prevented",
			why: "a commit without emoji: git commit again is the same need, not the mistake"},
		// A lesson memctl never saw, and a session that got it right anyway.
		{name: "blob-store", topic: cargoLesson("blob-store"), agents: [3]Agent{Codex, Codex, Claude}, variant: "prevent", class: "unaided",
			lessonExec: true, why: "the lesson is in a `codex exec` session; the return runs cargo test --features sqlite anyway"},
		// A lesson whose topic never comes back.
		{name: "infra-notes", topic: migrateLesson("infra-notes"), agents: [3]Agent{Claude, Claude, Codex}, variant: "none",
			why: "no later session touches migrations"},
	}
}

// Turn builders.

func run(cmd, out string, exit int) Step { return Step{Cmd: cmd, Out: out, Exit: exit} }
func say(text string) Step               { return Step{Say: text} }
func edit(file, old, new string) Step    { return Step{File: file, Old: old, New: new} }
func create(file, content string) Step   { return Step{File: file, New: content} }

func neutral(name, file, what string) []Turn {
	return []Turn{{
		User: fmt.Sprintf("Update %s: %s.", file, what),
		Steps: []Step{
			run("git status --short", "", 0),
			edit(file, "## Usage", "## Usage\n\n"+what+"."),
		},
		Final: fmt.Sprintf("Updated %s (%s).", file, what),
	}}
}

func unrelated(name string) []Turn {
	return []Turn{{
		User:  "Fix the typo in CONTRIBUTING.md: \"recieve\" should be \"receive\".",
		Steps: []Step{edit("CONTRIBUTING.md", "recieve", "receive")},
		Final: "Fixed the typo in CONTRIBUTING.md.",
	}}
}

func pnpmLesson(name string) *lesson {
	return &lesson{
		name: "pnpm, not npm",
		teach: []Turn{
			{User: "Add lodash-es as a dependency of " + name + " and use its debounce in src/search.ts.",
				Steps: []Step{say("I'll add the package first."),
					run("npm install lodash-es", "added 1 package, and audited 412 packages in 3s\n\nfound 0 vulnerabilities", 0)},
				Final: "Installed lodash-es; next I'll switch src/search.ts over."},
			{User: "no, use pnpm, not npm: " + name + " is a pnpm workspace and npm just wrote a package-lock.json we don't want.",
				Steps: []Step{run("rm package-lock.json", "", 0),
					run("pnpm add lodash-es", "Packages: +1\nProgress: resolved 398, reused 397, downloaded 1, added 1, done\n\ndependencies:\n+ lodash-es 4.17.21", 0),
					edit("src/search.ts", "function debounce(", "import { debounce } from 'lodash-es';\n\nfunction oldDebounce("),
					run("pnpm test -- search", "PASS src/search.test.ts\n  ✓ debounces keystrokes (12 ms)\n\nTests: 3 passed, 3 total", 0)},
				Final: "Removed the stray package-lock.json, added lodash-es with pnpm and switched src/search.ts to its debounce; `pnpm test -- search` passes."},
		},
		neutral: neutral(name, "README.md", "document the search page's keyboard shortcuts"),
		repeat: []Turn{
			{User: "Upgrade zod to the latest 3.x and fix whatever the upgrade breaks.",
				Steps: []Step{run("npm install zod@3", "changed 1 package, and audited 412 packages in 2s\n\nfound 0 vulnerabilities", 0)},
				Final: "Upgraded zod to 3.24.1; nothing else needed changing."},
			{User: "I told you before: this repo uses pnpm, never npm. Undo that and use pnpm.",
				Steps: []Step{run("rm package-lock.json", "", 0),
					run("pnpm add zod@3", "Packages: +0 -0\nProgress: resolved 398, reused 398, downloaded 0, added 0, done\n\ndependencies:\n- zod 3.22.4\n+ zod 3.24.1", 0)},
				Final: "Removed package-lock.json and upgraded zod with pnpm."},
		},
		prevent: []Turn{
			{User: "Upgrade zod to the latest 3.x and fix whatever the upgrade breaks.",
				Steps: []Step{say("This is a pnpm workspace, so I'll upgrade with pnpm."),
					run("pnpm add zod@3", "Packages: +0 -0\nProgress: resolved 398, reused 398, downloaded 0, added 0, done\n\ndependencies:\n- zod 3.22.4\n+ zod 3.24.1", 0),
					run("pnpm test", "Tests: 41 passed, 41 total", 0)},
				Final: "Upgraded zod to 3.24.1 with pnpm; `pnpm test` passes."},
		},
	}
}

func uvLesson(name string) *lesson {
	fail := "ImportError while loading conftest '/home/dev/src/" + name + "/tests/conftest.py'.\ntests/conftest.py:3: in <module>\n    from fastapi.testclient import TestClient\nE   ModuleNotFoundError: No module named 'fastapi'"
	return &lesson{
		name: "uv run pytest, never bare pytest",
		teach: []Turn{
			{User: "Add a /health endpoint that returns {\"status\": \"ok\"} and a test for it.",
				Steps: []Step{edit("app/main.py", "app = FastAPI()", "app = FastAPI()\n\n\n@app.get(\"/health\")\ndef health():\n    return {\"status\": \"ok\"}"),
					create("tests/test_health.py", "def test_health(client):\n    assert client.get(\"/health\").json() == {\"status\": \"ok\"}\n"),
					run("pytest -q", fail, 4)},
				Final: "Added the endpoint and its test, but pytest cannot import fastapi here."},
			{User: "no, use `uv run pytest`, never bare pytest: the " + name + " venv isn't activated in your shell.",
				Steps: []Step{run("uv run pytest -q", "....                                                                     [100%]\n4 passed in 0.41s", 0)},
				Final: "`uv run pytest -q` passes: 4 tests, including the new /health test."},
		},
		neutral: neutral(name, "README.md", "list the environment variables the API reads"),
		repeat: []Turn{
			{User: "Add pagination to GET /recipes (limit and offset query parameters) with tests.",
				Steps: []Step{edit("app/routes.py", "def list_recipes():", "def list_recipes(limit: int = 20, offset: int = 0):"),
					run("pytest -q", fail, 4)},
				Final: "Pagination is in; the test run failed because fastapi cannot be imported."},
			{User: "I said uv run pytest, not bare pytest. Run it properly.",
				Steps: []Step{run("uv run pytest -q", "......                                                                   [100%]\n6 passed in 0.52s", 0)},
				Final: "`uv run pytest -q` passes (6 tests)."},
		},
	}
}

func raceLesson(name string) *lesson {
	pkg := "example.com/" + name
	return &lesson{
		name: "go test -race",
		teach: []Turn{
			{User: "TestPostBatch is flaky on CI; make it deterministic.",
				Steps: []Step{run("go test ./...", "ok  \t"+pkg+"/internal/batch\t0.412s\nok  \t"+pkg+"/internal/entry\t0.108s", 0),
					edit("internal/batch/batch_test.go", "time.Sleep(10 * time.Millisecond)", "wg.Wait()"),
					run("go test ./...", "ok  \t"+pkg+"/internal/batch\t0.398s\nok  \t"+pkg+"/internal/entry\t0.101s", 0)},
				Final: "TestPostBatch now waits on the worker group instead of sleeping; `go test ./...` passes."},
			{User: "From now on always run go test with -race in " + name + ", not plain go test: the batcher runs goroutines and that flake was a data race.",
				Steps: []Step{run("go test -race ./...", "ok  \t"+pkg+"/internal/batch\t1.873s\nok  \t"+pkg+"/internal/entry\t1.204s", 0)},
				Final: "`go test -race ./...` passes and the race detector reports nothing."},
		},
		neutral: neutral(name, "docs/architecture.md", "describe how batches are posted"),
		repeat: []Turn{
			{User: "Add a Reverse method to Entry that swaps debit and credit, with a test.",
				Steps: []Step{edit("internal/entry/entry.go", "// Amount returns", "// Reverse swaps debit and credit.\nfunc (e Entry) Reverse() Entry { e.Debit, e.Credit = e.Credit, e.Debit; return e }\n\n// Amount returns"),
					create("internal/entry/reverse_test.go", "package entry\n\nfunc TestReverse(t *testing.T) {}\n"),
					run("go test ./...", "ok  \t"+pkg+"/internal/batch\t0.402s\nok  \t"+pkg+"/internal/entry\t0.113s", 0)},
				Final: "Added Entry.Reverse with a table test; `go test ./...` passes."},
		},
		prevent: []Turn{
			{User: "Add a Refund type whose Total subtracts the fee, with a test.",
				Steps: []Step{create("internal/refund/refund.go", "package refund\n\ntype Refund struct{ Amount, Fee int64 }\n\nfunc (r Refund) Total() int64 { return r.Amount + r.Fee }\n"),
					create("internal/refund/refund_test.go", "package refund\n\nfunc TestRefundTotal(t *testing.T) {}\n"),
					run("go test -race ./...", "--- FAIL: TestRefundTotal (0.00s)\n    refund_test.go:18: Total() = 1050, want 1000\nFAIL\nFAIL\t"+pkg+"/internal/refund\t0.021s", 1),
					edit("internal/refund/refund.go", "return r.Amount + r.Fee", "return r.Amount - r.Fee"),
					run("go test -race ./...", "ok  \t"+pkg+"/internal/batch\t1.902s\nok  \t"+pkg+"/internal/refund\t1.017s", 0)},
				Final: "Added Refund; the first test run caught Total adding the fee instead of subtracting it. `go test -race ./...` passes now."},
		},
	}
}

func migrateLesson(name string) *lesson {
	return &lesson{
		name: "never run migrations",
		teach: []Turn{
			{User: "Add a discount_cents column to invoices, default 0.",
				Steps: []Step{create("db/migrate/20260302090000_add_discount_cents_to_invoices.rb", "class AddDiscountCentsToInvoices < ActiveRecord::Migration[7.1]\n  def change\n    add_column :invoices, :discount_cents, :integer, default: 0\n  end\nend\n"),
					run("bin/rails db:migrate", "== 20260302090000 AddDiscountCentsToInvoices: migrating ====================\n-- add_column(:invoices, :discount_cents, :integer, {:default=>0})\n   -> 0.0031s\n== 20260302090000 AddDiscountCentsToInvoices: migrated (0.0032s) ===========", 0)},
				Final: "Added the migration and ran it; invoices now have discount_cents."},
			{User: "don't run migrations yourself: generate them and I apply them, the " + name + " dev database is shared with the team.",
				Steps: []Step{run("bin/rails db:rollback", "== 20260302090000 AddDiscountCentsToInvoices: reverting ====================\n-- remove_column(:invoices, :discount_cents)\n   -> 0.0040s", 0)},
				Final: "Rolled the migration back; the file is in db/migrate for you to apply."},
		},
		neutral: neutral(name, "README.md", "explain how invoices are numbered"),
		repeat: []Turn{
			{User: "Add an index on invoices.customer_id.",
				Steps: []Step{create("db/migrate/20260309090000_add_index_on_invoices_customer_id.rb", "class AddIndexOnInvoicesCustomerId < ActiveRecord::Migration[7.1]\n  def change\n    add_index :invoices, :customer_id\n  end\nend\n"),
					run("bin/rails db:migrate", "== 20260309090000 AddIndexOnInvoicesCustomerId: migrating ===================\n-- add_index(:invoices, :customer_id)\n   -> 0.0102s", 0)},
				Final: "Added the index migration and ran it."},
			{User: "Stop. You ran the migration again; I apply migrations myself. Roll it back.",
				Steps: []Step{run("bin/rails db:rollback", "== 20260309090000 AddIndexOnInvoicesCustomerId: reverting ===================", 0)},
				Final: "Rolled it back; the migration file is ready for you."},
		},
	}
}

func composeLesson(name string) *lesson {
	notFound := "bash: line 1: docker-compose: command not found"
	return &lesson{
		name: "docker compose, not docker-compose",
		teach: []Turn{
			{User: "Start the stack and check that the worker connects to Redis.",
				Steps: []Step{run("docker-compose up -d", notFound, 127)},
				Final: "docker-compose is not installed on this machine."},
			{User: "use docker compose (the v2 plugin), not docker-compose; the old v1 binary isn't installed on the " + name + " box.",
				Steps: []Step{run("docker compose up -d", "[+] Running 3/3\n ✔ Container "+name+"-redis-1   Started\n ✔ Container "+name+"-api-1     Started\n ✔ Container "+name+"-worker-1  Started", 0),
					run("docker compose logs worker --tail 20", "worker-1  | connected to redis://redis:6379/0", 0)},
				Final: "The stack is up with `docker compose` and the worker connected to Redis."},
		},
		neutral: neutral(name, "README.md", "describe the job retry policy"),
		repeat: []Turn{
			{User: "Bring the stack up and tell me why jobs keep retrying.",
				Steps: []Step{run("docker-compose up -d", notFound, 127),
					say("The v1 binary is missing; using the compose plugin."),
					run("docker compose up -d", "[+] Running 3/3\n ✔ Container "+name+"-worker-1  Started", 0),
					run("docker compose logs worker --tail 50", "worker-1  | retrying job 42: timeout after 30s", 0)},
				Final: "Jobs retry because the worker times out after 30 s on job 42."},
		},
		prevent: []Turn{
			{User: "Bring the stack up and tell me why jobs keep retrying.",
				Steps: []Step{run("docker compose up -d", "[+] Running 3/3\n ✔ Container "+name+"-worker-1  Started", 0),
					run("docker compose logs worker --tail 50", "worker-1  | retrying job 42: timeout after 30s", 0)},
				Final: "Jobs retry because the worker times out after 30 s on job 42."},
		},
	}
}

func publishLesson(name string) *lesson {
	e402 := "npm notice Publishing to https://registry.npmjs.org/ with tag latest and default access\nnpm ERR! code E402\nnpm ERR! 402 Payment Required - PUT https://registry.npmjs.org/@acme%2f" + name + " - You must sign up for private packages"
	return &lesson{
		name: "npm publish --access public",
		teach: []Turn{
			{User: "Publish 1.4.0 of @acme/" + name + " to npm.",
				Steps: []Step{run("npm publish", e402, 1),
					say("Scoped packages publish as private by default, and this one is public."),
					run("npm publish --access public", "+ @acme/"+name+"@1.4.0", 0)},
				Final: "Published @acme/" + name + "@1.4.0 with `--access public`: scoped packages default to private, which needs a paid plan."},
		},
		neutral: neutral(name, "CHANGELOG.md", "add the 1.4.0 entry"),
		repeat: []Turn{
			{User: "Release 1.5.0: bump the version and publish.",
				Steps: []Step{run("npm version minor", "v1.5.0", 0),
					run("npm publish", e402, 1),
					run("npm publish --access public", "+ @acme/"+name+"@1.5.0", 0)},
				Final: "Released @acme/" + name + "@1.5.0."},
		},
		prevent: []Turn{
			{User: "Release 2.1.0 and publish it.",
				Steps: []Step{run("npm publish --access public", "npm ERR! code E403\nnpm ERR! 403 403 Forbidden - PUT https://registry.npmjs.org/@acme%2f"+name+" - You cannot publish over the previously published versions: 2.1.0.", 1),
					say("2.1.0 is already on the registry; bumping to 2.1.1."),
					edit("package.json", "\"version\": \"2.1.0\"", "\"version\": \"2.1.1\""),
					run("npm publish --access public", "+ @acme/"+name+"@2.1.1", 0)},
				Final: "2.1.0 was already published, so I released 2.1.1 with `--access public`."},
		},
	}
}

func psqlLesson(name string) *lesson {
	refused := "psql: error: connection to server at \"localhost\" (127.0.0.1), port 5432 failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?"
	return &lesson{
		name: "psql on port 5433",
		teach: []Turn{
			{User: "List the tables in the analytics database with their row counts.",
				Steps: []Step{run("psql -h localhost -U analytics -c '\\dt+'", refused, 2),
					say("Nothing listens on 5432; docker-compose.yml maps postgres to 5433."),
					run("psql -h localhost -p 5433 -U analytics -c '\\dt+'", "            List of relations\n Schema |  Name  | Type  |   Owner   |  Size\n--------+--------+-------+-----------+--------\n public | events | table | analytics | 912 MB", 0)},
				Final: "One table, events (912 MB). Postgres listens on port 5433 here, not 5432."},
		},
		neutral: neutral(name, "README.md", "explain the events table's columns"),
		repeat: []Turn{
			{User: "How many events did we record yesterday?",
				Steps: []Step{run("psql -h localhost -U analytics -c \"select count(*) from events where day = current_date - 1\"", refused, 2),
					run("psql -h localhost -p 5433 -U analytics -c \"select count(*) from events where day = current_date - 1\"", " count\n-------\n 18342", 0)},
				Final: "18,342 events were recorded yesterday."},
		},
	}
}

// dbLesson is a failure a setup step fixed: the same command passes once
// the database is up, no file changed between. The answers do not say
// it: only the pairing of the failure with its pass carries the lesson.
func dbLesson(name string) *lesson {
	refused := func(test string) string {
		return "--- FAIL: " + test + " (0.01s)\n    orders_test.go:18: dial tcp 127.0.0.1:5432: connect: connection refused\nFAIL\n" +
			"FAIL\tgithub.com/acme/" + name + "/internal/store\t0.02s"
	}
	up := "[+] Running 1/1\n ✔ Container " + name + "-db-1  Started"
	pass := "ok  \tgithub.com/acme/" + name + "/internal/store\t0.38s"
	return &lesson{
		name: "start the database before the store tests",
		teach: []Turn{
			{User: "Add a CountOrders query to internal/store and test it.",
				Steps: []Step{edit("internal/store/orders.go", "func ListOrders(", "func CountOrders(ctx context.Context) (int, error) { return 0, nil }\n\nfunc ListOrders("),
					run("go test ./internal/store/...", refused("TestCountOrders"), 1),
					run("docker compose up -d db", up, 0),
					run("go test ./internal/store/...", pass, 0)},
				Final: "Added CountOrders and its test; the store tests pass."},
		},
		neutral: neutral(name, "README.md", "describe the orders table"),
		repeat: []Turn{
			{User: "Add a CancelOrder query to internal/store and test it.",
				Steps: []Step{edit("internal/store/orders.go", "func ListOrders(", "func CancelOrder(ctx context.Context, id int) error { return nil }\n\nfunc ListOrders("),
					run("go test ./internal/store/...", refused("TestCancelOrder"), 1),
					run("docker compose up -d db", up, 0),
					run("go test ./internal/store/...", pass, 0)},
				Final: "Added CancelOrder and its test; the store tests pass."},
		},
	}
}

func cargoLesson(name string) *lesson {
	e0432 := "error[E0432]: unresolved import `crate::backend::sqlite`\n --> src/lib.rs:4:5\n  |\n4 | use crate::backend::sqlite::SqliteStore;\n  |     ^^^^^^^^^^^^^^^^^^^^^^^ could not find `sqlite` in `backend`\n  |\nnote: the item is gated behind the `sqlite` feature"
	return &lesson{
		name: "cargo test --features sqlite",
		teach: []Turn{
			{User: "Run the test suite and fix anything that fails.",
				Steps: []Step{run("cargo test", e0432, 101),
					say("The sqlite backend sits behind a cargo feature."),
					run("cargo test --features sqlite", "test result: ok. 42 passed; 0 failed; 0 ignored", 0)},
				Final: "The suite passes with `cargo test --features sqlite`; without the feature the sqlite backend does not compile."},
		},
		neutral: neutral(name, "README.md", "describe the storage backends"),
		repeat: []Turn{
			{User: "Add a compact method to SqliteStore with a test.",
				Steps: []Step{edit("src/backend/sqlite.rs", "impl SqliteStore {", "impl SqliteStore {\n    pub fn compact(&self) -> Result<()> { self.conn.execute(\"VACUUM\", []).map(|_| ()) }"),
					run("cargo test", e0432, 101),
					run("cargo test --features sqlite", "test result: ok. 43 passed; 0 failed; 0 ignored", 0)},
				Final: "Added SqliteStore::compact; `cargo test --features sqlite` passes (43 tests)."},
		},
		prevent: []Turn{
			{User: "Add a compact method to SqliteStore with a test.",
				Steps: []Step{edit("src/backend/sqlite.rs", "impl SqliteStore {", "impl SqliteStore {\n    pub fn compact(&self) -> Result<()> { self.conn.execute(\"VACUUM\", []).map(|_| ()) }"),
					run("cargo test --features sqlite", "test result: ok. 43 passed; 0 failed; 0 ignored", 0)},
				Final: "Added SqliteStore::compact; `cargo test --features sqlite` passes (43 tests)."},
		},
	}
}

func terraformLesson(name string) *lesson {
	return &lesson{
		name: "terraform plan only",
		teach: []Turn{
			{User: "Bump the staging RDS instance class to db.t4g.medium.",
				Steps: []Step{edit("envs/staging/rds.tf", "instance_class = \"db.t4g.small\"", "instance_class = \"db.t4g.medium\""),
					run("terraform apply -auto-approve", "aws_db_instance.main: Modifying... [id=staging-main]\naws_db_instance.main: Modifications complete after 4m12s\n\nApply complete! Resources: 0 added, 1 changed, 0 destroyed.", 0)},
				Final: "Staging RDS now runs on db.t4g.medium."},
			{User: "never run terraform apply from your session; only terraform plan. CI applies " + name + " after review.",
				Steps: []Step{run("terraform plan -out=tfplan", "No changes. Your infrastructure matches the configuration.", 0)},
				Final: "Understood: plan only from now on. The plan shows no further changes."},
		},
		neutral: neutral(name, "README.md", "list the environments"),
		repeat: []Turn{
			{User: "Add a read replica for the staging database.",
				Steps: []Step{create("envs/staging/replica.tf", "resource \"aws_db_instance\" \"replica\" {\n  replicate_source_db = aws_db_instance.main.identifier\n}\n"),
					run("terraform apply -auto-approve", "aws_db_instance.replica: Creating...\n\nApply complete! Resources: 1 added, 0 changed, 0 destroyed.", 0)},
				Final: "The staging read replica is up."},
			{User: "You applied it again. Plan only, I told you: CI applies.",
				Steps: []Step{run("terraform plan -out=tfplan", "No changes. Your infrastructure matches the configuration.", 0)},
				Final: "Sorry; from here on I only plan."},
		},
	}
}

func deployLesson(name string) *lesson {
	creds := "aws s3 sync public/ s3://" + name + "-prod --delete\nfatal error: Unable to locate credentials. You can configure credentials by running \"aws configure\".\nmake: *** [Makefile:12: deploy] Error 1"
	return &lesson{
		name: "make deploy with the deploy profile",
		teach: []Turn{
			{User: "Deploy the site to production.",
				Steps: []Step{run("make deploy", creds, 2),
					say("The deploy needs the " + name + "-deploy AWS profile."),
					run("AWS_PROFILE="+name+"-deploy make deploy", "upload: public/index.html to s3://"+name+"-prod/index.html\nupload: public/about/index.html to s3://"+name+"-prod/about/index.html", 0)},
				Final: "Deployed with `AWS_PROFILE=" + name + "-deploy make deploy`; the default profile has no credentials."},
		},
		neutral: neutral(name, "README.md", "explain the folder layout"),
		repeat: []Turn{
			{User: "Ship the new pricing copy.",
				Steps: []Step{run("make deploy", creds, 2),
					run("AWS_PROFILE="+name+"-deploy make deploy", "upload: public/pricing/index.html to s3://"+name+"-prod/pricing/index.html", 0)},
				Final: "The pricing copy is live."},
		},
		prevent: []Turn{
			{User: "Ship the new pricing copy.",
				Steps: []Step{say("Production deploys need the " + name + "-deploy profile."),
					run("AWS_PROFILE="+name+"-deploy make deploy", "upload: public/pricing/index.html to s3://"+name+"-prod/pricing/index.html", 0)},
				Final: "The pricing copy is live."},
		},
	}
}

func jestLesson(name string) *lesson {
	esm := "FAIL src/date.test.ts\n  ● Test suite failed to run\n\n    SyntaxError: Cannot use import statement outside a module"
	return &lesson{
		name: "jest with the ESM config",
		teach: []Turn{
			{User: "Add a formatRelative helper to src/date.ts with tests.",
				Steps: []Step{edit("src/date.ts", "export function formatDate(", "export function formatRelative(d: Date, now: Date): string { return '' }\n\nexport function formatDate("),
					create("src/date.test.ts", "import { formatRelative } from './date';\n"),
					run("npx jest src/date.test.ts", esm, 1),
					say("The repo is ESM; jest needs its ESM config."),
					run("npx jest --config jest.config.mjs src/date.test.ts", "PASS src/date.test.ts\n  ✓ formats minutes (3 ms)\n\nTests: 4 passed, 4 total", 0)},
				Final: "Added formatRelative; the tests pass with `npx jest --config jest.config.mjs`."},
		},
		neutral: neutral(name, "README.md", "describe the date helpers"),
		prevent: []Turn{
			{User: "Add a formatDuration helper to src/date.ts with tests.",
				Steps: []Step{edit("src/date.ts", "export function formatDate(", "export function formatDuration(ms: number): string { return '' }\n\nexport function formatDate("),
					run("npx jest --config jest.config.mjs src/date.test.ts", "PASS src/date.test.ts\n  ✓ formats durations (2 ms)\n\nTests: 6 passed, 6 total", 0)},
				Final: "Added formatDuration; `npx jest --config jest.config.mjs` passes."},
		},
	}
}

func emojiLesson(name string) *lesson {
	return &lesson{
		name: "no emoji in commit messages",
		teach: []Turn{
			{User: "Commit the price filter work.",
				Steps: []Step{run("git add -A", "", 0), run("git commit -m \"✨ Add price filter\"", "[main 3f2a1c9] ✨ Add price filter\n 2 files changed, 48 insertions(+)", 0)},
				Final: "Committed as 3f2a1c9."},
			{User: "don't put emoji in commit messages; the release notes generator of " + name + " chokes on them.",
				Steps: []Step{run("git commit --amend -m \"Add price filter\"", "[main 8b1d0e4] Add price filter\n 2 files changed, 48 insertions(+)", 0)},
				Final: "Amended: the commit is now 8b1d0e4, \"Add price filter\"."},
		},
		neutral: neutral(name, "README.md", "explain how the changelog is generated"),
		prevent: []Turn{
			{User: "Commit the sort order fix.",
				Steps: []Step{run("git add -A", "", 0), run("git commit -m \"Fix sort order of price filter\"", "[main 41c9e07] Fix sort order of price filter\n 1 file changed, 3 insertions(+), 1 deletion(-)", 0)},
				Final: "Committed as 41c9e07."},
		},
	}
}

// fillerTopics are what the sessions between a lesson and its return work
// on; each teaches its own preference, and its own check or fix. The
// failures have nothing in common, so that none repeats another.
var fillerTopics = []struct{ topic, failure string }{
	{"header", "TypeError: Cannot read properties of undefined (reading 'href')"},
	{"footer", "ReferenceError: siteTitle is not defined"},
	{"sitemap", "Unclosed <urlset> element at line 14"},
	{"rss feed", "Duplicate guid in channel item 7"},
	{"search box", "Script search.js is 240 kB, over the 80 kB budget"},
	{"404 page", "Broken link: /blog/2025/old-post returns 404"},
	{"cookie banner", "Color contrast 3.1:1 below 4.5:1 for .cookie-text"},
	{"pricing table", "Expected 3 columns in the grid, found 4"},
	{"blog index", "Front matter key 'date' missing in blog/index.md"},
	{"tag pages", "Tag slug 'C++' contains invalid characters"},
	{"author pages", "Avatar authors/jane.jpg not found"},
	{"image gallery", "Lightbox throws on load: swipe is not a function"},
	{"contact form", "Form action rejected by CSP form-action directive"},
	{"newsletter signup", "Subscribe endpoint answered 401 Unauthorized during prerender"},
	{"changelog page", "Release 2.3.0 is listed out of order"},
	{"analytics snippet", "Tracker loads before the consent banner"},
}

func filler(name string, k int, fix bool) []Turn {
	ft := fillerTopics[k%len(fillerTopics)]
	slug := strings.ReplaceAll(ft.topic, " ", "-")
	// The project's name in the path keeps the preference and the tips
	// its own: seen in two projects, they would go to the personal layer.
	file := "src/" + name + "/partials/" + slug + ".html"
	steps := []Step{create(file, "<div class=\""+slug+"\"></div>\n")}
	final := fmt.Sprintf("Added the %s partial in %s; `npm run build -- --only %s` passes.", ft.topic, file, slug)
	if fix {
		steps = append(steps, run("npm run check -- "+slug, "✖ "+file+": "+ft.failure, 1),
			edit(file, "<div class=\""+slug+"\">", "<div class=\""+slug+"\" data-checked>"),
			run("npm run check -- "+slug, "✔ "+file+": all checks passed", 0))
		final = fmt.Sprintf("Added the %s partial; the check caught “%s”, fixed in %s.", ft.topic, ft.failure, file)
	}
	steps = append(steps, run("npm run build -- --only "+slug, "built "+file+" in 41ms", 0))
	return []Turn{
		{User: fmt.Sprintf("Build the %s component of %s. Always keep the %s markup in %s, never inline it in the page templates.", ft.topic, name, ft.topic, file),
			Steps: steps, Final: final},
	}
}
