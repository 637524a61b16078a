package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	c := Default()
	if c.Memories.Version != "v1" || c.Memories.DualWrite || !c.Memories.GenerateMemories || !c.Memories.UseMemories {
		t.Fatalf("memories defaults: %+v", c.Memories)
	}
	want := map[string]int{
		"max_raw": 256, "unused": 30, "age": 10, "per_startup": 2, "idle": 6, "rate": 25,
	}
	got := map[string]int{
		"max_raw": c.Memories.MaxRawMemoriesForConsolidation, "unused": c.Memories.MaxUnusedDays,
		"age": c.Memories.MaxRolloutAgeDays, "per_startup": c.Memories.MaxRolloutsPerStartup,
		"idle": c.Memories.MinRolloutIdleHours, "rate": c.Memories.MinRateLimitRemainingPercent,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d", k, got[k], v)
		}
	}
	if c.Provider.Kind != "auto" || c.Provider.Timeout != 10*time.Minute || c.Provider.MaxRetries != 4 {
		t.Errorf("provider defaults: %+v", c.Provider)
	}
	if c.Consolidation.Mode != "auto" || c.Consolidation.AgentTimeout != 30*time.Minute {
		t.Errorf("consolidation defaults: %+v", c.Consolidation)
	}
	if c.TokenLimit() != 150000 {
		t.Errorf("token limit = %d", c.TokenLimit())
	}
	for _, e := range c.Entries() {
		if e.Origin != FromDefault {
			t.Errorf("%s origin %s", e.Key, e.Origin)
		}
	}
}

func TestEmptyFileIsValid(t *testing.T) {
	c, err := Parse(strings.NewReader(""), "empty.toml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Memories.MaxUnusedDays != 30 {
		t.Fatal("defaults lost")
	}
}

func TestDefaultFileParsesToDefaults(t *testing.T) {
	c, err := Parse(strings.NewReader(DefaultFile()), "init.toml")
	if err != nil {
		t.Fatalf("generated default file does not parse: %v\n%s", err, DefaultFile())
	}
	d := Default()
	for i, e := range c.Entries() {
		de := d.Entries()[i]
		if strings.TrimSpace(tomlValue(e.Value)) != strings.TrimSpace(tomlValue(de.Value)) {
			t.Errorf("%s: %v != default %v", e.Key, e.Value, de.Value)
		}
		// config init writes every key commented out: a key the
		// file set would freeze today's default and show as set in the file.
		if e.Origin != FromDefault {
			t.Errorf("%s: the generated file sets it (origin %s); it must stay commented out", e.Key, e.Origin)
		}
	}
}

func TestClamps(t *testing.T) {
	// Codex's clamps (codex-memories.md section 2).
	tests := []struct {
		toml string
		get  func(*Config) int
		want int
	}{
		{"[memories]\nmax_raw_memories_for_consolidation = 0", func(c *Config) int { return c.Memories.MaxRawMemoriesForConsolidation }, 1},
		{"[memories]\nmax_raw_memories_for_consolidation = 99999", func(c *Config) int { return c.Memories.MaxRawMemoriesForConsolidation }, 4096},
		{"[memories]\nmax_unused_days = -5", func(c *Config) int { return c.Memories.MaxUnusedDays }, 0},
		{"[memories]\nmax_unused_days = 1000", func(c *Config) int { return c.Memories.MaxUnusedDays }, 365},
		{"[memories]\nmax_rollout_age_days = 91", func(c *Config) int { return c.Memories.MaxRolloutAgeDays }, 90},
		{"[memories]\nmax_rollouts_per_startup = 0", func(c *Config) int { return c.Memories.MaxRolloutsPerStartup }, 1},
		{"[memories]\nmax_rollouts_per_startup = 500", func(c *Config) int { return c.Memories.MaxRolloutsPerStartup }, 128},
		{"[memories]\nmin_rollout_idle_hours = 0", func(c *Config) int { return c.Memories.MinRolloutIdleHours }, 1},
		{"[memories]\nmin_rollout_idle_hours = 49", func(c *Config) int { return c.Memories.MinRolloutIdleHours }, 48},
		{"[memories]\nmin_rate_limit_remaining_percent = 101", func(c *Config) int { return c.Memories.MinRateLimitRemainingPercent }, 100},
		{"[memories]\nmin_rate_limit_remaining_percent = -1", func(c *Config) int { return c.Memories.MinRateLimitRemainingPercent }, 0},
	}
	for _, tt := range tests {
		c, err := Parse(strings.NewReader(tt.toml), "c.toml")
		if err != nil {
			t.Fatalf("%q: %v", tt.toml, err)
		}
		if got := tt.get(c); got != tt.want {
			t.Errorf("%q: got %d, want %d", tt.toml, got, tt.want)
		}
	}
}

