package regret

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/sessions"
)

func TestIsCorrection(t *testing.T) {
	tests := []struct {
		text          string
		afterQuestion bool
		want          bool
	}{
		{"no, use pnpm, not npm", false, true},
		{"I told you before: this repo uses pnpm", false, true},
		{"don't run migrations yourself", false, true},
		{"Stop. You ran the migration again.", false, true},
		{"why did you delete the fixtures?", false, true},
		{"From now on always run go test with -race, not plain go test", false, true},
		{"use docker compose instead of docker-compose", false, true},
		{"actually, the config lives in ~/.config/app", false, true},
		// Not corrections: thanks, a new request, a question, an answer.
		{"no worries, thanks", false, false},
		{"great, now add a test for the parser", false, false},
		{"what does the retry policy do?", false, false},
		{"no", true, false},
		{"no, just the code", true, false},
		{"no, and don't touch the lockfile", true, true},
		{"I never said that was wrong", false, false},
	}
	for _, tt := range tests {
		if got := isCorrection(tt.text, tt.afterQuestion); got != tt.want {
			t.Errorf("isCorrection(%q, question=%v) = %v, want %v", tt.text, tt.afterQuestion, got, tt.want)
		}
	}
}

func TestReadCommand(t *testing.T) {
	tests := []struct{ line, key, norm string }{
		{"npm install lodash-es", "npm install", "npm install lodash-es"},
		{"cd /srv/app && pnpm add zod@3", "pnpm add", "pnpm add zod@3"},
		{"AWS_PROFILE=site make deploy", "make deploy", "AWS_PROFILE=site make deploy"},
		{"uv run pytest -q", "uv run pytest", "uv run pytest -q"},
		{"pytest -q", "pytest", "pytest -q"},
		{"bin/rails db:migrate", "rails db:migrate", "bin/rails db:migrate"},
		{"python -m pytest tests", "python -m pytest", "python -m pytest tests"},
		{"npx jest --config jest.config.mjs src", "npx jest", "npx jest --config jest.config.mjs src"},
		{"docker compose logs worker", "docker compose logs", "docker compose logs worker"},
		{"psql -h localhost -p 5433 -U app", "psql", "psql -h localhost -p 5433 -U app"},
		{"rm package-lock.json && pnpm install", "pnpm install", "pnpm install"},
		{"rm -rf node_modules", "rm", "rm -rf node_modules"},
		{"sudo -n systemctl restart nginx", "systemctl restart", "sudo -n systemctl restart nginx"},
		{"echo done", "", ""},
	}
	for _, tt := range tests {
		c := readCommand(tt.line)
		if c.key != tt.key || c.norm != tt.norm {
			t.Errorf("readCommand(%q) = key %q norm %q, want %q %q", tt.line, c.key, c.norm, tt.key, tt.norm)
		}
	}
	if !readCommand("grep -rn TODO src").looksAround() || !readCommand("git status").looksAround() || readCommand("git push").looksAround() {
		t.Error("looksAround: a search and git status only look; git push does not")
	}
}

func TestErrorLine(t *testing.T) {
	out := "Chunk ID: 1\nProcess exited with code 1\nOutput:\ncompiling...\nerror[E0432]: unresolved import `crate::db`\n --> src/lib.rs:4:5\nbuild stopped"
	if got := errorLine("", out); got != "error[E0432]: unresolved import `crate::db`" {
		t.Errorf("errorLine = %q", got)
	}
	if got := errorLine("", "first\nlast words"); got != "last words" {
		t.Errorf("errorLine without a marker = %q, want the last line", got)
	}
}

// Each class follows from three facts about a return.
func TestDecide(t *testing.T) {
	tests := []struct {
		repeated, extracted, given bool
		want                       Class
	}{
		{false, true, true, ClassPrevented},
		{false, false, false, ClassUnaided},
		{false, true, false, ClassUnaided},
		{true, false, false, ClassExtractionMiss},
		{true, true, false, ClassRankingMiss},
		{true, true, true, ClassComplianceMiss},
	}
	for _, tt := range tests {
		if got := decide(tt.repeated, tt.extracted, tt.given); got != tt.want {
			t.Errorf("decide(repeated %v, extracted %v, given %v) = %s, want %s", tt.repeated, tt.extracted, tt.given, got, tt.want)
		}
	}
}

