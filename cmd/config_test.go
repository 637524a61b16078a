package cmd

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewConfigCmds(t *testing.T) {
	ios := newTestIO(false)
	f := newTestFactory(t, ios.IOStreams, nil)
	var initOpts *ConfigInitOptions
	if err := execCmd(t, f, newConfigInitCmd(f, func(_ context.Context, o *ConfigInitOptions) error { initOpts = o; return nil }),
		[]string{"config"}, "--force", "--json"); err != nil || !initOpts.Force || !initOpts.JSON {
		t.Errorf("init: %+v %v", initOpts, err)
	}
	var showOpts *ConfigShowOptions
	if err := execCmd(t, f, newConfigShowCmd(f, func(_ context.Context, o *ConfigShowOptions) error { showOpts = o; return nil }),
		[]string{"config"}); err != nil || showOpts == nil {
		t.Errorf("show: %v", err)
	}
	err := execCmd(t, f, newConfigPathCmd(f, nil), []string{"config"}, "extra")
	wantError(t, err, `memctl config path takes no arguments, got "extra"`)
}

func TestRunConfigInit(t *testing.T) {
	ios := newTestIO(false)
	f := newTestFactory(t, ios.IOStreams, nil)
	path, _, _ := f.ConfigPath()
	opts := &ConfigInitOptions{IO: ios.IOStreams, ConfigPath: f.ConfigPath}
	if err := runConfigInit(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if got := ios.errOut.String(); got != "wrote "+path+"\n" {
		t.Errorf("stderr %q", got)
	}
	err := runConfigInit(context.Background(), opts)
	wantError(t, err, path+" already exists")
	ios.errOut.Reset()
	if code := report(ios.IOStreams, false, err); code != ExitError || !strings.Contains(ios.errOut.String(), "memctl: hint: use --force to overwrite it\n") {
		t.Errorf("exit %d, stderr %q", code, ios.errOut)
	}
	opts.Force, opts.JSON = true, true
	ios.out.Reset()
	if err := runConfigInit(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if got := compactJSON(t, ios.out.String()); got != `{"path":"`+path+`"}` {
		t.Errorf("json %s", got)
	}
}

func TestRunConfigShow(t *testing.T) {
	for _, tt := range []struct {
		name, want string
		tty        bool
	}{
		{name: "piped: tab-separated", want: "memories.version\t\"v2\"\tenv\nmemories.dual_write\tfalse\tdefault\n"},
		{name: "terminal: a header", tty: true,
			want: "\x1b[1mKEY                                          VALUE      FROM\x1b[22m\n" +
				"memories.version                             \"v2\"       env\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := newTestFactory(t, ios.IOStreams, map[string]string{"MEMCTL_MEMORIES_VERSION": "v2"})
			writeConfig(t, f, "[memories]\nmax_unused_days = 14\n")
			opts := &ConfigShowOptions{IO: ios.IOStreams, Config: f.Config, ConfigPath: f.ConfigPath}
			if err := runConfigShow(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			out := ios.out.String()
			if !strings.HasPrefix(out, tt.want) {
				t.Errorf("stdout starts:\n%q\nwant:\n%q", out[:min(len(out), 300)], tt.want)
			}
			if !strings.Contains(out, "memories.max_unused_days") || !strings.Contains(out, "14") {
				t.Errorf("the file's value is missing:\n%s", out)
			}
		})
	}
}

func TestRunConfigPath(t *testing.T) {
	ios := newTestIO(false)
	f := newTestFactory(t, ios.IOStreams, nil)
	path, _, _ := f.ConfigPath()
	opts := &ConfigPathOptions{IO: ios.IOStreams, ConfigPath: f.ConfigPath}
	if err := runConfigPath(context.Background(), opts); err != nil || ios.out.String() != path+"\n" {
		t.Errorf("stdout %q, %v", ios.out, err)
	}
	ios.out.Reset()
	opts.JSON = true
	if err := runConfigPath(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if got := compactJSON(t, ios.out.String()); got != `{"path":"`+path+`","exists":false,"explicit":false}` {
		t.Errorf("json %s", got)
	}
	if filepath.Base(path) != "config.toml" {
		t.Errorf("path %s", path)
	}
}

// `config show` listed the configured [[sources]] (or nothing),
// not the sources scan reads, and said nothing of the default folders a
// [[sources]] block stops reading.
func TestRunConfigShowSources(t *testing.T) {
	for _, tt := range []struct {
		name, config, wantRow, wantErrOut string
	}{
		{name: "no [[sources]]: the default folders found", wantRow: "sources\t[claude-code:HOME/.claude/projects]\tdefault\n"},
		{name: "[[sources]]: resolved, and the default folder left out said",
			config:  "[[sources]]\nkind = \"jsonl\"\npath = \"~/logs\"\n",
			wantRow: "sources\t[jsonl:HOME/logs]\tfile\n",
			wantErrOut: "memctl: hint: HOME/.claude/projects is not read: [[sources]] in CFG replaces the default folders " +
				"(an entry with kind = \"claude-code\" and no path reads it too)\n"},
		{name: "a kind without a path: its default folder",
			config:  "[[sources]]\nkind = \"claude-code\"\n",
			wantRow: "sources\t[claude-code:HOME/.claude/projects]\tfile\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			home, _ := f.UserHome()
			cfgPath, _, _ := f.ConfigPath()
			writeFile(t, filepath.Join(home, ".claude", "projects", "-src-x", "s.jsonl"), "")
			if tt.config != "" {
				writeConfig(t, f, tt.config)
			}
			opts := &ConfigShowOptions{IO: ios.IOStreams, Config: f.Config, ConfigPath: f.ConfigPath, Sources: f.Sources, UnreadDefaults: f.UnreadDefaults}
			if err := runConfigShow(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			clean := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, cfgPath, "CFG"), home, "HOME") }
			if out := clean(ios.out.String()); !strings.HasSuffix(out, tt.wantRow) {
				t.Errorf("stdout ends:\n%q\nwant:\n%q", out[max(0, len(out)-200):], tt.wantRow)
			}
			if got := clean(ios.errOut.String()); got != tt.wantErrOut {
				t.Errorf("stderr:\n%q\nwant:\n%q", got, tt.wantErrOut)
			}
		})
	}
}

