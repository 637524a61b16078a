package cmd

// docs/json.md's examples are the real output of each command, run here
// on a fixture home with a fixed clock: they cannot drift from the typed
// result structs that produce them. MEMCTL_UPDATE=1 rewrites them.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/golden"
)

// docRootLen is the length of the fixture's root path. Sizes and token
// counts depend on path lengths, so the fixture pads its root to this
// length wherever the temporary folder is.
const docRootLen = 90

// docFixture is a home with two extracted JSONL threads, a config, a
// user home for setup, and the environment the commands see.
type docFixture struct {
	root, home, userHome, sessions string
	env                            map[string]string
}

func newDocFixture(t *testing.T) *docFixture {
	t.Helper()
	base := t.TempDir()
	if len(base) > docRootLen-10 {
		t.Skipf("temporary folder %s is longer than %d characters", base, docRootLen-10)
	}
	root := filepath.Join(base, strings.Repeat("p", docRootLen-len(base)-1))
	fx := &docFixture{root: root, home: filepath.Join(root, ".memctl"), userHome: root, sessions: filepath.Join(root, "sessions")}
	writeJSONLThreads(t, fx.sessions, 2, testNow.Add(-24*time.Hour))
	writeFile(t, filepath.Join(fx.home, "config.toml"), "[memories]\nmax_unused_days = 365\n[provider]\nkind = \"heuristic\"\n"+
		"[consolidation]\nmode = \"heuristic\"\n[[sources]]\nkind = \"jsonl\"\npath = \""+fx.sessions+"\"\n")
	fx.env = map[string]string{"HOME": fx.userHome, "MEMCTL_HOME": fx.home}
	return fx
}

// runAt runs memctl in-process with the clock at now and returns its
// stdout; it fails the test on a non-zero exit.
func (fx *docFixture) runAt(t *testing.T, now time.Time, env map[string]string, stdin string, args ...string) string {
	t.Helper()
	ios := newTestIO(false)
	ios.in.WriteString(stdin)
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return fx.env[k]
	}
	if code := run(args, ios.IOStreams, func() time.Time { return now }, getenv); code != 0 {
		t.Fatalf("memctl %s: exit %d\n%s", strings.Join(args, " "), code, ios.errOut)
	}
	return ios.out.String()
}

// normalize makes real output read as on a user's machine.
func (fx *docFixture) normalize(s string) string {
	r := strings.NewReplacer(
		fx.sessions, "/home/me/sessions",
		fx.home, "/home/me/.memctl",
		fx.root, "/home/me",
		runtime.Version(), "go1.26.0",
		`"os": "`+runtime.GOOS+`"`, `"os": "linux"`,
		`"arch": "`+runtime.GOARCH+`"`, `"arch": "amd64"`,
	)
	return r.Replace(s)
}