func TestSparkline(t *testing.T) {
	if got := Sparkline([]int{0, 1, 4, 8, 0}); got != "▁▂▅█▁" {
		t.Errorf("Sparkline = %q", got)
	}
	if got := Sparkline([]int{0, 0}); got != "▁▁" {
		t.Errorf("Sparkline of zeros = %q", got)
	}
}

// session builds a session of one project from events.
func testSession(id string, start time.Time, events ...sessions.Event) *session {
	s := &session{id: id, projectKey: "path:/p", projectName: "p", start: start, end: start.Add(time.Minute)}
	r := newReader(s)
	for i, e := range events {
		e.Line = i + 1
		r.event(e)
	}
	r.failures()
	return s
}

func human(text string) sessions.Event { return sessions.Event{Kind: sessions.EventHuman, Text: text} }

func shell(id, cmd string, ok bool, out string) []sessions.Event {
	outcome := sessions.OutcomeOK
	if !ok {
		outcome = sessions.OutcomeFailed
	}
	return []sessions.Event{
		{Kind: sessions.EventToolCall, CallID: id, Action: sessions.ActionShell, Command: cmd},
		{Kind: sessions.EventToolResult, CallID: id, Outcome: outcome, Output: out},
	}
}

func events(parts ...any) []sessions.Event {
	var out []sessions.Event
	for _, p := range parts {
		switch v := p.(type) {
		case sessions.Event:
			out = append(out, v)
		case []sessions.Event:
			out = append(out, v...)
		}
	}
	return out
}

// A lesson, a later session with the same mistake, one with the same need
// done right, and one where the same command fails for another reason.
func TestGroupFindsRepeatsAndNeeds(t *testing.T) {
	day := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	lesson := testSession("s1", day, events(
		human("publish the package"),
		shell("c1", "npm publish", false, "npm ERR! 402 Payment Required - You must sign up for private packages"),
		shell("c2", "npm publish --access public", true, "+ @acme/ui@1.0.0"),
	)...)
	repeat := testSession("s2", day.Add(48*time.Hour), events(
		human("release 1.1.0"),
		shell("c1", "npm publish", false, "npm ERR! 402 Payment Required - You must sign up for private packages"),
		shell("c2", "npm publish --access public", true, "+ @acme/ui@1.1.0"),
	)...)
	right := testSession("s3", day.Add(96*time.Hour), events(
		human("release 1.2.0"),
		shell("c1", "npm publish --access public", true, "+ @acme/ui@1.2.0"),
	)...)
	other := testSession("s4", day.Add(144*time.Hour), events(
		human("release 1.2.0 again"),
		shell("c1", "npm publish --access public", false, "npm ERR! 403 Forbidden - You cannot publish over the previously published versions: 1.2.0"),
		sessions.Event{Kind: sessions.EventFileChange, FilePath: "package.json", FileOp: "update"},
		shell("c2", "npm publish --access public", true, "+ @acme/ui@1.2.1"),
	)...)
	all := []*session{lesson, repeat, right, other}
	describe(all)
	topics := group(all)
	var publish *topic
	for _, tp := range topics {
		if tp.lesson.session == lesson {
			publish = tp
		}
	}
	if publish == nil {
		t.Fatalf("no topic for the lesson; topics: %d", len(topics))
	}
	got := map[string]bool{}
	for _, r := range publish.returns {
		got[r.session.id] = r.repeated
	}
	if rep, ok := got["s2"]; !ok || !rep {
		t.Errorf("s2 repeats the 402: returns %v", got)
	}
	if rep, ok := got["s3"]; !ok || rep {
		t.Errorf("s3 meets the same need without the mistake: returns %v", got)
	}
	if got["s4"] {
		t.Errorf("s4's 403 is another failure of the same command, not a repeat: returns %v", got)
	}
}