func TestStrictness(t *testing.T) {
	tests := []struct {
		name, toml, key string
		line            int
	}{
		{"typo in key", "[memories]\nversion = \"v1\"\nmax_unused_dayz = 3\n", "memories.max_unused_dayz", 3},
		{"unknown section", "[memory]\nversion = \"v1\"\n", "memory", 1},
		{"wrong type", "[memories]\n\nmax_unused_days = \"thirty\"\n", "memories.max_unused_days", 3},
		{"bad enum", "[memories]\nversion = \"v3\"\n", "memories.version", 2},
		{"bad provider", "[provider]\nkind = \"gpt\"\n", "provider.kind", 2},
		{"bad duration", "[provider]\ntimeout = \"soon\"\n", "provider.timeout", 2},
		{"bad source kind", "[[sources]]\nkind = \"aider\"\npath = \"/x\"\n", "sources[0].kind", 0},
		{"jsonl source without a path", "[[sources]]\nkind = \"codex\"\n[[sources]]\nkind = \"jsonl\"\n", "sources[1].path", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.toml), "bad.toml")
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("want *config.Error, got %v", err)
			}
			if ce.Key != tt.key {
				t.Errorf("key = %q, want %q (%v)", ce.Key, tt.key, err)
			}
			if ce.Line != tt.line {
				t.Errorf("line = %d, want %d (%v)", ce.Line, tt.line, err)
			}
			if !strings.Contains(err.Error(), "bad.toml") || !strings.Contains(err.Error(), tt.key) {
				t.Errorf("message %q does not name file and key", err)
			}
		})
	}
}

func TestPrecedence(t *testing.T) {
	c, err := Parse(strings.NewReader("[memories]\nversion = \"v2\"\nmax_unused_days = 7\nmax_rollout_age_days = 5\n"), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MEMCTL_MEMORIES_MAX_UNUSED_DAYS": "9", "MEMCTL_MEMORIES_MAX_ROLLOUT_AGE_DAYS": "6"}
	if err := c.ApplyEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if err := c.Set("memories.max_rollout_age_days", 8, FromFlag); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		key    string
		val    int
		origin Origin
	}{
		{"memories.max_unused_days", 9, FromEnv},
		{"memories.max_rollout_age_days", 8, FromFlag},
		{"memories.max_rollouts_per_startup", 2, FromDefault},
	}
	vals := map[string]int{
		"memories.max_unused_days":          c.Memories.MaxUnusedDays,
		"memories.max_rollout_age_days":     c.Memories.MaxRolloutAgeDays,
		"memories.max_rollouts_per_startup": c.Memories.MaxRolloutsPerStartup,
	}
	for _, ch := range checks {
		if vals[ch.key] != ch.val || c.Origin(ch.key) != ch.origin {
			t.Errorf("%s = %d from %s, want %d from %s", ch.key, vals[ch.key], c.Origin(ch.key), ch.val, ch.origin)
		}
	}
	if c.Memories.Version != "v2" || c.Origin("memories.version") != FromFile {
		t.Errorf("file value lost: %s %s", c.Memories.Version, c.Origin("memories.version"))
	}
	if err := c.ApplyEnv(func(k string) string {
		if k == "MEMCTL_MEMORIES_VERSION" {
			return "v9"
		}
		return ""
	}); err == nil || !strings.Contains(err.Error(), "MEMCTL_MEMORIES_VERSION") {
		t.Errorf("bad env value error = %v", err)
	}
}

func TestLoadMissing(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "none.toml"), false); err != nil {
		t.Errorf("missing default config: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "none.toml"), true); err == nil {
		t.Error("missing explicit config accepted")
	}
	if _, err := Load(dir, true); err == nil {
		t.Error("directory accepted as config")
	}
	if os.Geteuid() != 0 {
		p := filepath.Join(dir, "unreadable.toml")
		os.WriteFile(p, []byte(""), 0o000)
		if _, err := Load(p, false); err == nil {
			t.Error("unreadable config accepted")
		}
	}
}