func TestJSONDocs(t *testing.T) {
	fx := newDocFixture(t)
	const reply = "Done.\n<oai-mem-citation>\n<citation_entries>\nMEMORY.md:1-2|note=[release steps]\n</citation_entries>\n" +
		"<rollout_ids>\n" + thread0 + "\n</rollout_ids>\n</oai-mem-citation>\n"
	// In order: each step sees the state the earlier ones left.
	review := map[string]string{"MEMCTL_CONSOLIDATION_REVIEW": "true"}
	// sync runs git: no user config, a bare remote on disk, a fixed
	// machine id.
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_SYSTEM", "/dev/null")
	remote := filepath.Join(fx.root, "memory.git")
	gitRun(t, fx.root, "init", "-q", "--bare", "-b", "main", remote)
	writeFile(t, filepath.Join(fx.home, "sync", "machine"), "laptop-3f2a9c1e\n")
	steps := []struct {
		id    string
		later time.Duration     // the clock runs this much past testNow
		env   map[string]string // more environment
		setup bool              // a step towards the next example, not one
		stdin string
		args  []string
	}{
		{id: "scan", args: []string{"scan", "--json"}},
		{id: "extract-dry-run", args: []string{"extract", "--all", "--dry-run", "--json"}},
		{id: "extract", args: []string{"extract", "--all", "--max", "1", "--concurrency", "1", "--json"}},
		{id: "prune", later: 40 * 24 * time.Hour, args: []string{"prune", "--max-unused-days", "30", "--dry-run", "--json"}},
		{id: "consolidate", args: []string{"consolidate", "--json"}},
		// A second later than the consolidation: an extraction claimed in
		// the same second may have overlapped it and would skip the cooldown.
		{id: "run", later: time.Second, args: []string{"run", "--all", "--concurrency", "1", "--json"}},
		{id: "summary", args: []string{"summary", "--raw", "--max-tokens", "60", "--json", "--project", "/src/project-1"}},
		{id: "cite", stdin: reply, args: []string{"cite", "--json"}},
		{id: "search", args: []string{"search", "flaky", "--limit", "2", "--json"}},
		{id: "threads-list", args: []string{"threads", "list", "--json"}},
		{id: "threads-show", args: []string{"threads", "show", thread0, "--json"}},
		{id: "threads-input", args: []string{"threads", "input", thread0, "--json"}},
		{id: "threads-mode", args: []string{"threads", "disable", thread1, "--json"}},
		{id: "note-add", args: []string{"note", "add", "--slug", "prefer-pnpm", "--personal", "--json", "Use pnpm, not npm."}},
		{id: "note-list", args: []string{"note", "list", "--json"}},
		{id: "consolidate-review", env: review, args: []string{"consolidate", "--force", "--json"}},
		{id: "review", env: review, args: []string{"review", "--stat", "--json"}},
		{id: "approve", env: review, args: []string{"approve", "--json"}},
		{id: "history", args: []string{"history", "--json"}},
		{id: "history-show", args: []string{"history", "show", "2", "--stat", "--json"}},
		{id: "rollback", args: []string{"rollback", "1", "--json"}},
		{id: "memories-list", args: []string{"memories", "list", "--json"}},
		{id: "memories-show", args: []string{"memories", "show", thread0, "--json"}},
		{id: "memories-pin", args: []string{"memories", "pin", thread0, "--json"}},
		{id: "memories-forget", args: []string{"memories", "forget", thread1, "--json"}},
		{setup: true, later: time.Second, args: []string{"note", "add", "--slug", "use-make", "--project", "/src/project-0", "Run make lint before pushing."}},
		{setup: true, env: review, args: []string{"consolidate", "--force"}},
		{id: "reject", env: review, args: []string{"reject", "--json"}},
		{id: "status", args: []string{"status", "--json"}},
		{id: "doctor", args: []string{"doctor", "--json"}},
		{id: "config-init", args: []string{"--config", filepath.Join(fx.root, "new.toml"), "config", "init", "--json"}},
		{id: "config-path", args: []string{"config", "path", "--json"}},
		{id: "config-show", args: []string{"config", "show", "--json"}},
		{id: "version", args: []string{"version", "--json"}},
		{id: "setup", args: []string{"setup", "codex", "--memctl", "/usr/local/bin/memctl", "--json"}},
		{id: "setup-undo", args: []string{"setup", "--undo", "codex", "--json"}},
		{id: "export", args: []string{"export", "--json", "-o", filepath.Join(fx.root, "memory.jsonl")}},
		{id: "import", args: []string{"import", "--json", filepath.Join(fx.root, "memory.jsonl")}},
		{id: "sync", args: []string{"sync", "--json", "--remote", remote}},
		{id: "clear", args: []string{"clear", "--dry-run", "--json"}},
		{id: "demo", args: []string{"demo", "--dir", filepath.Join(fx.root, "demo"), "--json"}},
		// A fixed --dir keeps the memory folder's path, and with it the
		// tokens injected, the same in every run.
		{id: "eval", args: []string{"eval", "--source", "jsonl=" + writeEvalSessions(t, filepath.Join(fx.root, "eval-sessions")),
			"--dir", filepath.Join(fx.root, "eval-home"), "--json"}},
	}
	// Where each time-like key appears as unix seconds, and as a string.
	asUnix, asString := map[string][]string{}, map[string][]string{}
	for _, st := range steps {
		out := fx.normalize(fx.runAt(t, testNow.Add(st.later), st.env, st.stdin, st.args...))
		if st.setup {
			continue
		}
		doc, err := parseOrdered(out)
		if err != nil {
			t.Fatalf("%s: %v\n%s", st.id, err, out)
		}
		for _, k := range timeKeys(doc, true) {
			asUnix[k] = appendOnce(asUnix[k], st.id)
		}
		for _, k := range timeKeys(doc, false) {
			asString[k] = appendOnce(asString[k], st.id)
		}
		var b strings.Builder
		b.WriteString("```json\n")
		renderExample(&b, doc, 0, "")
		b.WriteString("\n```\n")
		golden.Section(t, "../docs/json.md", "<!-- json:"+st.id+" -->", "<!-- /json:"+st.id+" -->", b.String())
	}
	keys := make([]string, 0, len(asUnix))
	for k := range asUnix {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		p := fmt.Sprintf("`%s` (%s", k, strings.Join(asUnix[k], ", "))
		if s := asString[k]; len(s) > 0 {
			p += fmt.Sprintf("; but an RFC 3339 string in %s", strings.Join(s, ", "))
		}
		parts = append(parts, p+")")
	}
	golden.Section(t, "../docs/json.md", "<!-- json:unix-fields -->", "<!-- /json:unix-fields -->",
		"Times are RFC 3339 UTC strings, except these integers, which count unix seconds: "+strings.Join(parts, "; ")+".\n")
}