// A correction that names the program it replaces makes running that
// program again the mistake again, even when nobody says so.
func TestGroupFindsASilentRerun(t *testing.T) {
	day := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	lesson := testSession("s1", day, events(
		human("add zod"),
		shell("c1", "npm install zod", true, "added 1 package"),
		human("no, use pnpm, not npm: this is a pnpm workspace"),
		shell("c2", "pnpm add zod", true, "+ zod 3.24.1"),
	)...)
	again := testSession("s2", day.Add(48*time.Hour), events(
		human("add lodash"),
		shell("c1", "npm install lodash", true, "added 1 package"),
	)...)
	all := []*session{lesson, again}
	describe(all)
	topics := group(all)
	if len(topics) != 1 || len(topics[0].returns) != 1 || !topics[0].returns[0].repeated || topics[0].returns[0].action != "npm install lodash" {
		t.Fatalf("topics: %+v", topics)
	}
}

// Transcript text in the report can carry escape sequences and tabs: the
// report quotes it redacted, on one line, without control characters.
func TestQuoteIsPrintable(t *testing.T) {
	o := &Options{Redact: func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED]") }}
	got := o.quote("no,\x1b[31m use\tpnpm\x07\nthe password is hunter2", 300)
	if want := "no, [31m use pnpm the password is [REDACTED]"; got != want {
		t.Errorf("quote = %q, want %q", got, want)
	}
}

// A failure that a setup step fixed is a lesson, paired as the offline
// extractor pairs it (program.Pairer): the same command passed with
// `docker compose up -d db` run between, nothing else changed. The next
// session that meets the same refusal repeats the mistake; the lesson's
// fix terms name the setup step, so only a memory that says it carries
// the lesson. The same command passing again with nothing between is
// flaky, no lesson.
func TestSetupStepFixIsALesson(t *testing.T) {
	day := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	refused := "--- FAIL: TestStore (0.01s)\n    store_test.go:21: dial tcp 127.0.0.1:5432: connect: connection refused\nFAIL\tacme/store\t0.02s"
	lesson := testSession("s1", day, events(
		human("run the store tests"),
		shell("c1", "go test ./internal/store/...", false, refused),
		shell("c2", "docker ps", true, "CONTAINER ID   IMAGE   STATUS"),
		shell("c3", "docker compose up -d db", true, " ✔ Container store-db-1  Started"),
		shell("c4", "go test ./internal/store/...", true, "ok  \tacme/store\t0.41s"),
	)...)
	repeat := testSession("s2", day.Add(48*time.Hour), events(
		human("add an index on orders.created_at and run the store tests"),
		sessions.Event{Kind: sessions.EventFileChange, FilePath: "internal/store/schema.sql", FileOp: "update"},
		shell("c1", "go test ./internal/store/...", false, refused),
		shell("c2", "docker compose up -d db", true, " ✔ Container store-db-1  Started"),
		shell("c3", "go test ./internal/store/...", true, "ok  \tacme/store\t0.44s"),
	)...)
	flaky := testSession("s3", day.Add(96*time.Hour), events(
		human("run the store tests"),
		shell("c1", "go test ./internal/store/...", false, "--- FAIL: TestClock (0.00s)\n    clock_test.go:9: tick came late"),
		shell("c2", "go test ./internal/store/...", true, "ok  \tacme/store\t0.40s"),
	)...)
	if n := len(lesson.incidents); n != 1 || !lesson.incidents[0].lesson() {
		t.Fatalf("lesson session: %d incidents %+v, want one fixed failure", n, lesson.incidents)
	}
	in := lesson.incidents[0]
	if want := []string{"docker compose up -d db"}; !slices.Equal(in.setup, want) || in.good.norm != "go test ./internal/store/..." {
		t.Errorf("setup %q, fixed by %q; want %q, the same go test", in.setup, in.good.norm, want)
	}
	if len(flaky.incidents) != 0 {
		t.Errorf("a failure passing on an identical rerun with nothing between is no lesson: %+v", flaky.incidents[0])
	}
	all := []*session{lesson, repeat, flaky}
	describe(all)
	if !in.fixTerms()["docker"] {
		t.Errorf("fix terms %v: the setup step is what a memory must say", in.fixTerms())
	}
	fix := "- Fix: `go test ./internal/store/...` failed (`store_test.go:21: dial tcp 127.0.0.1:5432: connect: connection refused`) and passed on a rerun; between the failure and the pass: ran `docker compose up -d db`."
	if !mentions(fix, in) || mentions("- Check: `go test ./internal/store/...` passed.", in) {
		t.Errorf("mentions: the Fix line carries the lesson, a bare check does not (terms %v)", in.top.terms)
	}
	var store *topic
	for _, tp := range group(all) {
		if tp.lesson == in {
			store = tp
		}
	}
	if store == nil || len(store.returns) == 0 || store.returns[0].session != repeat || !store.returns[0].repeated {
		t.Fatalf("the refusal in s2 repeats the lesson of s1: topic %+v", store)
	}
}