func TestSourcesAndArrays(t *testing.T) {
	c, err := Parse(strings.NewReader(`
[provider]
kind = "command"
command = ["llm", "--json"]
[redaction]
extra_patterns = ["ACME-[0-9]+"]
[[sources]]
kind = "codex"
path = "~/.codex/sessions"
[[sources]]
kind = "jsonl"
path = "/var/log/agent"
`), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sources) != 2 || c.Sources[1].Kind != "jsonl" || c.Origin("sources") != FromFile {
		t.Errorf("sources = %+v", c.Sources)
	}
	if strings.Join(c.Provider.Command, " ") != "llm --json" || c.Redaction.ExtraPatterns[0] != "ACME-[0-9]+" {
		t.Errorf("arrays: %+v %+v", c.Provider, c.Redaction)
	}
	if got := ExpandHome("~/.codex/sessions", "/home/u"); got != "/home/u/.codex/sessions" {
		t.Errorf("ExpandHome = %s", got)
	}
}

func TestVersionsAndTokenLimit(t *testing.T) {
	c := Default()
	if v := c.Versions(); len(v) != 1 || v[0] != "v1" {
		t.Errorf("versions = %v", v)
	}
	c.Memories.DualWrite = true
	if v := c.Versions(); len(v) != 2 {
		t.Errorf("dual write versions = %v", v)
	}
	c.Provider.ContextWindow = 200000
	if got := c.TokenLimit(); got != 133000 {
		t.Errorf("token limit for 200k window = %d, want 133000", got)
	}
	c.Extract.TokenLimit = 5000
	if got := c.TokenLimit(); got != 5000 {
		t.Errorf("explicit token limit = %d", got)
	}
}

// A codex or claude-code source without a path is that agent's
// default folder, so that a config can add a source and keep the defaults.
func TestSourceWithoutPathIsTheDefaultFolder(t *testing.T) {
	c, err := Parse(strings.NewReader("[[sources]]\nkind = \"codex\"\n[[sources]]\nkind = \"claude-code\"\n[[sources]]\nkind = \"jsonl\"\npath = \"~/logs\"\n"), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sources) != 3 || c.Sources[0] != (Source{Kind: "codex"}) || c.Sources[1] != (Source{Kind: "claude-code"}) {
		t.Errorf("sources = %+v", c.Sources)
	}
	_, err = Parse(strings.NewReader("[[sources]]\nkind = \"jsonl\"\n"), "c.toml")
	if err == nil || !strings.Contains(err.Error(), "a jsonl source has no default folder") {
		t.Errorf("jsonl without a path: %v", err)
	}
}

func TestProjectsOverrides(t *testing.T) {
	c, err := Parse(strings.NewReader("[[projects]]\npath = \"~/src/mono\"\nname = \"Monorepo\"\n[[projects]]\npath = \"/srv/billing\"\nkey = \"acme-billing\"\n"), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	c.ExpandProjectPaths("/home/u")
	ov := c.ProjectOverrides()
	if len(ov) != 2 || ov[0].Path != "/home/u/src/mono" || ov[0].Name != "Monorepo" || ov[1].Key != "acme-billing" || c.Origin("projects") != FromFile {
		t.Errorf("overrides %+v, origin %s", ov, c.Origin("projects"))
	}
	for _, tt := range []struct{ file, want string }{
		{"[[projects]]\nname = \"x\"\n", `key "projects[0].path": must not be empty`},
		{"[[projects]]\npath = \"src/x\"\nname = \"x\"\n", `"src/x" is not an absolute path`},
		{"[[projects]]\npath = \"/x\"\n", `key "projects[0].name": set name, key or both`},
		{"[[projects]]\npath = \"/x\"\nnmae = \"x\"\n", `unknown key`},
	} {
		_, err := Parse(strings.NewReader(tt.file), "c.toml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.file, err, tt.want)
		}
	}
}

// EnvName names every key's variable as the upper case of the key with
// its dots made underscores, as it always has.
func TestEnvNameOfEveryKey(t *testing.T) {
	for _, name := range []string{"memories.use_memories", "redaction.extra_patterns", "health.stale_budget", "memories.version", "ünïcode.key"} {
		want := "MEMCTL_" + strings.ToUpper(strings.ReplaceAll(name, ".", "_"))
		if got := EnvName(name); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", name, got, want)
		}
	}
	for _, k := range keys() {
		want := "MEMCTL_" + strings.ToUpper(strings.ReplaceAll(k.name, ".", "_"))
		if got := EnvName(k.name); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", k.name, got, want)
		}
	}
}