// timeKeys names the time-like keys (named *_at, or a watermark) anywhere
// in a document whose values are integers (unix) or strings (!unix).
func timeKeys(v any, unix bool) []string {
	var out []string
	switch x := v.(type) {
	case *orderedObject:
		for _, kv := range x.fields {
			if strings.HasSuffix(kv.key, "_at") || kv.key == "watermark" {
				_, isNum := kv.value.(json.Number)
				_, isString := kv.value.(string)
				if (unix && isNum) || (!unix && isString) {
					out = append(out, kv.key)
				}
			}
			out = append(out, timeKeys(kv.value, unix)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, timeKeys(e, unix)...)
		}
	}
	return out
}

func appendOnce(s []string, v string) []string {
	for _, e := range s {
		if e == v {
			return s
		}
	}
	return append(s, v)
}

// orderedObject is a JSON object with its keys in document order.
type orderedObject struct {
	fields []orderedField
}

type orderedField struct {
	key   string
	value any
}

// parseOrdered decodes one JSON document, keeping object key order.
func parseOrdered(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON document")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch d := tok.(type) {
	case json.Delim:
		switch d {
		case '{':
			obj := &orderedObject{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				obj.fields = append(obj.fields, orderedField{key: k.(string), value: v})
			}
			_, err := dec.Token()
			return obj, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
	}
	return tok, nil
}

// renderExample writes v as readable JSON: short objects and arrays of
// scalars on one line, long strings cut, arrays of objects shown by their
// first element, and a document's "versions" (the same fields again, one
// object per version) elided.
func renderExample(b *strings.Builder, v any, indent int, key string) {
	pad := strings.Repeat("  ", indent)
	switch x := v.(type) {
	case *orderedObject:
		if len(x.fields) == 0 {
			b.WriteString("{}")
			return
		}
		if line := oneLine(x); line != "" {
			b.WriteString(line)
			return
		}
		b.WriteString("{\n")
		for i, f := range x.fields {
			fmt.Fprintf(b, "%s  %s: ", pad, scalar(f.key))
			renderExample(b, f.value, indent+1, f.key)
			if i < len(x.fields)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(pad + "}")
	case []any:
		switch {
		case len(x) == 0:
			b.WriteString("[]")
		case key == "versions" && !isScalar(x[0]):
			// run's and status's versions repeat the document per version;
			// memories pin|forget's is a plain list of names, shown as is.
			b.WriteString("[{…one object per generated version, with the fields above…}]")
		case !isScalar(x[0]):
			b.WriteString("[\n" + pad + "  ")
			renderExample(b, x[0], indent+1, "")
			if len(x) > 1 {
				fmt.Fprintf(b, ",\n%s  …%d more", pad, len(x)-1)
			}
			b.WriteString("\n" + pad + "]")
		default:
			var parts []string
			for _, e := range x {
				parts = append(parts, scalar(e))
			}
			b.WriteString("[" + strings.Join(parts, ", ") + "]")
		}
	default:
		b.WriteString(scalar(v))
	}
}

// oneLine renders an object of scalars on one line when it is short.
func oneLine(o *orderedObject) string {
	var parts []string
	for _, f := range o.fields {
		if !isScalar(f.value) {
			if arr, ok := f.value.([]any); !ok || len(arr) > 0 {
				return ""
			}
		}
		val := "[]"
		if isScalar(f.value) {
			val = scalar(f.value)
		}
		parts = append(parts, scalar(f.key)+": "+val)
	}
	line := "{" + strings.Join(parts, ", ") + "}"
	if len(line) > 120 {
		return ""
	}
	return line
}

func isScalar(v any) bool {
	switch v.(type) {
	case *orderedObject, []any:
		return false
	}
	return true
}

// scalar renders a scalar as JSON, cutting long strings.
func scalar(v any) string {
	if s, ok := v.(string); ok {
		if r := []rune(s); len(r) > 72 {
			s = string(r[:71]) + "…"
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		return strings.TrimSuffix(buf.String(), "\n")
	}
	if v == nil {
		return "null"
	}
	return fmt.Sprint(v)
}