// A probe that failed before a setup step and passed rewritten after it
// ("import xgboost as xgb") is a lesson too: the pairing takes the rewrite
// for the same work when it keeps every word of the failed probe. A probe
// of another module is other work, and the failure no lesson.
func TestProbeFixedBySetupIsALesson(t *testing.T) {
	day := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	noLib := "xgboost.core.XGBoostError: XGBoost Library (libxgboost.dylib) could not be loaded: Library not loaded: @rpath/libomp.dylib"
	fixed := testSession("s1", day, events(
		human("rank the results with xgboost"),
		shell("c1", "python -c 'import xgboost; print(xgboost.__version__)'", false, noLib),
		shell("c2", "brew install libomp", true, "==> Pouring libomp--19.1.7.arm64_sonoma.bottle.tar.gz"),
		shell("c3", "uv run python -c 'import xgboost as xgb; print(xgb.__version__)'", true, "2.1.3"),
	)...)
	if n := len(fixed.incidents); n != 1 || !fixed.incidents[0].lesson() ||
		!slices.Equal(fixed.incidents[0].setup, []string{"brew install libomp"}) {
		t.Fatalf("%d incidents %+v, want one failure fixed after brew install libomp", n, fixed.incidents)
	}
	other := testSession("s2", day, events(
		human("rank the results with xgboost"),
		shell("c1", "python -c 'import xgboost; print(xgboost.__version__)'", false, noLib),
		shell("c2", "pip install pandas", true, "Successfully installed pandas-2.2.3"),
		shell("c3", "python -c 'import pandas; print(pandas.__version__)'", true, "2.2.3"),
	)...)
	if n := len(other.incidents); n != 1 || other.incidents[0].lesson() {
		t.Fatalf("%d incidents %+v, want the xgboost probe's failure open, no lesson", n, other.incidents)
	}
}

// A failure whose rerun fails with another error was ended by what ran between: the install is the first
// error's lesson, the edit the second's, never one lesson crediting the edit with both.
func TestChangedErrorIsItsOwnLesson(t *testing.T) {
	day := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	s := testSession("s1", day, events(
		human("make the api tests pass"),
		shell("c1", "pytest tests/test_api.py", false, "E   ModuleNotFoundError: No module named 'httpx'"),
		shell("c2", "pip install httpx", true, "Successfully installed httpx-0.27.0"),
		shell("c3", "pytest tests/test_api.py", false, "E   AssertionError: assert 422 == 200"),
		sessions.Event{Kind: sessions.EventFileChange, FilePath: "app/schemas.py", FileOp: "update"},
		shell("c4", "pytest tests/test_api.py", true, "3 passed in 0.28s"),
	)...)
	if n := len(s.incidents); n != 2 || !s.incidents[0].lesson() || !s.incidents[1].lesson() {
		t.Fatalf("%d incidents %+v, want two fixed failures", n, s.incidents)
	}
	first, second := s.incidents[0], s.incidents[1]
	if !slices.Equal(first.setup, []string{"pip install httpx"}) || len(first.files) != 0 {
		t.Errorf("first failure: setup %q, files %q; want the install alone", first.setup, first.files)
	}
	if len(second.setup) != 0 || !slices.Equal(second.files, []string{"schemas.py"}) {
		t.Errorf("second failure: setup %q, files %q; want the edit alone", second.setup, second.files)
	}
}