// `config show` printed each [[projects]] entry as
// ":PATH", the format of a source without its kind, leaving out the key
// and the name the entry sets.
func TestRunConfigShowProjects(t *testing.T) {
	ios := newTestIO(false)
	f := newTestFactory(t, ios.IOStreams, nil)
	home, _ := f.UserHome()
	writeConfig(t, f, "[[projects]]\npath = \"~/src/mono/billing\"\nkey = \"acme-billing\"\nname = \"billing\"\n"+
		"[[projects]]\npath = \"~/src/app\"\nname = \"App (legacy checkout)\"\n")
	opts := &ConfigShowOptions{IO: ios.IOStreams, Config: f.Config, ConfigPath: f.ConfigPath}
	if err := runConfigShow(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	want := "projects\t[HOME/src/mono/billing: key=acme-billing name=\"billing\", HOME/src/app: name=\"App (legacy checkout)\"]\tfile\n"
	if out := strings.ReplaceAll(ios.out.String(), home, "HOME"); !strings.Contains(out, want) {
		t.Errorf("stdout:\n%s\nwant the row:\n%q", out, want)
	}
}

// TestConfigClampsAreReported: a value out of range is
// clamped as Codex clamps it, but never silently: a warning names the
// key, the value, where it came from and what is used, and config show
// marks it clamped.
func TestConfigClampsAreReported(t *testing.T) {
	for _, tt := range []struct {
		name, wantOut string
		tty, json     bool
	}{
		{name: "piped", wantOut: "memories.max_unused_days\t365\tfile, clamped from 1000\n"},
		{name: "terminal", tty: true, wantOut: "memories.max_unused_days                     365        file, clamped from 1000\n"},
		{name: "json", json: true, wantOut: `{"key":"memories.max_unused_days","value":365,"origin":"file","env":"MEMCTL_MEMORIES_MAX_UNUSED_DAYS","clamped_from":1000}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(tt.tty)
			f := newTestFactory(t, ios.IOStreams, nil)
			writeConfig(t, f, "[memories]\nmax_unused_days = 1000\n")
			path, _, _ := f.ConfigPath()
			opts := &ConfigShowOptions{IO: ios.IOStreams, Config: f.Config, ConfigPath: f.ConfigPath, JSON: tt.json}
			if err := runConfigShow(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			want := "memctl: warning: memories.max_unused_days = 1000 (" + path + ") is out of range [0, 365]; using 365\n"
			if got := ios.errOut.String(); got != want {
				t.Errorf("stderr %q, want %q", got, want)
			}
			out := ios.out.String()
			if tt.json {
				var doc configShowJSON
				if err := json.Unmarshal([]byte(out), &doc); err != nil {
					t.Fatal(err)
				}
				for _, e := range doc.Entries {
					if e.Key == "memories.max_unused_days" {
						b, _ := json.Marshal(e)
						out = string(b) + "\n"
					}
				}
				out = strings.TrimSuffix(out, "\n")
			}
			if !strings.Contains(out, tt.wantOut) {
				t.Errorf("stdout lacks %q:\n%s", tt.wantOut, out)
			}
		})
	}
	t.Run("from the environment", func(t *testing.T) {
		ios := newTestIO(false)
		f := newTestFactory(t, ios.IOStreams, map[string]string{"MEMCTL_EXTRACT_CONCURRENCY": "500"})
		if _, err := f.Config(); err != nil {
			t.Fatal(err)
		}
		want := "memctl: warning: extract.concurrency = 500 (MEMCTL_EXTRACT_CONCURRENCY) is out of range [1, 64]; using 64\n"
		if got := ios.errOut.String(); got != want {
			t.Errorf("stderr %q, want %q", got, want)
		}
	})
}

// TestUnknownMemctlVariables: a misspelt MEMCTL_ variable
// was ignored without a word; it is named, with the likely intended one.
// The test suites' own switches (MEMCTL_FULL, …) are left alone.
func TestUnknownMemctlVariables(t *testing.T) {
	ios := newTestIO(false)
	f := newTestFactory(t, ios.IOStreams, nil)
	f.Environ = func() []string {
		return []string{"PATH=/bin", "MEMCTL_MEMORIES_MAX_UNUSED_DAYZ=3", "MEMCTL_HOEM=/x", "MEMCTL_PROVIDER_MODEL=gpt",
			"MEMCTL_FULL=1", "MEMCTL_TEST_AS_CLI=1", "MEMCTL_MEMORIES_VERSION=v1", "MEMCTL_HOME=/y"}
	}
	if _, err := f.Config(); err != nil {
		t.Fatal(err)
	}
	want := "memctl: warning: MEMCTL_MEMORIES_MAX_UNUSED_DAYZ is not a variable memctl reads; did you mean MEMCTL_MEMORIES_MAX_UNUSED_DAYS?\n" +
		"memctl: warning: MEMCTL_HOEM is not a variable memctl reads; did you mean MEMCTL_HOME?\n" +
		"memctl: warning: MEMCTL_PROVIDER_MODEL is not a variable memctl reads (see memctl help environment)\n"
	if got := ios.errOut.String(); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}
}
